// Judging a page after an action: a wall, an error, a challenge, a login
// wall or the first checkout page that ends the run, the evidence that the
// cart holds the product, and the run's end.

package shop

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"svc/pipeline/detect"
)

// judge looks at the page after an action: a new document that is a wall
// or an error, a challenge, a login wall or the first checkout page may end
// the run (errStop, with the outcome set).
func (s *session) judge(st PageState) error {
	docs := s.page.Documents()
	fresh := docs
	if s.lastDocs <= len(docs) {
		fresh = docs[s.lastDocs:]
	}
	s.lastDocs = len(docs)
	for _, d := range fresh {
		if d.Err != "" {
			if d.Err == "refused" {
				continue // recorded as a refusal; the page stays where it was
			}
			if !s.added {
				return s.end(Error, "store_"+d.Err)
			}
			return s.end(AddedToCart, "checkout_"+d.Err)
		}
		page := detect.NewPage(d.URL, d.Status, d.Header, d.Body)
		if b := detect.DetectBlock(page); b.Blocked {
			if !s.added {
				return s.end(Blocked, "blocked_"+b.Reason)
			}
			return s.end(AddedToCart, "checkout_challenge")
		}
		if d.Status >= http.StatusInternalServerError {
			if !s.added {
				return s.end(Error, fmt.Sprintf("store_http_%d", d.Status))
			}
			return s.end(AddedToCart, fmt.Sprintf("checkout_http_%d", d.Status))
		}
	}
	switch {
	case IsCheckoutPage(st):
		s.frozen.Store(true)
		s.endKey = s.seen.stKey
		s.checkoutWebMCP()
		return s.end(CheckoutReached, "checkout_page_loaded")
	case IsChallenge(st):
		if !s.added {
			return s.end(Blocked, "challenge")
		}
		return s.end(AddedToCart, "checkout_challenge")
	case IsLoginWall(st):
		if !s.added {
			return s.end(NoCart, "login_required")
		}
		return s.end(AddedToCart, "checkout_login_required")
	}
	return nil
}

func (s *session) end(outcome, reason string) error {
	s.rep.Outcome, s.rep.Reason = outcome, reason
	if outcome == CheckoutReached || outcome == AddedToCart && strings.HasPrefix(reason, "checkout_") {
		s.frozen.Store(true)
	}
	return errStop
}

// cartEvidence reports whether the page shows the cart holding an item:
// a cart count of one or more, an "added to cart" message, or a cart view
// with line items or the product's name and no empty-cart message.
func (s *session) cartEvidence(st PageState) (bool, string) {
	if st.CartCount != nil && *st.CartCount > 0 {
		return true, fmt.Sprintf("cart count %d", *st.CartCount)
	}
	if reEmptyCart.MatchString(st.Text) {
		return false, ""
	}
	if reAddedText.MatchString(st.Text) {
		return true, "added message"
	}
	inCartView := false
	for _, h := range append([]string{st.Title}, st.Headings...) {
		if reCartHeading.MatchString(h) {
			inCartView = true
		}
	}
	if inCartView && st.LineItems > 0 {
		return true, "cart line items"
	}
	if inCartView && s.product != "" && strings.Contains(strings.ToLower(st.Text), strings.ToLower(s.product)) {
		return true, "product in cart"
	}
	return false, ""
}

// jsonldProducts reads the products of the page's JSON-LD with the same
// reader as the plain-HTTP checks.
func jsonldProducts(st PageState) []detect.Product {
	if len(st.JSONLD) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("<html><head>")
	for _, t := range st.JSONLD {
		b.WriteString(`<script type="application/ld+json">`)
		b.WriteString(strings.ReplaceAll(t, "</", "<\\/"))
		b.WriteString("</script>")
	}
	b.WriteString("</head></html>")
	u, _ := url.Parse(st.URL)
	p := detect.NewPage(u, 200, http.Header{"Content-Type": {"text/html"}}, []byte(b.String()))
	return detect.ExtractJSONLD(p).Products
}
