package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svc/publish"
)

// TestStorePageShowsWhatTheShopperSaw: a store with published shopper
// evidence shows, on its page, each shopper's outcome, its steps and its
// screenshot, served from /data/shop/ (the screenshot cached for good,
// the evidence briefly); a store without evidence shows no such section.
func TestStorePageShowsWhatTheShopperSaw(t *testing.T) {
	f := sharedReadFixture(t)
	dir := t.TempDir()
	f.writeTreeTo(t, dir)
	host, other := f.world.Stores[0].Host, f.world.Stores[1].Host
	shot := []byte("\xff\xd8\xff\xe0 a small jpeg \xff\xd9")
	sum := sha256.Sum256(shot)
	sha := hex.EncodeToString(sum[:])
	ev := publish.ShopEvidence{Host: host, RunID: "r1", Note: "n", StoppedBeforePayment: true, Shoppers: []publish.ShopperSeen{{
		Shopper: "A", Label: "Browser shopper A", Outcome: "checkout_reached", Reason: "checkout_page_loaded",
		At: time.Date(2026, 11, 21, 7, 0, 0, 0, time.UTC), Seconds: 3.2, Steps: 2,
		Log: []publish.ShopStep{{N: 1, Action: "open", Title: "Home", URL: "https://" + host + "/"},
			{N: 2, Action: "click", Role: "button", Name: "Check out", URL: "https://" + host + "/(checkout page: address withheld)"}},
		Screenshot: &publish.ShopScreenshot{Path: publish.ShopScreenshotPath(sha), SHA256: sha, Bytes: len(shot)},
	}}}
	body, _ := json.Marshal(ev)
	for p, b := range map[string][]byte{publish.ShopEvidencePath(host): body, publish.ShopScreenshotPath(sha): shot} {
		full := filepath.Join(dir, "public", filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts := f.newServer(t, Config{DataDir: dir})

	resp, page := ts.get(t, "/stores/"+host+"/")
	if resp.StatusCode != 200 {
		t.Fatalf("store page: %d", resp.StatusCode)
	}
	for _, want := range []string{"What the shopper saw", "Browser shopper A", "Checkout reached", "checkout_page_loaded",
		"click button “Check out”", "(checkout page: address withheld)", `src="/` + publish.ShopScreenshotPath(sha) + `"`,
		`href="/` + publish.ShopEvidencePath(host) + `"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the store page lacks %q", want)
		}
	}
	if _, page := ts.get(t, "/stores/"+other+"/"); strings.Contains(page, "What the shopper saw") {
		t.Errorf("%s has no evidence but shows a shopper section", other)
	}
	resp, got := ts.get(t, "/"+publish.ShopScreenshotPath(sha))
	if resp.StatusCode != 200 || got != string(shot) || resp.Header.Get("Content-Type") != "image/jpeg" || resp.Header.Get("Cache-Control") != cacheImmutable {
		t.Errorf("screenshot: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
	}
	resp, got = ts.get(t, "/"+publish.ShopEvidencePath(host))
	if resp.StatusCode != 200 || got != string(body) || resp.Header.Get("Cache-Control") != cacheShort {
		t.Errorf("evidence: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	conforms(t, openapiSchema(t, "ShopEvidence"), "the evidence file", got)
}
