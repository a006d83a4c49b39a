package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/check"
	"svc/pipeline/inbox"
)

// testBase is the base URL the link tests give the server: every link it
// makes starts with it.
const testBase = "https://svc.test"

// linkKey reports whether a JSON key names a link: a root-relative string
// under such a key is an address on the service (the snapshot's own
// links, such as svc_url and the manifest's, are root-relative).
func linkKey(key string) bool {
	k := strings.ToLower(key)
	return strings.HasSuffix(k, "url") || k == "badge" || k == "claim" || k == "source"
}

// collectLinks adds to out every address on the service that a JSON
// document names: strings starting with the base URL, and root-relative
// strings under link keys. An object that names a method other than GET
// (the reportCheckout operation) is an address to POST to, not a link.
func collectLinks(t *testing.T, what, doc string, out map[string]string) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("%s: not JSON: %v\n%.300s", what, err, doc)
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if m, ok := x["method"].(string); ok && m != http.MethodGet {
				return
			}
			parentLinks := key == "links"
			for k, e := range x {
				if parentLinks {
					k = "url"
				}
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case string:
			switch {
			case key == "endpoint":
				// The MCP card's endpoint is where JSON-RPC is POSTed (a
				// store's storefrontMcp.endpoint is a path on the store).
			case strings.HasPrefix(x, testBase+"/"):
				out[strings.TrimPrefix(x, testBase)] = what
			case linkKey(key) && strings.HasPrefix(x, "/") && !strings.HasPrefix(x, "//"):
				out[x] = what
			}
		}
	}
	walk("", v)
}

// TestEmittedLinksResolve is issue 16, item 6: every address on the
// service that an answer gives (store card over REST and MCP with its
// badge and claim, Index answer receipts, precheck scan_url, the live
// check's resultUrl, the directory's svcUrl and directoryUrl, the
// manifest's downloads, the MCP card's endpoint, product data and agent
// facts) answers 200 to a GET.
func TestEmittedLinksResolve(t *testing.T) {
	f := sharedReadFixture(t)
	_, eng, v := fixtureEngine(t)
	dir := t.TempDir()
	f.writeTreeTo(t, dir)
	// A host the snapshot does not have, known only by a live check.
	outside := "outside.test"
	now := time.Now().UTC().Truncate(time.Microsecond)
	appendState(t, dir, stateRec{inbox.TypeCheck, now, &check.Result{URL: "https://" + outside + "/", Host: outside,
		CatalogAnswered: ptrTo(true), ProductFound: ptrTo(true), CartLink: ptrTo(true), UCPProfile: check.UCPProfile{Status: "valid"},
		Platform: ptrTo("shopify"), Reachability: check.Reachability{Reachable: ptrTo(true), HTTPStatus: 200},
		BlockStatus: check.BlockStatus{Blocked: ptrTo(false)}, CheckedAt: now, MethodVersion: "check/1"}})
	ts := f.newServer(t, Config{DataDir: dir, Engine: eng, UCP: v, BaseURL: testBase})

	known := f.store(t, "returns a checkout link", func(s *fixtures.Store) bool { return isTrue(s.Expect.CartLink) && s.Source == "seed" })
	blocked := f.store(t, "is blocked", func(s *fixtures.Store) bool { return isTrue(s.Expect.BlockStatus.Blocked) && s.Source == "seed" })
	opted := f.store(t, "opted out", func(s *fixtures.Store) bool { return s.Source == fixtures.SourceOptedOut })
	// A live check of a snapshot store: its card then has a liveCheck.
	if resp, body := ts.get(t, "/api/agent-checkout?url=https://"+blocked.Host+"/"); resp.StatusCode != 200 {
		t.Fatalf("live check: %d %s", resp.StatusCode, body)
	}

	links := map[string]string{}
	read := func(path string) {
		t.Helper()
		resp, body := ts.get(t, path)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		collectLinks(t, path, body, links)
	}
	for _, h := range []string{known.Host, blocked.Host, outside, "nowhere.test", opted.Host} {
		q := url.QueryEscape(h)
		read("/api/store?host=" + q)
		read("/api/precheck?url=" + q)
		read("/api/ask?url=" + url.QueryEscape("https://"+h+"/"))
		collectLinks(t, "store_card "+h, ts.mcpText(t, "store_card", map[string]any{"host": h}), links)
	}
	read("/api/agent-checkout?url=" + url.QueryEscape("https://"+known.Host+"/"))
	read("/api/agent-checkout/product-data?host=" + known.Host)
	read("/api/agent-facts?host=" + known.Host)
	read("/api/agent-checkout/stores?limit=50")
	read("/api/agent-checkout/stores?category=footwear")
	read("/api/ask?category=apparel")
	read("/data/latest/manifest.json")
	read("/.well-known/mcp.json")

	for _, want := range []string{"/stores/" + known.Host + "/badge.svg", "/stores/" + known.Host + "/#claim",
		"/api/agent-checkout?url=nowhere.test", "/data/" + f.version + "/checks.parquet", "/stores/" + outside + "/"} {
		if _, ok := links[want]; !ok {
			t.Errorf("no answer gave %s; the test walks too little", want)
		}
	}
	if len(links) < 40 {
		t.Errorf("only %d links collected", len(links))
	}
	paths := make([]string, 0, len(links))
	for p := range links {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		u, err := url.Parse(p)
		if err != nil {
			t.Errorf("%s (from %s): %v", p, links[p], err)
			continue
		}
		frag := u.Fragment
		u.Fragment = ""
		resp, body := ts.get(t, u.String())
		if resp.StatusCode != 200 {
			t.Errorf("%s (from %s): %d %.200s", p, links[p], resp.StatusCode, body)
			continue
		}
		if frag != "" && !strings.Contains(body, `id="`+frag+`"`) {
			t.Errorf("%s (from %s): the page has no element with id %q", p, links[p], frag)
		}
	}
	t.Logf("%d links resolved", len(paths))
}

