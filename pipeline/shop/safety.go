package shop

import (
	"net/url"

	"github.com/chromedp/cdproto/cdp"
	"regexp"
	"strings"
)

// Item is an actionable element of a page as the page helper (dom.js)
// reports it. The guard decides on these facts alone.
type Item struct {
	Ref      int    `json:"ref"`
	Tag      string `json:"tag"`
	Role     string `json:"role"`
	Type     string `json:"type"`
	Name     string `json:"name"`
	Text     string `json:"text"`
	Aria     string `json:"aria"`
	Title    string `json:"title"`
	Value    string `json:"value"`
	NameAttr string `json:"nameAttr"`
	ID       string `json:"id"`
	Hint     string `json:"hint"` // id, classes and data attributes
	Href     string `json:"href"`
	Disabled bool   `json:"disabled"`
	Visible  bool   `json:"visible"`
	Dialog   bool   `json:"dialog"` // inside a dialog or a fixed overlay
	// DialogName is that dialog's name (or its id and classes).
	DialogName string `json:"dialogName"`
	Shadow     bool   `json:"shadow"` // inside a shadow root
	Region     string `json:"region"` // header, nav, main, footer, aside
	Card       bool   `json:"card"`   // inside a product card, list item or article
	// Priced marks an element of a card whose text shows a price (rePrice):
	// a product's tile, not a blog post's or an archive's list item.
	Priced  bool   `json:"priced"`
	Form    *Form  `json:"form"`
	Captcha bool   `json:"captcha"`
	Checked bool   `json:"checked"`
	Group   string `json:"group"`
	// Stateless marks an option's value drawn as a plain button in its
	// group (Type "radio"): whether it is chosen only its style shows, so
	// Checked says nothing.
	Stateless bool `json:"stateless"`
	// Popup marks a control that opens a list of options (a combobox, a
	// button with aria-haspopup="listbox"); Expanded, that its list is
	// open.
	Popup    bool `json:"popup"`
	Expanded bool `json:"expanded"`
	// Collapsed marks a control that says it opens something now closed
	// (aria-expanded="false"): a phone's menu button.
	Collapsed bool     `json:"collapsed"`
	Field     string   `json:"field"` // for form fields: password, card, email, address, text, select, radio...
	Editable  bool     `json:"editable"`
	Options   []Option `json:"options,omitempty"`
	// Clickable marks an element with no role that acts by a script's
	// click handler (a React product card): its cursor is a pointer.
	Clickable bool `json:"clickable"`

	// backend is the DOM node of an element found in the accessibility
	// tree (shopper B); it is given a ref before any action.
	backend cdp.BackendNodeID
	// frame is the child frame the element is in (a consent manager's
	// iframe); "" for the main frame. Its ref is that frame's helper's.
	frame cdp.FrameID
}

// Form is what the guard knows of the form around an element.
type Form struct {
	Action   string `json:"action"`
	Method   string `json:"method"`
	Card     int    `json:"card"`
	Password int    `json:"password"`
	Email    int    `json:"email"`
	Address  int    `json:"address"`
	Text     int    `json:"text"`
	Fields   int    `json:"fields"`
	Toolname string `json:"toolname"`
}

// Option is one option of a select.
type Option struct {
	I        int    `json:"i"`
	Text     string `json:"text"`
	Value    string `json:"value"`
	Disabled bool   `json:"disabled"`
	Selected bool   `json:"selected"`
}

// PageState is what the page helper reads of the whole page.
type PageState struct {
	URL       string   `json:"url"`
	Title     string   `json:"title"`
	Ready     string   `json:"ready"`
	Headings  []string `json:"headings"`
	Password  int      `json:"password"`
	Card      int      `json:"card"`
	Address   int      `json:"address"`
	Email     int      `json:"email"`
	Captcha   bool     `json:"captcha"`
	CartCount *int     `json:"cartCount"`
	Text      string   `json:"text"`
	Dialogs   int      `json:"dialogs"`
	JSONLD    []string `json:"jsonld"`
	LineItems int      `json:"lineItems"`
	// OverlayFrames counts the iframes drawn as overlays (a consent
	// dialog in a frame).
	OverlayFrames int `json:"overlayFrames"`
	// Guest counts the visible controls that continue as a guest
	// ("Checkout as Guest", "Continue as guest").
	Guest int `json:"guest"`
}

