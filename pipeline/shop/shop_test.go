package shop

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	"svc/fixtures"
	"svc/fixtures/shops"
	"svc/pipeline/fetch"
	"svc/pipeline/shop/browser"
)

// world is the fixture server and one Chromium shared by the browser
// tests: each run still gets a fresh incognito context (see package
// browser), so sharing the process costs no isolation and saves a second
// of start-up per run.
var world struct {
	once sync.Once
	srv  *fixtures.Server
	b    *browser.Browser
	err  error
	skip string
}

func TestMain(m *testing.M) {
	if serveWorldProcess() {
		return
	}
	code := m.Run()
	if world.b != nil {
		world.b.Close()
	}
	if world.srv != nil {
		world.srv.Close()
	}
	os.Exit(code)
}

// shared starts the fixture server and Chromium once. It skips the test
// when Chromium is absent, except under CI=true.
func shared(t *testing.T) (*fixtures.Server, *browser.Browser) {
	t.Helper()
	world.once.Do(func() {
		if browser.FindExecPath() == "" {
			world.skip = "no Chromium found (install Debian's chromium package, or set SVC_CHROMIUM): the browser shoppers are not tested"
			return
		}
		world.srv, world.err = fixtures.NewServer(fixtures.Generate(1, fixtures.DefaultStores), fixtures.ServerOptions{})
		if world.err != nil {
			return
		}
		world.b, world.err = browser.Start(context.Background(), browser.Options{
			FixtureAddr: world.srv.Addr(), FixtureCA: world.srv.CAPEM(),
		})
	})
	if world.skip != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but " + world.skip)
		}
		t.Skip(world.skip)
	}
	if world.err != nil {
		t.Fatal(world.err)
	}
	return world.srv, world.b
}

func runOptions(t *testing.T, srv *fixtures.Server, b *browser.Browser) Options {
	c, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM()})
	if err != nil {
		t.Fatal(err)
	}
	return Options{Browser: b, Client: c}
}

// leaked returns what of a report would reveal a checkout address.
func leaked(rep *Report) []string {
	b, _ := json.Marshal(rep)
	s := string(b)
	var out []string
	for _, bad := range []string{"ck_secret_token", "token=", "/c/", "/session/", "svc-payhub.test/"} {
		if strings.Contains(s, bad) {
			out = append(out, bad)
		}
	}
	for _, st := range rep.Log {
		if strings.Contains(st.URL, "checkout") && !strings.HasSuffix(st.URL, Withheld) {
			out = append(out, st.URL)
		}
	}
	return out
}

func TestShoppersOverTheFixtureShops(t *testing.T) {
	srv, b := shared(t)
	opts := runOptions(t, srv, b)
	only := os.Getenv("SVC_SHOP_ONLY") // host or shopper filter while debugging
	// Two runs at a time, each in its own incognito page of the shared
	// browser: the table's time on two cores without starving the rest.
	sem := make(chan struct{}, 2)
	t.Run("runs", func(t *testing.T) {
		for _, truth := range shops.Truths() {
			for _, sh := range []Shopper{Semantic, Accessibility, WebMCP, Mobile} {
				want := truth.Want[string(sh)]
				if only != "" && !strings.Contains(truth.Host+"/"+string(sh), only) {
					continue
				}
				t.Run(truth.Host+"/"+string(sh), func(t *testing.T) {
					t.Parallel()
					sem <- struct{}{}
					defer func() { <-sem }()
					rep, err := Run(t.Context(), opts, sh, "https://"+truth.Host+"/")
					if err != nil {
						t.Fatalf("run: %v", err)
					}
					if rep.Outcome != want {
						t.Errorf("outcome %s (%s), want %s (%s)", rep.Outcome, rep.Reason, want, truth.Trait)
					}
					if sh == Semantic && truth.Reason != "" && rep.Reason != truth.Reason {
						t.Errorf("reason %s, want %s", rep.Reason, truth.Reason)
					}
					checkCheckoutWebMCP(t, rep, truth)
					if l := leaked(rep); len(l) > 0 {
						t.Errorf("the report reveals a checkout address: %v", l)
					}
					if rep.Steps != len(rep.Log) || !rep.StoppedBeforePayment {
						t.Errorf("steps %d, log %d, stoppedBeforePayment %v", rep.Steps, len(rep.Log), rep.StoppedBeforePayment)
					}
					if t.Failed() || testing.Verbose() {
						for _, st := range rep.Log {
							t.Logf("%d %s %s %q — %s [%s] %s", st.N, st.Action, st.Role, st.Name, st.Note, st.Title, st.URL)
						}
						t.Logf("refused: %+v", rep.Refused)
					}
				})
			}
		}
	})
	if traps := srv.Shops().Traps(); len(traps) > 0 {
		t.Errorf("traps were touched: %v", traps)
	}
	if n := len(shops.Truths()); n < 17 {
		t.Errorf("only %d fixture shops", n)
	}
}

