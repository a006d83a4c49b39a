package shop

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// axFinder is shopper B's way of seeing a page: the accessibility tree
// only (CDP Accessibility.getFullAXTree), as a screen reader or a
// computer-use agent reads it. It acts only on elements with an
// accessible role and a non-empty accessible name; CSS, ids and form
// actions are invisible to it, and so is an unlabelled icon button.
type axFinder struct{}

// maxAXElements bounds the documents whose accessibility tree B reads;
// elementsJS counts a document's elements.
const (
	maxAXElements = 20000
	elementsJS    = "document.getElementsByTagName('*').length"
)

func (axFinder) look(s *session) (view, error) {
	st, err := s.state()
	if err != nil {
		return view{}, err
	}
	ctx, cancel := s.stepCtx()
	defer cancel()
	nodes := s.seen.ax
	if s.seen.axKey == "" || s.seen.axKey != s.seen.stKey {
		// The same bound as A's reading of the DOM (dom.js reads at most
		// 20,000 elements): a larger document's tree is not read, and B
		// sees no control on it. Chromium builds the whole tree for
		// getFullAXTree; on the world's 2 MiB page of text that took
		// some 300 MB in the renderer.
		defer phase("accessibility tree (in look)")()
		var elements int
		if err := s.page.Eval(ctx, elementsJS, &elements); err != nil {
			return view{}, err
		}
		nodes, s.seen.axOver = nil, false
		if elements <= maxAXElements {
			nodes, err = s.page.AXTree(ctx)
			if err != nil {
				return view{}, err
			}
		} else {
			s.seen.axOver = true
			s.recordState(st, "inspect", "", "", fmt.Sprintf("the page has %d elements, over the %d whose accessibility tree is read", elements, maxAXElements))
		}
		s.seen.axKey, s.seen.ax = s.seen.stKey, nodes
	}
	its, consentFrames := axItems(nodes)
	v := view{st: st, items: its}
	if len(consentFrames) > 0 {
		v.frameItems = s.consentFrameItems(consentFrames)
	}
	return v, nil
}

// rendered tells, when B does not find what it looks for (a product, an
// add control, a checkout control), whether the page's DOM holds one all
// the same as A reads it (a button in a form that posts to the cart, a
// link to a product page): the page has rendered it, with no role and
// name B can act on (an icon-only button, an image link with no text
// alternative). B still never acts on it; the note says what the page
// holds, which is what a store would fix, and B's patient look, meant for
// a page still rendering, would wait for nothing. Nor does B wait on a
// page beyond the elements it reads.
func (axFinder) rendered(s *session, what string) (string, bool) {
	defer phase("B's rendered check")()
	if s.seen.axOver {
		// A page beyond the reading bound stays beyond it.
		return fmt.Sprintf("the page is beyond the %d elements whose accessibility tree B reads: not waiting for it to change", maxAXElements), true
	}
	var a domFinder
	v, err := a.look(s)
	if err != nil {
		return "", false
	}
	var cs []control
	switch what {
	case "products":
		cs, _ = a.products(s, v)
	case "add":
		if c, ok, _ := a.add(v); ok {
			cs = []control{c}
		}
	case "checkout":
		cs = a.checkout(v)
	}
	if len(cs) == 0 {
		return "", false
	}
	c := cs[0]
	held := fmt.Sprintf("a %s with no name", c.role)
	if c.name != "" {
		held = fmt.Sprintf("%s %q", c.role, c.name)
	}
	return fmt.Sprintf("the page holds %s that is not in the accessibility tree with a role and name (shopper A finds %s): not waiting for one to appear", whatNames[what], held), true
}

// whatNames names what a look is for.
var whatNames = map[string]string{"products": "a product link", "add": "an add control", "checkout": "a checkout control"}

func axCtl(it Item) control { return control{item: it, role: it.Role, name: it.Name} }

