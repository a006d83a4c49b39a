package shop

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/pipeline/shop/browser"
)

// hxTruth is a held-out shop's true outcome per browser shopper, as a
// person reading its markup judges it (each shop's README says why).
type hxTruth struct {
	shop *realShop
	want map[Shopper]string
}

// heldOutShops are the held-out shops and their truths.
func heldOutShops() []hxTruth {
	cr, nc := CheckoutReached, NoCart
	return []hxTruth{
		{dawnShop(), map[Shopper]string{Semantic: cr, Accessibility: cr, WebMCP: nc, Mobile: cr}},
		{wooShop(), map[Shopper]string{Semantic: cr, Accessibility: cr, WebMCP: nc, Mobile: cr}},
		{lumaShop(), map[Shopper]string{Semantic: cr, Accessibility: cr, WebMCP: nc, Mobile: cr}},
		{cornerstoneShop(), map[Shopper]string{Semantic: cr, Accessibility: cr, WebMCP: nc, Mobile: cr}},
		{headlessShop(), map[Shopper]string{Semantic: cr, Accessibility: cr, WebMCP: nc, Mobile: cr}},
		{sfraShop(), map[Shopper]string{Semantic: cr, Accessibility: cr, WebMCP: nc, Mobile: cr}},
		{mcpbShop(), map[Shopper]string{Semantic: cr, Accessibility: cr, WebMCP: cr, Mobile: cr}},
	}
}

// TestShoppersOverTheHeldOutShops runs shoppers A, B, C and E on every
// held-out shop (testdata/realshops) and holds each run to the shop's
// truth: the outcome, no checkout address (nor its secret) in the report,
// no click on a payment or account control in the step log, and no trap
// touched anywhere.
func TestShoppersOverTheHeldOutShops(t *testing.T) {
	if testing.Short() {
		t.Skip("browser runs: not under -short")
	}
	needChromiumOrSkip(t)
	truths := heldOutShops()
	var shops []*realShop
	for _, tr := range truths {
		shops = append(shops, tr.shop)
	}
	h := newHeldout(t, shops)
	opts := h.runOptions(t)
	only := os.Getenv("SVC_SHOP_ONLY")
	sem := make(chan struct{}, 3)
	var mu sync.Mutex
	start := time.Now()
	t.Run("runs", func(t *testing.T) {
		for _, tr := range truths {
			for _, sh := range []Shopper{Semantic, Accessibility, WebMCP, Mobile} {
				want := tr.want[sh]
				name := tr.shop.host + "/" + string(sh)
				if only != "" && !strings.Contains(name, only) {
					continue
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					sem <- struct{}{}
					defer func() { <-sem }()
					rep, err := Run(t.Context(), opts, sh, "https://"+tr.shop.host+"/")
					if err != nil {
						t.Fatalf("run: %v", err)
					}
					if rep.Outcome != want {
						t.Errorf("outcome %s (%s), want %s", rep.Outcome, rep.Reason, want)
					}
					for _, bad := range hxLeaks(rep) {
						t.Errorf("the report reveals a checkout address: %s", bad)
					}
					for _, st := range rep.Log {
						if (st.Action == "click" || st.Action == "choose") && reForbiddenWords.MatchString(st.Name) {
							t.Errorf("step %d acted on a forbidden control %q", st.N, st.Name)
						}
						// Every shopper puts one item in the cart: a count
						// read as anything else misread the badge.
						if m := reCountNote.FindStringSubmatch(st.Note); m != nil && m[1] != "1" {
							t.Errorf("step %d read the cart count as %s, want 1", st.N, m[1])
						}
					}
					if rep.Steps != len(rep.Log) || !rep.StoppedBeforePayment {
						t.Errorf("steps %d, log %d, stoppedBeforePayment %v", rep.Steps, len(rep.Log), rep.StoppedBeforePayment)
					}
					if t.Failed() || testing.Verbose() {
						mu.Lock()
						defer mu.Unlock()
						t.Logf("%s %s in %.1fs", rep.Outcome, rep.Reason, rep.Seconds)
						for _, st := range rep.Log {
							t.Logf("%d %s %s %q — %s [%s] %s", st.N, st.Action, st.Role, st.Name, st.Note, st.Title, st.URL)
						}
						t.Logf("refused: %+v", rep.Refused)
					}
				})
			}
		}
	})
	if traps := h.Traps(); len(traps) > 0 {
		t.Errorf("traps were touched: %v", traps)
	}
	t.Logf("held-out shops: %d shops in %s", len(truths), time.Since(start).Round(time.Second))
}