// Reasons the guard refuses an action. Every one is final: no strategy,
// and no model, can override it.
const (
	GuardPaymentControl = "payment_or_order_control" // place order, pay, buy now, express payment buttons
	GuardAccount        = "account_control"          // log in, sign up, create account, subscribe
	GuardCaptcha        = "captcha"                  // a captcha or challenge widget
	GuardTextField      = "text_field"               // typing or focusing a field: never
	GuardCardField      = "card_or_password_field"   // a card, CVC or password field
	GuardPaymentForm    = "payment_or_login_form"    // the submit of a form with card or password fields
	GuardSignupForm     = "signup_form"              // the submit of a form asking for an email
	GuardFormAction     = "order_or_account_endpoint"
	GuardLink           = "order_or_account_link"
	GuardScheme         = "not_a_web_link"
	GuardCheckoutPage   = "on_checkout_page" // the run stops at the first checkout page
)

// reForbiddenWords matches the visible words of controls a shopper never
// uses: placing an order or paying, express payment buttons, accounts,
// newsletters, and captchas.
var reForbiddenWords = regexp.MustCompile(`(?i)(\bplace\s+(your\s+)?order|\bsubmit\s+(your\s+)?order|\bcomplete\s+(your\s+)?(order|purchase|checkout|payment)|\bconfirm\s+(and\s+pay|(your\s+)?order|purchase|payment)|\bpay\s+now\b|\bpay\s+(with|by|using|securely)\b|\bpay\s*[$€£¥]|\bpay\s+\d|\bbuy\s+(it\s+)?now\b|\bpurchase\s+now\b|\border\s+now\b|\border\s+and\s+pay\b|\bbook\s+now\b|\b(make|submit)\s+(a\s+|your\s+)?payment\b|\bfinali[sz]e\s+(your\s+)?(order|purchase)\b|^\s*(order|buy|purchase|pay)\s*[.!]?\s*$|\b(proceed|continue|go)\s+to\s+payment|\breview\s+(and|&)\s+pay|\bauthori[sz]e\s+payment|\bexpress\s+checkout|\bone[-\s]?click\b|paypal|\bapple\s*pay\b|\bgoogle\s*pay\b|\bg\s?pay\b|\bshop\s*pay\b|\bamazon\s*pay\b|\bklarna\b|\bafterpay\b|\baffirm\b|\bvenmo\b|\blog\s*-?\s*in\b|\bsign\s*-?\s*in\b|\bsign\s*-?\s*up\b|\bregister\b|\bcreate\s+(an\s+|your\s+)?account\b|\bmy\s+account\b|\bforgot\s+(your\s+)?password|\bsubscribe\b|\bnot\s+a\s+robot\b|\bi\s+am\s+human\b|\bverify\s+(that\s+)?(you\s+are|you're|i\s+am)\s+(a\s+)?human)`)

// forbiddenCompounds are matched in identifiers and URL paths with every
// non-letter removed, so place_order, placeOrder and place-order all read
// "placeorder".
var forbiddenCompounds = []string{
	"placeorder", "submitorder", "completeorder", "completepurchase", "confirmorder", "paynow", "buynow", "buyitnow",
	"paypal", "applepay", "googlepay", "shoppay", "amazonpay", "klarna", "afterpay", "venmo",
	"login", "logon", "signin", "signup", "register", "createaccount", "captcha", "subscribe", "password",
}

func compoundHit(s string) bool {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	c := b.String()
	for _, f := range forbiddenCompounds {
		if strings.Contains(c, f) {
			return true
		}
	}
	return false
}

// forbiddenTokens are path and query words of endpoints a shopper never
// sends anything to.
var forbiddenTokens = map[string]bool{
	"order": true, "orders": true, "placeorder": true, "pay": true, "payment": true, "payments": true,
	"purchase": true, "charge": true, "charges": true, "login": true, "signin": true, "signup": true,
	"register": true, "registration": true, "account": true, "accounts": true, "subscribe": true,
	"newsletter": true, "captcha": true, "password": true, "complete": true,
}

var reSplit = regexp.MustCompile(`[^a-z0-9]+`)

func tokens(s string) []string { return reSplit.Split(strings.ToLower(s), -1) }

func pathForbidden(u *url.URL) bool {
	for _, t := range tokens(u.Path) {
		if forbiddenTokens[t] {
			return true
		}
	}
	return compoundHit(u.Path)
}

