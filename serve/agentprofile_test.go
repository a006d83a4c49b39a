package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"svc/pipeline/httpsig"
	"svc/pipeline/inbox"
	"svc/pipeline/leaderboard"
)

// TestUCPProfileServed: GET /.well-known/ucp answers svc's platform
// profile, the pipeline's bytes, under the hosting rules of the UCP
// overview ("Profile Requirements": 200 without a redirect, Cache-Control
// public with max-age >= 60 and no private/no-store/no-cache, an ETag),
// 304 on If-None-Match, HEAD without a body. It answers without any
// snapshot, and a file a snapshot published at that path does not replace
// it (the profile belongs to the binary, not the data).
func TestUCPProfileServed(t *testing.T) {
	for _, withTree := range []bool{false, true} {
		dir := t.TempDir()
		if withTree {
			writeTree(t, dir, "2026-11-23", map[string]string{".well-known/ucp": `{"ucp":{"version":"1999-01-01"}}`})
		}
		ts := newTestServer(t, Config{DataDir: dir})
		if resp, _ := ts.get(t, "/data/latest/manifest.json"); withTree != (resp.StatusCode == http.StatusOK) {
			t.Fatalf("tree %v: the snapshot's manifest answers %d", withTree, resp.StatusCode)
		}
		// The key the pipeline signs with, from the state the server keeps.
		key, err := leaderboard.LoadAgentKey(context.Background(), "", filepath.Join(dir, "state"))
		if err != nil {
			t.Fatal(err)
		}
		resp, body := ts.get(t, "/.well-known/ucp")
		if resp.StatusCode != http.StatusOK || body != string(leaderboard.PlatformProfileWithKeys(key.PublicJWK())) {
			t.Fatalf("tree %v: status %d, body %.200s", withTree, resp.StatusCode, body)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		cc := resp.Header.Get("Cache-Control")
		m := regexp.MustCompile(`(?:^|,\s*)max-age=(\d+)`).FindStringSubmatch(cc)
		if m == nil || !regexp.MustCompile(`(^|,\s*)public(,|$)`).MatchString(cc) || regexp.MustCompile(`private|no-store|no-cache`).MatchString(cc) {
			t.Errorf("Cache-Control %q: want public with max-age", cc)
		} else if n, _ := strconv.Atoi(m[1]); n < 60 {
			t.Errorf("Cache-Control %q: max-age below 60", cc)
		}
		etag := resp.Header.Get("ETag")
		if etag == "" {
			t.Fatal("no ETag")
		}
		var doc struct {
			UCP struct {
				Version string `json:"version"`
			} `json:"ucp"`
		}
		if json.Unmarshal([]byte(body), &doc) != nil || doc.UCP.Version != leaderboard.UCPVersions[0] {
			t.Errorf("ucp.version %q, want %q", doc.UCP.Version, leaderboard.UCPVersions[0])
		}
		if resp, _ := ts.get(t, "/.well-known/ucp", "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match: status %d, want 304", resp.StatusCode)
		}
		req, _ := http.NewRequest(http.MethodHead, ts.ts.URL+"/.well-known/ucp", nil)
		hr, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		hr.Body.Close()
		if hr.StatusCode != http.StatusOK || hr.Header.Get("ETag") != etag {
			t.Errorf("HEAD: %d, ETag %q", hr.StatusCode, hr.Header.Get("ETag"))
		}
		if resp, _ := ts.get(t, "/.well-known/ucp/"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("/.well-known/ucp/: %d, want 404 (no redirect)", resp.StatusCode)
		}
	}
}

// TestUCPProfileKey: the profile publishes svc's signing key, the public
// part only: the state's key, created on the first start and the same on
// the next (so the pipeline's signatures keep verifying), or the key of
// Config.AgentKey (--agent-key) when one is given.
func TestUCPProfileKey(t *testing.T) {
	dir := t.TempDir()
	profileKeys := func(ts *testServer) []map[string]any {
		t.Helper()
		_, body := ts.get(t, "/.well-known/ucp")
		var doc struct {
			Keys []map[string]any `json:"keys"`
		}
		if err := json.Unmarshal([]byte(body), &doc); err != nil || len(doc.Keys) != 1 {
			t.Fatalf("keys of %.300s: %v", body, err)
		}
		for _, m := range []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"} {
			if _, ok := doc.Keys[0][m]; ok {
				t.Fatalf("the profile publishes %q: %v", m, doc.Keys[0])
			}
		}
		return doc.Keys
	}
	s1, err := New(Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ts1 := &testServer{Server: s1, ts: httptest.NewServer(s1.Handler()), dir: dir}
	first := profileKeys(ts1)
	ts1.ts.Close()
	s1.Close()
	fi, err := os.Stat(filepath.Join(dir, "state", inbox.AgentKeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the state's key file: %v %v, want mode 0600", fi, err)
	}
	again := profileKeys(newTestServer(t, Config{DataDir: dir}))
	if first[0]["kid"] != again[0]["kid"] || first[0]["x"] != again[0]["x"] {
		t.Errorf("the key changed across restarts: %v then %v", first[0], again[0])
	}
	own, err := httpsig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	got := profileKeys(newTestServer(t, Config{DataDir: dir, AgentKey: own}))
	if got[0]["kid"] != own.KeyID() || got[0]["x"] != own.PublicJWK().X {
		t.Errorf("Config.AgentKey: the profile publishes %v, want %s", got[0], own.KeyID())
	}
}

// TestUCPProfileOpenAPIExample keeps the description's example the
// document served: a change to the profile shows up in openapi.json. The
// example's key is an example (each server publishes its own); it must
// have the shape svc publishes: an ES256 public JWK whose kid is its
// RFC 7638 thumbprint.
func TestUCPProfileOpenAPIExample(t *testing.T) {
	var doc struct {
		Paths map[string]struct {
			Get struct {
				Responses map[string]struct {
					Content map[string]struct {
						Example json.RawMessage `json:"example"`
					} `json:"content"`
				} `json:"responses"`
			} `json:"get"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openapiJSON, &doc); err != nil {
		t.Fatal(err)
	}
	ex := doc.Paths["/.well-known/ucp"].Get.Responses["200"].Content["application/json"].Example
	var got, want map[string]any
	if json.Unmarshal(ex, &got) != nil || json.Unmarshal(leaderboard.PlatformProfile(), &want) != nil {
		t.Fatalf("example %s", ex)
	}
	keys, _ := got["keys"].([]any)
	delete(got, "keys")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("openapi.json example differs from the served profile (-served +example):\n%s", diff)
	}
	if len(keys) != 1 {
		t.Fatalf("the example publishes %d keys, want svc's one", len(keys))
	}
	k, _ := keys[0].(map[string]any)
	str := func(name string) string { s, _ := k[name].(string); return s }
	tp, err := httpsig.Thumbprint(map[string]string{"kty": str("kty"), "crv": str("crv"), "x": str("x"), "y": str("y")})
	if err != nil || str("kid") != tp || str("kty") != "EC" || str("crv") != "P-256" || str("alg") != "ES256" || str("use") != "sig" || len(k) != 7 {
		t.Errorf("the example's key %v: want an ES256 public JWK with its thumbprint %s as kid (%v)", k, tp, err)
	}
}