func (axFinder) overlay(v view) (control, bool) {
	var closeCtl *Item
	for _, it := range append(v.items[:len(v.items):len(v.items)], v.frameItems...) {
		if !it.Dialog || it.Disabled || it.Role != "button" && it.Role != "link" {
			continue
		}
		if reAccept.MatchString(it.Name) {
			return axCtl(it), true
		}
		if closeCtl == nil && !reCartDialog.MatchString(it.DialogName) && reClose.MatchString(it.Name) {
			c := it
			closeCtl = &c
		}
	}
	if closeCtl != nil {
		return axCtl(*closeCtl), true
	}
	return control{}, false
}

func (axFinder) products(s *session, v view) ([]control, []string) {
	seen := map[string]bool{}
	var out, listed, unpriced, other, buttons []control
	for _, it := range v.items {
		if it.Role == "button" && it.Card && it.Region == "main" && !it.Dialog && it.Type == "" && productWords(it.Name) {
			// A button named after a product in a list item or article
			// of the main content: a tile whose title routes by script.
			if !seen["button\x00"+it.Name] && len(buttons) < 8 {
				seen["button\x00"+it.Name] = true
				buttons = append(buttons, axCtl(it))
			}
			continue
		}
		if it.Role != "link" || it.Href == "" || it.Region == "nav" || it.Region == "footer" || !s.sameSite(it.Href) || samePage(it.Href, v.st.URL) {
			continue
		}
		u, err := url.Parse(it.Href)
		if err != nil {
			continue
		}
		key, path := pageKey(u), routePath(u)
		if seen[key] || reSkipLink.MatchString(path) {
			continue
		}
		switch {
		case reProduct.MatchString(path) || queryProduct(u):
			out = append(out, axCtl(it))
		case it.Card && it.Region == "main" && it.Priced:
			// A link in a list item of the main content that shows a
			// price: how a product grid reads when its addresses say
			// nothing ("/cedar-candle/").
			listed = append(listed, axCtl(it))
		case it.Card && it.Region == "main":
			// One that shows no price (a blog post's title): tried after
			// the store's catalogue link.
			c := axCtl(it)
			c.weak = true
			unpriced = append(unpriced, c)
		case it.Region == "main" && !it.Dialog && !reOtherLink.MatchString(it.Name) && !reListing.MatchString(it.Name) &&
			!reCart.MatchString(it.Name) && !reCheckout.MatchString(it.Name) && !reAdd.MatchString(it.Name):
			// Any other link of the main content, as a person tabbing
			// through it meets them: a grid of divs (Salesforce's SFRA)
			// has no list to say its links are products.
			other = append(other, axCtl(it))
		default:
			continue
		}
		seen[key] = true
	}
	if len(out)+len(listed)+len(unpriced) > 0 {
		return append(append(append(out, listed...), buttons...), unpriced...), nil
	}
	return append(buttons, other...), nil
}

// reOtherLink names links of the main content that are not products.
var reOtherLink = regexp.MustCompile(`(?i)^\s*(learn|read|see|discover|find\s+out|more|quick\s*view|wish\s*list|compare|share|reviews?|write|sign|log|skip|back|previous|next|page\s+\d)\b`)

func (axFinder) variant(v view, tried func(control) bool) (control, *Option, bool) {
	for _, it := range v.items {
		if it.Role != "combobox" && it.Role != "PopUpButton" || it.Disabled || !reVariant.MatchString(it.Name) {
			continue
		}
		if !needsChoice(it.Options) {
			continue
		}
		if o, ok := firstOption(it.Options); ok && !tried(axCtl(it)) {
			return axCtl(it), &o, true
		}
	}
	checked := map[string]bool{}
	choice := func(it Item) bool {
		return it.Role == "radio" || it.Type == "toggle" || it.Type == "listbox-option" || it.Stateless
	}
	for _, it := range v.items {
		if choice(it) && it.Group != "" && it.Checked {
			checked[it.Group] = true
		}
	}
	waits := awaitsChoice(v)
	for _, it := range v.items {
		if !choice(it) || it.Group == "" || checked[it.Group] || it.Disabled || !reVariant.MatchString(it.Group) && !waits || reSoldOut.MatchString(it.Name) || tried(axCtl(it)) {
			continue
		}
		return axCtl(it), nil, true
	}
	// A list of options drawn only once opened: a popup button whose
	// options are not in the tree yet, or a button that asks for the
	// choice ("Select a size"; Chromium's tree shows a button with
	// aria-haspopup="listbox" as a plain button). Open it, and choose at
	// the next look.
	for _, it := range v.items {
		popup := (it.Role == "combobox" || it.Role == "PopUpButton") && reVariant.MatchString(it.Name) ||
			it.Role == "button" && rePrompt.MatchString(it.Name)
		if popup && !it.Expanded && len(it.Options) == 0 && !it.Disabled && !tried(axCtl(it)) {
			return axCtl(it), nil, true
		}
	}
	return control{}, nil, false
}

