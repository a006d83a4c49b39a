package shop

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"svc/fixtures"
	"svc/fixtures/platforms"
	"svc/fixtures/shops"
	"svc/pipeline/detect"
	"svc/pipeline/fetch"
	"svc/pipeline/shop/browser"
)

// The differential test of WebMCP: on the same page, the tool names the
// server-HTML detector (detect.DetectWebMCP, what the check's webmcp and
// webmcpTools publish) reads, against the list Chromium's own WebMCP
// reports for it (what shopper C and the Checkout WebMCP reading use).
// Every difference has a reason: one of the rules of toolDifferences
// (a tool registered at run time, by a script the server HTML does not
// contain, is the browser's and not the HTML's), or a reason written in
// the page's case below. A difference without one fails the test, and so
// does a written reason whose difference is gone.

// toolDiff is one tool the two lists do not share.
type toolDiff struct {
	Name string
	Side string // "browser" (the browser lists it, the HTML shows none) or "html"
	Why  string // the rule that explains it; "" when none does
}

// toolDifferences compares the detector's reading of the server HTML
// (body, served at pageURL) with the browser's list of the same page.
func toolDifferences(html detect.WebMCP, body []byte, pageURL string, bt []browser.Tool) []toolDiff {
	var out []toolDiff
	inBrowser := map[string]bool{}
	for _, t := range bt {
		inBrowser[t.Name] = true
		if slices.Contains(html.Tools, t.Name) {
			continue
		}
		d := toolDiff{Name: t.Name, Side: "browser"}
		switch {
		case t.Node != 0 && !bytes.Contains(body, []byte(`toolname="`+t.Name+`"`)):
			d.Why = "a form with a toolname that a script added to the page at run time"
		case t.Node == 0 && t.Script != "" && !sameDocument(t.Script, pageURL):
			d.Why = "registered at run time by " + registrarPath(t.Script) + ", a script the server HTML does not contain"
		}
		out = append(out, d)
	}
	for _, n := range html.Tools {
		if !inBrowser[n] {
			out = append(out, toolDiff{Name: n, Side: "html"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Side+out[i].Name < out[j].Side+out[j].Name })
	return out
}

func sameDocument(script, page string) bool {
	s, err1 := url.Parse(script)
	p, err2 := url.Parse(page)
	return err1 == nil && err2 == nil && s.Host == p.Host && s.Path == p.Path
}

func registrarPath(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Path
	}
	return raw
}

// diffCase is a page of the test, and the reasons for the differences
// no rule explains, by "side name".
type diffCase struct {
	name string
	url  string
	why  map[string]string
}

// Reasons the cases give.
const (
	whyNavigator = "registered with navigator.modelContext only: the place of the early drafts and of the MCP-B polyfill; " +
		"Chromium's own WebMCP is document.modelContext, and with no polyfill on the page no browser agent sees the tool " +
		"(the detector counts any registerTool call, as the spec's webmcp asks)"
	whyExposedTo = `registered with {exposedTo: ["agents"]}, which is not a list of origins: Chromium refuses the registration ` +
		`("SecurityError: Only secure origins are allowed in the exposedTo list"), so no agent sees the tool; ` +
		`the detector reads the call, not whether the browser accepts it`
)

// runDiff opens each case's page on b and holds the differences to it.
func runDiff(t *testing.T, b *browser.Browser, cases []diffCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			p, err := b.NewPage(ctx, browser.PageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if err := p.Navigate(ctx, c.url); err != nil {
				t.Fatal(err)
			}
			_ = p.Settle(ctx)
			bt, err := p.WebMCPTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var doc *browser.Document
			for _, d := range p.Documents() {
				if d.Status > 0 {
					doc = &d
				}
			}
			if doc == nil {
				t.Fatal("no document served")
			}
			var loc string
			_ = p.EvalMain(ctx, "location.href", &loc)
			html := detect.DetectWebMCP(detect.NewPage(doc.URL, doc.Status, doc.Header, doc.Body))
			var names []string
			for _, x := range bt {
				names = append(names, x.Name)
			}
			t.Logf("html %v, browser %v", html.Tools, names)
			left := map[string]string{}
			for k, v := range c.why {
				left[k] = v
			}
			for _, d := range toolDifferences(html, doc.Body, loc, bt) {
				key := d.Side + " " + d.Name
				switch why, written := left[key]; {
				case written:
					t.Logf("%s: %s", key, why)
					delete(left, key)
				case d.Why != "":
					t.Logf("%s: %s", key, d.Why)
				default:
					t.Errorf("%s: a difference with no reason (fix the detector or the page, or write why)", key)
				}
			}
			for k := range left {
				t.Errorf("%s: a written reason for a difference the page no longer has", k)
			}
		})
	}
}

