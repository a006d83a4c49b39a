package shop

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// A control is an element a shopper found, in its own terms: the ref of
// the page helper, and the role and name the step log shows.
type control struct {
	item Item
	role string
	name string
	// weak marks a product candidate that nothing but its place says is
	// a product (a link in a list item or an article that shows no price:
	// a blog post's title, an archive's month): the flow tries it only
	// after the store's catalogue link.
	weak bool
}

// view is what a finder sees of the current page.
type view struct {
	st    PageState
	items []Item
	// frameItems are the items of child frames drawn as overlays (a
	// consent dialog in an iframe): only overlay looks at them.
	frameItems []Item
}

// finder is how a shopper sees a page: A reads the DOM (text, aria-label,
// forms, JSON-LD), B only the accessibility tree. The flow is shared, so
// the shoppers differ only in what they can find.
type finder interface {
	look(s *session) (view, error)
	// overlay returns a control that dismisses a consent or newsletter
	// overlay (accept or close), if one is showing.
	overlay(v view) (control, bool)
	// products lists controls (usually links) that lead to product pages,
	// best first; direct are product URLs to open when no control leads
	// there (A's JSON-LD).
	products(s *session, v view) (ctl []control, direct []string)
	// listing returns a link to a catalogue page ("Shop all"), used when
	// the start page lists no product.
	listing(s *session, v view) (control, bool)
	// menu returns the button that opens a collapsed menu (a phone's
	// "Menu" or hamburger), where the catalogue link may be.
	menu(v view) (control, bool)
	// variant returns a choice to make before adding: a select with its
	// option, or a radio to click; none that tried says is already tried.
	variant(v view, tried func(control) bool) (control, *Option, bool)
	// add returns the add-to-cart control; soldOut reports that the page
	// offers one but only as sold out or disabled.
	add(v view) (ctl control, ok, soldOut bool)
	// cart returns the controls that open the cart page or drawer, best
	// first.
	cart(v view) []control
	// checkout returns the controls that start checkout, best first.
	checkout(v view) []control
	// terms returns an unticked box that agrees to the store's terms,
	// which many carts ask for before checkout.
	terms(v view) (control, bool)
	// guest returns, on a page that asks who is buying with a choice of
	// guest checkout (a radio, as OpenCart's first checkout step has it),
	// the radio when it is not chosen yet and the button that goes on
	// (named "Continue").
	guest(v view) (radio control, chosen bool, next control, ok bool)
}

// guestPair is finder.guest over items, with a finder's own tests for the
// guest radio and the button that goes on, and its own control maker: the
// first of each that is enabled and allowed.
func guestPair(items []Item, mk func(Item) control, isRadio, isNext func(Item) bool) (radio control, chosen bool, next control, ok bool) {
	var r, n *Item
	for i, it := range items {
		switch {
		case it.Disabled || Forbidden(it) != "":
		case r == nil && isRadio(it):
			r = &items[i]
		case n == nil && isNext(it):
			n = &items[i]
		}
	}
	if r == nil || n == nil {
		return control{}, false, control{}, false
	}
	return mk(*r), r.Checked, mk(*n), true
}

// reGuest names a guest checkout choice; reContinue a button that goes on.
var (
	reGuest    = regexp.MustCompile(`(?i)\bguest\b`)
	reContinue = regexp.MustCompile(`(?i)^\s*continue\s*(as\s+(a\s+)?guest)?\s*[.!>›→»]?\s*$`)
)

// optionNames are the words that name a product's option (its size, its
// colour...); dom.js's OPTION_NAME holds the same list for the page.
const optionNames = `size|colou?r|variant|option|style|fit|length|width|material|flavou?r|scent|swatch`