func needChromiumOrSkip(t *testing.T) {
	t.Helper()
	if browser.FindExecPath() == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but no Chromium found")
		}
		t.Skip("no Chromium found (install Debian's chromium package, or set SVC_CHROMIUM): the browser shoppers are not tested")
	}
}

var reCountNote = regexp.MustCompile(`cart count (\d+)`)

// hxLeaks returns what of a report would reveal a checkout address: the
// checkout secret anywhere, or a step address that reads as a checkout
// and is not withheld.
func hxLeaks(rep *Report) []string {
	b, _ := json.Marshal(rep)
	var out []string
	if strings.Contains(string(b), hxSecret) {
		out = append(out, "the checkout secret")
	}
	for _, st := range rep.Log {
		if strings.Contains(strings.ToLower(st.URL), "checkout") && !strings.HasSuffix(st.URL, Withheld) {
			out = append(out, st.URL)
		}
	}
	return out
}

// formValue reads a form value of a urlencoded or multipart body.
func formValue(r *http.Request, key string) string {
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			return ""
		}
	} else if err := r.ParseForm(); err != nil {
		return ""
	}
	return r.FormValue(key)
}

func hasForm(r *http.Request, key string) bool {
	_ = formValue(r, key)
	_, ok := r.Form[key]
	return ok
}

func writeHXJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// --- dawn: Shopify's Dawn theme with the cart drawer (testdata/realshops/dawn).

var reDawnAsset = regexp.MustCompile(`^/cdn/shop/(?:t/\d+/assets|files)/([a-z0-9.-]+)$`)

func dawnShop() *realShop {
	return &realShop{
		host: "dawn.heldout.test", dir: "dawn",
		extra: []string{"checkout.pci.shopifyinc.test"},
		trap: func(r *http.Request) bool {
			p := r.URL.Path
			return r.Method == http.MethodPost && (strings.HasPrefix(p, "/checkouts/") || p == "/contact" || strings.HasPrefix(p, "/account"))
		},
		serve: serveDawn,
	}
}