// TestStoreBadge: the badge is an SVG of the store card's verdict, cached
// like a page with the sha256 of its bytes as ETag and 304 on a match;
// a host with no saved check (or one that opted out) has none.
func TestStoreBadge(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	for _, st := range []*fixtures.Store{
		f.store(t, "returns a checkout link", func(s *fixtures.Store) bool { return isTrue(s.Expect.CartLink) && s.Source == "seed" }),
		f.store(t, "is blocked", func(s *fixtures.Store) bool { return isTrue(s.Expect.BlockStatus.Blocked) }),
	} {
		var card StoreCard
		ts.getJSON(t, "/api/store?host="+st.Host, &card)
		resp, body := ts.get(t, "/stores/"+st.Host+"/badge.svg")
		sum := sha256.Sum256([]byte(body))
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || resp.Header.Get("Cache-Control") != cachePage ||
			resp.Header.Get("ETag") != `"`+hex.EncodeToString(sum[:])+`"` || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %v", st.Host, resp.StatusCode, resp.Header)
		}
		// The card's verdict in the page's words (the checkout store's is
		// cart_without_valid_ucp when no UCP schema could be loaded).
		words := map[string]string{"agents_can_buy": "Agents can buy", "blocked": "Blocked the check",
			"cart_without_valid_ucp": "Cart link, UCP profile not valid"}[*card.Verdict]
		if words == "" || !strings.HasPrefix(body, "<svg") || !strings.Contains(body, ">"+words+"</text>") ||
			!strings.Contains(body, "checked "+card.CheckedAt.Format(time.DateOnly)) {
			t.Errorf("%s: verdict %s, badge %s", st.Host, *card.Verdict, body)
		}
		if r2, b2 := ts.get(t, "/stores/"+st.Host+"/badge.svg", "If-None-Match", resp.Header.Get("ETag")); r2.StatusCode != http.StatusNotModified || b2 != "" {
			t.Errorf("%s: If-None-Match answered %d", st.Host, r2.StatusCode)
		}
	}
	opted := f.store(t, "opted out", func(s *fixtures.Store) bool { return s.Source == fixtures.SourceOptedOut })
	for _, h := range []string{"nowhere.test", opted.Host, "not_a_host"} {
		if resp, body := ts.get(t, "/stores/"+h+"/badge.svg"); resp.StatusCode != 404 || errorCode(t, body) != "not_found" {
			t.Errorf("badge of %s: %d %s", h, resp.StatusCode, body)
		}
	}
}
