package shop

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// domFinder is shopper A's (and E's) way of seeing a page: visible text,
// aria-label, titles, forms posting to a cart, links, and Product JSON-LD,
// through open shadow roots.
type domFinder struct{}

func (domFinder) look(s *session) (view, error) {
	st, its, err := s.stateAndItems()
	if err != nil {
		return view{}, err
	}
	v := view{st: st, items: its}
	if st.OverlayFrames > 0 {
		v.frameItems = s.overlayFrameItems()
	}
	return v, err
}

func ctl(it Item) control {
	role := it.Role
	if role == "" {
		role = it.Tag
	}
	return control{item: it, role: role, name: label(it)}
}

func (domFinder) overlay(v view) (control, bool) {
	var closeCtl *Item
	for _, it := range append(v.items[:len(v.items):len(v.items)], v.frameItems...) {
		if !it.Dialog || !it.Visible || it.Disabled || Forbidden(it) != "" || it.Href != "" && !strings.HasPrefix(it.Href, "javascript:") && !strings.Contains(it.Href, "#") {
			continue
		}
		name := label(it)
		if reAccept.MatchString(name) {
			return ctl(it), true
		}
		if closeCtl == nil && !reCartDialog.MatchString(it.DialogName) && (reClose.MatchString(name) || reClose.MatchString(it.Aria) || reClose.MatchString(it.Title)) {
			c := it
			closeCtl = &c
		}
	}
	if closeCtl != nil {
		return ctl(*closeCtl), true
	}
	return control{}, false
}

// samePage reports whether two addresses name one page: same host and
// path, and the same hash route when a single-page app routes by hash
// ("#/products/tee", "#!/cart"). A plain anchor ("#reviews") is the same
// page.
func samePage(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	return ua.Host == ub.Host && strings.TrimSuffix(ua.Path, "/") == strings.TrimSuffix(ub.Path, "/") && hashRoute(ua) == hashRoute(ub) &&
		queryRoute(ua) == queryRoute(ub)
}

// pageKey names the page a link leads to, as samePage tells pages apart.
func pageKey(u *url.URL) string {
	return u.Host + u.Path + "#" + hashRoute(u) + "?" + queryRoute(u)
}

// routeParams are the query parameters that choose the page of a store
// routed by one script: OpenCart (route, product_id, path), Zen Cart
// (main_page, products_id, cPath), osCommerce (products_id, cPath),
// PrestaShop without friendly URLs (controller, id_product, id_category),
// CS-Cart (dispatch), and WordPress with plain permalinks, WooCommerce's
// among them: the public query variables of wp-includes/class-wp.php
// (p, page_id, cat, tag, s, post_type, name, pagename, paged, m,
// attachment_id) and those of WooCommerce's post types and taxonomies
// (product, product_cat, product_tag; includes/class-wc-post-types.php),
// so that /?page_id=5 (its Shop page) is not the home page /.
var routeParams = []string{"route", "main_page", "controller", "product_id", "products_id", "id_product", "path", "cPath", "id_category",
	"dispatch", "p", "page_id", "cat", "tag", "s", "post_type", "name", "pagename", "paged", "m", "attachment_id",
	"product", "product_cat", "product_tag"}

// queryRoute is the page a script-routed store's address names in its
// query (its routing parameters, in a fixed order), or "" for an address
// whose path is not a script's or the root.
func queryRoute(u *url.URL) string {
	if !scriptPath(u) {
		return ""
	}
	q := u.Query()
	var b strings.Builder
	for _, k := range routeParams {
		if v := q.Get(k); v != "" {
			b.WriteString(k + "=" + v + "&")
		}
	}
	return b.String()
}

// scriptPath reports an address whose path is a script's (*.php) or the
// root: where a script-routed store names its page in the query.
func scriptPath(u *url.URL) bool {
	p := strings.ToLower(u.Path)
	return strings.HasSuffix(p, ".php") || p == "/" || p == ""
}