func serveDawn(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if strings.HasPrefix(r.Host, "checkout.pci.") {
		if strings.HasSuffix(p, "-ltr.html") {
			h.render(w, r, s, "pci", http.StatusOK, hxPage{})
			return
		}
		http.NotFound(w, r)
		return
	}
	if m := reDawnAsset.FindStringSubmatch(p); m != nil {
		h.asset(w, s, m[1])
		return
	}
	switch {
	case p == "/cdn/shopifycloud/consent-tracking-api/v0.1/consent-tracking-api.js":
		h.asset(w, s, "consent-tracking-api.js")
	case p == "/" || p == "/collections/all":
		h.render(w, r, s, "index", http.StatusOK, hxPage{Title: "Dawn Held-out"})
	case strings.HasPrefix(p, "/products/"):
		pr, ok := hxFind(strings.TrimPrefix(p, "/products/"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		h.render(w, r, s, "product", http.StatusOK, hxPage{Title: pr.Name + " – Dawn Held-out", Product: pr})
	case p == "/cart/add" && r.Method == http.MethodPost:
		items, ok := hxAdd(w, r, formValue(r, "id"))
		if r.Header.Get("X-Requested-With") != "XMLHttpRequest" {
			http.Redirect(w, r, "/cart", http.StatusFound)
			return
		}
		if !ok {
			writeHXJSON(w, http.StatusUnprocessableEntity, map[string]any{"status": 422, "message": "Cart Error", "description": "The product is not available."})
			return
		}
		// The sections the drawer asked for, rendered for the new cart.
		var drawer, bubble strings.Builder
		data := hxPage{Host: s.host, Items: items, Count: len(items), Total: hxTotal(items)}
		_ = s.tmpl.ExecuteTemplate(&drawer, "cart-drawer-inner", data)
		_ = s.tmpl.ExecuteTemplate(&bubble, "cart-icon-bubble", data)
		last := items[len(items)-1]
		writeHXJSON(w, http.StatusOK, map[string]any{
			"id": last.ID, "quantity": 1, "variant_id": last.ID, "title": last.Name, "handle": last.Handle,
			"sections": map[string]string{
				"cart-drawer":      `<div id="shopify-section-cart-drawer" class="shopify-section"><div id="CartDrawer" class="cart-drawer">` + drawer.String() + `</div></div>`,
				"cart-icon-bubble": `<div id="shopify-section-cart-icon-bubble" class="shopify-section">` + bubble.String() + `</div>`,
			},
		})
	case p == "/cart/change" && r.Method == http.MethodPost:
		http.SetCookie(w, &http.Cookie{Name: "hx_cart", Value: "", Path: "/", MaxAge: -1})
		writeHXJSON(w, http.StatusOK, map[string]any{"item_count": 0})
	case p == "/cart" && r.Method == http.MethodPost:
		if hasForm(r, "checkout") && len(hxCart(r)) > 0 {
			http.Redirect(w, r, "/checkouts/cn/"+hxSecret+"?_r=hx", http.StatusFound)
			return
		}
		http.Redirect(w, r, "/cart", http.StatusFound)
	case p == "/cart":
		h.render(w, r, s, "cart", http.StatusOK, hxPage{Title: "Your Shopping Cart – Dawn Held-out"})
	case p == "/checkouts/cn/"+hxSecret:
		if len(hxCart(r)) == 0 {
			http.Redirect(w, r, "/cart", http.StatusFound)
			return
		}
		h.render(w, r, s, "checkout", http.StatusOK, hxPage{})
	default:
		h.render(w, r, s, "notfound", http.StatusNotFound, hxPage{Title: "404 Not Found – Dawn Held-out"})
	}
}

func hxTotal(items []hxProduct) string {
	total := 0.0
	for _, it := range items {
		var f float64
		fmt.Sscanf(it.Price, "%g", &f)
		total += f
	}
	return fmt.Sprintf("%.2f", total)
}

// --- woo: WooCommerce on Storefront with Cookiebot (testdata/realshops/woo).

func wooShop() *realShop {
	return &realShop{
		host: "woo.heldout.test", dir: "woo",
		extra: []string{"consent.cookiebot.test", "consentcdn.cookiebot.test"},
		trap: func(r *http.Request) bool {
			if r.Method != http.MethodPost {
				return false
			}
			q := r.URL.Query().Get("wc-ajax")
			return q == "checkout" || r.URL.Path == "/checkout/" || r.URL.Path == "/my-account/"
		},
		serve: serveWoo,
	}
}

// execString renders one template of the shop to a string.
func (s *realShop) execString(name string, p hxPage) string {
	var b strings.Builder
	if err := s.tmpl.ExecuteTemplate(&b, name, p); err != nil {
		return ""
	}
	return b.String()
}

func serveWoo(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch r.Host {
	case "consent.cookiebot.test":
		h.asset(w, s, "uc.js")
		return
	case "consentcdn.cookiebot.test":
		w.Header().Set("Access-Control-Allow-Origin", "*")
		writeHXJSON(w, http.StatusOK, map[string]any{"delay": 400, "template": "popup"})
		return
	}
	switch ajax := r.URL.Query().Get("wc-ajax"); {
	case strings.HasPrefix(p, "/wp-content/"):
		h.asset(w, s, path.Base(p))
	case ajax == "add_to_cart" && r.Method == http.MethodPost:
		items, ok := hxAdd(w, r, formValue(r, "product_id"))
		if !ok {
			writeHXJSON(w, http.StatusOK, map[string]any{"error": true, "product_url": "/shop/"})
			return
		}
		d := hxPage{Host: s.host, Items: items, Count: len(items), Total: hxTotal(items)}
		writeHXJSON(w, http.StatusOK, map[string]any{"cart_hash": "hx" + d.Total, "fragments": map[string]string{
			"a.cart-contents":                  s.execString("cart-contents", d),
			"div.widget_shopping_cart_content": `<div class="widget_shopping_cart_content">` + s.execString("mini-cart", d) + `</div>`,
			"a.footer-cart-contents":           s.execString("footer-cart-contents", d),
		}})
	case ajax == "update_order_review":
		writeHXJSON(w, http.StatusOK, map[string]any{"result": "success", "reload": false})
	case p == "/" && r.URL.Query().Get("add-to-cart") != "":
		hxAdd(w, r, r.URL.Query().Get("add-to-cart"))
		http.Redirect(w, r, "/cart/", http.StatusFound)
	case p == "/":
		h.render(w, r, s, "index", http.StatusOK, hxPage{Title: "Woo Held-out – Goods for slow days"})
	case p == "/shop/":
		h.render(w, r, s, "shop", http.StatusOK, hxPage{Title: "Products – Woo Held-out"})
	case strings.HasPrefix(p, "/product/") && strings.HasSuffix(p, "/"):
		pr, ok := hxFind(strings.Trim(strings.TrimPrefix(p, "/product/"), "/"))
		if !ok {
			h.render(w, r, s, "notfound", http.StatusNotFound, hxPage{Title: "Page not found – Woo Held-out"})
			return
		}
		pg := hxPage{Title: pr.Name + " – Woo Held-out", Product: pr}
		if r.Method == http.MethodPost && formValue(r, "add-to-cart") == pr.ID {
			name := pr.Name
			if pr.Handle == "linen-shirt" {
				size := formValue(r, "attribute_pa_size")
				if size != "m" && size != "l" || formValue(r, "variation_id") == "0" {
					h.render(w, r, s, "product", http.StatusOK, pg)
					return
				}
				name += " - " + strings.ToUpper(size)
			}
			items, _ := hxAdd(w, r, pr.ID)
			// The page is rendered with the new cart, as WooCommerce
			// handles the add before the page.
			r.AddCookie(&http.Cookie{Name: "hx_cart", Value: hxIDs(items)})
			r.Header.Set("Cookie", "hx_cart="+hxIDs(items))
			pg.Query = name
		}
		h.render(w, r, s, "product", http.StatusOK, pg)
	case p == "/cart/":
		h.render(w, r, s, "cart", http.StatusOK, hxPage{Title: "Cart – Woo Held-out"})
	case p == "/checkout/":
		if len(hxCart(r)) == 0 {
			http.Redirect(w, r, "/cart/", http.StatusFound)
			return
		}
		h.render(w, r, s, "checkout", http.StatusOK, hxPage{Title: "Checkout – Woo Held-out"})
	case p == "/my-account/":
		h.render(w, r, s, "account", http.StatusOK, hxPage{Title: "My account – Woo Held-out"})
	default:
		h.render(w, r, s, "notfound", http.StatusNotFound, hxPage{Title: "Page not found – Woo Held-out"})
	}
}

func hxIDs(items []hxProduct) string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return strings.Join(ids, ".")
}

// --- luma: Magento 2 with the Luma theme and OneTrust (testdata/realshops/luma).

func lumaShop() *realShop {
	return &realShop{
		host: "luma.heldout.test", dir: "luma",
		extra: []string{"cdn.cookielaw.test", "assets.braintreegateway.test"},
		trap: func(r *http.Request) bool {
			p := r.URL.Path
			return r.Method == http.MethodPost && (strings.HasPrefix(p, "/rest/") || strings.HasPrefix(p, "/newsletter/") || strings.HasPrefix(p, "/customer/"))
		},
		serve: serveLuma,
	}
}

var reLumaAdd = regexp.MustCompile(`^/checkout/cart/add/uenc/[^/]+/product/(\d+)/$`)

func serveLuma(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch r.Host {
	case "cdn.cookielaw.test":
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if strings.HasPrefix(p, "/consent/") {
			writeHXJSON(w, http.StatusOK, map[string]any{"delayMs": 500})
			return
		}
		h.asset(w, s, path.Base(p))
		return
	case "assets.braintreegateway.test":
		h.render(w, r, s, "hosted", http.StatusOK, hxPage{})
		return
	}
	ajax := r.Header.Get("X-Requested-With") == "XMLHttpRequest"
	msg := func(pg hxPage) hxPage {
		if c, err := r.Cookie("hx_msg"); err == nil && c.Value != "" {
			pg.Message, pg.MessageType = "You need to choose options for your item.", "notice"
			http.SetCookie(w, &http.Cookie{Name: "hx_msg", Path: "/", MaxAge: -1})
		}
		return pg
	}
	switch m := reLumaAdd.FindStringSubmatch(p); {
	case strings.HasPrefix(p, "/static/") || strings.HasPrefix(p, "/media/"):
		h.asset(w, s, path.Base(p))
	case m != nil && r.Method == http.MethodPost:
		pr, ok := hxFind(m[1])
		if !ok {
			http.NotFound(w, r)
			return
		}
		if formValue(r, "super_attribute[143]") == "" || formValue(r, "super_attribute[93]") == "" {
			if ajax {
				writeHXJSON(w, http.StatusOK, map[string]any{"backUrl": "https://" + s.host + "/" + pr.Handle + ".html"})
				return
			}
			http.SetCookie(w, &http.Cookie{Name: "hx_msg", Value: "options", Path: "/", Secure: true})
			http.Redirect(w, r, "/"+pr.Handle+".html", http.StatusFound)
			return
		}
		hxAdd(w, r, pr.ID)
		http.SetCookie(w, &http.Cookie{Name: "hx_added", Value: pr.ID, Path: "/", Secure: true})
		if ajax {
			writeHXJSON(w, http.StatusOK, map[string]any{})
			return
		}
		http.Redirect(w, r, "/checkout/cart/", http.StatusFound)
	case p == "/customer/section/load/":
		items := hxCart(r)
		d := hxPage{Host: s.host, Items: items, Count: len(items), Total: hxTotal(items)}
		var msgs []map[string]string
		if c, err := r.Cookie("hx_added"); err == nil {
			if pr, ok := hxFind(c.Value); ok {
				msgs = append(msgs, map[string]string{"type": "success", "text": "You added " + pr.Name + ` to your <a href="https://` + s.host + `/checkout/cart/">shopping cart</a>.`})
			}
			http.SetCookie(w, &http.Cookie{Name: "hx_added", Path: "/", MaxAge: -1})
		}
		writeHXJSON(w, http.StatusOK, map[string]any{
			"cart":     map[string]any{"summary_count": len(items), "subtotal": d.Total, "html": s.execString("minicart-content", d)},
			"messages": map[string]any{"messages": msgs},
		})
	case p == "/":
		h.render(w, r, s, "index", http.StatusOK, msg(hxPage{Title: "Home Page", Query: "cms-home-page cms-index-index"}))
	case p == "/what-is-new.html":
		h.render(w, r, s, "category", http.StatusOK, msg(hxPage{Title: "What's New", Query: "catalog-category-view page-products"}))
	case p == "/checkout/cart/":
		h.render(w, r, s, "cart", http.StatusOK, hxPage{Title: "Shopping Cart", Query: "checkout-cart-index"})
	case p == "/checkout/":
		if len(hxCart(r)) == 0 {
			http.Redirect(w, r, "/checkout/cart/", http.StatusFound)
			return
		}
		h.render(w, r, s, "checkout", http.StatusOK, hxPage{})
	case p == "/checkout/config.json":
		writeHXJSON(w, http.StatusOK, map[string]any{"quoteId": hxSecret})
	case strings.HasSuffix(p, ".html") && strings.Count(p, "/") == 1:
		pr, ok := hxFind(strings.TrimSuffix(p[1:], ".html"))
		if !ok {
			h.render(w, r, s, "notfound", http.StatusNotFound, hxPage{Title: "404 Not Found"})
			return
		}
		h.render(w, r, s, "product", http.StatusOK, msg(hxPage{Title: pr.Name, Product: pr, Query: "catalog-product-view product-" + pr.Handle}))
	default:
		h.render(w, r, s, "notfound", http.StatusNotFound, hxPage{Title: "404 Not Found"})
	}
}

// --- cornerstone: BigCommerce's Cornerstone theme with Usercentrics
// (testdata/realshops/cornerstone).

func cornerstoneShop() *realShop {
	return &realShop{
		host: "cornerstone.heldout.test", dir: "cornerstone",
		extra: []string{"cdn11.bigcommerce.test", "app.usercentrics.test", "bigpay.integration.bigcommerce.test"},
		trap: func(r *http.Request) bool {
			p := r.URL.Path
			return r.Method == http.MethodPost && (p == "/login.php" || p == "/subscribe.php" || strings.HasPrefix(p, "/api/storefront/checkouts/") || strings.HasPrefix(p, "/internalapi/"))
		},
		serve: serveCornerstone,
	}
}

func serveCornerstone(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch r.Host {
	case "cdn11.bigcommerce.test", "app.usercentrics.test":
		h.asset(w, s, path.Base(p))
		return
	case "bigpay.integration.bigcommerce.test":
		h.render(w, r, s, "hosted", http.StatusOK, hxPage{})
		return
	}
	q := r.URL.Query()
	needsOptions := func(pr hxProduct) bool { return pr.Handle == "linen-shirt" }
	switch {
	case p == "/cart.php" && q.Get("action") == "add":
		pr, ok := hxFind(q.Get("product_id"))
		if !ok {
			http.Redirect(w, r, "/cart.php", http.StatusFound)
			return
		}
		if needsOptions(pr) {
			http.Redirect(w, r, "/"+pr.Handle+"/", http.StatusFound)
			return
		}
		hxAdd(w, r, pr.ID)
		http.Redirect(w, r, "/cart.php", http.StatusFound)
	case p == "/cart.php" && q.Get("action") == "preview":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		items := hxCart(r)
		fmt.Fprint(w, s.execString("preview", hxPage{Host: s.host, Items: items, Count: len(items), Total: hxTotal(items)}))
	case p == "/cart.php" && r.Method == http.MethodPost:
		if pr, ok := hxFind(formValue(r, "product_id")); ok && (!needsOptions(pr) || formValue(r, "attribute[114]") != "") {
			hxAdd(w, r, pr.ID)
		}
		http.Redirect(w, r, "/cart.php", http.StatusFound)
	case p == "/cart.php":
		h.render(w, r, s, "cart", http.StatusOK, hxPage{Title: "Cornerstone Held-out - Shopping Cart"})
	case p == "/remote/v1/cart/add" && r.Method == http.MethodPost:
		pr, ok := hxFind(formValue(r, "product_id"))
		if !ok {
			writeHXJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"error": "The product is not available."}})
			return
		}
		if needsOptions(pr) && formValue(r, "attribute[114]") == "" {
			writeHXJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"error": "Please select size."}})
			return
		}
		items, _ := hxAdd(w, r, pr.ID)
		writeHXJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"cart_id": "hx-cart", "cart_quantity": len(items), "cart_item": map[string]any{"id": "hx-item-" + pr.ID, "product_id": pr.ID}}})
	case p == "/checkout":
		if len(hxCart(r)) == 0 {
			http.Redirect(w, r, "/cart.php", http.StatusFound)
			return
		}
		h.render(w, r, s, "checkout", http.StatusOK, hxPage{})
	case p == "/api/storefront/checkout/"+hxSecret:
		var lines []map[string]string
		for _, it := range hxCart(r) {
			lines = append(lines, map[string]string{"name": it.Name, "price": it.Price})
		}
		writeHXJSON(w, http.StatusOK, map[string]any{"id": hxSecret, "lineItems": lines})
	case p == "/login.php":
		h.render(w, r, s, "login", http.StatusOK, hxPage{Title: "Cornerstone Held-out - Login"})
	case p == "/" || p == "/shop-all/":
		h.render(w, r, s, "index", http.StatusOK, hxPage{Title: "Cornerstone Held-out"})
	case strings.Count(p, "/") == 2 && strings.HasSuffix(p, "/"):
		pr, ok := hxFind(strings.Trim(p, "/"))
		if !ok {
			h.render(w, r, s, "notfound", http.StatusNotFound, hxPage{Title: "Cornerstone Held-out - 404"})
			return
		}
		h.render(w, r, s, "product", http.StatusOK, hxPage{Title: pr.Name + " - Cornerstone Held-out", Product: pr})
	default:
		h.render(w, r, s, "notfound", http.StatusNotFound, hxPage{Title: "Cornerstone Held-out - 404"})
	}
}