func (axFinder) add(v view) (control, bool, bool) {
	soldOut := false
	var best *Item
	for _, it := range v.items {
		if it.Role != "button" && it.Role != "link" || it.Region == "footer" || it.Region == "nav" {
			continue
		}
		if !addWords(it.Name) {
			if it.Role == "button" && reSoldOut.MatchString(it.Name) {
				soldOut = true
			}
			continue
		}
		if it.Disabled || reSoldOut.MatchString(it.Name) {
			soldOut = true
			continue
		}
		c := it
		if best == nil || best.Dialog && !it.Dialog || best.Region != "main" && it.Region == "main" {
			best = &c
		}
	}
	if best != nil {
		return axCtl(*best), true, false
	}
	return control{}, false, soldOut
}

func (axFinder) cart(v view) []control {
	var out []ranked
	for i, it := range v.items {
		if it.Role != "button" && it.Role != "link" || it.Disabled || reAdd.MatchString(it.Name) || reCheckout.MatchString(it.Name) || !reCart.MatchString(it.Name) {
			continue
		}
		score := 0
		if it.Region == "header" {
			score = 1
		}
		out = append(out, ranked{axCtl(it), score, i})
	}
	return best(out)
}

func (axFinder) checkout(v view) []control {
	var out []ranked
	for i, it := range v.items {
		if it.Role != "button" && it.Role != "link" || it.Disabled || !reCheckout.MatchString(it.Name) {
			continue
		}
		out = append(out, ranked{axCtl(it), checkoutScore(it), i})
	}
	return best(out)
}

func (axFinder) guest(v view) (radio control, chosen bool, next control, ok bool) {
	return guestPair(v.items, axCtl, func(it Item) bool {
		return it.Role == "radio" && reGuest.MatchString(it.Name)
	}, func(it Item) bool {
		return it.Role == "button" && reContinue.MatchString(it.Name)
	})
}

func (axFinder) terms(v view) (control, bool) {
	for _, it := range v.items {
		if it.Role == "checkbox" && !it.Checked && !it.Disabled && termsWords(it.Name) {
			return axCtl(it), true
		}
	}
	return control{}, false
}

// resolve gives an element found in the accessibility tree a ref of the
// page helper, so that a select passes the same guard as any other (a
// click gets its ref as it reads the element: session.aim).
func (s *session) resolve(c control) (Item, error) {
	if c.item.backend == 0 {
		return c.item, nil
	}
	ref, err := s.registerNode(c.item.frame, c.item.backend)
	if err != nil {
		return Item{}, errGone
	}
	it := c.item
	it.Ref = ref
	return it, nil
}

func (axFinder) listing(s *session, v view) (control, bool) {
	var best *Item
	for _, it := range v.items {
		if it.Role != "link" || !reListing.MatchString(it.Name) || it.Href != "" && (!s.sameSite(it.Href) || samePage(it.Href, v.st.URL)) {
			continue
		}
		c := it
		if best == nil || strings.Contains(strings.ToLower(it.Name), "all") && !strings.Contains(strings.ToLower(best.Name), "all") {
			best = &c
		}
	}
	if best != nil {
		return axCtl(*best), true
	}
	return control{}, false
}

func (axFinder) menu(v view) (control, bool) {
	for _, it := range v.items {
		if menuButton(it, it.Name) {
			return axCtl(it), true
		}
	}
	return control{}, false
}
