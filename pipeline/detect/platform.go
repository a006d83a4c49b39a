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
	// PlatformSFCC is Salesforce Commerce Cloud (formerly Demandware).
	PlatformSFCC        = "salesforce_commerce_cloud"
	PlatformShopware    = "shopware"
	PlatformPrestaShop  = "prestashop"
	PlatformSquarespace = "squarespace"
	PlatformWix         = "wix"
	PlatformEverShop    = "evershop"
	PlatformVendure     = "vendure"
	PlatformOpenCart    = "opencart"
	PlatformSaleor      = "saleor"
	PlatformMedusa      = "medusa"
	PlatformSylius      = "sylius"
	PlatformNopCommerce = "nopcommerce"
	PlatformVolusion    = "volusion"
	// PlatformShift4Shop is Shift4Shop, formerly 3dcart.
	PlatformShift4Shop = "shift4shop"
	// PlatformSquareOnline is Square Online, which Weebly's stores became.
	PlatformSquareOnline  = "square_online"
	PlatformEcwid         = "ecwid"
	PlatformCommercetools = "commercetools"
	// PlatformCustom means no known platform signature was seen: a custom
	// build or a platform we do not recognise.
	PlatformCustom = "custom"
)

// Platforms is every name DetectPlatform gives, custom last: the values of
// the datasets' platform column, whose description lists them.
var Platforms = []string{
	PlatformShopify, PlatformWooCommerce, PlatformMagento, PlatformBigCommerce, PlatformSFCC,
	PlatformShopware, PlatformPrestaShop, PlatformSquarespace, PlatformWix, PlatformEverShop,
	PlatformVendure, PlatformOpenCart, PlatformSaleor, PlatformMedusa, PlatformSylius,
	PlatformNopCommerce, PlatformVolusion, PlatformShift4Shop, PlatformSquareOnline, PlatformEcwid,
	PlatformCommercetools, PlatformCustom,
}

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
	// Where is "header", "cookie", "html" or "url".
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
	where    string // header, header-value, cookie, cookie-prefix, html, html-fold, body-class, generator, meta, meta-value, host
	key      string // header, cookie or meta name, HTML marker, host suffix
	value    string // for header-value and meta-value: the lower-case substring of the value
	strong   bool
}