var (
	reAdd = regexp.MustCompile(`(?i)^\s*(\+\s*)?(add\s+(it\s+)?to\s+(my\s+|your\s+)?(shopping\s+)?(cart|bag|basket|trolley)|add\s+item|add)\b`)
	// reAddElsewhere is "add" to something that is not the cart: Magento's
	// "Add to Wish List" and "Add to Compare" sit beside its "Add to Cart".
	reAddElsewhere = regexp.MustCompile(`(?i)^\s*(\+\s*)?add\s+(it\s+|this\s+|item\s+)?to\s+(my\s+|your\s+|the\s+|a\s+)?(wish\s*-?\s*lists?|compare|comparison|favou?rites?|registry|collections?|lists?|saved(\s+items)?|boards?|outfits?|looks?)\b`)
	// reCart may open with the cart's count: the header link of Vendure's
	// Next.js storefront reads "1 Shopping Cart".
	reCart     = regexp.MustCompile(`(?i)^\s*(\d+\s+(items?\s+(in\s+)?)?)?((view|open|see|go\s+to)\s+)?(my\s+|your\s+|the\s+)?(shopping\s+)?(cart|bag|basket|trolley)\b`)
	reCheckout = regexp.MustCompile(`(?i)^\s*((proceed|go|continue)\s+to\s+(the\s+)?|(begin|start)\s+)?(secure\s+)?check\s?-?\s?out\b`)
	reAccept   = regexp.MustCompile(`(?i)^\s*(accept(\s+all)?(\s+cookies)?|i\s+accept|(i\s+)?agree|allow(\s+all)?(\s+cookies)?|ok(ay)?|got\s+it|understood)(\s+(and|&)\s+(proceed|continue|close))?\s*[.!]?\s*$`)
	reClose    = regexp.MustCompile(`(?i)^\s*((close|dismiss|no,?\s+thanks|no\s+thank\s+you|not\s+now|maybe\s+later|skip|continue\s+shopping|start\s+shopping|continue\s+to\s+(the\s+)?(store|shop|site|website)|stay\s+(here|on\s+this\s+site)|reject(\s+all)?|decline(\s+all)?|×|✕|✖|x)(\s+(this|the))?\s*(dialog|popup|pop-up|modal|banner|window|form)?\s*[.!]?|no,?\s+thanks?,\s+[^.!]{1,40}[.!]?)\s*$`)
	reProduct  = regexp.MustCompile(`(?i)/(products?|p|item|items|dp|shop|catalog/product)/[^/?#]+|[-_/]p[-_]?\d+(\.html)?$|/product-page/`)
	reSkipLink = regexp.MustCompile(`(?i)/(cart|basket|bag|checkout|account|login|search|collections?/?$|pages|blogs?|policies|contact|about|help|faq)(/|$)`)
	reVariant  = regexp.MustCompile(`(?i)` + optionNames)
	// rePrice is an amount with its currency, as a product tile shows it;
	// dom.js's PRICE holds the same pattern.
	rePrice   = regexp.MustCompile(`(?:[$€£¥₹₩₽]|\b(?:USD|EUR|GBP|CAD|AUD|NZD|JPY|CHF|SEK|NOK|DKK|PLN|CZK|INR|BRL|MXN|kr|Rs)\.?)\s?\d|\d(?:[.,]\d{2})?\s?(?:[€£₹₽]|kr\b|zł|Kč|\b(?:USD|EUR|GBP|CAD|AUD|NZD|CHF|SEK|NOK|DKK|PLN|CZK)\b)`)
	reListing = regexp.MustCompile(`(?i)^\s*(shop(\s+(all|now|the\s+collection|everything))?|all\s+products|products|catalog(ue)?|collections?|new(\s+in|\s+arrivals)?|browse|store|everything|best\s*sellers)\s*$`)
	// reTerms names a box that agrees to the store's terms of sale;
	// reMarketing one that signs up for mail, which a shopper never ticks.
	reTerms     = regexp.MustCompile(`(?i)\b(agree|accept|consent|have\s+read)\b.{0,80}\b(terms|conditions|polic(y|ies))\b|\bterms\s+(and|&)\s+conditions\b|\bterms\s+of\s+(service|sale|use)\b`)
	reMarketing = regexp.MustCompile(`(?i)newsletter|subscri|marketing|promotion|\boffers?\b|\bnews\b|e-?mail\s+me|text\s+me|\bsms\b|\bupdates\b`)
	// rePrompt is a control's word that asks for an option's value.
	rePrompt = regexp.MustCompile(`(?i)\b(select|choose|pick)\s+(a\s+|an\s+|your\s+)?(` + optionNames + `)\b`)
	rePick   = regexp.MustCompile(`(?i)^\s*(--+\s*)?(choose|select|pick|please\s+select)\b|^\s*$|^\s*-+\s*$`)
)

