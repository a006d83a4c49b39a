package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/check"
	"svc/pipeline/inbox"
	"svc/pipeline/pages"
	"svc/publish"
)

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func (ts *testServer) do(t *testing.T, method, path, form string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, ts.ts.URL+path, strings.NewReader(form))
	if form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestPageRoutes(t *testing.T) {
	dir := t.TempDir()
	page := func(title string) string { return "<!doctype html><h1>" + title + "</h1>" }
	writeTree(t, dir, "2026-11-16", map[string]string{
		pages.HomeFile:                         page("home"),
		pages.DirectoryFile:                    page("directory"),
		"directory/footwear/index.html":        page("footwear"),
		"directory/ATTRIBUTION.txt":            "CC-BY-4.0",
		pages.WeeklyFile:                       page("weekly"),
		"weekly/2026-11-16/index.html":         page("edition"),
		pages.DatasetsFile:                     page("datasets"),
		pages.ValidateFile:                     page("validate form"),
		pages.LeaderboardFile:                  page("leaderboard"),
		publish.WeeklyDir + "/2026-11-16.json": `{"date":"2026-11-16"}`,
		pages.WeeklySVGFile("2026-11-16"):      `<svg xmlns="http://www.w3.org/2000/svg"/>`,
		"assets/ATTRIBUTION.txt":               "CC-BY-4.0",
		pages.StoresDir + "/ATTRIBUTION.txt":   "CC-BY-4.0",
	})
	ts := newTestServer(t, Config{DataDir: dir})
	cases := []struct {
		method, path string
		status       int
		ctype        string // prefix
		body         string // contained
		location     string
		cache        string
	}{
		{"GET", "/", 200, "text/html", "<h1>home</h1>", "", cachePage},
		{"GET", "/index.html", 200, "text/html", "<h1>home</h1>", "", cachePage},
		{"GET", "/directory/", 200, "text/html", "<h1>directory</h1>", "", cachePage},
		{"GET", "/directory", 307, "", "", "/directory/", ""},
		{"GET", "/directory/footwear", 301, "", "", "/directory/footwear/", ""},
		{"GET", "/directory/footwear/", 200, "text/html", "<h1>footwear</h1>", "", cachePage},
		{"GET", "/directory/footwear/index.html", 200, "text/html", "<h1>footwear</h1>", "", cachePage},
		{"GET", "/directory/ATTRIBUTION.txt", 200, "text/plain", "CC-BY-4.0", "", cachePage},
		{"GET", "/directory/shoes/", 404, "text/html", "Page not found", "", "no-store"},
		{"GET", "/weekly/2026-11-16/", 200, "text/html", "<h1>edition</h1>", "", cachePage},
		{"GET", "/leaderboard/", 200, "text/html", "<h1>leaderboard</h1>", "", cachePage},
		{"GET", "/data/", 200, "text/html", "<h1>datasets</h1>", "", cachePage},
		{"GET", "/datasets/", 200, "text/html", "<h1>datasets</h1>", "", cachePage},
		{"GET", "/validate/", 200, "text/html", "<h1>validate form</h1>", "", cachePage},
		{"GET", "/validate/index.html", 200, "text/html", "<h1>validate form</h1>", "", cachePage},
		{"GET", "/validate/other/", 404, "text/html", "Page not found", "", "no-store"},
		{"GET", "/stores/", 302, "", "", "/directory/", ""},
		{"GET", "/stores/ATTRIBUTION.txt", 200, "text/plain", "CC-BY-4.0", "", cachePage},
		// No store tables in this tree: every host is unknown.
		{"GET", "/stores/shop.example/", 404, "text/html", "No saved check of shop.example", "", "no-store"},
		{"GET", "/stores/Shop.Example/", 301, "", "", "/stores/shop.example/", ""},
		{"GET", "/stores/shop.example", 301, "", "", "/stores/shop.example/", ""},
		{"GET", "/stores/shop.example/more", 404, "text/html", "Page not found", "", "no-store"},
		{"GET", "/stores/bad%20host!/", 404, "text/html", "No saved check", "", "no-store"},
		{"GET", "/api/weekly/agent-checkout/2026-11-16.svg", 200, "image/svg+xml", "<svg", "", cacheImmutable},
		{"GET", "/api/weekly/agent-checkout/2026-11-16.json", 200, "application/json", "2026-11-16", "", cacheImmutable},
		{"GET", "/api/weekly/agent-checkout/2026-11-17.svg", 404, "application/json", "not_found", "", "no-store"},
		{"GET", "/" + pages.StyleFile(), 200, "text/css", "svc pages", "", cacheImmutable},
		{"GET", "/" + pages.IconFile(), 200, "image/svg+xml", "<svg", "", cacheImmutable},
		{"GET", "/assets/ATTRIBUTION.txt", 200, "text/plain", "CC-BY-4.0", "", cachePage},
		{"GET", "/assets/site-000000000000.css", 404, "application/json", "not_found", "", "no-store"},
		{"GET", "/favicon.ico", 200, "image/svg+xml", "<svg", "", cacheWeeklyLatest},
		{"POST", "/directory/", 405, "application/json", "method_not_allowed", "", "no-store"},
	}
	for _, c := range cases {
		resp, body := ts.do(t, c.method, c.path, "")
		if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.ctype) ||
			!strings.Contains(body, c.body) || !strings.HasSuffix(resp.Header.Get("Location"), c.location) ||
			(c.cache != "" && resp.Header.Get("Cache-Control") != c.cache) {
			t.Errorf("%s %s: %d %s %q location %q cache %q\n%.300s", c.method, c.path, resp.StatusCode, resp.Header.Get("Content-Type"),
				c.body, resp.Header.Get("Location"), resp.Header.Get("Cache-Control"), body)
		}
		if strings.HasPrefix(c.ctype, "text/html") && !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("%s %s: no content security policy", c.method, c.path)
		}
	}
	// A page revalidates with its ETag.
	resp, _ := ts.get(t, "/directory/")
	if resp2, _ := ts.get(t, "/directory/", "If-None-Match", resp.Header.Get("ETag")); resp2.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match on a page: %d", resp2.StatusCode)
	}
}