// platformRules are the signatures we know, after each platform's own
// markup and the public fingerprints of Wappalyzer (enthec/webappanalyzer,
// src/technologies). HTML markers are matched case sensitively unless the
// rule says otherwise: they are code, and matching "shopify" loosely would
// count every blog post about Shopify. A strong signal is one only that
// platform produces; a weak one other sites can carry too (a CDN a widget
// loads from, a generic API link).
var platformRules = []platformRule{
	{PlatformShopify, "header", "X-ShopId", "", true},
	{PlatformShopify, "header", "X-Shopify-Stage", "", true},
	{PlatformShopify, "header", "X-Sorting-Hat-ShopId", "", true},
	{PlatformShopify, "header-value", "Powered-By", "shopify", true},
	{PlatformShopify, "host", ".myshopify.com", "", true},
	{PlatformShopify, "cookie", "_shopify_y", "", true},
	{PlatformShopify, "cookie", "_shopify_s", "", true},
	{PlatformShopify, "cookie", "_shopify_essential", "", true},
	{PlatformShopify, "cookie", "_shopify_sa_p", "", true},
	{PlatformShopify, "cookie", "_shopify_sa_t", "", true},
	{PlatformShopify, "cookie", "cart_sig", "", false},
	{PlatformShopify, "meta", "shopify-checkout-api-token", "", true},
	{PlatformShopify, "meta", "shopify-digital-wallet", "", true},
	{PlatformShopify, "html", "<shopify-accelerated-checkout", "", true},
	{PlatformShopify, "html", "Shopify.shop", "", true},
	{PlatformShopify, "html", "Shopify.theme", "", true},
	{PlatformShopify, "html", "ShopifyAnalytics", "", true},
	{PlatformShopify, "html", "shopify-section", "", true},
	{PlatformShopify, "html", "/cdn/shop/", "", true},
	{PlatformShopify, "html", "cdn.shopify.com", "", false},
	{PlatformShopify, "html", "sdks.shopifycdn.com", "", false},
	{PlatformShopify, "html", "window.Shopify", "", false},

	{PlatformWooCommerce, "html", "wp-content/plugins/woocommerce", "", true},
	{PlatformWooCommerce, "body-class", "woocommerce", "", true},
	{PlatformWooCommerce, "generator", "woocommerce", "", true},
	{PlatformWooCommerce, "cookie-prefix", "woocommerce_", "", true},
	{PlatformWooCommerce, "cookie-prefix", "wp_woocommerce_session_", "", true},
	{PlatformWooCommerce, "html", "wp-json/wc/store", "", true},
	{PlatformWooCommerce, "html", "wc_add_to_cart_params", "", true},
	{PlatformWooCommerce, "html", "woocommerce_params", "", true},
	{PlatformWooCommerce, "header-value", "Link", "rel=\"https://api.w.org/\"", false},

	{PlatformMagento, "html", "mage/cookies.js", "", true},
	{PlatformMagento, "html", "text/x-magento-init", "", true},
	{PlatformMagento, "html", `data-requiremodule="mage/`, "", true},
	{PlatformMagento, "html", `data-requiremodule="Magento_`, "", true},
	{PlatformMagento, "html", "Mage.Cookies", "", true},
	{PlatformMagento, "html", "VarienForm", "", true},
	{PlatformMagento, "header", "X-Magento-Tags", "", true},
	{PlatformMagento, "header", "X-Magento-Cache-Debug", "", true},
	{PlatformMagento, "cookie", "mage-cache-sessid", "", true},
	{PlatformMagento, "cookie", "mage-cache-storage", "", true},
	{PlatformMagento, "cookie", "mage-translation-storage", "", true},
	{PlatformMagento, "cookie", "mage-translation-file-version", "", true},
	{PlatformMagento, "cookie", "X-Magento-Vary", "", true},
	// Wappalyzer m.json "Magento" (Adobe Commerce is Magento): the cookie
	// mage-cache-storage-section-invalidation and the dom
	// html[data-image-optimizing-origin] of Adobe Commerce's image service.
	{PlatformMagento, "cookie", "mage-cache-storage-section-invalidation", "", true},
	{PlatformMagento, "html", "data-image-optimizing-origin", "", true},
	{PlatformMagento, "html", "/skin/frontend/", "", false},
	{PlatformMagento, "html", "static/_requirejs", "", false},
	{PlatformMagento, "cookie", "frontend", "", false},

	{PlatformBigCommerce, "host", ".mybigcommerce.com", "", true},
	{PlatformBigCommerce, "meta-value", "platform", "bigcommerce", true},
	{PlatformBigCommerce, "html", "bigcommerce_config", "", true},
	{PlatformBigCommerce, "html", "bigcommerce_i18n", "", true},
	{PlatformBigCommerce, "html", "bigcommerceProductId", "", true},
	// Every Stencil theme boots with window.stencilBootstrap("{{page_type}}",
	// {{jsContext}}) (bigcommerce/cornerstone templates/layout/base.html).
	{PlatformBigCommerce, "html", "stencilBootstrap(", "", true},
	{PlatformBigCommerce, "html", "cdn11.bigcommerce.com", "", false},
	{PlatformBigCommerce, "html-fold", "bigcommerce", "", false},

	{PlatformSFCC, "header-value", "Server", "demandware", true},
	{PlatformSFCC, "cookie", "dwsid", "", true},
	{PlatformSFCC, "cookie", "dw_dnt", "", true},
	{PlatformSFCC, "cookie-prefix", "dwanonymous_", "", true},
	{PlatformSFCC, "html", "/demandware.static/", "", true},
	{PlatformSFCC, "html", "/on/demandware.store/", "", true},
	{PlatformSFCC, "html", "dwAnalytics", "", true},

	{PlatformShopware, "header", "sw-context-token", "", true},
	{PlatformShopware, "header", "sw-invalidation-states", "", true},
	{PlatformShopware, "header", "sw-language-id", "", true},
	{PlatformShopware, "header", "sw-version-id", "", true},
	{PlatformShopware, "meta-value", "application-name", "shopware", true},
	{PlatformShopware, "html", "shopwareAnalytics", "", true},
	{PlatformShopware, "html", "jquery.shopware.min.js", "", true},
	{PlatformShopware, "html", "/engine/Shopware/", "", true},

	{PlatformPrestaShop, "cookie-prefix", "PrestaShop-", "", true},
	{PlatformPrestaShop, "header-value", "Powered-By", "prestashop", true},
	{PlatformPrestaShop, "generator", "prestashop", "", true},
	{PlatformPrestaShop, "html", "var prestashop =", "", true},
	{PlatformPrestaShop, "html", "/modules/ps_", "", true},

	{PlatformSquarespace, "header-value", "Server", "squarespace", true},
	{PlatformSquarespace, "html", "SQUARESPACE_CONTEXT", "", true},
	{PlatformSquarespace, "html", "SQUARESPACE_ROLLUPS", "", true},
	{PlatformSquarespace, "html", "static1.squarespace.com", "", false},
	{PlatformSquarespace, "html", "assets.squarespace.com", "", false},
	{PlatformSquarespace, "html", "images.squarespace-cdn.com", "", false},

	{PlatformWix, "header", "X-Wix-Request-Id", "", true},
	{PlatformWix, "header", "X-Wix-Renderer-Server", "", true},
	{PlatformWix, "header", "X-Wix-Server-Artifact-Id", "", true},
	{PlatformWix, "generator", "wix.com website builder", "", true},
	{PlatformWix, "html", "wixBiSession", "", true},
	{PlatformWix, "html", "wixPerformanceMeasurements", "", true},
	{PlatformWix, "html", "static.parastorage.com", "", true},
	{PlatformWix, "html", "wixstores", "", true},
	{PlatformWix, "html", "static.wixstatic.com", "", false},

	// EverShop 2.2.1 (npm @evershop/evershop): every storefront page inlines
	// "var eContext = {...}" (src/components/common/react/server/render.tsx)
	// and renders <body id="body" class="frontStore {route}">
	// (src/components/common/react/server/Server.tsx).
	{PlatformEverShop, "html", "var eContext = ", "", true},
	{PlatformEverShop, "html", `<body id="body" class="frontStore`, "", true},

	// Vendure: the shop API answers and takes the session token in the
	// vendure-auth-token header, which the Next.js storefront
	// (vendurehq/nextjs-starter-vendure src/lib/vendure/api.ts and
	// src/lib/auth.ts) keeps in a cookie of the same name; the shop API's
	// default path is /shop-api (Vendure apiOptions.shopApiPath). Its
	// asset server serves /assets/preview/…__preview.jpg, which next/image
	// escapes, and its GraphQL prices are priceWithTax (in the React server
	// payload of the starter's pages): weak, an asset path and a field name
	// other sites can share. The shop API exposes the token header to
	// browsers (Access-Control-Expose-Headers: vendure-auth-token, seen on
	// Vendure 3.7.3's /shop-api).
	{PlatformVendure, "header", "vendure-auth-token", "", true},
	{PlatformVendure, "header-value", "Access-Control-Expose-Headers", "vendure-auth-token", true},
	{PlatformVendure, "cookie", "vendure-auth-token", "", true},
	{PlatformVendure, "html", "/shop-api", "", true},
	{PlatformVendure, "html", "/assets/preview/", "", false},
	{PlatformVendure, "html", "%2Fassets%2Fpreview%2F", "", false},
	{PlatformVendure, "html", "priceWithTax", "", false},

	// OpenCart: Wappalyzer o.json "OpenCart" cookie OCSESSID; every theme
	// and script lives under catalog/view/ (upload/catalog/view/theme/,
	// catalog/view/javascript/ in OpenCart 3 and 4); the default footer is
	// 'Powered By <a href="https://www.opencart.com">OpenCart</a>'
	// (catalog/language/en-gb/common/footer.php); the home route is
	// index.php?route=common/home.
	{PlatformOpenCart, "cookie", "OCSESSID", "", true},
	{PlatformOpenCart, "html", "catalog/view/theme/", "", true},
	{PlatformOpenCart, "html", "catalog/view/javascript/", "", true},
	{PlatformOpenCart, "html", "route=common/home", "", true},
	{PlatformOpenCart, "html", `opencart.com">OpenCart</a>`, "", true},

	// Saleor: Wappalyzer s.json "Saleor" img src saleor.imgix.net; Saleor
	// Cloud's API and media host *.saleor.cloud (NEXT_PUBLIC_SALEOR_API_URL
	// in saleor/storefront's .env.example).
	{PlatformSaleor, "html", "saleor.imgix.net", "", true},
	{PlatformSaleor, "html", ".saleor.cloud/", "", true},

	// Medusa: Wappalyzer m.json "Medusajs" cookie medusa.sid (the server's
	// session); the Next.js starter (medusajs/nextjs-starter-medusa
	// src/middleware.ts, src/lib/data/cookies.ts) sets _medusa_cache_id on a
	// first visit and _medusa_cart_id, _medusa_jwt; its footer links
	// www.medusajs.com (weak: a link).
	{PlatformMedusa, "cookie", "medusa.sid", "", true},
	{PlatformMedusa, "cookie", "_medusa_cache_id", "", true},
	{PlatformMedusa, "cookie", "_medusa_cart_id", "", true},
	{PlatformMedusa, "cookie", "_medusa_jwt", "", true},
	{PlatformMedusa, "html", "www.medusajs.com", "", false},

	// Sylius: Wappalyzer s.json "Sylius": div#sylius-cart-button,
	// input#sylius_add_to_cart_cartItem_variant,
	// img[src*='sylius_shop_product_tiny_thumbnail'], scriptSrc
	// syliusshop/script.js.
	{PlatformSylius, "html", `id="sylius-cart-button"`, "", true},
	{PlatformSylius, "html", "sylius_add_to_cart", "", true},
	{PlatformSylius, "html", "sylius_shop_product_", "", true},
	{PlatformSylius, "html", "syliusshop/script.js", "", true},

	// nopCommerce: its cookies are named .Nop.<name> (.Nop.Customer,
	// .Nop.Antiforgery: NopCookieDefaults.Prefix in
	// src/Libraries/Nop.Core/Http/NopCookieDefaults.cs); Wappalyzer n.json
	// "nopCommerce": cookie Nop.customer, meta generator nopCommerce, html
	// "<!--Powered by nopCommerce".
	{PlatformNopCommerce, "cookie-prefix", ".Nop.", "", true},
	{PlatformNopCommerce, "cookie", "Nop.customer", "", true},
	{PlatformNopCommerce, "generator", "nopcommerce", "", true},
	{PlatformNopCommerce, "html", "<!--Powered by nopCommerce", "", true},

	// Volusion: Wappalyzer v.json "Volusion": link /vspfiles/, body
	// data-vn-page-name, scriptSrc volusion.js.
	{PlatformVolusion, "html", "/vspfiles/", "", true},
	{PlatformVolusion, "html", "data-vn-page-name", "", true},
	{PlatformVolusion, "html", "/volusion.js", "", true},

	// Shift4Shop (3dcart): Wappalyzer s.json "Shift4Shop": cookie 3dvisit,
	// header X-Powered-By 3DCART, js _3d_cart, scriptSrc 3d_upsell.js.
	{PlatformShift4Shop, "cookie", "3dvisit", "", true},
	{PlatformShift4Shop, "header-value", "X-Powered-By", "3dcart", true},
	{PlatformShift4Shop, "html", "_3d_cart", "", true},
	{PlatformShift4Shop, "html", "3d_upsell.js", "", true},

	// Square Online and the Weebly sites it grew from: Wappalyzer w.json
	// "Weebly" scriptSrc cdn\d+.editmysite.com and js _W.configDomain;
	// s.json "Square Online" js APP_ORIGIN square.online (weak: a URL).
	{PlatformSquareOnline, "html", ".editmysite.com/", "", true},
	{PlatformSquareOnline, "html", "_W.configDomain", "", true},
	{PlatformSquareOnline, "html", "square.online", "", false},

	// Ecwid: Wappalyzer e.json "Ecwid" scriptSrc app.ecwid.com/script.js,
	// app.multiscreenstore.com/script.js.
	{PlatformEcwid, "html", "app.ecwid.com/script.js", "", true},
	{PlatformEcwid, "html", "app.multiscreenstore.com/script.js", "", true},

	// commercetools: Wappalyzer c.json "commercetools": js
	// COMMERCE_TOOLS_PROJECT_KEY_ATT, __NEXT_DATA__…commercetoolsEntity;
	// link and scripts .commercetools.com (weak: any page may link it).
	{PlatformCommercetools, "html", "COMMERCE_TOOLS_PROJECT_KEY", "", true},
	{PlatformCommercetools, "html", "commercetoolsEntity", "", true},
	{PlatformCommercetools, "html", ".commercetools.com/", "", false},
}

