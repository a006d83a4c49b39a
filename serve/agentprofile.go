package serve

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"svc/pipeline/httpsig"
	"svc/pipeline/inbox"
	"svc/pipeline/leaderboard"
)

// svc's own UCP platform profile (issue 21) is the document the pipeline's
// UCP path names in UCP-Agent. It is built by the binary, not read from a
// snapshot: it describes what svc's agent speaks and the key it signs
// with, not the data, so no published snapshot changes for it and the
// answer is the same with --data DIR or s3://. The key is svc's signing
// key (Config.AgentKey, else the one kept in the server's state, created
// there on first use): the same key the pipeline signs with when it shares
// the state (--state) or the key file (--agent-key).

// newProfileFile builds the profile file publishing key's public JWK.
func newProfileFile(key *httpsig.Key) *file {
	return newBareFile("ucp.json", leaderboard.PlatformProfileWithKeys(key.PublicJWK()))
}

// agentKey is the key the profile publishes: cfg's, else the state's.
func agentKey(cfg Config, st inbox.Inbox) (*httpsig.Key, error) {
	if cfg.AgentKey != nil {
		return cfg.AgentKey, nil
	}
	ks, ok := st.(inbox.KeyStore)
	if !ok {
		return nil, fmt.Errorf("agent key: the state %T keeps no key", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return leaderboard.AgentKeyFrom(ctx, ks)
}

// ucpProfile serves GET /.well-known/ucp with its ETag (304 on a match).
// UCP overview "Profile Requirements", Hosting: no redirect, Cache-Control
// public with max-age of at least 60 seconds, a validator (ETag).
func (s *Server) ucpProfile(w http.ResponseWriter, r *http.Request) error {
	return serveFile(w, r, s.profile, cacheFiveMinutes)
}