// queryProduct reports a script-routed store's product page: OpenCart's
// index.php?route=product/product&product_id=40, Zen Cart's
// index.php?main_page=product_info&products_id=1, osCommerce's
// product_info.php?products_id=28, PrestaShop's
// index.php?id_product=1&controller=product, and WooCommerce's with plain
// permalinks, /?product=hoodie or /?post_type=product&p=15 (get_permalink
// of its product post type; an add-to-cart link is not one).
func queryProduct(u *url.URL) bool {
	q := u.Query()
	switch {
	case !scriptPath(u):
		return false
	case q.Get("route") == "product/product", q.Get("main_page") == "product_info":
		return true
	case q.Has("add-to-cart"):
		return false
	case q.Get("product") != "", q.Get("post_type") == "product" && q.Get("p") != "":
		return true
	case strings.HasSuffix(strings.ToLower(u.Path), "/product_info.php") && q.Get("products_id") != "":
		return true
	}
	return q.Get("controller") == "product" && q.Get("id_product") != ""
}

// hashRoute is the route of a hash-routed single-page app, or "".
func hashRoute(u *url.URL) string {
	f := strings.TrimPrefix(u.Fragment, "!")
	if strings.HasPrefix(f, "/") {
		return strings.TrimSuffix(f, "/")
	}
	return ""
}

// routePath is the path a link leads to, in a hash-routed app its route.
func routePath(u *url.URL) string {
	if r := hashRoute(u); r != "" {
		return r
	}
	return u.Path
}

func (domFinder) products(s *session, v view) ([]control, []string) {
	var fromLD []string
	for _, p := range jsonldProducts(v.st) {
		if p.URL == "" {
			continue
		}
		u, err := url.Parse(v.st.URL)
		if err != nil {
			continue
		}
		pu, err := u.Parse(p.URL)
		if err != nil || !s.sameSite(pu.String()) || samePage(pu.String(), v.st.URL) {
			continue
		}
		fromLD = append(fromLD, pu.String())
	}
	seen := map[string]bool{}
	var first, second, third, fourth, unpriced []control
	for _, it := range v.items {
		if scriptCard(it) {
			// A card that opens its product by script: after every link.
			if !seen["card\x00"+it.Name] && len(fourth) < 8 {
				seen["card\x00"+it.Name] = true
				fourth = append(fourth, ctl(it))
			}
			continue
		}
		if it.Tag != "a" || it.Href == "" || !it.Visible || Forbidden(it) != "" || !s.sameSite(it.Href) || samePage(it.Href, v.st.URL) {
			continue
		}
		u, _ := url.Parse(it.Href)
		path := routePath(u)
		key := pageKey(u)
		if seen[key] || reSkipLink.MatchString(path) || it.Region == "nav" || it.Region == "footer" {
			continue
		}
		inLD := false
		for _, l := range fromLD {
			if samePage(l, it.Href) {
				inLD = true
			}
		}
		switch {
		case inLD:
			first = append(first, ctl(it))
		case reProduct.MatchString(path) || queryProduct(u):
			second = append(second, ctl(it))
		case it.Card && it.Region != "header" && it.Priced:
			third = append(third, ctl(it))
		case it.Card && it.Region != "header":
			// A card that shows no price (a blog post's title, an
			// archive's month): tried after the store's catalogue link.
			c := ctl(it)
			c.weak = true
			unpriced = append(unpriced, c)
		default:
			continue
		}
		seen[key] = true
	}
	var direct []string
	for _, l := range fromLD {
		u, _ := url.Parse(l)
		if !seen[pageKey(u)] {
			direct = append(direct, l)
		}
	}
	return append(append(append(append(first, second...), third...), fourth...), unpriced...), direct
}

