package detect

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func marketPage(t *testing.T, rawURL, body string) *Page {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return NewPage(u, 200, nil, []byte(body))
}

// spanishStore is the JSON-LD a Spanish Magento storefront renders
// (xturavaina/svelte-commerce-fork, src/lib/components/json-ld.svelte):
// an Organization whose address names the country "España", and a Product
// whose offer carries shippingDetails copied from Google's example, with
// the destination "US". CURRENCY stands for its base_currency_code.
const spanishStore = `<html><head>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","url":"https://tienda.example/",
 "name":"Tienda","contactPoint":[{"@type":"ContactPoint","telephone":"+34 935 659 000","contactType":"sales"}],
 "address":{"addressCountry":"España"}}</script>
<script type="application/ld+json">{"@context":"https://schema.org/","@type":"Product","sku":"X1","name":"Trinket",
 "offers":{"@type":"Offer","url":"https://tienda.example/x1","availability":"https://schema.org/InStock","price":"12.00",
  CURRENCY
  "shippingDetails":{"@type":"OfferShippingDetails","shippingRate":{"@type":"MonetaryAmount","value":3.49,"currency":"EUR"},
   "shippingDestination":{"@type":"DefinedRegion","addressCountry":"US"}}}}</script>
</head><body></body></html>`

// wordpressDefaults is a WordPress head as core and an SEO plugin render
// it for a site left at the default locale: lang="en-US" and og:locale
// en_US (guydumais' gist "Change Locale Dynamically in WordPress" filters
// both to en-CA for a Canadian site, which is the second variant).
const wordpressDefaults = `<!DOCTYPE html><html lang="LANG"><head>
<meta property="og:locale" content="OGLOCALE" />
<meta property="og:type" content="website" />
<meta property="product:price:currency" content="PRICECUR" />
</head><body><p>Shop</p></body></html>`

func fill(s string, kv ...string) string {
	return strings.NewReplacer(kv...).Replace(s)
}