// platformOrder breaks ties, most common platform first.
var platformOrder = []string{PlatformShopify, PlatformWooCommerce, PlatformMagento, PlatformBigCommerce,
	PlatformSFCC, PlatformShopware, PlatformPrestaShop, PlatformSquarespace, PlatformWix,
	PlatformSquareOnline, PlatformEcwid, PlatformOpenCart, PlatformNopCommerce, PlatformVolusion, PlatformShift4Shop,
	PlatformCommercetools, PlatformSaleor, PlatformSylius, PlatformMedusa, PlatformVendure, PlatformEverShop}

// DetectPlatform names the store's platform from headers, Set-Cookie names
// and HTML. The platform with the most strong signals wins; with none
// strong, the one with the most weak signals wins at weak strength; ties go
// to the more common platform. With nothing seen it is PlatformCustom.
func DetectPlatform(p *Page) Platform { return DetectPlatformCookies(p, nil) }

// DetectPlatformCookies is DetectPlatform that also reads the cookies set
// by setCookies (Set-Cookie values), such as those of the redirects that
// led to the page: a storefront that sets its cookie on a redirect to a
// country path never sets it on the page itself once the cookie is back.
func DetectPlatformCookies(p *Page, setCookies []string) Platform {
	var signals []PlatformSignal
	cookies := cookieNames(p.Header)
	if len(setCookies) > 0 {
		cookies = append(cookies, cookieNames(http.Header{"Set-Cookie": setCookies})...)
	}
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
	case "host":
		return "url"
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
	case "host":
		if p.URL != nil && strings.HasSuffix(strings.TrimSuffix(strings.ToLower(p.URL.Hostname()), "."), r.key) {
			return "host *" + r.key, true
		}
	case "meta", "meta-value":
		for _, m := range p.doc.metas {
			if m.name == r.key && (r.where == "meta" || strings.Contains(strings.ToLower(m.content), r.value)) {
				return `<meta name="` + r.key + `">`, true
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