// reMenu names the button that opens a site's menu.
var reMenu = regexp.MustCompile(`(?i)^\s*((open|show|toggle)\s+(the\s+)?)?((main|primary|site|mobile)\s+)?(menu|navigation|nav)(\s+(menu|toggle))?\s*$|^\s*[☰≡]\s*$`)

// menuButton reports a header's button, named name, that opens a closed
// menu: a phone's "Menu" or hamburger (aria-expanded="false").
func menuButton(it Item, name string) bool {
	return it.Collapsed && !it.Disabled && !it.Dialog && (it.Region == "header" || it.Region == "nav") && Forbidden(it) == "" &&
		(reMenu.MatchString(name) || reMenu.MatchString(it.Aria))
}

// termsWords reports a box's name that agrees to the store's terms and
// signs up for nothing.
func termsWords(name string) bool {
	return reTerms.MatchString(name) && !reMarketing.MatchString(name)
}

// addWords reports a name that asks to add to the cart.
func addWords(name string) bool {
	return reAdd.MatchString(name) && !reAddElsewhere.MatchString(name)
}

// shop is the flow of shoppers A, B and E: find a product, choose a
// variant, add to cart, open the cart, start checkout; stop at the first
// checkout page.
func (s *session) shop(f finder) error {
	defer phase("the flow past the first page (all of it)")()
	s.finder = f
	if err := s.dismiss(f); err != nil {
		return err
	}
	v, err := f.look(s)
	if err != nil {
		return err
	}
	soldOut := false
	tried := 0
	// The start page may itself be a product page.
	if _, ok, so := f.add(v); ok || so {
		tried++
		err := s.buy(f)
		switch {
		case err == nil:
			return s.toCheckout(f)
		case errors.Is(err, errSoldOut):
			soldOut = true
		case errors.Is(err, errStop):
			return err
		}
	}
	home := s.origin.String()
	// The products the start page shows (their address, the store's
	// JSON-LD or a price says so); links that only sit in a list or an
	// article (a blog post, an archive) wait for the catalogue.
	if done, err := s.tryProducts(f, home, v, &tried, &soldOut, pickShown); done {
		return err
	}
	left := false // the shopper left the start page for the catalogue
	if tried == 0 {
		// No product on the start page: a "Shop all" or catalogue link,
		// on a phone behind the menu button.
		c, ok := f.listing(s, v)
		if m, menu := f.menu(v); !ok && menu {
			if err := s.use(m, "open the menu"); errors.Is(err, errStop) {
				return err
			} else if err == nil {
				if v, err = f.look(s); err != nil {
					return err
				}
				if c, ok = f.listing(s, v); !ok {
					// A menu that slides in is drawn once its
					// transition ends.
					if err := s.pause(patience); err != nil {
						return err
					}
					if v, err = f.look(s); err != nil {
						return err
					}
					c, ok = f.listing(s, v)
				}
			}
		}
		if ok {
			if err := s.use(c, "open the catalogue"); err != nil && errors.Is(err, errStop) {
				return err
			} else if err == nil {
				left = true
				if err := s.dismiss(f); err != nil {
					return err
				}
				if lv, err := f.look(s); err == nil {
					if done, err := s.tryProducts(f, lv.st.URL, lv, &tried, &soldOut, pickAll); done {
						return err
					}
				}
			}
		}
	}
	if left && tried == 0 {
		// The catalogue showed nothing to buy: back to the start page's
		// own links (tryProducts returns to it between products).
		if err := s.backTo(home); err != nil {
			return err
		}
		if v, err = f.look(s); err != nil {
			return err
		}
	}
	if done, err := s.tryProducts(f, home, v, &tried, &soldOut, pickWeak); done {
		return err
	}
	switch {
	case soldOut:
		return s.end(NoCart, "sold_out")
	case tried == 0:
		return s.end(NoCart, "no_product_found")
	}
	return s.end(NoCart, "no_add_control")
}

