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
