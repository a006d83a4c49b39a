// What a shopper sees of a page and finds on it: the finder each browser
// path has (A's reading of the DOM in finder_dom.go, B's accessibility
// tree in finder_ax.go), the controls and views it returns, and the words
// both read controls by.

package shop

import (
	"fmt"
	"regexp"
	"strings"
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

// key names a control across readings of one page: its element (the page
// helper keeps an element's ref for the document's life, and the
// accessibility tree its DOM node), not its words, which two controls may
// share.
func (c control) key() string {
	return fmt.Sprintf("%d/%d/%s/%s/%s", c.item.Ref, c.item.backend, c.role, c.name, c.item.Href)
}

// awaitsChoice reports a page whose add waits on a choice: a visible,
// disabled button that asks for one ("Select Options", as Vendure's and
// WooCommerce's variable products read until every option is chosen) or
// that adds. Its radio groups are then the product's options whatever
// they are called ("RAM" names no option word), as a person reads them.
func awaitsChoice(v view) bool {
	for _, it := range v.items {
		if !it.Disabled || !it.Visible || it.Region == "nav" || it.Region == "footer" {
			continue
		}
		if it.Tag != "button" && it.Role != "button" {
			continue
		}
		if n := label(it); n != "" && rePick.MatchString(n) || addWords(n) {
			return true
		}
	}
	return false
}

func label(it Item) string {
	for _, s := range []string{it.Name, it.Aria, it.Text, it.Value, it.Title} {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
