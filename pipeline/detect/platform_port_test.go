package detect

import (
	"net/http"
	"net/url"
	"testing"
)

// TestPlatformFingerprints holds one response per public fingerprint of
// Wappalyzer's technology list (github.com/enthec/webappanalyzer,
// src/technologies/*.json at commit 1b9eee81; the file and pattern are
// named on each case), each carrying that fingerprint alone, plus the
// storefront markers named in issue 18. Each must name its platform at the
// strength we give the signal; the negatives must not.
func TestPlatformFingerprints(t *testing.T) {
	tests := []struct {
		source   string
		url      string
		header   http.Header
		html     string
		platform string
		strength string
	}{
		// s.json "Shopify"
		{source: "Shopify url ^https?//.+\\.myshopify\\.com", url: "https://acme-shoes.myshopify.com/", platform: PlatformShopify, strength: StrengthStrong},
		{source: "Shopify meta shopify-checkout-api-token", html: `<meta name="shopify-checkout-api-token" content="0f3c">`, platform: PlatformShopify, strength: StrengthStrong},
		{source: "Shopify meta shopify-digital-wallet", html: `<meta name="shopify-digital-wallet" content="/123/digital_wallets/dialog">`, platform: PlatformShopify, strength: StrengthStrong},
		{source: "Shopify headers x-shopid", header: hdr("X-ShopId", "60000001"), platform: PlatformShopify, strength: StrengthStrong},
		{source: "Shopify headers x-shopify-stage", header: hdr("X-Shopify-Stage", "production"), platform: PlatformShopify, strength: StrengthStrong},
		{source: "Shopify cookies _shopify_essential", header: hdr("Set-Cookie", "_shopify_essential=:AZ:; Path=/"), platform: PlatformShopify, strength: StrengthStrong},
		{source: "Shopify cookies _shopify_sa_p", header: hdr("Set-Cookie", "_shopify_sa_p=; Path=/"), platform: PlatformShopify, strength: StrengthStrong},
		{source: "Shopify cookies _shopify_y", header: hdr("Set-Cookie", "_shopify_y=abc; Path=/"), platform: PlatformShopify, strength: StrengthStrong},
		{source: "Shopify js ShopifyAnalytics", html: `<script>window.ShopifyAnalytics = window.ShopifyAnalytics || {};</script>`, platform: PlatformShopify, strength: StrengthStrong},
		{source: "Shopify js Shopify (confidence 25: weak)", html: `<script>window.Shopify = window.Shopify || {};</script>`, platform: PlatformShopify, strength: StrengthWeak},
		{source: "Shopify scriptSrc cdn\\.shopify\\.com (weak: a buy button on any site loads it)", html: `<script src="https://cdn.shopify.com/s/trekkie.storefront.min.js"></script>`, platform: PlatformShopify, strength: StrengthWeak},
		{source: "Shopify scriptSrc sdks\\.shopifycdn\\.com (weak: the Buy Button SDK)", html: `<script src="https://sdks.shopifycdn.com/buy-button/latest/buy-button-storefront.min.js"></script>`, platform: PlatformShopify, strength: StrengthWeak},
		{source: "issue 18: the <shopify-accelerated-checkout> element", html: `<shopify-accelerated-checkout recommendation="{}" fallback="{}"></shopify-accelerated-checkout>`, platform: PlatformShopify, strength: StrengthStrong},
		{source: "issue 18: storefront assets under /cdn/shop/ on the shop's own domain", html: `<link rel="stylesheet" href="//shop.example/cdn/shop/t/3/assets/base.css?v=1">`, platform: PlatformShopify, strength: StrengthStrong},

		// b.json "BigCommerce"
		{source: "BigCommerce url mybigcommerce\\.com", url: "https://store-abc123.mybigcommerce.com/", platform: PlatformBigCommerce, strength: StrengthStrong},
		{source: "BigCommerce meta platform ^bigcommerce", html: `<meta name="platform" content="bigcommerce.stencil">`, platform: PlatformBigCommerce, strength: StrengthStrong},
		{source: "BigCommerce js bigcommerce_config", html: `<script>window.bigcommerce_config = {};</script>`, platform: PlatformBigCommerce, strength: StrengthStrong},
		{source: "BigCommerce js bigcommerce_i18n", html: `<script>var bigcommerce_i18n = [];</script>`, platform: PlatformBigCommerce, strength: StrengthStrong},
		{source: "BigCommerce scripts bigcommerceProductId", html: `<script>var bigcommerceProductId = 77;</script>`, platform: PlatformBigCommerce, strength: StrengthStrong},
		{source: "BigCommerce dom img[src*='.bigcommerce.com'] (weak)", html: `<img src="https://cdn11.bigcommerce.com/s-abc/images/x.jpg">`, platform: PlatformBigCommerce, strength: StrengthWeak},

		// m.json "Magento"
		{source: "Magento cookies X-Magento-Vary", header: hdr("Set-Cookie", "X-Magento-Vary=abc; path=/"), platform: PlatformMagento, strength: StrengthStrong},
		{source: "Magento cookies mage-cache-storage", header: hdr("Set-Cookie", "mage-cache-storage=%7B%7D; path=/"), platform: PlatformMagento, strength: StrengthStrong},
		{source: "Magento cookies mage-translation-storage", header: hdr("Set-Cookie", "mage-translation-storage=%7B%7D; path=/"), platform: PlatformMagento, strength: StrengthStrong},
		{source: "Magento cookies mage-translation-file-version", header: hdr("Set-Cookie", "mage-translation-file-version=%7B%7D; path=/"), platform: PlatformMagento, strength: StrengthStrong},
		{source: "Magento dom script[type='text/x-magento-init']", html: `<script type="text/x-magento-init">{"*":{}}</script>`, platform: PlatformMagento, strength: StrengthStrong},
		{source: "Magento dom script[data-requiremodule*='mage/']", html: `<script data-requirecontext="_" data-requiremodule="mage/cookies" src="/static/x/mage/cookies.js"></script>`, platform: PlatformMagento, strength: StrengthStrong},
		{source: "Magento dom script[data-requiremodule*='Magento_']", html: `<script data-requiremodule="Magento_Ui/js/core/app" src="/x.js"></script>`, platform: PlatformMagento, strength: StrengthStrong},
		{source: "Magento js Mage (Magento 1)", html: `<script>Mage.Cookies.path = '/';</script>`, platform: PlatformMagento, strength: StrengthStrong},
		{source: "Magento js VarienForm (Magento 1)", html: `<script>var dataForm = new VarienForm('form-validate', true);</script>`, platform: PlatformMagento, strength: StrengthStrong},
		{source: "Magento cookies frontend (confidence 50: weak)", header: hdr("Set-Cookie", "frontend=abc; path=/"), platform: PlatformMagento, strength: StrengthWeak},
		{source: "Magento scriptSrc skin/frontend/ (confidence 50: weak)", html: `<script src="/skin/frontend/rwd/default/js/app.js"></script>`, platform: PlatformMagento, strength: StrengthWeak},

		// s.json "Salesforce Commerce Cloud"
		{source: "Salesforce Commerce Cloud headers Server: Demandware eCommerce Server", header: hdr("Server", "Demandware eCommerce Server"), platform: PlatformSFCC, strength: StrengthStrong},
		{source: "Salesforce Commerce Cloud cookies dwsid", header: hdr("Set-Cookie", "dwsid=abc; path=/; HttpOnly"), platform: PlatformSFCC, strength: StrengthStrong},
		{source: "Salesforce Commerce Cloud cookies dw_dnt", header: hdr("Set-Cookie", "dw_dnt=0; path=/"), platform: PlatformSFCC, strength: StrengthStrong},
		{source: "Salesforce Commerce Cloud js dwAnalytics", html: `<script>var dwAnalytics = dw.ac;</script>`, platform: PlatformSFCC, strength: StrengthStrong},
		{source: "Salesforce Commerce Cloud scriptSrc /demandware\\.static/", html: `<script src="/on/demandware.static/Sites-RefArch-Site/-/en_US/v1/js/main.js"></script>`, platform: PlatformSFCC, strength: StrengthStrong},

		// s.json "Shopware"
		{source: "Shopware headers sw-context-token", header: hdr("sw-context-token", "0123456789abcdef0123456789abcdef"), platform: PlatformShopware, strength: StrengthStrong},
		{source: "Shopware headers sw-invalidation-states", header: hdr("sw-invalidation-states", "logged-in"), platform: PlatformShopware, strength: StrengthStrong},
		{source: "Shopware headers sw-language-id", header: hdr("sw-language-id", "2fbb5fe2e29a4d70aa5854ce7ce3e20b"), platform: PlatformShopware, strength: StrengthStrong},
		{source: "Shopware headers sw-version-id", header: hdr("sw-version-id", "0fa91ce3e96a4bc2be4bd9ce752c3425"), platform: PlatformShopware, strength: StrengthStrong},
		{source: "Shopware meta application-name Shopware", html: `<meta name="application-name" content="Shopware">`, platform: PlatformShopware, strength: StrengthStrong},
		{source: "Shopware js shopwareAnalytics", html: `<script>window.shopwareAnalytics = {};</script>`, platform: PlatformShopware, strength: StrengthStrong},
		{source: "Shopware scriptSrc /jquery\\.shopware\\.min\\.js", html: `<script src="/themes/Frontend/Responsive/frontend/_public/src/js/jquery.shopware.min.js"></script>`, platform: PlatformShopware, strength: StrengthStrong},
		{source: "Shopware scriptSrc /engine/Shopware/", html: `<script src="/engine/Shopware/Plugins/x.js"></script>`, platform: PlatformShopware, strength: StrengthStrong},

		// p.json "PrestaShop"
		{source: "PrestaShop cookies PrestaShop", header: hdr("Set-Cookie", "PrestaShop-a30a9934ef476d11b6cc3c983616e364=def; path=/"), platform: PlatformPrestaShop, strength: StrengthStrong},
		{source: "PrestaShop headers Powered-By ^Prestashop$", header: hdr("Powered-By", "Prestashop"), platform: PlatformPrestaShop, strength: StrengthStrong},
		{source: "PrestaShop meta generator PrestaShop", html: `<meta name="generator" content="PrestaShop">`, platform: PlatformPrestaShop, strength: StrengthStrong},
		{source: "PrestaShop js prestashop", html: `<script>var prestashop = {"cart":{}};</script>`, platform: PlatformPrestaShop, strength: StrengthStrong},
		{source: "PrestaShop scriptSrc /modules/ps_[a-z]+/", html: `<script src="/modules/ps_shoppingcart/ps_shoppingcart.js"></script>`, platform: PlatformPrestaShop, strength: StrengthStrong},

		// s.json "Squarespace", "Squarespace Commerce"
		{source: "Squarespace headers server Squarespace", header: hdr("Server", "Squarespace"), platform: PlatformSquarespace, strength: StrengthStrong},
		{source: "Squarespace js Static.SQUARESPACE_CONTEXT", html: `<script>Static.SQUARESPACE_CONTEXT = {"templateVersion":"7.1"};</script>`, platform: PlatformSquarespace, strength: StrengthStrong},
		{source: "Squarespace Commerce js SQUARESPACE_ROLLUPS.squarespace-commerce", html: `<script>SQUARESPACE_ROLLUPS['squarespace-commerce'] = {};</script>`, platform: PlatformSquarespace, strength: StrengthStrong},
		{source: "Squarespace images from images.squarespace-cdn.com (weak)", html: `<img src="https://images.squarespace-cdn.com/content/v1/abc/x.jpg">`, platform: PlatformSquarespace, strength: StrengthWeak},
		{source: "Squarespace Commerce scriptSrc assets.squarespace (weak)", html: `<script src="https://assets.squarespace.com/universal/scripts-compressed/commerce-abc-min.en-US.js"></script>`, platform: PlatformSquarespace, strength: StrengthWeak},

		// w.json "Wix", "Wix eCommerce"
		{source: "Wix headers X-Wix-Request-Id", header: hdr("X-Wix-Request-Id", "1700000000.123"), platform: PlatformWix, strength: StrengthStrong},
		{source: "Wix headers X-Wix-Renderer-Server", header: hdr("X-Wix-Renderer-Server", "app-1"), platform: PlatformWix, strength: StrengthStrong},
		{source: "Wix headers X-Wix-Server-Artifact-Id", header: hdr("X-Wix-Server-Artifact-Id", "thunderbolt"), platform: PlatformWix, strength: StrengthStrong},
		{source: "Wix meta generator Wix\\.com Website Builder", html: `<meta name="generator" content="Wix.com Website Builder">`, platform: PlatformWix, strength: StrengthStrong},
		{source: "Wix js wixBiSession", html: `<script>var wixBiSession = {};</script>`, platform: PlatformWix, strength: StrengthStrong},
		{source: "Wix js wixPerformanceMeasurements", html: `<script>window.wixPerformanceMeasurements = [];</script>`, platform: PlatformWix, strength: StrengthStrong},
		{source: "Wix scriptSrc static\\.parastorage\\.com", html: `<script src="https://static.parastorage.com/services/wix-thunderbolt/dist/main.js"></script>`, platform: PlatformWix, strength: StrengthStrong},
		{source: "Wix eCommerce dom #wix-viewer-model text wixstores", html: `<script type="application/json" id="wix-viewer-model">{"siteFeatures":["wixstores"]}</script>`, platform: PlatformWix, strength: StrengthStrong},
		{source: "Wix eCommerce scripts static\\.wixstatic\\.com (weak: images hot-linked elsewhere)", html: `<img src="https://static.wixstatic.com/media/abc.jpg">`, platform: PlatformWix, strength: StrengthWeak},

		// w.json "WooCommerce"
		{source: "WooCommerce js wc_add_to_cart_params", html: `<script>var wc_add_to_cart_params = {"ajax_url":"/wp-admin/admin-ajax.php"};</script>`, platform: PlatformWooCommerce, strength: StrengthStrong},
		{source: "WooCommerce js woocommerce_params", html: `<script>var woocommerce_params = {};</script>`, platform: PlatformWooCommerce, strength: StrengthStrong},
		{source: "WooCommerce cookies woocommerce_recently_viewed", header: hdr("Set-Cookie", "woocommerce_recently_viewed=12; path=/"), platform: PlatformWooCommerce, strength: StrengthStrong},
		{source: "WooCommerce meta generator WooCommerce", html: `<meta name="generator" content="WooCommerce 9.8.0">`, platform: PlatformWooCommerce, strength: StrengthStrong},
		{source: "WooCommerce dom .woocommerce-no-js", html: `<body class="home woocommerce-no-js">`, platform: PlatformWooCommerce, strength: StrengthStrong},

		// Negatives.
		{source: "a WooCommerce shop with a Shopify buy button stays WooCommerce", html: `<meta name="generator" content="WooCommerce 9.8.0"><script src="https://sdks.shopifycdn.com/buy-button/latest/buy-button-storefront.min.js"></script>`, platform: PlatformWooCommerce, strength: StrengthStrong},
		{source: "a blog post about Shopify, Wix and Squarespace names none", html: `<p>We compared Shopify, Wix, Squarespace, PrestaShop and Shopware for small shops.</p>`, platform: PlatformCustom, strength: StrengthNone},
		{source: "a myshopify.com link on another shop is not its host", url: "https://indie.example/", html: `<a href="https://friend.myshopify.com/">our friends</a>`, platform: PlatformCustom, strength: StrengthNone},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			raw := tt.url
			if raw == "" {
				raw = "https://shop.example/"
			}
			u, err := url.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			got := DetectPlatform(NewPage(u, 200, tt.header, []byte("<html><head>"+tt.html+"</head><body></body></html>")))
			if got.Name != tt.platform || got.Strength != tt.strength {
				t.Errorf("got %s (%s), signals %+v; want %s (%s)", got.Name, got.Strength, got.Signals, tt.platform, tt.strength)
			}
		})
	}
}

