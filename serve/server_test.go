package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
	"svc/publish"
)

// writeTree writes a minimal published tree: one version with a manifest,
// data/latest pointing at it, and the given precomputed files.
func writeTree(t testing.TB, dir, version string, files map[string]string) {
	t.Helper()
	pub := filepath.Join(dir, "public")
	vdir := filepath.Join(pub, "data", version)
	os.MkdirAll(vdir, 0o755)
	table := "host\nshop.example\n"
	os.WriteFile(filepath.Join(vdir, "stores.csv"), []byte(table), 0o644)
	sum := sha256.Sum256([]byte(table))
	manifest := fmt.Sprintf(`{"version":%q,"files":[{"path":"stores.csv","sha256":%q}]}`, version, hex.EncodeToString(sum[:]))
	os.WriteFile(filepath.Join(vdir, "manifest.json"), []byte(manifest), 0o644)
	latest := filepath.Join(pub, "data", "latest")
	os.Remove(latest)
	if err := os.Symlink(version, latest); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(pub, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
}

type testServer struct {
	*Server
	ts  *httptest.Server
	dir string
}

func newTestServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return &testServer{Server: s, ts: ts, dir: cfg.DataDir}
}

func (ts *testServer) get(t *testing.T, path string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.ts.URL+path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func errorCode(t *testing.T, body string) string {
	t.Helper()
	var e ErrorBody
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("not the error body: %q", body)
	}
	return e.Error.Code
}

func sha(body string) string {
	s := sha256.Sum256([]byte(body))
	return `"` + hex.EncodeToString(s[:]) + `"`
}