// pick says which of a page's product candidates tryProducts tries.
type pick int

const (
	pickAll   pick = iota
	pickShown      // those the page shows as products (not weak)
	pickWeak       // only the weak ones: links in lists that show no price
)

// picked filters the candidates of a page by p.
func picked(ctls []control, direct []string, p pick) ([]control, []string) {
	if p == pickAll {
		return ctls, direct
	}
	var out []control
	for _, c := range ctls {
		if c.weak == (p == pickWeak) {
			out = append(out, c)
		}
	}
	if p == pickWeak {
		direct = nil
	}
	return out, direct
}

// tryProducts opens up to four products listed on the page v (at address
// home), those that p picks, and tries to buy each. done reports that the
// run ended (err is then its result).
func (s *session) tryProducts(f finder, home string, v view, tried *int, soldOut *bool, p pick) (done bool, err error) {
	buy := func() (bool, error) {
		err := s.buy(f)
		switch {
		case err == nil:
			return true, s.toCheckout(f)
		case errors.Is(err, errSoldOut):
			*soldOut = true
		case errors.Is(err, errStop):
			return true, err
		}
		return false, nil
	}
	ctls, direct := f.products(s, v)
	if len(ctls) == 0 && len(direct) == 0 && p != pickWeak {
		if again, how, ok := s.lookAgain(f, v, "products"); ok {
			v = again
			ctls, direct = f.products(s, v)
			if len(ctls) > 0 || len(direct) > 0 {
				s.recordState(v.st, "inspect", "", "", lateNote("products", how))
			}
		}
	}
	ctls, direct = picked(ctls, direct, p)
	for i, c := range ctls {
		if *tried >= 4 {
			break
		}
		*tried++
		if i > 0 || *tried > 1 {
			// A new document: find the same product control again.
			if err := s.backTo(home); err != nil {
				return true, err
			}
			v, err := f.look(s)
			if err != nil {
				return true, err
			}
			again, _ := f.products(s, v)
			found := false
			for _, a := range again {
				if a.item.Href == c.item.Href && a.name == c.name {
					c, found = a, true
					break
				}
			}
			if !found {
				continue
			}
		}
		if err := s.use(c, "open a product"); err != nil {
			if errors.Is(err, errStop) {
				return true, err
			}
			continue
		}
		if err := s.dismiss(f); err != nil {
			return true, err
		}
		if done, err := buy(); done {
			return true, err
		}
	}
	for _, d := range direct {
		if *tried >= 4 {
			break
		}
		*tried++
		if err := s.open(d, "a product of the store's JSON-LD"); err != nil {
			return true, err
		}
		if err := s.dismiss(f); err != nil {
			return true, err
		}
		if done, err := buy(); done {
			return true, err
		}
	}
	return false, nil
}

var (
	errSoldOut = errors.New("sold out")
	errNoAdd   = errors.New("no add control")
)

// patience is how long a shopper waits, once a run for each thing it
// looks for, before it concludes that a page lacks it: a theme may render
// its product grid or its buy button from a timer or after hydrating,
// later than Settle's quiet window.
const patience = 300 * time.Millisecond

