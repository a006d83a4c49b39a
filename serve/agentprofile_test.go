package serve

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

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
		resp, body := ts.get(t, "/.well-known/ucp")
		if resp.StatusCode != http.StatusOK || body != string(leaderboard.PlatformProfile()) {
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

// TestUCPProfileOpenAPIExample keeps the description's example the
// document served: a change to the profile shows up in openapi.json.
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
	var got, want any
	if json.Unmarshal(ex, &got) != nil || json.Unmarshal(leaderboard.PlatformProfile(), &want) != nil {
		t.Fatalf("example %s", ex)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("openapi.json example differs from the served profile (-served +example):\n%s", diff)
	}
}
