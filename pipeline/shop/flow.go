// The flow of shoppers A, B and E: from the store's page to its products
// (the start page, the catalogue, a phone's menu), the second, patient
// look and its scroll down the page, overlays dismissed, and a control
// used through the guard. What a finder is (finder.go), adding to the
// cart (cart.go) and going on to checkout (checkout.go) have files of
// their own.

package shop

import (
	"errors"
	"fmt"
	"net/url"
	"time"
)

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
// templates, so a second page that lacks what the first lacked lacks it
// for good, but for the add and checkout controls, each page is waited
// on once: a single-page storefront's route may show its loading state
// (Vendure's Next.js storefront: header and footer, nothing between)
// when a busy machine's page first looks settled. how says what the
// second look did ("after waiting 300 ms", "when scrolled to", "after
// scrolling down the page and waiting 300 ms"); ok
// is false when it did not look or could not read. A page that has
// rendered what was looked for where the finder cannot see it (B and an
// icon-only button: renderedFinder) is not waited on.
func (s *session) lookAgain(f finder, v view, what string) (again view, how string, ok bool) {
	key := what
	if what == "checkout" || what == "add" {
		// The checkout control is looked for on pages of different
		// templates (the product page after the add, then the cart page,
		// which a single-page storefront renders after its route's data
		// arrives), and the add on each product page: each is waited on
		// once.
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

// sameSite reports whether href is on the store's site.
func (s *session) sameSite(href string) bool {
	u, err := url.Parse(href)
	if err != nil || u.Host == "" {
		return false
	}
	return s.sameBrand(u)
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
