package pages_test

import (
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// pageLinkKey names the answer fields that hold links.
var pageLinkKey = regexp.MustCompile(`(?i)(url|uri|link|href)$`)

// TestAPIPageLinks asks the API what a client would ask and follows every
// link of the site in the answers. Each page link (a path outside /api/
// that names no file) must answer 200 with HTML at that exact address, and
// so must every other link of the site that is safe to GET, but two kinds:
// operations (report_outcome.url takes a POST) and the manifest's
// addresses of the precomputed files under api/, which svc serve answers
// at their endpoints (/api/leaderboard, not /api/leaderboard.json).
func TestAPIPageLinks(t *testing.T) {
	d := sharedDemo(t)
	byVerdict := d.storesByVerdict(t)
	answered := answeredStores(t, byVerdict, 3)
	host, other := answered[0], answered[2]
	asks := []string{
		"/api/agent-checkout?url=" + url.QueryEscape("https://"+other+"/"),
		"/api/agent-checkout/stores",
		"/api/agent-checkout/stores?category=footwear",
		"/api/agent-checkout/stores?q=" + url.QueryEscape("running shoes"),
		"/api/store?host=" + host,
		"/api/store?host=" + other,
		"/api/store?host=never-checked.test",
		"/api/precheck?url=" + host,
		"/api/precheck?url=never-checked.test",
		"/api/agent-checkout/product-data?host=" + host,
		"/api/agent-checkout/product-data?host=never-checked.test",
		"/api/agent-facts?host=" + host,
		"/api/agent-checkout/adoption",
		"/api/protocols",
		"/api/leaderboard",
		"/api/leaderboard?stores=1",
		"/api/weekly/agent-checkout.json",
		"/data/latest/manifest.json",
	}
	links := map[string][]string{} // link → where it was found: "<ask> <json path>"
	for _, ask := range asks {
		var v any
		d.getJSON(t, ask, &v)
		walkLinks(v, "", func(at, link string) {
			links[link] = append(links[link], ask+" "+at)
		})
	}
	var pages, followed int
	var unserved []string
	for _, link := range slices.Sorted(maps.Keys(links)) {
		u, err := url.Parse(link)
		if err != nil || (u.Host != "" && d.base != u.Scheme+"://"+u.Host) {
			continue // a link to a store or a spec
		}
		where := links[link]
		switch {
		case strings.HasPrefix(u.Path, "/api/agent-checkout") && u.Query().Get("url") != "":
			continue // a live check: not a read, and rate limited
		case allAt(where, "report_outcome.url"):
			continue // an operation: POST
		}
		followed++
		resp, body := d.get(t, u.RequestURI())
		if resp.StatusCode != http.StatusOK && strings.HasPrefix(u.Path, "/api/") && allAt(where, "api[].url") {
			unserved = append(unserved, u.Path)
			continue
		}
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s answered %d (found in %s)", link, resp.StatusCode, strings.Join(where, ", "))
			continue
		}
		if isPageLink(u.Path) {
			pages++
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("page link %s answered %s, not HTML", link, ct)
			}
			if !strings.Contains(string(body), "<h1>") {
				t.Errorf("page link %s has no heading", link)
			}
		}
	}
	for _, want := range []string{"resultUrl", "directoryUrl"} {
		found := false
		for _, where := range links {
			for _, w := range where {
				found = found || strings.HasSuffix(w, want)
			}
		}
		if !found {
			t.Errorf("no %s in the answers", want)
		}
	}
	if pages < 3 {
		t.Errorf("only %d page links in the answers", pages)
	}
	t.Logf("%d links followed, %d of them pages", followed, pages)
	if len(unserved) > 0 {
		t.Logf("the manifest lists these precomputed files at addresses svc serve does not answer: %s", strings.Join(unserved, " "))
	}
}

// allAt reports whether every place a link was found ends in the JSON
// path at.
func allAt(where []string, at string) bool {
	for _, w := range where {
		if !strings.HasSuffix(w, " "+at) {
			return false
		}
	}
	return true
}

// isPageLink reports whether a site path is a page for people rather
// than an API answer or a data file.
func isPageLink(p string) bool {
	if strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/.well-known/") {
		return false
	}
	return !strings.Contains(p[strings.LastIndexByte(p, '/')+1:], ".")
}

// walkLinks calls fn with every string of v under a link-named key (or in
// a "links" object) that is a URL or a root-relative path, with its JSON
// path ("stores[].svcUrl").
func walkLinks(v any, at string, fn func(at, link string)) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			p := k
			if at != "" {
				p = at + "." + k
			}
			walkLinks(x[k], p, fn)
		}
	case []any:
		for _, e := range x {
			walkLinks(e, at+"[]", fn)
		}
	case string:
		key := at[strings.LastIndexByte(at, '.')+1:]
		inLinks := strings.HasPrefix(at, "links.") || strings.Contains(at, ".links.")
		if (inLinks || pageLinkKey.MatchString(key)) && (strings.HasPrefix(x, "/") || strings.HasPrefix(x, "http://") || strings.HasPrefix(x, "https://")) {
			fn(at, x)
		}
	}
}