func TestValidatePages(t *testing.T) {
	world, _, v := fixtureEngine(t)
	dir := t.TempDir()
	writeTree(t, dir, "2026-11-16", map[string]string{pages.ValidateFile: "<h1>form</h1>"})
	ts := newTestServer(t, Config{DataDir: dir, UCP: v})
	form := func(kv ...string) string {
		q := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return q.Encode()
	}
	var host string
	for _, s := range world.Stores {
		if s.Expect.UCPProfile.Status == "valid" {
			host = s.Host
			break
		}
	}
	// A profile with no services breaks the schema; without the schema no
	// rule catches it, so it is not validated rather than invalid.
	bare := "Not a valid UCP profile"
	if fixtures.UCPSchemaDir() == "" {
		bare = "Not validated"
	}
	cases := []struct {
		method, path, form string
		status             int
		want               []string
	}{
		{"POST", "/validate/", form("profile", `{"ucp": {"version": "2026-08-25"}}`), 200,
			[]string{"UCP validation report", bare, "Pasted (", "{&#34;ucp&#34;: {&#34;version&#34;: &#34;2026-08-25&#34;}}</textarea>"}},
		{"POST", "/validate/", form("profile", "not json at all"), 200, []string{"Not a valid UCP profile"}},
		{"POST", "/validate/", form("url", "", "profile", "  "), 400, []string{"Validation could not run", "Paste a profile, or give the store"}},
		{"POST", "/validate/", form("profile", strings.Repeat("x", 300<<10)), 413, []string{"256 KB"}},
		{"POST", "/validate/", form("url", "http://127.0.0.1/"), 400, []string{"Validation could not run", "unsafe"}},
		{"GET", "/validate/?url=" + url.QueryEscape(host), "", 200, []string{"Fetched from", "/.well-known/ucp", `value="` + host + `"`}},
		{"GET", "/validate/?url=ftp%3A%2F%2Fx", "", 400, []string{"Validation could not run"}},
	}
	for _, c := range cases {
		resp, body := ts.do(t, c.method, c.path, c.form)
		if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s %s %.60s: %d %s %s", c.method, c.path, c.form, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s %s %.60s: the page does not hold %q", c.method, c.path, c.form, w)
			}
		}
	}
	// Without a validator the page says so, with the API's status.
	off := newTestServer(t, Config{DataDir: dir})
	if resp, body := off.do(t, "POST", "/validate/", form("profile", "{}")); resp.StatusCode != 503 || !strings.Contains(body, "unavailable") {
		t.Errorf("no validator: %d %.200s", resp.StatusCode, body)
	}
}

// cwReason finds the reason of Checkout WebMCP on a store page.
var cwReason = regexp.MustCompile(`<dt>Checkout WebMCP</dt><dd>.*?<p class="small">[^<]+</p></dd>`)

// railCodes reads the rails a store page shows: name → status code.
var railCode = regexp.MustCompile(`(?s)<div class="rail" id="rail-([a-z_]+)">\s*<h3>[^<]*</h3>\s*<p>.*?<code>([a-z_]+)</code>`)