// renderedFinder is a finder that can tell, when it does not find what
// (a product, an add control, a checkout control), that the page has
// rendered one all the same: its patient look would wait for nothing.
// note says what the page holds.
type renderedFinder interface {
	rendered(s *session, what string) (note string, found bool)
}

// lookAgain looks at the page once more, the first time a run looks for
// what (a product, an add control, a checkout control) and does not find
// it: it scrolls down through any controls veiled below the fold, or
// else glances down a tall page (see reveal), waits out the rest of
// patience, and reads the page again. A store's pages share their
// templates, so a second product page that lacks its button lacks it for
// good. how says what the second look did ("after waiting 300 ms", "when
// scrolled to", "after scrolling down the page and waiting 300 ms"); ok
// is false when it did not look or could not read. A page that has
// rendered what was looked for where the finder cannot see it (B and an
// icon-only button: renderedFinder) is not waited on.
func (s *session) lookAgain(f finder, v view, what string) (again view, how string, ok bool) {
	key := what
	if what == "checkout" {
		// The checkout control is looked for on pages of different
		// templates (the product page after the add, then the cart page,
		// which a single-page storefront renders after its route's data
		// arrives): each is waited on once.
		if u, err := url.Parse(v.st.URL); err == nil {
			key += " " + pageKey(u)
		}
	}
	if s.waited[key] {
		return v, "", false
	}
	if s.waited == nil {
		s.waited = map[string]bool{}
	}
	s.waited[key] = true
	defer phase("look again (patience, " + what + ")")()
	if r, ok := f.(renderedFinder); ok {
		if note, found := r.rendered(s, what); found {
			s.recordState(v.st, "inspect", "", "", note)
			return v, "", false
		}
	}
	start := time.Now()
	how = fmt.Sprintf("after waiting %d ms", patience.Milliseconds())
	switch appeared, glanced := s.reveal(patience); {
	case appeared:
		how = "when scrolled to"
	case glanced:
		how = fmt.Sprintf("after scrolling down the page and waiting %d ms", patience.Milliseconds())
	}
	if err := s.pause(patience - time.Since(start)); err != nil {
		return v, "", false
	}
	again, err := f.look(s)
	if err != nil {
		return v, "", false
	}
	return again, how, true
}

// revealBudget bounds one scroll through a page by reveal.
const revealBudget = 1500 * time.Millisecond

// reveal scrolls down through the controls of the page that are laid out
// below the fold but transparent or visibility: hidden, as a person
// looking for something scrolls: reveal-on-scroll themes (AOS, WOW.js,
// Elementor's entrance animations) show them only then. It records the
// scroll and reports whether any control appeared; those that did count
// as seen from then on, and a click waits for one to appear again once
// scrolled to (dom.js: reveal, unveiled). A page with no such control is
// scrolled down once, quickly, within glance, so that a section loaded
// when scrolled near is there after the wait that follows (glanced: it
// scrolled).
func (s *session) reveal(glance time.Duration) (appeared, glanced bool) {
	defer phase("  reveal (scroll)")()
	ctx, cancel := s.stepCtx()
	defer cancel()
	var r struct {
		Veiled  int  `json:"veiled"`
		Shown   int  `json:"shown"`
		Glanced bool `json:"glanced"`
	}
	expr := fmt.Sprintf("%s.reveal(%d, %d)", helper, revealBudget.Milliseconds(), glance.Milliseconds())
	if err := s.page.Eval(ctx, expr, &r); err != nil {
		return false, false
	}
	if r.Glanced || r.Veiled > 0 {
		s.forget() // the page was scrolled
	}
	if r.Veiled == 0 {
		return false, r.Glanced
	}
	s.record("scroll", "", "", fmt.Sprintf("scrolled down the page: %d of %d controls hidden below the fold appeared when scrolled to", r.Shown, r.Veiled))
	return r.Shown > 0, false
}