// TestWebMCPDetectorAgainstTheBrowser runs the differential test over
// the fixture world (a store of each WebMCP variant of the generator, the
// world stores and hand-built shops that carry WebMCP tools, home and
// checkout pages), the held-out shops of testdata/realshops and the lab's
// MCP-B store.
func TestWebMCPDetectorAgainstTheBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser runs: not under -short")
	}
	t.Run("world", func(t *testing.T) {
		srv, b := shared(t)
		runDiff(t, b, worldDiffCases(t, srv.World()))
	})
	t.Run("heldout", func(t *testing.T) {
		needChromiumOrSkip(t)
		truths := heldOutShops()
		hs := []*realShop{specToolsShop()}
		for _, tr := range truths {
			hs = append(hs, tr.shop)
		}
		h := newHeldout(t, hs)
		var cases []diffCase
		for _, s := range hs {
			cases = append(cases, diffCase{name: s.host, url: "https://" + s.host + "/"})
		}
		runDiff(t, h.runOptions(t).Browser, cases)
	})
	t.Run("lab-mcpb", func(t *testing.T) {
		opts, _ := labMCPB(t)
		runDiff(t, opts.Browser, []diffCase{
			{name: "home", url: "https://mcp-b.test/"},
			{name: "checkout", url: "https://mcp-b.test/checkout.html"},
		})
	})
}

// worldDiffCases are the world's pages of the test: the home page of the
// first store of each WebMCP variant a check can read, the first world
// store of each WebMCP shop trait (tools from an asset, at run time), and
// the hand-built WebMCP shops' home and checkout pages.
func worldDiffCases(t *testing.T, w *fixtures.World) []diffCase {
	t.Helper()
	why := map[string]map[string]string{
		"webmcp:imperative_document":        {"html search_products": whyExposedTo},
		"webmcp:imperative_and_declarative": {"html search_products": whyExposedTo},
		"webmcp:imperative_navigator":       {"html add_to_cart": whyNavigator},
		"webmcp:imperative_wrapper":         {"html get_cart": whyNavigator, "html track_order": whyNavigator},
	}
	var cases []diffCase
	seen := map[string]bool{}
	for _, st := range w.Stores {
		if st.Expect.WebMCP == nil {
			continue // behind a wall: no page to compare
		}
		for _, tr := range st.Traits {
			if strings.HasPrefix(tr, "webmcp:") && !seen[tr] {
				seen[tr] = true
				cases = append(cases, diffCase{name: tr + "/" + st.Host, url: "https://" + st.Host + "/", why: why[tr]})
			}
		}
		if k := st.ShopTrait(); (k == shops.TraitWebMCPImp || k == shops.TraitWebMCPDecl) && !seen[k] {
			seen[k] = true
			cases = append(cases, diffCase{name: k + "/" + st.Host, url: "https://" + st.Host + "/"})
		}
	}
	for _, want := range []string{"webmcp:none", "webmcp:imperative_document", "webmcp:imperative_navigator", "webmcp:declarative",
		"webmcp:imperative_and_declarative", "webmcp:legacy_provide_context", "webmcp:imperative_const_object", "webmcp:imperative_wrapper",
		shops.TraitWebMCPImp, shops.TraitWebMCPDecl} {
		if !seen[want] {
			t.Errorf("no store of the world has %s", want)
		}
	}
	for _, host := range []string{"svcshop-webmcp.test", "svcshop-toolform.test"} {
		cases = append(cases, diffCase{name: host, url: "https://" + host + "/"}, diffCase{name: host + "/checkout", url: "https://" + host + "/checkout"})
	}
	return cases
}

