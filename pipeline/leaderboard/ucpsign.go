package leaderboard

import (
	"net/http"
	"time"

	"svc/pipeline/fetch"
	"svc/pipeline/httpsig"
)

// Signing the UCP path's requests (UCP Message Signatures,
// docs/specification/signatures.md of github.com/Universal-Commerce-
// Protocol/ucp; RFC 9421; RFC 9530).
//
// When: every request to a shopping binding, REST and MCP alike (MCP's
// streamable HTTP carries the same signature, signatures.md "MCP
// Transport"), whenever svc holds a key. The specification says platforms
// SHOULD sign all requests when they use HTTP Message Signatures ("When
// Signatures Apply"), and a business profile has no field that says it
// demands them, so signing only after a signature_missing answer would
// need a second, retried state-changing request; signing from the first
// request needs neither. The business profile and the public catalog are
// plain reads of public documents, not UCP operations, and go unsigned.
//
// What: the components the specification names (sign_rest_request, and
// the coverage verifiers enforce, overview "Identity Resolution Algorithm"
// step 5): @method, @authority, @path (@query when there is one),
// ucp-agent, idempotency-key when sent, and content-digest with
// content-type for a body; parameters created and keyid only (no alg: the
// verifier derives ES256 from the key's kty and crv; no tag: UCP defines
// none, and web-bot-auth is for dual-audience signatures svc does not
// make); label sig1. created is the wall clock's, not RunOptions.Now: the
// business compares it with its own clock.
//
// The step log says once that the binding's requests are signed and with
// which key id; no signature, digest or key material enters it.

// signNote is what the sign_requests step says.
func signNote(k *httpsig.Key) string {
	return "requests to the binding are signed (RFC 9421 " + httpsig.Label + ", ES256) with key " + k.KeyID()
}

// sign signs a request about to be sent when the run holds a key; h must
// hold every header the request sends. An error means the request cannot
// be signed as UCP asks (it is then not sent).
func (r *ucpRun) sign(method, rawURL string, h http.Header, body []byte) error {
	if r.key == nil {
		return nil
	}
	u, err := fetch.ParseURL(rawURL)
	if err != nil {
		return err
	}
	return r.key.SignRequest(method, u, h, body, time.Now())
}
