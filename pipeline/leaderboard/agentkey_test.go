package leaderboard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svc/pipeline/httpsig"
	"svc/pipeline/inbox"
)

// TestLoadAgentKey: without a key file the key comes from the state
// folder, created once and the same on every load, and the same key the
// server's open inbox reads; a key file (PEM or JWK) takes its place; a
// file that is not one key is refused without quoting it.
func TestLoadAgentKey(t *testing.T) {
	ctx := context.Background()
	state := filepath.Join(t.TempDir(), "state")
	a, err := LoadAgentKey(ctx, "", state)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadAgentKey(ctx, "", state)
	if err != nil || b.KeyID() != a.KeyID() {
		t.Fatalf("second load: %v %v, want the key %s", b, err, a.KeyID())
	}
	l, err := inbox.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s, err := AgentKeyFrom(ctx, l)
	if err != nil || s.KeyID() != a.KeyID() {
		t.Fatalf("the server's state reads %v %v, want %s", s, err, a.KeyID())
	}

	own, _ := httpsig.GenerateKey()
	pemBytes, _ := own.MarshalPEM()
	dir := t.TempDir()
	file := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(file, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := LoadAgentKey(ctx, file, state)
	if err != nil || f.KeyID() != own.KeyID() {
		t.Fatalf("--agent-key file: %v %v", f, err)
	}
	for name, body := range map[string]string{
		"public key":  `{"kty":"EC","crv":"P-256","x":"` + own.PublicJWK().X + `","y":"` + own.PublicJWK().Y + `"}`,
		"not a key":   "hunter2 hunter2",
		"far too big": strings.Repeat("A", maxAgentKeyFile+1),
	} {
		p := filepath.Join(dir, "bad")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := LoadAgentKey(ctx, p, state)
		if err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), own.PublicJWK().X) {
			t.Errorf("%s: the error quotes the file: %v", name, err)
		}
	}
	if _, err := LoadAgentKey(ctx, filepath.Join(dir, "missing.pem"), state); err == nil {
		t.Error("a missing key file: no error")
	}
}