// scriptCard reports an element of the main content that opens something
// by script rather than by a link: a card with a click handler, or an
// element with the role of a link and no address. Its words must not be
// those of another action (add, cart, checkout, a catalogue link).
func scriptCard(it Item) bool {
	if !it.Visible || Forbidden(it) != "" || it.Region == "nav" || it.Region == "header" || it.Region == "footer" || it.Dialog {
		return false
	}
	cardButton := it.Tag == "button" && it.Card && it.Form == nil && it.Type != "radio" && it.Role == ""
	if !it.Clickable && !(it.Role == "link" && it.Href == "" && it.Card) && !cardButton {
		return false
	}
	return productWords(label(it))
}

// productWords reports a name that could be a product's: not the words of
// another action (add, cart, checkout, a catalogue, quick view, a wish
// list, a consent dialog).
func productWords(name string) bool {
	return strings.TrimSpace(name) != "" && !reAdd.MatchString(name) && !reCart.MatchString(name) && !reCheckout.MatchString(name) &&
		!reListing.MatchString(name) && !reOtherLink.MatchString(name) && !reAccept.MatchString(name) && !reClose.MatchString(name) &&
		!reSoldOut.MatchString(name)
}

func placeholder(o Option) bool {
	return o.Value == "" || rePick.MatchString(o.Text)
}

// firstOption is the first option a shopper may choose: enabled, not a
// placeholder, not marked sold out.
func firstOption(opts []Option) (Option, bool) {
	for _, o := range opts {
		if !o.Disabled && !placeholder(o) && !reSoldOut.MatchString(o.Text) {
			return o, true
		}
	}
	return Option{}, false
}

func needsChoice(opts []Option) bool {
	for _, o := range opts {
		if o.Selected {
			return placeholder(o) || o.Disabled || reSoldOut.MatchString(o.Text)
		}
	}
	return true
}

func (domFinder) variant(v view, tried func(control) bool) (control, *Option, bool) {
	for _, it := range v.items {
		if it.Tag != "select" || it.Disabled || Forbidden(it) != "" || it.Region == "nav" || it.Region == "footer" {
			continue
		}
		if !reVariant.MatchString(it.Name+" "+it.NameAttr+" "+it.ID+" "+it.Aria) && !cartForm(it.Form) {
			continue
		}
		if !needsChoice(it.Options) {
			continue
		}
		if o, ok := firstOption(it.Options); ok && !tried(ctl(it)) {
			return ctl(it), &o, true
		}
	}
	checked := map[string]bool{}
	for _, it := range v.items {
		if it.Group != "" && it.Checked {
			checked[it.Group] = true
		}
	}
	waits := awaitsChoice(v)
	for _, it := range v.items {
		radio := it.Type == "radio" || it.Type == "label-radio"
		if !radio || it.Group == "" || checked[it.Group] || it.Disabled || Forbidden(it) != "" || reSoldOut.MatchString(label(it)) {
			continue
		}
		if !reVariant.MatchString(it.Group) && !cartForm(it.Form) && !waits || tried(ctl(it)) {
			continue
		}
		return ctl(it), nil, true
	}
	// A list of options drawn only once opened: open it, and choose from
	// it at the next look.
	for _, it := range v.items {
		prompt := (it.Tag == "button" || it.Role == "button") && rePrompt.MatchString(label(it))
		if !it.Popup && !prompt || it.Expanded || !it.Visible || it.Disabled || Forbidden(it) != "" || it.Region == "nav" || it.Region == "footer" {
			continue
		}
		if (prompt || reVariant.MatchString(label(it)+" "+it.Aria+" "+it.ID)) && !tried(ctl(it)) {
			return ctl(it), nil, true
		}
	}
	return control{}, nil, false
}

// cartForm reports a form that posts to a cart: its action names the cart.
func cartForm(f *Form) bool {
	if f == nil || f.Action == "" {
		return false
	}
	u, err := url.Parse(f.Action)
	if err != nil {
		return false
	}
	for _, t := range tokens(u.Path + " " + u.RawQuery) {
		switch t {
		case "cart", "basket", "bag", "trolley", "addtocart":
			return true
		}
	}
	return strings.Contains(strings.ToLower(u.RawQuery), "add-to-cart")
}

