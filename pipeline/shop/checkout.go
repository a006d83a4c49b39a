// From a confirmed cart to the first checkout page: the box that agrees to
// the store's terms, a checkout's guest choice, and the checkout and cart
// controls tried in turn.

package shop

import "errors"

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

// offBrand reports whether the last navigation was refused for leaving the
// store for another brand.
func (s *session) offBrand() bool {
	docs := s.page.Documents()
	return len(docs) > 0 && docs[len(docs)-1].Refusal == "navigation_off_store"
}