// checkoutGate reports a link that says it starts checkout and leads to
// the page where a checkout asks who is buying: its address names a
// login only beside the checkout (Salesforce's SFRA sends "Checkout" to
// Checkout-Login, which offers guest checkout). Following it submits
// nothing; the password field and the login form there stay forbidden.
func checkoutGate(it Item, u *url.URL) bool {
	if !reCheckoutWords.MatchString(it.Name) && !reCheckoutWords.MatchString(it.Text) {
		return false
	}
	checkout := false
	for _, t := range tokens(u.Path) {
		switch {
		case strings.Contains(t, "checkout"):
			checkout = true
		case t == "login" || t == "signin":
		case forbiddenTokens[t]:
			return false // an order, a payment, an account: never
		}
	}
	return checkout
}

var reCheckoutWords = regexp.MustCompile(`(?i)^\s*((proceed|go|continue)\s+to\s+|secure\s+)?check\s?-?\s?out\s*$`)

// isSubmit reports whether clicking the element submits its form.
func (it Item) isSubmit() bool {
	if it.Form == nil {
		return false
	}
	switch it.Tag {
	case "button":
		return it.Type == "" || it.Type == "submit"
	case "input":
		return it.Type == "submit" || it.Type == "image"
	}
	return false
}

// Forbidden says why the shopper must not act on the element, or "" when it
// may. It is the one gate every click and choice of every shopper passes.
func Forbidden(it Item) string {
	if it.Captcha {
		return GuardCaptcha
	}
	switch it.Field {
	case "password", "card":
		return GuardCardField
	case "email", "address", "text", "search", "tel", "number", "url", "textarea":
		return GuardTextField
	}
	if it.Editable || it.Tag == "textarea" {
		return GuardTextField
	}
	if it.Tag == "input" {
		switch it.Type {
		case "submit", "button", "image", "radio", "checkbox", "reset":
		default:
			return GuardTextField
		}
	}
	for _, s := range []string{it.Name, it.Text, it.Aria, it.Title, it.Value} {
		if s != "" && reCaptchaWords.MatchString(s) {
			return GuardCaptcha
		}
		if s != "" && reForbiddenWords.MatchString(s) {
			if reAccountWords.MatchString(s) {
				return GuardAccount
			}
			return GuardPaymentControl
		}
	}
	for _, s := range []string{it.ID, it.NameAttr} {
		if s != "" && compoundHit(s) {
			return GuardPaymentControl
		}
	}
	if it.Form != nil {
		submit := it.isSubmit()
		if submit && (it.Form.Card > 0 || it.Form.Password > 0) {
			return GuardPaymentForm
		}
		if submit && it.Form.Email > 0 {
			return GuardSignupForm
		}
		if submit && it.Form.Action != "" {
			if u, err := url.Parse(it.Form.Action); err == nil && pathForbidden(u) {
				return GuardFormAction
			}
		}
		if it.Form.Card > 0 && (it.Tag == "select" || it.Type == "radio" || it.Type == "checkbox") {
			return GuardCardField
		}
	}
	if it.Href != "" {
		u, err := url.Parse(it.Href)
		if err != nil {
			return GuardScheme
		}
		switch strings.ToLower(u.Scheme) {
		case "http", "https":
			if pathForbidden(u) && !checkoutGate(it, u) {
				return GuardLink
			}
		case "javascript", "":
		default:
			return GuardScheme
		}
	}
	return ""
}

var reCaptchaWords = regexp.MustCompile(`(?i)\bnot\s+a\s+robot\b|\bi\s+am\s+human\b|\bverify\s+(that\s+)?(you\s+are|you're|i\s+am)\s+(a\s+)?human|captcha`)

var reAccountWords = regexp.MustCompile(`(?i)\b(log\s*-?\s*in|sign\s*-?\s*in|sign\s*-?\s*up|register|create\s+(an\s+|your\s+)?account|my\s+account|forgot|subscribe)\b`)