func (domFinder) add(v view) (control, bool, bool) {
	var best *Item
	soldOut := false
	for _, it := range v.items {
		if !it.Visible || it.Region == "footer" || it.Region == "nav" {
			continue
		}
		switch it.Tag {
		case "button", "input", "a":
		default:
			if it.Role != "button" {
				continue
			}
		}
		name := label(it)
		byText := addWords(name) || addWords(it.Aria)
		byName := it.NameAttr == "add" || it.NameAttr == "add-to-cart"
		byForm := it.isSubmit() && cartForm(it.Form) && !reCheckout.MatchString(name) && !reCart.MatchString(name)
		if !byText && !byName && !byForm {
			if reSoldOut.MatchString(name) && (it.Disabled || cartForm(it.Form)) {
				soldOut = true
			}
			continue
		}
		if it.Disabled || reSoldOut.MatchString(name) {
			soldOut = true
			continue
		}
		if Forbidden(it) != "" {
			continue
		}
		c := it
		if best == nil || best.Dialog && !it.Dialog || best.Region != "main" && it.Region == "main" {
			best = &c
		}
	}
	if best != nil {
		return ctl(*best), true, false
	}
	return control{}, false, soldOut
}

func hrefTokens(href string) []string {
	u, err := url.Parse(href)
	if err != nil {
		return nil
	}
	return tokens(u.Path)
}

func hasToken(ts []string, want ...string) bool {
	for _, t := range ts {
		for _, w := range want {
			if t == w {
				return true
			}
		}
	}
	return false
}

func (domFinder) cart(v view) []control {
	var out []ranked
	for i, it := range v.items {
		if !it.Visible || it.Disabled || Forbidden(it) != "" {
			continue
		}
		name := label(it)
		if reAdd.MatchString(name) || reCheckout.MatchString(name) {
			continue
		}
		if reRemove.MatchString(name) || reRemove.MatchString(it.Aria) {
			continue
		}
		ts := hrefTokens(it.Href)
		byName := reCart.MatchString(name) || reCart.MatchString(it.Aria)
		byHref := leadsElsewhere(it.Href, v.st.URL) && hasToken(ts, "cart", "basket", "bag", "trolley") && !hasToken(ts, "add", "checkout")
		if !byName && !byHref {
			continue
		}
		score := 0
		if it.Region == "header" {
			score = 1
		}
		out = append(out, ranked{ctl(it), score, i})
	}
	return best(out)
}

func (domFinder) checkout(v view) []control {
	var out []ranked
	for i, it := range v.items {
		if !it.Visible || it.Disabled || Forbidden(it) != "" {
			continue
		}
		name := label(it)
		if reRemove.MatchString(name) || reRemove.MatchString(it.Aria) {
			continue
		}
		byName := reCheckout.MatchString(name) || reCheckout.MatchString(it.Aria) || strings.EqualFold(it.NameAttr, "checkout")
		byHref := leadsElsewhere(it.Href, v.st.URL) && hasToken(hrefTokens(it.Href), "checkout", "checkouts")
		if !byName && !byHref {
			continue
		}
		score := 2 * checkoutScore(it)
		if byName {
			score++ // its words say checkout, not only its address
		}
		out = append(out, ranked{ctl(it), score, i})
	}
	return best(out)
}

func (domFinder) guest(v view) (radio control, chosen bool, next control, ok bool) {
	return guestPair(v.items, ctl, func(it Item) bool {
		return it.Visible && (it.Tag == "input" && it.Type == "radio" || it.Role == "radio") && reGuest.MatchString(label(it)+" "+it.Value)
	}, func(it Item) bool {
		return it.Visible && (it.Tag == "button" || it.Tag == "input" && (it.Type == "button" || it.Type == "submit") || it.Role == "button") &&
			reContinue.MatchString(label(it))
	})
}

