// Putting a product in the cart: choosing its variants, the add, and the
// evidence on the page or in the cart that the cart holds it.

package shop

import (
	"errors"
	"time"
)

var (
	errSoldOut = errors.New("sold out")
	errNoAdd   = errors.New("no add control")
)

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
	if err := s.chooseOptions(f, chosen, made, tried); err != nil {
		return err
	}
	v, err := f.look(s)
	if err != nil {
		return errNoAdd
	}
	c, ok, soldOut := f.add(v)
	if !ok {
		var how string
		if v, how, ok = s.lookAgain(f, v, "add"); ok {
			if _, _, choose := f.variant(v, tried); choose {
				// The product drew its options late (a single-page
				// storefront's route after its loading state): choose
				// them now.
				if err := s.chooseOptions(f, chosen, made, tried); err != nil {
					return err
				}
				if v, err = f.look(s); err != nil {
					return errNoAdd
				}
			}
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

// chooseOptions chooses the first available value of each of the
// product's options on the page, at most six choices; tried says which
// were made. Only errStop is returned: an option it could not choose
// leaves the add to say whether it mattered.
func (s *session) chooseOptions(f finder, chosen, made map[string]bool, tried func(control) bool) error {
	for i := 0; i < 6; i++ {
		v, err := f.look(s)
		if err != nil {
			return nil
		}
		c, opt, ok := f.variant(v, tried)
		if !ok {
			return nil
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
			return nil
		}
		if c.item.Stateless {
			made[c.item.Group] = true
		}
	}
	return nil
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