// lateNote is the step note of a thing found only by the second look.
func lateNote(what, how string) string {
	return what + " appeared " + how
}

// backTo returns to the start page between products.
func (s *session) backTo(home string) error {
	return s.open(home, "back to the store's page")
}

// dismiss closes up to three overlays (consent banners, newsletter
// pop-ups) through their visible accept or close controls.
func (s *session) dismiss(f finder) error { return s.dismissUpTo(f, 3) }

// dismissUpTo dismisses up to n overlays.
func (s *session) dismissUpTo(f finder, n int) error {
	for i := 0; i < n; i++ {
		v, err := f.look(s)
		if err != nil {
			return nil
		}
		c, ok := f.overlay(v)
		if !ok {
			return nil
		}
		err = s.use(c, "dismiss an overlay")
		if err == nil {
			s.dismissed++
		}
		if err != nil && !errors.Is(err, errRefused) && !errors.Is(err, errGone) && !errors.Is(err, errCovered) {
			return err
		}
	}
	return nil
}

// buy chooses variants and adds the product of the current page to the
// cart, and confirms it. It returns nil once the cart holds the item.
func (s *session) buy(f finder) error {
	// A choice that did not take (a swatch the store ignores because it is
	// sold out, which only its style says) is not made twice.
	chosen := map[string]bool{}
	// An option whose chosen value only its style shows (plain buttons)
	// is chosen once: its buttons never read as checked.
	made := map[string]bool{}
	tried := func(c control) bool { return chosen[c.key()] || c.item.Stateless && made[c.item.Group] }
	for i := 0; i < 6; i++ {
		v, err := f.look(s)
		if err != nil {
			return errNoAdd
		}
		c, opt, ok := f.variant(v, tried)
		if !ok {
			break
		}
		chosen[c.key()] = true
		if opt != nil {
			err = s.pick(c, *opt)
		} else {
			err = s.use(c, "choose the first available option")
		}
		if errors.Is(err, errStop) {
			return err
		}
		if err != nil {
			break
		}
		if c.item.Stateless {
			made[c.item.Group] = true
		}
	}
	v, err := f.look(s)
	if err != nil {
		return errNoAdd
	}
	c, ok, soldOut := f.add(v)
	if !ok {
		var how string
		if v, how, ok = s.lookAgain(f, v, "add"); ok {
			if c, ok, soldOut = f.add(v); ok {
				s.recordState(v.st, "inspect", "", "", lateNote("an add control", how))
			}
		}
	}
	if !ok {
		// Disabled is sold out only when the page says so: an add button
		// kept disabled until an option is chosen is not.
		if soldOut && reSoldOut.MatchString(v.st.Text) {
			s.record("inspect", "", "", "the product is sold out")
			return errSoldOut
		}
		if soldOut {
			s.record("inspect", "", "", "the add control is disabled, and the page does not say the product is sold out")
		}
		return errNoAdd
	}
	s.product = productName(v)
	if err := s.use(c, "add to cart"); err != nil {
		return err
	}
	// The click's step: a search for the evidence may log more steps.
	click := len(s.rep.Log) - 1
	if ok, why := s.awaitCartEvidence(); ok {
		s.added = true
		s.rep.Log[click].Note = "add to cart: " + why
		return nil
	}
	// No sign on the page yet: the cart itself must show it.
	v, err = f.look(s)
	if err != nil {
		return errNoAdd
	}
	for _, c := range f.cart(v) {
		err := s.use(c, "open the cart")
		if errors.Is(err, errStop) {
			return err
		}
		if err != nil {
			continue // another control may open it
		}
		click := len(s.rep.Log) - 1
		st, _ := s.state()
		ok, why := s.cartEvidence(st)
		if !ok {
			ok, why = s.revealedCartEvidence()
		}
		if ok {
			s.added = true
			s.rep.Log[click].Note = "open the cart: " + why
			return nil
		}
		break
	}
	s.record("inspect", "", "", "the add was not confirmed by the page or the cart")
	return errNoAdd
}