// labMCPB serves the lab's MCP-B store (fixtures/platforms/mcpb: its
// static pages, and the real @mcp-b/global the lab installs into its
// cache) behind the lab's front, which logs any forbidden request, and
// starts a browser that reaches it. It skips when the polyfill is not
// installed (make lab-install), except under CI=true.
func labMCPB(t *testing.T) (Options, *platforms.Front) {
	t.Helper()
	needChromiumOrSkip(t)
	ps, err := platforms.Select([]string{"mcpb"})
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	cache := os.Getenv("SVC_LAB_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "svc-lab")
	}
	dir := filepath.Join(cache, p.Name+"-"+p.Version)
	if _, err := os.Stat(filepath.Join(dir, "node_modules/@mcp-b/global/dist/index.iife.js")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but the lab's MCP-B polyfill is not installed in %s (bash fixtures/platforms/mcpb/lab.sh install)", dir)
		}
		t.Skipf("the lab's MCP-B polyfill is not installed in %s (bash fixtures/platforms/mcpb/lab.sh install)", dir)
	}
	var routes []platforms.Route
	for _, r := range p.Routes {
		if rest, ok := strings.CutPrefix(r.Dir, "@cache/"); ok {
			r.Dir = filepath.Join(dir, rest)
		} else if r.Dir != "" {
			r.Dir = filepath.Join("..", "..", "fixtures", "platforms", r.Dir)
		}
		routes = append(routes, r)
	}
	front := platforms.NewFront(routes, p.Rules, nil)
	ln, ca, err := fixtures.Listen("127.0.0.1:0", 0)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: front}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	b, err := browser.Start(t.Context(), browser.Options{FixtureAddr: ln.Addr().String(), FixtureCA: ca})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	c, err := fetch.New(fetch.Options{FixtureAddr: ln.Addr().String(), FixtureCA: ca})
	if err != nil {
		t.Fatal(err)
	}
	return Options{Browser: b, Client: c}, front
}

// TestWebMCPShopperOnTheLabMCPBStore: C shops the lab's MCP-B store to its
// checkout page through the browser's WebMCP, with the tools the real
// polyfill hands the browser (search, add, begin checkout), touches no
// forbidden request, and reads the checkout page's tools from the
// browser's list.
func TestWebMCPShopperOnTheLabMCPBStore(t *testing.T) {
	if testing.Short() {
		t.Skip("browser runs: not under -short")
	}
	opts, front := labMCPB(t)
	rep, err := Run(t.Context(), opts, WebMCP, "https://mcp-b.test/")
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, WebMCP, rep, CheckoutReached)
	var used []string
	for _, st := range rep.Log {
		if st.Action == "tool" {
			used = append(used, st.Name)
			if !strings.Contains(st.Note, viaWords[viaPolyfill]) {
				t.Errorf("step %d (%s) does not say the tool came through the page's polyfill: %q", st.N, st.Name, st.Note)
			}
		}
	}
	if got := strings.Join(used, ","); got != "search_products,add_to_cart,begin_checkout" {
		t.Errorf("tools used %s", got)
	}
	cw := rep.CheckoutWebMCP
	if cw == nil || !cw.Detected || strings.Join(cw.Tools, ",") != "add_to_cart,begin_checkout,checkout_summary,search_products,view_cart" {
		t.Errorf("checkoutWebmcp %+v", cw)
	}
	if v := front.Violations(); len(v) > 0 {
		t.Errorf("forbidden requests: %+v", v)
	}
	if t.Failed() {
		for _, st := range rep.Log {
			t.Logf("%d %s %s %q — %s", st.N, st.Action, st.Role, st.Name, st.Note)
		}
	}
}