func TestDecideMarket(t *testing.T) {
	for _, tt := range []struct {
		name    string
		pageURL string
		html    string
		catalog string // a catalog answer's currency
		want    Market
	}{
		// The address decides within the euro area; the shipping
		// destination copied from Google's sample does not use the euro.
		{"spanish store, EUR", "https://tienda.example/x1", fill(spanishStore, "CURRENCY", `"priceCurrency":"EUR",`), "",
			Market{Country: "ES", Basis: BasisCurrencyAndCountry, Currency: "EUR"}},
		{"spanish store priced in USD", "https://tienda.example/x1", fill(spanishStore, "CURRENCY", `"priceCurrency":"USD",`), "",
			Market{Country: "US", Basis: BasisCurrencyAndCountry, Currency: "USD"}},
		// Without a currency the two declared countries disagree.
		{"spanish store, no currency", "https://tienda.example/x1", fill(spanishStore, "CURRENCY", ""), "",
			Market{}},
		// WordPress defaults on a Canadian store: the currency decides, the
		// en-US defaults do not override it.
		{"wordpress defaults, CAD", "https://maple.example/", fill(wordpressDefaults, "LANG", "en-US", "OGLOCALE", "en_US", "PRICECUR", "CAD"), "",
			Market{Country: "CA", Basis: BasisCurrency, Currency: "CAD"}},
		{"wordpress filtered to en-CA, CAD", "https://maple.example/", fill(wordpressDefaults, "LANG", "en-CA", "OGLOCALE", "en_CA", "PRICECUR", "CAD"), "",
			Market{Country: "CA", Basis: BasisCurrencyAndLocale, Currency: "CAD"}},
		// Locales alone never decide.
		{"wordpress defaults, no currency", "https://maple.example/", fill(wordpressDefaults, "LANG", "en-US", "OGLOCALE", "en_US", "PRICECUR", ""), "",
			Market{}},
		// Facebook's es_LA is Spanish for Latin America, not Laos
		// (ogfixer.com, "og:locale and hreflang", 2026).
		{"og:locale es_LA with LAK prices", "https://tienda.example/", fill(wordpressDefaults, "LANG", "es", "OGLOCALE", "es_LA", "PRICECUR", "LAK"), "",
			Market{Country: "LA", Basis: BasisCurrency, Currency: "LAK"}},
		{"og:locale es_LA with USD", "https://tienda.example/", fill(wordpressDefaults, "LANG", "es", "OGLOCALE", "es_LA", "PRICECUR", "USD"), "",
			Market{Country: "US", Basis: BasisCurrency, Currency: "USD"}},
		// Ecuador's currency is the US dollar (CLDR): a locale narrows it.
		{"USD in Ecuador", "https://tienda.example/", fill(wordpressDefaults, "LANG", "es-EC", "OGLOCALE", "es_EC", "PRICECUR", "USD"), "",
			Market{Country: "EC", Basis: BasisCurrencyAndLocale, Currency: "USD"}},
		// The euro names no country: a region inside the euro area decides,
		// one outside it or none leaves the market unknown.
		{"EUR with de-DE", "https://laden.example/", fill(wordpressDefaults, "LANG", "de-DE", "OGLOCALE", "de_DE", "PRICECUR", "EUR"), "",
			Market{Country: "DE", Basis: BasisCurrencyAndLocale, Currency: "EUR"}},
		{"EUR with en-US defaults", "https://laden.example/", fill(wordpressDefaults, "LANG", "en-US", "OGLOCALE", "en_US", "PRICECUR", "EUR"), "",
			Market{Currency: "EUR"}},
		{"EUR and nothing else", "https://laden.example/", `<html lang="de"><head><meta property="og:price:currency" content="eur"></head></html>`, "",
			Market{Currency: "EUR"}},
		// Shopify's storefront globals, as rendered on pickleand.club
		// (Energy theme 2.0.1): Shopify.currency = {"active":"HKD",...}.
		{"shopify globals", "https://pickleand.club/", `<html lang="en"><head><script>var Shopify = Shopify || {};
Shopify.shop = "h6pafc-61.myshopify.com";
Shopify.locale = "en";
Shopify.currency = {"active":"HKD","rate":"1.0"};
Shopify.country = "HK";</script></head><body></body></html>`, "",
			Market{Country: "HK", Basis: BasisCurrency, Currency: "HKD"}},
		// A WooCommerce Store API answer's currency_code.
		{"catalog currency", "https://shop.example/", `<html lang="en-US"><head></head></html>`, "GBP",
			Market{Country: "GB", Basis: BasisCurrency, Currency: "GBP"}},
		// A store that quotes pounds and declares a US address contradicts
		// itself.
		{"contradiction", "https://shop.example/", `<html><head><script type="application/ld+json">
{"@type":"Store","address":{"@type":"PostalAddress","addressCountry":"US"},
 "makesOffer":{"@type":"Offer","priceCurrency":"GBP"}}</script></head></html>`, "",
			Market{Currency: "GBP"}},
		// A Country node, and an alpha-3 code.
		{"country node", "https://shop.example/", `<html><head><script type="application/ld+json">
{"@type":"Organization","address":{"@type":"PostalAddress","addressCountry":{"@type":"Country","name":"USA"}}}</script></head></html>`, "",
			Market{Country: "US", Basis: BasisCountry}},
		// schema.org OfferShippingDetails: a destination marked
		// doesNotShip is where the store does not ship.
		{"doesNotShip", "https://shop.example/p", `<html><head><script type="application/ld+json">
{"@type":"Product","name":"Lamp","offers":{"@type":"Offer","price":"20","shippingDetails":[
 {"@type":"OfferShippingDetails","shippingDestination":{"@type":"DefinedRegion","addressCountry":"CA"},"doesNotShip":true},
 {"@type":"OfferShippingDetails","shippingDestination":[{"@type":"DefinedRegion","addressCountry":"US"}],
  "shippingOrigin":{"@type":"DefinedRegion","addressCountry":"CN"}}]}}</script></head></html>`, "",
			Market{Country: "US", Basis: BasisCountry}},
		// hreflang counts only on the link to the page itself.
		{"hreflang self", "https://boutique.example/fr/", `<html lang="fr"><head>
<link rel="alternate" hreflang="de-de" href="https://boutique.example/de/">
<link rel="alternate" hreflang="fr-FR" href="/fr">
<link rel="alternate" hreflang="x-default" href="https://boutique.example/">
<meta property="og:price:currency" content="EUR"></head></html>`, "",
			Market{Country: "FR", Basis: BasisCurrencyAndLocale, Currency: "EUR"}},
		{"unknown currency code", "https://shop.example/", `<html><head><meta property="og:price:currency" content="XYZ"></head></html>`, "",
			Market{}},
		{"nothing declared", "https://shop.example/", `<html><head><title>Shop</title></head><body lang="en-GB"></body></html>`, "",
			Market{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := ReadMarketSignals(marketPage(t, tt.pageURL, tt.html))
			if tt.catalog != "" {
				s.AddCurrency(MarketCatalogCurrency, tt.catalog)
			}
			if diff := cmp.Diff(tt.want, DecideMarket(s)); diff != "" {
				t.Errorf("(-want +got):\n%s\nsignals %+v", diff, s)
			}
		})
	}
}

// TestMarketCurrencyOrder: the Product JSON-LD's currency outranks the
// meta tag, the catalog and Shopify's global, wherever each was read.
func TestMarketCurrencyOrder(t *testing.T) {
	var s MarketSignals
	s.AddCurrency(MarketShopifyCurrency, "USD")
	s.AddCurrency(MarketCatalogCurrency, "CAD")
	s.AddCurrency(MarketMetaCurrency, "JPY")
	if got := DecideMarket(s); got.Country != "JP" {
		t.Errorf("meta over catalog and Shopify: %+v", got)
	}
	var p MarketSignals
	p.AddCurrency(MarketJSONLDCurrency, "gbp")
	s.Merge(p)
	if got := DecideMarket(s); got.Country != "GB" || got.Currency != "GBP" {
		t.Errorf("JSON-LD first: %+v", got)
	}
}

func TestCountryCode(t *testing.T) {
	for in, want := range map[string]string{
		"US": "US", "us": "US", "USA": "US", "UK": "GB", "gbr": "GB", "España": "ES", "United States": "US",
		"EU": "", "419": "", "ZZ": "", "": "", "U S": "", "Atlantis": "", "SU": "",
	} {
		if got := countryCode(in); got != want {
			t.Errorf("countryCode(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"en-US": "US", "en_GB": "GB", "zh-Hant-TW": "TW", "en": "", "es-419": "", "es_LA": "", "ar_AR": "", "fb_LT": "", "x-default": "",
	} {
		if got := localeRegion(in); got != want {
			t.Errorf("localeRegion(%q) = %q, want %q", in, got, want)
		}
	}
}