// addPatience is how long a shopper waits for a sign that an add worked
// once the page has settled: the add's request can leave the page after
// the page looked settled (BigCommerce's posts the form by script, then
// fetches the modal it opens), and opening the cart meanwhile would find
// it still empty.
const addPatience = 600 * time.Millisecond

// awaitCartEvidence reads the page for cart evidence, again for a short
// while if there is none yet.
func (s *session) awaitCartEvidence() (bool, string) {
	defer phase("await cart evidence")()
	deadline := time.Now().Add(addPatience)
	for {
		st, _ := s.state()
		if ok, why := s.cartEvidence(st); ok {
			return ok, why
		}
		if time.Now().After(deadline) {
			return s.revealedCartEvidence()
		}
		select {
		case <-s.ctx.Done():
			return false, ""
		case <-time.After(150 * time.Millisecond):
		}
		ctx, cancel := s.stepCtx()
		_ = s.settle(ctx)
		cancel()
	}
}

// revealedCartEvidence is cartEvidence once more after reveal has
// scrolled down to what the page veils below the fold: a cart whose lines
// fade in when scrolled to. It is false when nothing appeared.
func (s *session) revealedCartEvidence() (bool, string) {
	if appeared, _ := s.reveal(0); !appeared {
		return false, ""
	}
	st, _ := s.state()
	return s.cartEvidence(st)
}

// productName is the name of the product on the page: its JSON-LD name,
// else its first heading.
func productName(v view) string {
	if ps := jsonldProducts(v.st); len(ps) == 1 && ps[0].Name != "" {
		return ps[0].Name
	}
	if len(v.st.Headings) > 0 {
		return v.st.Headings[0]
	}
	return ""
}

// asGuest takes a checkout's first step as a guest, on a page that asks
// who is buying (log in, register, or check out as a guest, chosen by a
// radio and a Continue button): it chooses guest checkout and continues.
// It submits nothing; the next step is the checkout's address form.
func (s *session) asGuest(f finder, v view) error {
	radio, chosen, next, ok := f.guest(v)
	if !ok {
		return nil
	}
	if !chosen {
		if err := s.use(radio, "choose guest checkout"); err != nil {
			return err
		}
	}
	return s.use(next, "continue as a guest")
}

// toCheckout goes from a confirmed cart to the first checkout page: it
// uses the best checkout control that works (one in a hover menu or off
// the screen does not), else opens the cart and looks again.
func (s *session) toCheckout(f finder) error {
	failed := map[string]bool{} // controls that could not be used
	used := map[string]int{}    // controls used, and how often
	triedCheckout, guestChosen := false, false
	for i := 0; i < 5; i++ {
		v, err := f.look(s)
		if err != nil {
			break
		}
		offersGuest := func(v view) bool {
			if guestChosen || !loginPage(v.st) {
				return false
			}
			_, _, _, ok := f.guest(v)
			return ok
		}
		if len(f.checkout(v)) == 0 && !offersGuest(v) {
			// A cart drawer may still be opening (a theme opens it from
			// a timer after the add), or a checkout's first step may
			// still be on its way (OpenCart fetches it once the page is
			// ready): look again in a moment.
			if again, _, ok := s.lookAgain(f, v, "checkout"); ok {
				v = again
			}
		}
		if offersGuest(v) {
			guestChosen = true
			if err := s.asGuest(f, v); errors.Is(err, errStop) {
				return err
			}
			continue
		}
		// A cart that asks the buyer to agree to its terms refuses a
		// checkout until the box is ticked (or keeps the button
		// disabled): tick it first, once.
		if c, ok := f.terms(v); ok && used[c.key()] == 0 {
			used[c.key()]++
			err := s.use(c, "agree to the store's terms, which its checkout asks for")
			if errors.Is(err, errStop) {
				return err
			}
			if err == nil {
				continue
			}
		}
		moved, attempted := false, false
		for _, c := range f.checkout(v) {
			k := c.key()
			if failed[k] || used[k] >= 2 {
				continue
			}
			triedCheckout, attempted = true, true
			used[k]++
			if err := s.use(c, "start checkout"); err != nil {
				if errors.Is(err, errStop) {
					return err
				}
				failed[k] = !errors.Is(err, errCovered) // a late overlay may be gone next time
				continue
			}
			if s.offBrand() {
				return s.end(AddedToCart, "checkout_on_other_brand")
			}
			moved = true // a step page (a cart review) may come before checkout
			break
		}
		if moved {
			continue
		}
		for _, c := range f.cart(v) {
			k := c.key()
			if failed[k] || used[k] >= 2 {
				continue
			}
			used[k]++
			attempted = true
			if err := s.use(c, "open the cart"); err != nil {
				if errors.Is(err, errStop) {
					return err
				}
				failed[k] = !errors.Is(err, errCovered)
				continue
			}
			moved = true
			break
		}
		if !moved && !attempted {
			break // nothing left to try on this page
		}
	}
	if triedCheckout {
		return s.end(AddedToCart, "checkout_not_started")
	}
	return s.end(AddedToCart, "no_checkout_control")
}

