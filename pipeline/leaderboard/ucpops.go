// The UCP path's operations over the binding it chose: catalog, cart and
// checkout, the checkout read back and cancelled, never completed; the
// answers and error codes it reads, and the operations it never performs.

package leaderboard

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// ucpForbidden are the operations the path never performs.
var ucpForbidden = []string{"complete_checkout", "complete"}

// ucpCodeRE is the shape of a UCP error or message code; anything else a
// store sends is not copied into a log.
var ucpCodeRE = regexp.MustCompile(`^[a-z][a-z0-9_.]{0,63}$`)

// ucpAnswer is one operation's answer, binding-independent.
type ucpAnswer struct {
	status  int            // HTTP status; 0 when none came
	rpc     string         // JSON-RPC outcome of an MCP call
	body    map[string]any // the UCP object (REST body, MCP structuredContent)
	codes   []string       // UCP codes of errors and messages
	failure string         // no answer: timeout, unreachable, not_ucp, unsigned (not sent)
}

// ok reports a successful operation: an answer that is no error, and no
// error response envelope (ucp.status "error": checkout rest.md "Error
// Response").
func (a ucpAnswer) ok() bool {
	if a.failure != "" || a.status >= 400 || a.rpc != "" && a.rpc != "result" || a.body == nil {
		return false
	}
	env, _ := a.body["ucp"].(map[string]any)
	st, _ := env["status"].(string)
	return st != "error"
}

// ucpDriver performs an operation over one binding. id is the session of
// get, update and cancel.
type ucpDriver interface {
	do(ctx context.Context, op, id string, arg map[string]any) ucpAnswer
	offers(op string) bool
}

// shop drives catalog → cart → checkout over d and stops.
func (r *ucpRun) shop(ctx context.Context, d ucpDriver, caps map[string]bool, origin string) PathResult {
	item, currency := "", ""
	if caps[capCatalogSearch] && d.offers("search_catalog") {
		a := d.do(ctx, "search_catalog", "", map[string]any{"query": "", "pagination": map[string]any{"limit": 10}})
		if res, stop := r.failed(a, "ucp_catalog_failed"); stop {
			return res
		}
		item = itemFromCatalog(a.body)
		if item == "" {
			return r.end(OutcomeNoCart, "ucp_catalog_empty")
		}
	} else {
		item = r.publicCatalogItem(ctx, origin)
		if item == "" {
			item, currency = r.storefrontItem(ctx, origin)
		}
		if item == "" {
			return r.end(OutcomeNoCart, "ucp_no_product_source")
		}
	}
	line := []any{map[string]any{"item": map[string]any{"id": item}, "quantity": 1}}
	checkout := map[string]any{"line_items": line}
	if r.version == "2026-01-11" {
		// 2026-01-11 shopping/checkout.json: a create request requires
		// currency and payment (from 2026-01-23 the business sets the
		// currency and payment is optional). payment is sent empty: no
		// instrument, no credential.
		if currency == "" {
			currency = "USD"
		}
		checkout["currency"] = currency
		checkout["payment"] = map[string]any{}
	}
	if caps[capCart] && d.offers("create_cart") {
		a := d.do(ctx, "create_cart", "", map[string]any{"line_items": line})
		if res, stop := r.failed(a, "ucp_cart_failed"); stop {
			return res
		}
		cartID, _ := a.body["id"].(string)
		if cartID == "" {
			return r.end(OutcomeNoCart, "ucp_cart_failed")
		}
		if d.offers("get_cart") {
			d.do(ctx, "get_cart", cartID, nil)
		}
		// cart index.md: checkout is initialized from the cart by cart_id
		// when the cart capability is advertised.
		checkout = map[string]any{"cart_id": cartID}
	}
	a := d.do(ctx, "create_checkout", "", checkout)
	if res, stop := r.failed(a, "ucp_checkout_refused"); stop {
		return res
	}
	id, _ := a.body["id"].(string)
	if id == "" {
		return r.end(OutcomeNoCart, "ucp_checkout_refused")
	}
	d.do(ctx, "get_checkout", id, nil)
	if d.offers("cancel_checkout") {
		d.do(ctx, "cancel_checkout", id, nil)
	}
	return r.end(OutcomeCheckoutReached, "ucp_checkout_created")
}

// failed maps an operation that did not succeed to the path's end; stop
// is false when it succeeded.
func (r *ucpRun) failed(a ucpAnswer, refused string) (PathResult, bool) {
	if a.ok() {
		return PathResult{}, false
	}
	has := func(codes ...string) bool {
		for _, c := range codes {
			if slices.Contains(a.codes, c) {
				return true
			}
		}
		return false
	}
	switch {
	case a.failure == "timeout":
		return r.end(OutcomeError, "ucp_binding_timeout"), true
	case a.failure == "unsigned":
		return r.end(OutcomeError, "ucp_signing_failed"), true
	case a.failure != "":
		return r.end(OutcomeNoCart, "ucp_binding_unreachable"), true
	case has("version_unsupported"):
		return r.end(OutcomeNoCart, "ucp_version_unsupported"), true
	case has("signature_missing"):
		// Message Signatures (signatures.md): the business wants a
		// signature and svc sent none (no signing key was configured).
		return r.end(OutcomeNoCart, "ucp_signature_required"), true
	case has("signature_invalid", "key_not_found", "algorithm_unsupported", "digest_mismatch"):
		// svc signed, and the business did not accept it: the key is not
		// the one the profile svc named publishes, or it does not verify.
		return r.end(OutcomeNoCart, "ucp_signature_rejected"), true
	case has("identity_required", "insufficient_scope"), a.status == http.StatusUnauthorized, a.status == http.StatusForbidden:
		// Identity linking: svc links no buyer account.
		return r.end(OutcomeNoCart, "ucp_buyer_auth_required"), true
	case has("invalid_profile_url", "profile_unreachable", "profile_malformed"):
		return r.end(OutcomeNoCart, "ucp_agent_profile_refused"), true
	case a.status == http.StatusTooManyRequests:
		return r.end(OutcomeBlocked, "throttled"), true
	case a.status == http.StatusNotFound && len(r.log) > 0 && r.firstOp():
		return r.end(OutcomeNoCart, "ucp_binding_unreachable"), true
	}
	return r.end(OutcomeNoCart, refused), true
}

// firstOp reports whether the last step was the binding's first operation
// (a 404 there means the declared binding is not served).
func (r *ucpRun) firstOp() bool {
	return r.ops <= 1
}

// uuid4 is a random RFC 4122 version 4 UUID, for Request-Id and
// Idempotency-Key (rest.openapi.json: both format uuid).
func uuid4() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// codesOf collects the UCP codes of an answer: a protocol error's code,
// error.data.code, and the codes of messages (never their text).
func codesOf(v map[string]any) []string {
	var out []string
	addCode := func(c any) {
		if s, _ := c.(string); ucpCodeRE.MatchString(s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if v == nil {
		return nil
	}
	addCode(v["code"])
	msgs, _ := v["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		addCode(mm["code"])
	}
	sort.Strings(out)
	return out
}

func forbidden(op string) bool {
	return slices.Contains(ucpForbidden, op) || strings.HasSuffix(op, "/complete")
}

// errForbidden is what a driver returns for an operation the path never
// performs; reaching it is a bug the tests look for.
var errForbidden = errors.New("ucp path: operation not allowed")