// --- headless: a Next.js-style storefront with Sourcepoint
// (testdata/realshops/headless).

func headlessShop() *realShop {
	return &realShop{
		host: "headless.heldout.test", dir: "headless",
		extra: []string{"cdn.privacy-mgmt.test", "js.stripe.test"},
		trap: func(r *http.Request) bool {
			return r.URL.Path == "/api/checkout/complete" || r.URL.Path == "/account/login" && r.Method == http.MethodPost
		},
		serve: serveHeadless,
	}
}

func hxCartJSON(items []hxProduct) map[string]any {
	lines := []map[string]string{}
	for _, it := range items {
		lines = append(lines, map[string]string{"id": it.ID, "name": it.Name, "price": it.Price})
	}
	return map[string]any{"items": lines, "subtotal": hxTotal(items)}
}

func serveHeadless(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch r.Host {
	case "cdn.privacy-mgmt.test":
		w.Header().Set("Access-Control-Allow-Origin", "*")
		switch {
		case p == "/wrapper/v2/messages":
			writeHXJSON(w, http.StatusOK, map[string]any{"messageId": 1234})
		case p == "/index.html":
			h.render(w, r, s, "sp", http.StatusOK, hxPage{})
		case strings.HasPrefix(p, "/wrapper/v2/choice/"):
			writeHXJSON(w, http.StatusOK, map[string]any{"consentUUID": "hx"})
		default:
			h.asset(w, s, path.Base(p))
		}
		return
	case "js.stripe.test":
		h.render(w, r, s, "stripe", http.StatusOK, hxPage{})
		return
	}
	switch {
	case strings.HasPrefix(p, "/_next/static/"):
		h.asset(w, s, path.Base(p))
	case p == "/_next/image":
		h.asset(w, s, path.Base(r.URL.Query().Get("url")))
	case p == "/api/products":
		var ps []map[string]string
		for _, pr := range hxCatalog {
			ps = append(ps, map[string]string{"id": pr.ID, "handle": pr.Handle, "name": pr.Name, "price": pr.Price})
		}
		writeHXJSON(w, http.StatusOK, map[string]any{"products": ps})
	case p == "/api/cart":
		writeHXJSON(w, http.StatusOK, hxCartJSON(hxCart(r)))
	case p == "/api/cart/lines" && r.Method == http.MethodPost:
		var req struct {
			MerchandiseID string `json:"merchandiseId"`
			Size          string `json:"size"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil || req.Size == "" || req.Size == "XS" {
			writeHXJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": "choose a size"})
			return
		}
		items, ok := hxAdd(w, r, req.MerchandiseID)
		if !ok {
			writeHXJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": "unavailable"})
			return
		}
		writeHXJSON(w, http.StatusOK, hxCartJSON(items))
	case strings.HasPrefix(p, "/api/cart/lines/") && r.Method == http.MethodDelete:
		http.SetCookie(w, &http.Cookie{Name: "hx_cart", Path: "/", MaxAge: -1})
		writeHXJSON(w, http.StatusOK, hxCartJSON(nil))
	case strings.HasPrefix(p, "/api/"):
		writeHXJSON(w, http.StatusNotFound, map[string]any{"error": "not found"})
	default:
		h.render(w, r, s, "shell", http.StatusOK, hxPage{})
	}
}

// --- sfra: Salesforce B2C Commerce's Storefront Reference Architecture with
// TrustArc (testdata/realshops/sfra).

const sfraPipeline = "/on/demandware.store/Sites-RefArch-Site/en_US/"

func sfraShop() *realShop {
	return &realShop{
		host: "sfra.heldout.test", dir: "sfra",
		extra: []string{"consent.trustarc.test", "consent-pref.trustarc.test"},
		trap: func(r *http.Request) bool {
			p := strings.TrimPrefix(r.URL.Path, sfraPipeline)
			for _, t := range []string{"Account-Login", "CheckoutServices-", "CheckoutShippingServices-", "EmailSubscribe-"} {
				if strings.HasPrefix(p, t) && r.Method == http.MethodPost {
					return true
				}
			}
			return false
		},
		serve: serveSFRA,
	}
}

var reSFRAProduct = regexp.MustCompile(`^/s/RefArch/[\w-]+/(\d+)\.html$`)

func serveSFRA(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch r.Host {
	case "consent.trustarc.test":
		h.asset(w, s, "notice.js")
		return
	case "consent-pref.trustarc.test":
		if p == "/preferences/submit" {
			writeHXJSON(w, http.StatusOK, map[string]any{"ok": true})
			return
		}
		h.render(w, r, s, "trustarc", http.StatusOK, hxPage{})
		return
	}
	switch m := reSFRAProduct.FindStringSubmatch(p); {
	case strings.HasPrefix(p, "/on/demandware.static/"):
		h.asset(w, s, path.Base(p))
	case p == "/":
		http.Redirect(w, r, "/s/RefArch/home", http.StatusFound)
	case p == "/s/RefArch/home" || p == "/s/RefArch/new-arrivals/":
		h.render(w, r, s, "home", http.StatusOK, hxPage{Title: "SFRA Held-out | Home", Query: "Home-Show"})
	case m != nil:
		pr, ok := hxFind(m[1])
		if !ok {
			h.render(w, r, s, "notfound", http.StatusNotFound, hxPage{Title: "SFRA Held-out | Not found"})
			return
		}
		h.render(w, r, s, "product", http.StatusOK, hxPage{Title: pr.Name + " | SFRA Held-out", Product: pr, Query: "Product-Show"})
	case p == sfraPipeline+"Product-Variation":
		writeHXJSON(w, http.StatusOK, map[string]any{"product": map[string]any{"id": r.URL.Query().Get("pid"), "readyToOrder": true}})
	case p == sfraPipeline+"Cart-AddProduct" && r.Method == http.MethodPost:
		items, ok := hxAdd(w, r, formValue(r, "pid"))
		if !ok {
			writeHXJSON(w, http.StatusOK, map[string]any{"error": true, "message": "Unable to add the product to the cart"})
			return
		}
		writeHXJSON(w, http.StatusOK, map[string]any{"error": false, "quantityTotal": len(items), "message": "Product added to cart"})
	case p == "/s/RefArch/cart":
		h.render(w, r, s, "cart", http.StatusOK, hxPage{Title: "Sites-RefArch-Site", Query: "Cart-Show"})
	case p == sfraPipeline+"Checkout-Login":
		if len(hxCart(r)) == 0 {
			http.Redirect(w, r, "/s/RefArch/cart", http.StatusFound)
			return
		}
		h.render(w, r, s, "checkoutlogin", http.StatusOK, hxPage{Title: "Sites-RefArch-Site", Query: "Checkout-Login"})
	case p == sfraPipeline+"Checkout-Begin":
		if len(hxCart(r)) == 0 {
			http.Redirect(w, r, "/s/RefArch/cart", http.StatusFound)
			return
		}
		h.render(w, r, s, "checkout", http.StatusOK, hxPage{Title: "Sites-RefArch-Site", Query: "Checkout-Begin"})
	case p == "/s/RefArch/login":
		h.render(w, r, s, "login", http.StatusOK, hxPage{Title: "SFRA Held-out | Login", Query: "Login-Show"})
	default:
		h.render(w, r, s, "notfound", http.StatusNotFound, hxPage{Title: "SFRA Held-out | Not found"})
	}
}

// --- mcpb: a small store offering WebMCP tools with provideContext
// (testdata/realshops/mcpb).

func mcpbShop() *realShop {
	return &realShop{
		host: "mcpb.heldout.test", dir: "mcpb",
		trap: func(r *http.Request) bool {
			return r.Method == http.MethodPost && (r.URL.Path == "/orders" || strings.HasPrefix(r.URL.Path, "/account"))
		},
		serve: serveMCPB,
	}
}

func serveMCPB(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	cartJSON := func(items []hxProduct) map[string]any {
		m := hxCartJSON(items)
		m["count"] = len(items)
		return m
	}
	switch {
	case strings.HasPrefix(p, "/js/") || strings.HasPrefix(p, "/img/"):
		h.asset(w, s, path.Base(p))
	case p == "/" || p == "/shop":
		h.render(w, r, s, "index", http.StatusOK, hxPage{Title: "Fieldnotes Goods"})
	case strings.HasPrefix(p, "/products/"):
		pr, ok := hxFind(strings.TrimPrefix(p, "/products/"))
		if !ok {
			h.render(w, r, s, "notfound", http.StatusNotFound, hxPage{Title: "Not found – Fieldnotes Goods"})
			return
		}
		h.render(w, r, s, "product", http.StatusOK, hxPage{Title: pr.Name + " – Fieldnotes Goods", Product: pr})
	case p == "/cart/items" && r.Method == http.MethodPost:
		hxAdd(w, r, formValue(r, "product_id"))
		http.Redirect(w, r, "/cart", http.StatusSeeOther)
	case p == "/cart":
		h.render(w, r, s, "cart", http.StatusOK, hxPage{Title: "Cart – Fieldnotes Goods"})
	case p == "/checkout":
		if len(hxCart(r)) == 0 {
			http.Redirect(w, r, "/cart", http.StatusFound)
			return
		}
		h.render(w, r, s, "checkout", http.StatusOK, hxPage{})
	case p == "/api/products":
		var ps []map[string]any
		for _, pr := range hxCatalog {
			ps = append(ps, map[string]any{"id": pr.ID, "name": pr.Name, "price": pr.Price, "available": !pr.SoldOut})
		}
		writeHXJSON(w, http.StatusOK, map[string]any{"products": ps})
	case p == "/api/cart" && r.Method == http.MethodPost:
		var req struct {
			ProductID string `json:"product_id"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
			writeHXJSON(w, http.StatusBadRequest, map[string]any{"error": "bad request"})
			return
		}
		items, ok := hxAdd(w, r, req.ProductID)
		if !ok {
			writeHXJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": "unavailable"})
			return
		}
		writeHXJSON(w, http.StatusOK, cartJSON(items))
	case p == "/api/cart":
		writeHXJSON(w, http.StatusOK, cartJSON(hxCart(r)))
	default:
		h.render(w, r, s, "notfound", http.StatusNotFound, hxPage{Title: "Not found – Fieldnotes Goods"})
	}
}