// key names a control across readings of one page: its element (the page
// helper keeps an element's ref for the document's life, and the
// accessibility tree its DOM node), not its words, which two controls may
// share.
func (c control) key() string {
	return fmt.Sprintf("%d/%d/%s/%s/%s", c.item.Ref, c.item.backend, c.role, c.name, c.item.Href)
}

// offBrand reports whether the last navigation was refused for leaving the
// store for another brand.
func (s *session) offBrand() bool {
	docs := s.page.Documents()
	return len(docs) > 0 && docs[len(docs)-1].Refusal == "navigation_off_store"
}

// sameSite reports whether href is on the store's site.
func (s *session) sameSite(href string) bool {
	u, err := url.Parse(href)
	if err != nil || u.Host == "" {
		return false
	}
	return s.sameBrand(u)
}

func label(it Item) string {
	for _, s := range []string{it.Name, it.Aria, it.Text, it.Value, it.Title} {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// use clicks a control through the guard (one found in the accessibility
// tree gets its ref as the click reads it: session.aim). When an overlay
// covers it (a consent dialog that arrived late), the overlays are
// dismissed and the click is tried once more.
func (s *session) use(c control, why string) error {
	err := s.act(c.item, c.role, c.name, why)
	if errors.Is(err, errCovered) && s.finder != nil && !s.dismissing {
		s.dismissing = true
		defer func() { s.dismissing = false }()
		// The overlay may still be loading (a consent frame's document):
		// if there is nothing to dismiss yet, wait a moment and look again.
		for i := 0; i < 2; i++ {
			// One overlay: the one in the way (more could close the very
			// drawer the click is in).
			before := s.dismissed
			if derr := s.dismissUpTo(s.finder, 1); derr != nil {
				return derr
			}
			if s.dismissed > before {
				break
			}
			if werr := s.pause(300 * time.Millisecond); werr != nil {
				return err
			}
		}
		err = s.act(c.item, c.role, c.name, why)
	}
	return err
}

// pause waits d, then for the page to settle.
func (s *session) pause(d time.Duration) error {
	defer phase("  pause (fixed wait, then settle)")()
	select {
	case <-s.ctx.Done():
		return s.ctx.Err()
	case <-time.After(d):
	}
	ctx, cancel := s.stepCtx()
	defer cancel()
	s.forget()
	return s.settle(ctx)
}

// pick resolves a select and chooses opt through the guard.
func (s *session) pick(c control, opt Option) error {
	it, err := s.resolve(c)
	if err != nil {
		return err
	}
	return s.choose(it, opt, c.role, c.name)
}
