package detect

import (
	"net/http"
	"strings"
)

// Platform names.
const (
	PlatformShopify     = "shopify"
	PlatformWooCommerce = "woocommerce"
	PlatformMagento     = "magento"
	PlatformBigCommerce = "bigcommerce"
	// PlatformCustom means no known platform signature was seen: a custom
	// build or a platform we do not recognise.
	PlatformCustom = "custom"
)

// Strength of a platform finding.
const (
	// StrengthStrong: at least one signature only that platform produces.
	StrengthStrong = "strong"
	// StrengthWeak: only signatures other sites can also carry (a CDN
	// host, a WordPress API link, a generic cookie name).
	StrengthWeak = "weak"
	// StrengthNone goes with PlatformCustom: nothing was seen.
	StrengthNone = "none"
)

// PlatformSignal is one platform signature seen in a response.
type PlatformSignal struct {
	Platform string `json:"platform"`
	// Where is "header", "cookie" or "html".
	Where string `json:"where"`
	// Value is the header or cookie name, or the HTML marker.
	Value  string `json:"value"`
	Strong bool   `json:"strong"`
}

// Platform is the platform a store runs on, with the signals behind it.
type Platform struct {
	Name     string `json:"name"`
	Strength string `json:"strength"`
	// Signals lists every signature seen, for all platforms, so a mixed
	// page (a WooCommerce site loading Shopify's buy button) stays visible.
	Signals []PlatformSignal `json:"signals,omitempty"`
}

type platformRule struct {
	platform string
	where    string // header, header-value, cookie, cookie-prefix, html, html-fold, body-class, generator
	key      string // header or cookie name, HTML marker
	value    string // for header-value: the lower-case substring of the value
	strong   bool
}

// platformRules are the signatures we know. HTML markers are matched case
// sensitively unless the rule says otherwise: they are code, and matching
// "shopify" loosely would count every blog post about Shopify.
var platformRules = []platformRule{
	{PlatformShopify, "header", "X-ShopId", "", true},
	{PlatformShopify, "header", "X-Shopify-Stage", "", true},
	{PlatformShopify, "header", "X-Sorting-Hat-ShopId", "", true},
	{PlatformShopify, "header-value", "Powered-By", "shopify", true},
	{PlatformShopify, "cookie", "_shopify_y", "", true},
	{PlatformShopify, "cookie", "_shopify_s", "", true},
	{PlatformShopify, "cookie", "cart_sig", "", false},
	{PlatformShopify, "html", "Shopify.shop", "", true},
	{PlatformShopify, "html", "Shopify.theme", "", true},
	{PlatformShopify, "html", "shopify-section", "", true},
	{PlatformShopify, "html", "cdn.shopify.com", "", false},

	{PlatformWooCommerce, "html", "wp-content/plugins/woocommerce", "", true},
	{PlatformWooCommerce, "body-class", "woocommerce", "", true},
	{PlatformWooCommerce, "generator", "woocommerce", "", true},
	{PlatformWooCommerce, "cookie-prefix", "woocommerce_", "", true},
	{PlatformWooCommerce, "cookie-prefix", "wp_woocommerce_session_", "", true},
	{PlatformWooCommerce, "html", "wp-json/wc/store", "", true},
	{PlatformWooCommerce, "header-value", "Link", "rel=\"https://api.w.org/\"", false},

	{PlatformMagento, "html", "mage/cookies.js", "", true},
	{PlatformMagento, "html", "text/x-magento-init", "", true},
	{PlatformMagento, "header", "X-Magento-Tags", "", true},
	{PlatformMagento, "header", "X-Magento-Cache-Debug", "", true},
	{PlatformMagento, "cookie", "mage-cache-sessid", "", true},

	// BigCommerce leaves no signature we trust as strong.
	{PlatformBigCommerce, "html", "cdn11.bigcommerce.com", "", false},
	{PlatformBigCommerce, "html-fold", "bigcommerce", "", false},
}

