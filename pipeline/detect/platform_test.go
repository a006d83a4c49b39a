package detect

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func TestDetectPlatform(t *testing.T) {
	tests := []struct {
		name   string
		header http.Header
		html   string
		want   Platform
	}{
		{
			name:   "shopify by headers and cookies",
			header: hdr("X-ShopId", "123", "Set-Cookie", "_shopify_y=abc; Path=/", "Set-Cookie", "cart_sig=x"),
			want: Platform{Name: PlatformShopify, Strength: StrengthStrong, Signals: []PlatformSignal{
				{Platform: PlatformShopify, Where: "header", Value: "X-ShopId", Strong: true},
				{Platform: PlatformShopify, Where: "cookie", Value: "_shopify_y", Strong: true},
				{Platform: PlatformShopify, Where: "cookie", Value: "cart_sig"},
			}},
		},
		{
			name: "shopify by HTML",
			html: `<script>Shopify.shop = "a.myshopify.com"; Shopify.theme = {}</script><div id="shopify-section-header"></div><img src="//cdn.shopify.com/x.png">`,
			want: Platform{Name: PlatformShopify, Strength: StrengthStrong, Signals: []PlatformSignal{
				{Platform: PlatformShopify, Where: "html", Value: "Shopify.shop", Strong: true},
				{Platform: PlatformShopify, Where: "html", Value: "Shopify.theme", Strong: true},
				{Platform: PlatformShopify, Where: "html", Value: "shopify-section", Strong: true},
				{Platform: PlatformShopify, Where: "html", Value: "cdn.shopify.com"},
			}},
		},
		{
			name: "cdn.shopify.com alone is weak",
			html: `<img src="https://cdn.shopify.com/x.png">`,
			want: Platform{Name: PlatformShopify, Strength: StrengthWeak, Signals: []PlatformSignal{
				{Platform: PlatformShopify, Where: "html", Value: "cdn.shopify.com"},
			}},
		},
		{
			name:   "woocommerce",
			header: hdr("Link", `<https://shop.example/wp-json/>; rel="https://api.w.org/"`),
			html:   `<html><body class="home woocommerce-page woocommerce-js"><link rel="stylesheet" href="/wp-content/plugins/woocommerce/assets/css/x.css"></body></html>`,
			want: Platform{Name: PlatformWooCommerce, Strength: StrengthStrong, Signals: []PlatformSignal{
				{Platform: PlatformWooCommerce, Where: "html", Value: "wp-content/plugins/woocommerce", Strong: true},
				{Platform: PlatformWooCommerce, Where: "html", Value: `<body class="woocommerce-page">`, Strong: true},
				{Platform: PlatformWooCommerce, Where: "header", Value: `Link: …rel="https://api.w.org/"…`},
			}},
		},
		{
			name:   "wordpress link header alone is weak woocommerce",
			header: hdr("Link", `<https://blog.example/wp-json/>; rel="https://api.w.org/"`),
			want: Platform{Name: PlatformWooCommerce, Strength: StrengthWeak, Signals: []PlatformSignal{
				{Platform: PlatformWooCommerce, Where: "header", Value: `Link: …rel="https://api.w.org/"…`},
			}},
		},
		{
			name: "magento",
			html: `<script type="text/x-magento-init">{}</script><script src="/static/mage/cookies.js"></script>`,
			want: Platform{Name: PlatformMagento, Strength: StrengthStrong, Signals: []PlatformSignal{
				{Platform: PlatformMagento, Where: "html", Value: "mage/cookies.js", Strong: true},
				{Platform: PlatformMagento, Where: "html", Value: "text/x-magento-init", Strong: true},
			}},
		},
		{
			name: "bigcommerce is weak only",
			html: `<script src="https://cdn11.bigcommerce.com/s-abc/app.js"></script>`,
			want: Platform{Name: PlatformBigCommerce, Strength: StrengthWeak, Signals: []PlatformSignal{
				{Platform: PlatformBigCommerce, Where: "html", Value: "cdn11.bigcommerce.com"},
				{Platform: PlatformBigCommerce, Where: "html", Value: "bigcommerce"},
			}},
		},
		{
			name: "strong beats more weak",
			html: `<img src="https://cdn.shopify.com/a"><script src="https://cdn11.bigcommerce.com/x"></script><p>BigCommerce</p><body class="woocommerce">`,
			want: Platform{Name: PlatformWooCommerce, Strength: StrengthStrong, Signals: []PlatformSignal{
				{Platform: PlatformShopify, Where: "html", Value: "cdn.shopify.com"},
				{Platform: PlatformWooCommerce, Where: "html", Value: `<body class="woocommerce">`, Strong: true},
				{Platform: PlatformBigCommerce, Where: "html", Value: "cdn11.bigcommerce.com"},
				{Platform: PlatformBigCommerce, Where: "html", Value: "bigcommerce"},
			}},
		},
		{
			name: "custom",
			html: `<html><title>My shop</title><p>We sell things about shopify and magento</p></html>`,
			want: Platform{Name: PlatformCustom, Strength: StrengthNone},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, _ := url.Parse("https://shop.example/")
			got := DetectPlatform(NewPage(u, 200, tt.header, []byte(tt.html)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DetectPlatform mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