// TestServeHeldOutShops serves the held-out shops for a manual run of the
// contract command, when SVC_HELDOUT_SERVE names a directory: it writes the
// CA there (ca.pem), prints the address, and serves for
// SVC_HELDOUT_SERVE_FOR (default 10m) or until the test's deadline:
//
//	SVC_HELDOUT_SERVE=/tmp/hx go test -run TestServeHeldOutShops -v ./pipeline/shop/ &
//	svc shop https://dawn.heldout.test/ --shopper A --json --fixture-addr ADDR --fixture-ca /tmp/hx/ca.pem
func TestServeHeldOutShops(t *testing.T) {
	dir := os.Getenv("SVC_HELDOUT_SERVE")
	if dir == "" {
		t.Skip("set SVC_HELDOUT_SERVE to a directory to serve the held-out shops")
	}
	var shops []*realShop
	for _, tr := range heldOutShops() {
		shops = append(shops, tr.shop)
	}
	h := newHeldout(t, shops)
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), h.caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	d := 10 * time.Minute
	if v, err := time.ParseDuration(os.Getenv("SVC_HELDOUT_SERVE_FOR")); err == nil {
		d = v
	}
	fmt.Printf("held-out shops at --fixture-addr %s --fixture-ca %s\n", h.addr(), filepath.Join(dir, "ca.pem"))
	for _, s := range shops {
		fmt.Printf("  https://%s/\n", s.host)
	}
	select {
	case <-time.After(d):
	case <-t.Context().Done():
	}
	if traps := h.Traps(); len(traps) > 0 {
		t.Errorf("traps were touched: %v", traps)
	}
}