// checkCheckoutWebMCP holds a report to the shop's truth: a run that
// reached checkout names exactly the tools the checkout page offers
// (detected false when none), and a run that did not measured nothing.
func checkCheckoutWebMCP(t *testing.T, rep *Report, truth shops.Truth) {
	t.Helper()
	cw := rep.CheckoutWebMCP
	if rep.Outcome != CheckoutReached {
		if cw != nil {
			t.Errorf("checkoutWebmcp %+v without reaching checkout (%s)", *cw, rep.Outcome)
		}
		return
	}
	if cw == nil {
		t.Fatalf("checkout reached but checkoutWebmcp not measured")
	}
	want := truth.CheckoutWebMCP
	if cw.Detected != (len(want) > 0) || strings.Join(cw.Tools, ",") != strings.Join(want, ",") {
		t.Errorf("checkoutWebmcp %+v, want tools %v (%s)", *cw, want, truth.Trait)
	}
}

// Every browser path, not only C, reads the WebMCP tools of the checkout
// page it reaches: registered at run time (imperative), declared by a
// toolname form, or none.
func TestCheckoutWebMCPAtTheCheckoutPage(t *testing.T) {
	srv, b := shared(t)
	opts := runOptions(t, srv, b)
	truths := map[string]shops.Truth{}
	for _, tr := range shops.Truths() {
		truths[tr.Host] = tr
	}
	for _, c := range []struct {
		host    string
		shopper Shopper
		want    []string
	}{
		{"svcshop-webmcp.test", Semantic, []string{"complete_checkout", "get_checkout", "update_checkout"}},
		{"svcshop-webmcp.test", WebMCP, []string{"complete_checkout", "get_checkout", "update_checkout"}},
		{"svcshop-toolform.test", Accessibility, []string{"apply_discount_code"}},
		{"svcshop-form.test", Semantic, nil},
	} {
		t.Run(c.host+"/"+string(c.shopper), func(t *testing.T) {
			tr := truths[c.host]
			if strings.Join(tr.CheckoutWebMCP, ",") != strings.Join(c.want, ",") {
				t.Fatalf("truth of %s: %v, want %v", c.host, tr.CheckoutWebMCP, c.want)
			}
			rep, err := Run(t.Context(), opts, c.shopper, "https://"+c.host+"/")
			if err != nil {
				t.Fatal(err)
			}
			if rep.Outcome != CheckoutReached {
				t.Fatalf("outcome %s (%s), want checkout_reached", rep.Outcome, rep.Reason)
			}
			checkCheckoutWebMCP(t, rep, tr)
			if cw := rep.CheckoutWebMCP; cw != nil && cw.Tools == nil {
				t.Error("tools is null, want a list")
			}
		})
	}
	if traps := srv.Shops().Traps(); len(traps) > 0 {
		t.Errorf("traps were touched: %v", traps)
	}
}

// TestAccessibilityShopperBoundsItsReading: on a page with more elements
// than A's reading of the DOM takes (the world's oversized store, 2 MiB
// of text), B reads no accessibility tree, and says so in its log; before
// the bound its tree took some 300 MB in the renderer and 200 MB in svc.
// Nor does it wait for such a page to change: it stays beyond the bound.
func TestAccessibilityShopperBoundsItsReading(t *testing.T) {
	srv, br := shared(t)
	host := ""
	for _, st := range srv.World().Stores {
		if strings.Contains(strings.Join(st.Traits, " "), "unreachable:oversized") {
			host = st.Host
			break
		}
	}
	if host == "" {
		t.Fatal("the world has no oversized store")
	}
	c, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM()})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), Options{Browser: br, Client: c}, Accessibility, "https://"+host+"/")
	if err != nil {
		t.Fatal(err)
	}
	bounded, waitless := 0, false
	for _, s := range rep.Log {
		if s.Action == "inspect" && strings.Contains(s.Note, "over the 20000 whose accessibility tree is read") {
			bounded++
		}
		waitless = waitless || strings.Contains(s.Note, "beyond the 20000 elements whose accessibility tree B reads: not waiting")
	}
	if bounded != 1 || !waitless || rep.Outcome != NoCart {
		t.Errorf("B at the oversized store: %s [%s], bound noted %d times, not waited %v; want no_cart with the bound in the log once, and no wait: %+v", rep.Outcome, rep.Reason, bounded, waitless, rep.Log)
	}
}