// RefuseRequest is the network-level guard: it names why a request that
// changes state (not GET or HEAD) must not reach the store, or "". It
// refuses what an order, a payment, a login, an account or a newsletter
// endpoint looks like, including WooCommerce's place-order call
// (?wc-ajax=checkout).
func RefuseRequest(method string, u *url.URL) string {
	if pathForbidden(u) {
		return GuardFormAction
	}
	for k, vs := range u.Query() {
		lk := strings.ToLower(k)
		for _, v := range vs {
			lv := strings.ToLower(v)
			if lk == "wc-ajax" && (strings.Contains(lv, "checkout") || strings.Contains(lv, "order")) {
				return GuardFormAction
			}
			for _, t := range tokens(lv) {
				if forbiddenTokens[t] && t != "complete" {
					return GuardFormAction
				}
			}
		}
	}
	return ""
}

// LooksLikeCheckoutURL reports whether a URL is, by its address, a checkout
// (path or hash route with a word containing "checkout", or a checkout.
// host). Such an address is never recorded.
func LooksLikeCheckoutURL(u *url.URL) bool {
	if u == nil {
		return false
	}
	if strings.HasPrefix(strings.ToLower(u.Hostname()), "checkout.") {
		return true
	}
	for _, t := range tokens(u.Path + " " + u.Fragment) {
		if strings.Contains(t, "checkout") {
			return true
		}
	}
	return false
}

var (
	reCheckoutHeading = regexp.MustCompile(`(?i)\b(secure\s+)?check\s?-?out\b|\bshipping\s+(address|information|details|methods?)\b|\bcontact\s+information\b|\bdelivery\s+(address|details)\b|\bpayment\s+(method|details|information)\b`)
	reCartHeading     = regexp.MustCompile(`(?i)\b(shopping\s+)?(cart|bag|basket|trolley)\b`)
	reChallengeTitle  = regexp.MustCompile(`(?i)just a moment|attention required|access denied|are you a (robot|human)|verify (you are|that you are) human|security check|\bbot check|one more step`)
	reEmptyCart       = regexp.MustCompile(`(?i)(cart|bag|basket|trolley)\s+is\s+(currently\s+)?empty|no\s+items\s+in\s+(your\s+)?(shopping\s+)?(cart|bag|basket)|you\s+have\s+no\s+items`)
	// reAddedText is a page's word that the add worked; Magento and
	// OpenCart name the product in it ("You added %1 to your shopping
	// cart.", "Success: You have added %s to your shopping cart!").
	reAddedText = regexp.MustCompile(`(?i)added\s+to\s+(your\s+)?(shopping\s+)?(cart|bag|basket|trolley)|item\s+added|(1|one)\s+item\s+in\s+(your\s+)?(cart|bag|basket)|\byou\s+(have\s+)?added\s+\S.{0,120}?\s+to\s+your\s+(shopping\s+)?(cart|bag|basket|trolley)\b`)
	reSoldOut   = regexp.MustCompile(`(?i)\bsold\s*out\b|\bout\s+of\s+stock\b|\bunavailable\b|\bnotify\s+me\b|\bcoming\s+soon\b`)
)

// IsLoginWall reports a page that asks for a password, offers no
// checkout form and no way on as a guest: the shopper never logs in.
func IsLoginWall(st PageState) bool {
	return loginPage(st) && st.Guest == 0
}

// loginPage reports a page that asks for a password and has no checkout
// form: a login page, with or without a guest option.
func loginPage(st PageState) bool {
	return st.Password > 0 && st.Card == 0 && st.Address < 2
}

// IsChallenge reports a captcha or challenge on the page.
func IsChallenge(st PageState) bool {
	return st.Captcha || reChallengeTitle.MatchString(st.Title)
}

// IsCheckoutPage reports the first page of a checkout: an address that
// reads as a checkout with checkout content (contact, shipping or payment
// fields, or a checkout heading), or a checkout heading over such fields.
// A single-page app's checkout view counts. A login wall, a challenge and
// a cart page (Magento's /checkout/cart) do not.
func IsCheckoutPage(st PageState) bool {
	if loginPage(st) || IsChallenge(st) {
		return false
	}
	u, _ := url.Parse(st.URL)
	fields := st.Card > 0 || st.Address >= 2
	heading := false
	cartHeading := false
	for _, h := range append([]string{st.Title}, st.Headings...) {
		if reCheckoutHeading.MatchString(h) {
			heading = true
		}
		if reCartHeading.MatchString(h) && !reCheckoutHeading.MatchString(h) {
			cartHeading = true
		}
	}
	if LooksLikeCheckoutURL(u) {
		return fields || (heading && !cartHeading) || (st.Email > 0 && !cartHeading)
	}
	return heading && fields && !cartHeading
}