func (domFinder) terms(v view) (control, bool) {
	var byLabel *Item
	for _, it := range v.items {
		box := it.Tag == "input" && it.Type == "checkbox" || it.Role == "checkbox"
		// Not a sign-up form's consent (an email field beside it).
		signup := it.Form != nil && it.Form.Email > 0
		if !box && it.Type != "label-checkbox" || !it.Visible || it.Checked || it.Disabled || it.Region == "footer" || signup ||
			Forbidden(it) != "" || !termsWords(label(it)) {
			continue
		}
		if box {
			return ctl(it), true
		}
		// The label only when the box itself is hidden (a styled
		// checkbox): the label's words may hold a link to the terms,
		// and a click on its middle may land there.
		if byLabel == nil {
			l := it
			byLabel = &l
		}
	}
	if byLabel != nil {
		return ctl(*byLabel), true
	}
	return control{}, false
}

// reCartDialog names the cart's own dialogs (a drawer, a mini-cart, an
// "added to your cart" modal): an overlay the shopper wants, never one to
// close.
var reCartDialog = regexp.MustCompile(`(?i)cart|bag\b|basket|trolley`)

// reRemove names controls that take something out of the cart: their
// address may name the cart or the checkout, but they lead nowhere.
var reRemove = regexp.MustCompile(`(?i)^\s*(remove|delete|clear|empty)\b`)

// leadsElsewhere reports a link to another page: not a same-page anchor
// ("#" on Magento's cart page reads /checkout/cart/#) and not a script.
func leadsElsewhere(href, page string) bool {
	if href == "" || strings.HasPrefix(strings.ToLower(href), "javascript:") {
		return false
	}
	u, err := url.Parse(href)
	if err != nil {
		return false
	}
	p, err := url.Parse(page)
	if err != nil {
		return true
	}
	return !(u.Host == p.Host && u.Path == p.Path && u.RawQuery == p.RawQuery && hashRoute(u) == hashRoute(p))
}

// checkoutScore ranks checkout controls: one in a dialog (a cart drawer
// just opened) first, then one in the main content, then the rest.
func checkoutScore(it Item) int {
	switch {
	case it.Dialog:
		return 2
	case it.Region == "main":
		return 1
	}
	return 0
}

// ranked is a control with its rank (higher first) and its place on the
// page (earlier first among equals).
type ranked struct {
	c     control
	score int
	order int
}

// best sorts controls best first.
func best(rs []ranked) []control {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].score != rs[j].score {
			return rs[i].score > rs[j].score
		}
		return rs[i].order < rs[j].order
	})
	out := make([]control, len(rs))
	for i, r := range rs {
		out[i] = r.c
	}
	return out
}

func (domFinder) listing(s *session, v view) (control, bool) {
	var best *Item
	for _, it := range v.items {
		if it.Tag != "a" || !it.Visible || it.Href == "" || Forbidden(it) != "" || !s.sameSite(it.Href) || samePage(it.Href, v.st.URL) {
			continue
		}
		ts := hrefTokens(it.Href)
		byName := reListing.MatchString(label(it))
		byHref := len(ts) > 1 && hasToken(ts[1:2], "collections", "collection", "shop", "products", "catalog", "catalogue", "store", "category", "categories")
		if !byName && !byHref {
			continue
		}
		c := it
		if best == nil || byName && !reListing.MatchString(label(*best)) {
			best = &c
		}
	}
	if best != nil {
		return ctl(*best), true
	}
	return control{}, false
}

func (domFinder) menu(v view) (control, bool) {
	for _, it := range v.items {
		if (it.Tag == "button" || it.Role == "button") && it.Visible && menuButton(it, label(it)) {
			return ctl(it), true
		}
	}
	return control{}, false
}