// platformOrder breaks ties, most common platform first.
var platformOrder = []string{PlatformShopify, PlatformWooCommerce, PlatformMagento, PlatformBigCommerce}

// DetectPlatform names the store's platform from headers, Set-Cookie names
// and HTML. The platform with the most strong signals wins; with none
// strong, the one with the most weak signals wins at weak strength; ties go
// to the more common platform. With nothing seen it is PlatformCustom.
func DetectPlatform(p *Page) Platform {
	var signals []PlatformSignal
	cookies := cookieNames(p.Header)
	for _, r := range platformRules {
		if v, ok := r.seen(p, cookies); ok {
			signals = append(signals, PlatformSignal{Platform: r.platform, Where: r.whereName(), Value: v, Strong: r.strong})
		}
	}
	strong, weak := map[string]int{}, map[string]int{}
	for _, s := range signals {
		if s.Strong {
			strong[s.Platform]++
		} else {
			weak[s.Platform]++
		}
	}
	out := Platform{Name: PlatformCustom, Strength: StrengthNone, Signals: signals}
	if best := argmax(strong); best != "" {
		out.Name, out.Strength = best, StrengthStrong
	} else if best := argmax(weak); best != "" {
		out.Name, out.Strength = best, StrengthWeak
	}
	return out
}

func argmax(n map[string]int) string {
	best, bn := "", 0
	for _, p := range platformOrder {
		if n[p] > bn {
			best, bn = p, n[p]
		}
	}
	return best
}

func (r platformRule) whereName() string {
	switch r.where {
	case "header", "header-value":
		return "header"
	case "cookie", "cookie-prefix":
		return "cookie"
	}
	return "html"
}

// seen reports whether the rule's signature is in the response and what
// to show as evidence.
func (r platformRule) seen(p *Page, cookies []string) (string, bool) {
	switch r.where {
	case "header":
		if len(p.Header.Values(r.key)) > 0 {
			return r.key, true
		}
	case "header-value":
		if headerContainsFold(p.Header, r.key, r.value) {
			return r.key + ": …" + r.value + "…", true
		}
	case "cookie":
		for _, c := range cookies {
			if c == r.key {
				return c, true
			}
		}
	case "cookie-prefix":
		for _, c := range cookies {
			if strings.HasPrefix(c, r.key) {
				return c, true
			}
		}
	case "html":
		if contains(p.Body, r.key) {
			return r.key, true
		}
	case "html-fold":
		if containsFold(p.Body, r.key) {
			return r.key, true
		}
	case "body-class":
		for _, c := range p.doc.bodyClass {
			if c == r.key || strings.HasPrefix(c, r.key+"-") {
				return `<body class="` + c + `">`, true
			}
		}
	case "generator":
		for _, m := range p.doc.metas {
			if m.name == "generator" && strings.Contains(strings.ToLower(m.content), r.key) {
				return `<meta name="generator" content="` + truncateUTF8(m.content, 60) + `">`, true
			}
		}
	}
	return "", false
}

// hasStoreMarkup reports signs that a page belongs to a working shop:
// strong platform signals, Product JSON-LD, or cart and checkout links and
// forms. Parked-domain detection requires their absence.
func hasStoreMarkup(p *Page, plat Platform, products int) bool {
	if plat.Strength == StrengthStrong || products > 0 {
		return true
	}
	for _, f := range p.doc.forms {
		a := strings.ToLower(f.action)
		if strings.Contains(a, "/cart") || strings.Contains(a, "checkout") {
			return true
		}
	}
	for _, a := range p.doc.anchors {
		h := strings.ToLower(a.href)
		if strings.HasSuffix(h, "/cart") || strings.Contains(h, "/checkout") || strings.Contains(h, "add-to-cart") {
			return true
		}
	}
	return containsFold(p.Body, "add to cart") || containsFold(p.Body, "add-to-cart")
}

// headerHas reports whether the header is present, even with an empty
// value: for markers such as X-Sucuri-Block the name is the signal.
func headerHas(h http.Header, key string) bool { return len(h.Values(key)) > 0 }