func TestPrecomputedReadsAndHeaders(t *testing.T) {
	dir := t.TempDir()
	weekly := `{"schema":"svc-weekly-agent-checkout/1","date":"2026-11-16"}`
	writeTree(t, dir, "2026-11-16", map[string]string{
		publish.AdoptionPath:                   `{"asOf":"2026-11-16T03:04:05Z","available":true}`,
		publish.ProtocolsPath:                  `{"rows":[]}`,
		publish.LeaderboardPath:                `{"paths":[]}`,
		publish.LeaderboardStoresPath:          `{"stores":[]}`,
		publish.LeaderboardCSVPath:             "path,n\n",
		publish.LeaderboardStoresCSVPath:       "id,host\n",
		publish.WeeklyLatest:                   weekly,
		publish.WeeklyDir + "/2026-11-16.json": weekly,
	})
	ts := newTestServer(t, Config{DataDir: dir})

	resp, body := ts.get(t, "/api/weekly/agent-checkout.json")
	if resp.StatusCode != 200 || body != weekly {
		t.Fatalf("weekly: %d %q", resp.StatusCode, body)
	}
	if got := resp.Header.Get("ETag"); got != sha(weekly) {
		t.Errorf("weekly ETag %s, want the sha256 of the body %s", got, sha(weekly))
	}
	if got := resp.Header.Get("Cache-Control"); got != "public, max-age=3600, stale-while-revalidate=86400" {
		t.Errorf("weekly Cache-Control %q", got)
	}
	if resp.Header.Get("Set-Cookie") != "" {
		t.Error("weekly sets a cookie")
	}
	resp, body = ts.get(t, "/api/weekly/agent-checkout.json", "If-None-Match", sha(weekly))
	if resp.StatusCode != 304 || body != "" {
		t.Errorf("If-None-Match: %d %q, want 304 and no body", resp.StatusCode, body)
	}
	resp, _ = ts.get(t, "/api/weekly/agent-checkout/2026-11-16.json")
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || resp.Header.Get("ETag") != sha(weekly) {
		t.Errorf("edition: %d %v", resp.StatusCode, resp.Header)
	}
	for _, p := range []string{"/api/weekly/agent-checkout/2026-11-09.json", "/api/weekly/agent-checkout/latest", "/api/weekly/agent-checkout/..%2f..%2fetc"} {
		resp, body = ts.get(t, p)
		if resp.StatusCode != 404 || errorCode(t, body) != "not_found" {
			t.Errorf("%s: %d %s, want 404", p, resp.StatusCode, body)
		}
	}
	resp, _ = ts.get(t, "/api/agent-checkout/adoption")
	if got := resp.Header.Get("X-Svc-Data-As-Of"); got != "2026-11-16T03:04:05Z" {
		t.Errorf("x-svc-data-as-of = %q", got)
	}
	for path, want := range map[string]string{
		"/api/protocols":              "public, max-age=300",
		"/api/leaderboard":            "public, max-age=300",
		"/api/leaderboard?stores=1":   "public, max-age=300",
		"/api/leaderboard?format=csv": "public, max-age=300",
	} {
		resp, _ := ts.get(t, path)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != want || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %d %v", path, resp.StatusCode, resp.Header)
		}
	}
	// The precomputed files also answer at their own paths under /api/,
	// the addresses the manifest lists, with the endpoint's headers.
	for path, want := range map[string]string{
		"/" + publish.ProtocolsPath:                  "public, max-age=300",
		"/" + publish.LeaderboardCSVPath:             "public, max-age=300",
		"/" + publish.AdoptionPath:                   "public, max-age=300",
		"/" + publish.WeeklyDir + "/2026-11-16.json": cacheImmutable,
		"/api/weekly/agent-checkout.json":            cacheWeeklyLatest,
	} {
		resp, body := ts.get(t, path)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != want || resp.Header.Get("ETag") != sha(body) {
			t.Errorf("%s: %d %v", path, resp.StatusCode, resp.Header)
		}
	}
	if resp, _ := ts.get(t, "/"+publish.AdoptionPath); resp.Header.Get("X-Svc-Data-As-Of") != "2026-11-16T03:04:05Z" {
		t.Errorf("adoption.json: x-svc-data-as-of = %q", resp.Header.Get("X-Svc-Data-As-Of"))
	}
	for _, p := range []string{"/api/nope.json", "/api/../state/x", "/api/"} {
		if resp, body := ts.get(t, p); resp.StatusCode != 404 || errorCode(t, body) != "not_found" {
			t.Errorf("%s: %d %s, want 404", p, resp.StatusCode, body)
		}
	}
	if resp, _ := ts.get(t, "/api/leaderboard?format=csv"); !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
		t.Errorf("leaderboard csv content type %q", resp.Header.Get("Content-Type"))
	}
	// stores=1 with format=csv is the 100-store grid as CSV (it was a 400
	// whose message said the CSV already held the grid: issue 16.8).
	for _, q := range []string{"stores=1&format=csv", "format=csv&stores=true"} {
		resp, body := ts.get(t, "/api/leaderboard?"+q)
		if resp.StatusCode != 200 || body != "id,host\n" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") ||
			resp.Header.Get("ETag") != sha(body) || resp.Header.Get("Cache-Control") != "public, max-age=300" {
			t.Errorf("%s: %d %q %v", q, resp.StatusCode, body, resp.Header)
		}
	}
	if resp, body := ts.get(t, "/api/leaderboard?format=xml"); resp.StatusCode != 400 {
		t.Errorf("format=xml: %d %s", resp.StatusCode, body)
	}
	// Dataset files: latest/ aliases (short cache), versions immutable, the
	// ETag from the manifest.
	resp, body = ts.get(t, "/data/latest/stores.csv")
	if resp.StatusCode != 200 || body != "host\nshop.example\n" || resp.Header.Get("ETag") != sha(body) {
		t.Errorf("latest csv: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if resp, _ := ts.get(t, "/data/2026-11-16/stores.csv"); resp.Header.Get("Cache-Control") != cacheImmutable {
		t.Errorf("version file Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
	for _, p := range []string{"/data/latest/nope.csv", "/data/../state/secret", "/data/latest/../../state/secret"} {
		if resp, _ := ts.get(t, p); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
	// Wrong method and unknown path give JSON errors.
	r, _ := http.Post(ts.ts.URL+"/api/protocols", "application/json", nil)
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 405 || errorCode(t, string(b)) != "method_not_allowed" || r.Header.Get("Allow") != "GET" {
		t.Errorf("POST /api/protocols: %d %s %v", r.StatusCode, b, r.Header)
	}
}

// TestNewSnapshotPickedUp moves data/latest under a running server: the
// next reload serves the new files without a restart.
func TestNewSnapshotPickedUp(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, "2026-11-16", map[string]string{publish.ProtocolsPath: `{"v":1}`})
	ts := newTestServer(t, Config{DataDir: dir})
	if _, body := ts.get(t, "/api/protocols"); body != `{"v":1}` {
		t.Fatalf("first snapshot: %q", body)
	}
	writeTree(t, dir, "2026-11-23", map[string]string{publish.ProtocolsPath: `{"v":2}`})
	if err := ts.Reload(); err != nil {
		t.Fatal(err)
	}
	if _, body := ts.get(t, "/api/protocols"); body != `{"v":2}` {
		t.Errorf("after reload: %q", body)
	}
}

func TestNoSnapshotIs503(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, p := range []string{"/api/protocols", "/api/agent-checkout/adoption", "/api/leaderboard", "/api/weekly/agent-checkout.json"} {
		resp, body := ts.get(t, p)
		if resp.StatusCode != 503 || errorCode(t, body) != "unavailable" {
			t.Errorf("%s: %d %s", p, resp.StatusCode, body)
		}
	}
}

// fixtureEngine starts the fixture world and returns an engine and UCP
// validator that reach it.
func fixtureEngine(t *testing.T) (*fixtures.World, *check.Engine, *ucp.Validator) {
	t.Helper()
	w, e, v, _ := fixtureEngineClient(t)
	return w, e, v
}

// fixtureEngineClient is fixtureEngine with the safe client it uses.
func fixtureEngineClient(t *testing.T) (*fixtures.World, *check.Engine, *ucp.Validator, *fetch.Client) {
	t.Helper()
	world := fixtures.Generate(1, fixtures.DefaultStores)
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ucp.New(context.Background(), ucp.Config{SchemaDir: fixtures.UCPSchemaDir(), Client: client, CacheDir: t.TempDir(), Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	return world, check.New(check.Options{Client: client, UCP: v}), v, client
}

func TestLiveCheck(t *testing.T) {
	world, eng, v := fixtureEngine(t)
	dir := t.TempDir()
	ts := newTestServer(t, Config{DataDir: dir, Engine: eng, UCP: v})
	host := world.Stores[0].Host

	resp, body := ts.get(t, "/api/agent-checkout?url=https://"+host+"/")
	if resp.StatusCode != 200 {
		t.Fatalf("live check: %d %s", resp.StatusCode, body)
	}
	var ans struct {
		Host      string `json:"host"`
		CartLink  *bool  `json:"cartLink"`
		Cached    bool   `json:"cached"`
		ResultURL string `json:"resultUrl"`
		CheckedAt string `json:"checkedAt"`
	}
	json.Unmarshal([]byte(body), &ans)
	if ans.Host != host || ans.Cached || ans.ResultURL != "/stores/"+host+"/" || ans.CheckedAt == "" || ans.CartLink == nil {
		t.Errorf("fresh answer %+v", ans)
	}
	if strings.Contains(body, "checkout_url") || strings.Contains(body, "/checkouts/") {
		t.Error("the answer carries a checkout URL")
	}
	_, body = ts.get(t, "/api/agent-checkout?url="+host)
	json.Unmarshal([]byte(body), &ans)
	if !ans.Cached {
		t.Error("second check of the host was not served from the cache")
	}

	// A restart keeps the cache (the state log is replayed).
	ts.ts.Close()
	ts.Close()
	ts2 := newTestServer(t, Config{DataDir: dir, Engine: eng, UCP: v})
	_, body = ts2.get(t, "/api/agent-checkout?url=https://"+host+"/")
	json.Unmarshal([]byte(body), &ans)
	if !ans.Cached {
		t.Error("after a restart the cached check was lost")
	}

	for _, tc := range []struct{ url, want string }{
		{"", "url is required"},
		{"http://127.0.0.1/", "loopback"},
		{"http://169.254.169.254/latest/", "link-local"},
		{"ftp://shop.example/", "only http and https"},
		{"http://user:pw@shop.example/", "user name or password"},
	} {
		resp, body := ts2.get(t, "/api/agent-checkout?url="+tc.url)
		if resp.StatusCode != 400 || !strings.Contains(body, tc.want) {
			t.Errorf("url %q: %d %s, want 400 mentioning %q", tc.url, resp.StatusCode, body, tc.want)
		}
	}
}

func TestLiveCheckLimits(t *testing.T) {
	world, eng, v := fixtureEngine(t)
	ts := newTestServer(t, Config{DataDir: t.TempDir(), Engine: eng, UCP: v})
	// Ten fresh checks a day per network; the eleventh store is refused.
	for i := 0; i < 10; i++ {
		resp, body := ts.get(t, "/api/agent-checkout?url="+world.Stores[i].Host)
		if resp.StatusCode != 200 {
			t.Fatalf("fresh check %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
	resp, body := ts.get(t, "/api/agent-checkout?url="+world.Stores[10].Host)
	if resp.StatusCode != 429 || errorCode(t, body) != "rate_limited" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("11th fresh check: %d %s", resp.StatusCode, body)
	}
	// Cached answers still come, up to 50 requests in all.
	for i := 11; i < 50; i++ {
		if resp, body := ts.get(t, "/api/agent-checkout?url="+world.Stores[0].Host); resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
	if resp, _ := ts.get(t, "/api/agent-checkout?url="+world.Stores[0].Host); resp.StatusCode != 429 {
		t.Errorf("51st request: %d, want 429", resp.StatusCode)
	}
}

func TestLiveCheckBusyHost(t *testing.T) {
	world, eng, v := fixtureEngine(t)
	ts := newTestServer(t, Config{DataDir: t.TempDir(), Engine: eng, UCP: v})
	host := world.Stores[0].Host
	release, ok, err := ts.claim(context.Background(), host)
	if err != nil || !ok {
		t.Fatal("claim failed", err)
	}
	resp, body := ts.get(t, "/api/agent-checkout?url="+host)
	if resp.StatusCode != 429 || errorCode(t, body) != "check_in_progress" {
		t.Errorf("busy host: %d %s", resp.StatusCode, body)
	}
	release()
}

func TestLiveCheckUnavailable(t *testing.T) {
	ts := newTestServer(t, Config{})
	resp, body := ts.get(t, "/api/agent-checkout?url=https://shop.example.co.uk/")
	if resp.StatusCode != 503 || errorCode(t, body) != "unavailable" {
		t.Errorf("no engine: %d %s", resp.StatusCode, body)
	}
}

func TestUCPValidate(t *testing.T) {
	world, eng, v := fixtureEngine(t)
	ts := newTestServer(t, Config{DataDir: t.TempDir(), Engine: eng, UCP: v})
	post := func(body string) (int, string) {
		resp, err := http.Post(ts.ts.URL+"/api/ucp/validate", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	profile := `{"ucp":{"version":"2026-08-25","services":{},"payment_handlers":{}}}`
	code, body := post(`{"profile":` + profile + `}`)
	if code != 200 || !strings.Contains(body, `"schemaSource"`) {
		t.Errorf("pasted object: %d %s", code, body)
	}
	if code, body = post(`{"profile":` + fmt.Sprintf("%q", profile) + `}`); code != 200 {
		t.Errorf("pasted string: %d %s", code, body)
	}
	if code, body = post(`{}`); code != 400 || errorCode(t, body) != "invalid_request" {
		t.Errorf("neither url nor profile: %d %s", code, body)
	}
	if code, body = post(`not json`); code != 400 {
		t.Errorf("garbage: %d %s", code, body)
	}
	big := `{"profile":{"ucp":{"version":"2026-08-25","pad":"` + strings.Repeat("a", 300<<10) + `"}}}`
	if code, body = post(big); code != 413 || errorCode(t, body) != "too_large" {
		t.Errorf("300 KB profile: %d %.200s", code, body)
	}
	if code, body = post(`{"url":"http://10.0.0.1/"}`); code != 400 {
		t.Errorf("private url: %d %s", code, body)
	}
	if resp, body := ts.get(t, "/api/ucp/validate"); resp.StatusCode != 400 {
		t.Errorf("GET without url: %d %s", resp.StatusCode, body)
	}
	if resp, body := ts.get(t, "/api/ucp/validate?url=http://localhost/"); resp.StatusCode != 400 {
		t.Errorf("GET unsafe: %d %s", resp.StatusCode, body)
	}
	resp, body := ts.get(t, "/api/ucp/validate?url="+world.Stores[0].Host)
	if resp.StatusCode != 200 || !strings.Contains(body, `"httpChecks"`) {
		t.Errorf("GET store: %d %.300s", resp.StatusCode, body)
	}
}