// TestStorePages serves the fixture snapshot's store pages, which the
// server renders (the snapshot publishes no file per store): every store
// of the directory has its page, answered like a published file (cached,
// the sha256 of the body as ETag, If-None-Match gives 304), whose rails
// agree with the pre-checkout answer and which shows what only the saved
// documents hold (the UCP report, the reason of Checkout WebMCP); an
// opted-out store and an unknown host get the unknown-host page; a live
// check newer than the snapshot is rendered, uncached.
func TestStorePages(t *testing.T) {
	f := sharedReadFixture(t)
	dir := t.TempDir()
	f.writeTreeTo(t, dir)
	liveStore := f.store(t, "returns a checkout link", func(s *fixtures.Store) bool { return isTrue(s.Expect.CartLink) && s.Source == "seed" })
	now := time.Now().UTC().Truncate(time.Microsecond)
	appendState(t, dir, stateRec{inbox.TypeCheck, now, &check.Result{URL: "https://" + liveStore.Host + "/", Host: liveStore.Host,
		CatalogAnswered: ptrTo(true), ProductFound: ptrTo(true), CartLink: ptrTo(false), UCPProfile: check.UCPProfile{Status: "valid"},
		WebMCP: ptrTo(false), Platform: ptrTo("shopify"), BlockStatus: check.BlockStatus{Blocked: ptrTo(false)},
		Reachability: check.Reachability{Reachable: ptrTo(true), HTTPStatus: 200}, CheckoutWebMCP: check.CheckoutWebMCP{Status: "inferred"},
		Fix: check.Fix{Code: "add_webmcp", Text: "Add WebMCP."}, CheckedAt: now, MethodVersion: "check/1"}})
	ts := f.newServer(t, Config{DataDir: dir})

	var checked int
	for _, s := range f.world.Stores {
		if s.Source == "opted-out" || s.Host == liveStore.Host {
			continue
		}
		resp, body := ts.get(t, "/stores/"+s.Host+"/")
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != cachePage || resp.Header.Get("ETag") == "" {
			t.Errorf("%s: %d %s", s.Host, resp.StatusCode, resp.Header.Get("Cache-Control"))
			continue
		}
		if sum := sha256.Sum256([]byte(body)); resp.Header.Get("ETag") != `"`+hex.EncodeToString(sum[:])+`"` {
			t.Errorf("%s: ETag %s is not the sha256 of the page", s.Host, resp.Header.Get("ETag"))
		}
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("%s: %s, CSP %q", s.Host, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Security-Policy"))
		}
		if checked == 0 {
			if r2, b2 := ts.get(t, "/stores/"+s.Host+"/", "If-None-Match", resp.Header.Get("ETag")); r2.StatusCode != http.StatusNotModified || b2 != "" {
				t.Errorf("%s: If-None-Match answered %d", s.Host, r2.StatusCode)
			}
		}
		if !cwReason.MatchString(body) {
			t.Errorf("%s: the page does not give the reason of Checkout WebMCP (checks.result_json)", s.Host)
		}
		if st := s.Expect.UCPProfile.Status; (st == "valid" || st == "invalid") && !strings.Contains(body, "UCP business profile: ") {
			t.Errorf("%s: UCP %s, but the page shows no report summary (ucp_validations.report)", s.Host, st)
		}
		ans, _ := precheckOf(t, ts, s.Host)
		got := map[string]string{}
		for _, m := range railCode.FindAllStringSubmatch(body, -1) {
			got[m[1]] = m[2]
		}
		if len(got) != len(pages.RailNames()) {
			t.Errorf("%s: the page shows %d rails, want %d", s.Host, len(got), len(pages.RailNames()))
		}
		for i, r := range ans.Rails {
			if pages.RailNames()[i] != r.Name || got[r.Name] != r.Status {
				t.Errorf("%s: rail %s is %s on the page, %s in the pre-checkout answer", s.Host, r.Name, got[r.Name], r.Status)
			}
		}
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d store pages checked", checked)
	}
	// The manifest's address of a page answers like the page.
	some := f.world.Stores[0].Host
	_, a := ts.get(t, "/stores/"+some+"/")
	if resp, b := ts.get(t, "/stores/"+some+".html"); resp.StatusCode != 200 || b != a {
		t.Errorf("/stores/%s.html: %d, same page %v", some, resp.StatusCode, b == a)
	}

	opted := f.store(t, "opted out", func(s *fixtures.Store) bool { return s.Source == "opted-out" })
	if resp, body := ts.get(t, "/stores/"+opted.Host+"/"); resp.StatusCode != 404 || !strings.Contains(body, "asked not to be shown") {
		t.Errorf("opted-out store: %d %.300s", resp.StatusCode, body)
	}
	if resp, body := ts.get(t, "/stores/never-checked.test/"); resp.StatusCode != 404 ||
		!strings.Contains(body, `action="/api/agent-checkout"`) || !strings.Contains(body, "https://never-checked.test/") {
		t.Errorf("unknown host: %d %.300s", resp.StatusCode, body)
	}
	// A newer live check shows beside the snapshot's answer, which stays:
	// the rails are the snapshot's (a checkout link returned), the live
	// check's own findings (no link) are in their own section, with their
	// own time.
	resp, body := ts.get(t, "/stores/"+liveStore.Host+"/")
	live := body[strings.Index(body, `id="live-check"`)+1:]
	live = live[:strings.Index(live, "</section>")]
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != cachePage || !strings.Contains(body, `id="live-check"`) ||
		!strings.Contains(body, `id="rail-checkout_link"`) || !strings.Contains(body, "<code>returned</code>") || !strings.Contains(body, liveStore.Name) ||
		!strings.Contains(live, "Not returned") || !strings.Contains(live, `datetime="`+now.Format(time.RFC3339)) ||
		strings.Contains(body, "live check made after the latest snapshot") {
		t.Errorf("store with a newer live check: %d %s\n%s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
	}
	// The live check's resultUrl is that page.
	if got := ts.storeLink(liveStore.Host); got != "/stores/"+liveStore.Host+"/" {
		t.Errorf("storeLink = %s", got)
	}
}