// TestPlatformSignaturesMore holds the signatures of the platforms named
// since issue 18, each case a response carrying one signature alone, named
// by its source: a Wappalyzer technology (github.com/enthec/webappanalyzer,
// src/technologies/*.json at commit 1b9eee81, file and pattern named) or
// the platform's own source file.
func TestPlatformSignaturesMore(t *testing.T) {
	tests := []struct {
		source   string
		header   http.Header
		html     string
		platform string
		strength string
	}{
		// Magento / Adobe Commerce.
		{source: "m.json Magento cookies mage-cache-storage-section-invalidation", header: hdr("Set-Cookie", "mage-cache-storage-section-invalidation=%7B%7D; path=/"), platform: PlatformMagento, strength: StrengthStrong},
		{source: "m.json Magento dom html[data-image-optimizing-origin] (Adobe Commerce)", html: `<html data-image-optimizing-origin="https://shop.example/media">`, platform: PlatformMagento, strength: StrengthStrong},

		// BigCommerce.
		{source: "bigcommerce/cornerstone templates/layout/base.html window.stencilBootstrap", html: `<script>window.stencilBootstrap("pages/home", "{\"themeSettings\":{}}").load();</script>`, platform: PlatformBigCommerce, strength: StrengthStrong},

		// EverShop 2.2.1 (npm @evershop/evershop).
		{source: "evershop src/components/common/react/server/render.tsx var eContext", html: `<script>var eContext = {"graphqlResponse":{},"config":{"pageMeta":{}},"propsMap":{},"widgets":[]}</script>`, platform: PlatformEverShop, strength: StrengthStrong},
		{source: "evershop src/components/common/react/server/Server.tsx body#body.frontStore", html: `</head><body id="body" class="frontStore homepage"><div id="app"></div>`, platform: PlatformEverShop, strength: StrengthStrong},

		// Vendure.
		{source: "nextjs-starter-vendure src/lib/vendure/api.ts header vendure-auth-token", header: hdr("vendure-auth-token", "0d5b1c6a8e6f4f3a"), platform: PlatformVendure, strength: StrengthStrong},
		{source: "nextjs-starter-vendure src/lib/auth.ts cookie vendure-auth-token", header: hdr("Set-Cookie", "vendure-auth-token=0d5b1c6a8e6f4f3a; Path=/; HttpOnly; SameSite=Lax"), platform: PlatformVendure, strength: StrengthStrong},
		{source: "Vendure apiOptions.shopApiPath shop-api in a storefront's client config", html: `<script>window.__ENV = {"VENDURE_API_URL":"https://shop.example/shop-api"};</script>`, platform: PlatformVendure, strength: StrengthStrong},
		{source: "Vendure 3.7.3 shop-api Access-Control-Expose-Headers vendure-auth-token", header: hdr("Access-Control-Expose-Headers", "vendure-auth-token"), platform: PlatformVendure, strength: StrengthStrong},
		{source: "nextjs-starter-vendure React server payload priceWithTax (weak)", html: `<script>self.__next_f.push([1,"{\"priceWithTax\":12999,\"currencyCode\":\"USD\"}"])</script>`, platform: PlatformVendure, strength: StrengthWeak},
		{source: "Vendure AssetServerPlugin preview URL through next/image (weak)", html: `<img srcset="/_next/image?url=https%3A%2F%2Fshop.example%2Fassets%2Fpreview%2F71%2Fderick-david-409858-unsplash__preview.jpg&amp;w=640&amp;q=75 1x">`, platform: PlatformVendure, strength: StrengthWeak},

		// OpenCart.
		{source: "o.json OpenCart cookies OCSESSID", header: hdr("Set-Cookie", "OCSESSID=8b1a9953c4611296a827abf8c4; path=/"), platform: PlatformOpenCart, strength: StrengthStrong},
		{source: "OpenCart upload/catalog/view/theme/ stylesheet", html: `<link href="catalog/view/theme/default/stylesheet/stylesheet.css" rel="stylesheet" type="text/css" />`, platform: PlatformOpenCart, strength: StrengthStrong},
		{source: "OpenCart catalog/language/en-gb/common/footer.php text_powered", html: `<p>Powered By <a href="https://www.opencart.com">OpenCart</a><br/> Your Store &copy; 2026</p>`, platform: PlatformOpenCart, strength: StrengthStrong},

		// Saleor.
		{source: "s.json Saleor dom img[src*='saleor'] saleor.imgix.net", html: `<img src="https://saleor.imgix.net/products/saleordemoproduct_cuschion01.png">`, platform: PlatformSaleor, strength: StrengthStrong},
		{source: "saleor/storefront .env.example NEXT_PUBLIC_SALEOR_API_URL *.saleor.cloud", html: `<img src="https://acme.eu.saleor.cloud/media/thumbnails/products/tee_thumbnail_256.webp">`, platform: PlatformSaleor, strength: StrengthStrong},

		// Medusa.
		{source: "m.json Medusajs cookies medusa.sid", header: hdr("Set-Cookie", "medusa.sid=s%3Aabc; Path=/; HttpOnly"), platform: PlatformMedusa, strength: StrengthStrong},
		{source: "nextjs-starter-medusa src/middleware.ts cookie _medusa_cache_id", header: hdr("Set-Cookie", "_medusa_cache_id=1b4e28ba-2fa1-11d2-883f-0016d3cca427; Path=/; Max-Age=86400"), platform: PlatformMedusa, strength: StrengthStrong},
		{source: "nextjs-starter-medusa src/lib/data/cookies.ts cookie _medusa_cart_id", header: hdr("Set-Cookie", "_medusa_cart_id=cart_01J; Path=/; HttpOnly"), platform: PlatformMedusa, strength: StrengthStrong},
		{source: "m.json Medusajs dom a[href*='www.medusajs.com'] (weak: a link)", html: `<div class="content-container"><a href="https://www.medusajs.com" target="_blank">Medusa</a></div>`, platform: PlatformMedusa, strength: StrengthWeak},

		// Sylius.
		{source: "s.json Sylius dom div#sylius-cart-button", html: `<div id="sylius-cart-button" class="ui circular cart button">`, platform: PlatformSylius, strength: StrengthStrong},
		{source: "s.json Sylius dom input#sylius_add_to_cart_cartItem_variant", html: `<select id="sylius_add_to_cart_cartItem_variant" name="sylius_add_to_cart[cartItem][variant]">`, platform: PlatformSylius, strength: StrengthStrong},
		{source: "s.json Sylius dom img[src*='sylius_shop_product_tiny_thumbnail']", html: `<img src="https://shop.example/media/cache/sylius_shop_product_tiny_thumbnail/ab/cd/cap.jpg">`, platform: PlatformSylius, strength: StrengthStrong},

		// nopCommerce.
		{source: "nopCommerce NopCookieDefaults.cs cookie .Nop.Customer", header: hdr("Set-Cookie", ".Nop.Customer=d664d529-d14a-44b1-86b3-cbf5373277b4; expires=Sat, 21 Nov 2027 12:00:00 GMT; path=/; secure; samesite=lax; httponly"), platform: PlatformNopCommerce, strength: StrengthStrong},
		{source: "n.json nopCommerce cookies Nop.customer", header: hdr("Set-Cookie", "Nop.customer=d664d529; path=/"), platform: PlatformNopCommerce, strength: StrengthStrong},
		{source: "n.json nopCommerce meta generator nopCommerce", html: `<meta name="generator" content="nopCommerce" />`, platform: PlatformNopCommerce, strength: StrengthStrong},
		{source: "n.json nopCommerce html <!--Powered by nopCommerce", html: `<!--Powered by nopCommerce - https://www.nopCommerce.com-->`, platform: PlatformNopCommerce, strength: StrengthStrong},

		// Volusion.
		{source: "v.json Volusion dom link[href*='/vspfiles/']", html: `<link rel="stylesheet" href="/vspfiles/templates/211/css/template.css">`, platform: PlatformVolusion, strength: StrengthStrong},
		{source: "v.json Volusion dom body[data-vn-page-name]", html: `</head><body data-vn-page-name="Home">`, platform: PlatformVolusion, strength: StrengthStrong},

		// Shift4Shop (3dcart).
		{source: "s.json Shift4Shop cookies 3dvisit", header: hdr("Set-Cookie", "3dvisit=1; path=/"), platform: PlatformShift4Shop, strength: StrengthStrong},
		{source: "s.json Shift4Shop headers X-Powered-By 3DCART", header: hdr("X-Powered-By", "3DCART"), platform: PlatformShift4Shop, strength: StrengthStrong},
		{source: "s.json Shift4Shop js _3d_cart.subtotal", html: `<script>var _3d_cart = {subtotal: 0};</script>`, platform: PlatformShift4Shop, strength: StrengthStrong},

		// Square Online / Weebly.
		{source: "w.json Weebly scriptSrc cdn\\d+.editmysite.com", html: `<script src="https://cdn2.editmysite.com/js/site/main.js?buildTime=1700000000"></script>`, platform: PlatformSquareOnline, strength: StrengthStrong},
		{source: "w.json Weebly js _W.configDomain", html: `<script>_W.configDomain = "www.weebly.com";</script>`, platform: PlatformSquareOnline, strength: StrengthStrong},
		{source: "s.json Square Online js APP_ORIGIN square.online (weak)", html: `<script>window.APP_ORIGIN = "https://acme.square.online";</script>`, platform: PlatformSquareOnline, strength: StrengthWeak},

		// Ecwid.
		{source: "e.json Ecwid scriptSrc app.ecwid.com/script.js", html: `<script data-cfasync="false" src="https://app.ecwid.com/script.js?1003&data_platform=code"></script>`, platform: PlatformEcwid, strength: StrengthStrong},

		// commercetools.
		{source: "c.json commercetools js COMMERCE_TOOLS_PROJECT_KEY_ATT", html: `<script>window.COMMERCE_TOOLS_PROJECT_KEY_ATT = "acme-prod";</script>`, platform: PlatformCommercetools, strength: StrengthStrong},
		{source: "c.json commercetools scripts .commercetools.com (weak)", html: `<link rel="preconnect" href="https://api.europe-west1.gcp.commercetools.com/">`, platform: PlatformCommercetools, strength: StrengthWeak},

		// WooCommerce without pretty permalinks: the REST root alone is weak.
		{source: "WordPress rest_output_link_header, plain permalinks (weak)", header: hdr("Link", `<https://shop.example/index.php?rest_route=/>; rel="https://api.w.org/"`), platform: PlatformWooCommerce, strength: StrengthWeak},

		// Negatives: prose naming platforms signs nothing.
		{source: "a blog post naming the newer platforms names none", html: `<p>We tried EverShop, Vendure, OpenCart, Saleor, Medusa, Sylius, nopCommerce, Volusion, Shift4Shop, Weebly, Ecwid and commercetools.</p>`, platform: PlatformCustom, strength: StrengthNone},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			u, _ := url.Parse("https://shop.example/")
			got := DetectPlatform(NewPage(u, 200, tt.header, []byte("<html><head>"+tt.html+"</head><body></body></html>")))
			if got.Name != tt.platform || got.Strength != tt.strength {
				t.Errorf("got %s (%s), signals %+v; want %s (%s)", got.Name, got.Strength, got.Signals, tt.platform, tt.strength)
			}
		})
	}
}
