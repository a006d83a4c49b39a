package detect

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/text/currency"
	"golang.org/x/text/language"
)

// The market a store sells to, from what the store itself declares. Three
// kinds of declaration are read, each from its own source:
//
//   - currencies: the priceCurrency of a Product JSON-LD offer, the
//     og:price:currency or product:price:currency meta tag, the currency a
//     catalog answer quotes (the WooCommerce Store API's currency_code),
//     and Shopify's Shopify.currency.active, in that order of strength;
//   - countries: a JSON-LD offer's shippingDetails destination
//     (shippingDestination.addressCountry, unless that OfferShippingDetails
//     says doesNotShip), then the addressCountry of a JSON-LD address (the
//     store's Organization or shop);
//   - locales with a region: the hreflang of the page's own alternate link,
//     og:locale, then <html lang>.
//
// UCP business profiles (2026-08-25) have no field for markets, so no
// profile is read for it.
//
// DecideMarket turns them into one ISO 3166-1 alpha-2 country, or none.

// Sources of market declarations, in order of strength within their kind.
const (
	MarketJSONLDCurrency   = "jsonld_price_currency"
	MarketMetaCurrency     = "meta_price_currency"
	MarketCatalogCurrency  = "catalog_currency"
	MarketShopifyCurrency  = "shopify_currency"
	MarketShipping         = "shipping_destination"
	MarketAddress          = "address_country"
	MarketHreflang         = "hreflang"
	MarketOGLocale         = "og_locale"
	MarketHTMLLang         = "html_lang"
	maxMarketDeclarations  = 32 // per kind and page
	maxShopifyCurrencyScan = 1 << 20
)

var marketRank = map[string]int{
	MarketJSONLDCurrency: 0, MarketMetaCurrency: 1, MarketCatalogCurrency: 2, MarketShopifyCurrency: 3,
	MarketShipping: 0, MarketAddress: 1,
	MarketHreflang: 0, MarketOGLocale: 1, MarketHTMLLang: 2,
}

// Declared is one declaration: where it was read and its value, an ISO 4217
// currency code or an ISO 3166-1 alpha-2 country code, upper case.
type Declared struct {
	Source string `json:"source"`
	Value  string `json:"value"`
}

// MarketSignals are the market declarations of one or more pages.
type MarketSignals struct {
	Currencies []Declared `json:"currencies"`
	Countries  []Declared `json:"countries"`
	Locales    []Declared `json:"locales"`
}

// AddCurrency appends a currency declaration (any case); a value that is not an
// ISO 4217 code is dropped.
func (s *MarketSignals) AddCurrency(source, code string) {
	code = strings.ToUpper(strings.TrimSpace(code))
	if len(code) != 3 {
		return
	}
	if _, err := currency.ParseISO(code); err != nil {
		return
	}
	s.Currencies = addDeclared(s.Currencies, Declared{source, code})
}

// Merge appends t's declarations to s's.
func (s *MarketSignals) Merge(t MarketSignals) {
	for _, d := range t.Currencies {
		s.Currencies = addDeclared(s.Currencies, d)
	}
	for _, d := range t.Countries {
		s.Countries = addDeclared(s.Countries, d)
	}
	for _, d := range t.Locales {
		s.Locales = addDeclared(s.Locales, d)
	}
}

func addDeclared(list []Declared, d Declared) []Declared {
	if d.Value == "" || slices.Contains(list, d) || len(list) >= 3*maxMarketDeclarations {
		return list
	}
	return append(list, d)
}

// Market is the decision: the country the store sells to and why.
type Market struct {
	// Country is an ISO 3166-1 alpha-2 code; "" when the declarations do
	// not settle one.
	Country string `json:"country"`
	// Basis names the rule that decided (see DecideMarket); "" with no
	// country.
	Basis string `json:"basis"`
	// Currency is the currency the decision read, "" when none was usable.
	Currency string `json:"currency"`
}

// Bases of a market decision.
const (
	BasisCurrencyAndCountry = "currency_and_country" // a declared country that uses the quoted currency
	BasisCurrencyAndLocale  = "currency_and_locale"  // a locale region that uses the quoted currency
	BasisCurrency           = "currency"             // the one country whose currency it is
	BasisCountry            = "country"              // no usable currency; the declared countries agree
)

// DecideMarket applies the rule, in this order:
//
//  1. The quoted currency is the strongest declaration whose code is a
//     country's currency. With one:
//     a. the first declared country (shipping destination, then address)
//     that uses it: currency_and_country;
//     b. else the first locale region (hreflang, og:locale, <html lang>)
//     that uses it: currency_and_locale;
//     c. else, when a country is declared but none uses the currency, no
//     market: the store contradicts itself;
//     d. else the currency's own country, when the ISO 4217 code names one
//     that uses it (USD is the US's, GBP the UK's; EUR names none):
//     currency;
//     e. else none (a currency shared by several countries, such as EUR,
//     and no region among them).
//  2. Without a usable currency: the declared countries, when they all
//     name one (country); else none. Locales alone never decide: they name
//     a language's region, and site builders write it by default
//     (WordPress renders lang="en-US" and og:locale en_US unless a site
//     filters them; guydumais' gist "Change Locale Dynamically in
//     WordPress" rewrites both to en-CA for a Canadian site).
func DecideMarket(s MarketSignals) Market {
	byRank := func(list []Declared) []Declared {
		out := slices.Clone(list)
		slices.SortStableFunc(out, func(a, b Declared) int { return marketRank[a.Source] - marketRank[b.Source] })
		return out
	}
	curs, countries, locales := byRank(s.Currencies), byRank(s.Countries), byRank(s.Locales)
	for _, c := range curs {
		users := currencyCountries()[c.Value]
		if len(users) == 0 {
			continue
		}
		m := Market{Currency: c.Value}
		for _, d := range countries {
			if slices.Contains(users, d.Value) {
				m.Country, m.Basis = d.Value, BasisCurrencyAndCountry
				return m
			}
		}
		for _, d := range locales {
			if slices.Contains(users, d.Value) {
				m.Country, m.Basis = d.Value, BasisCurrencyAndLocale
				return m
			}
		}
		if len(countries) > 0 {
			return m
		}
		if own := c.Value[:2]; slices.Contains(users, own) {
			m.Country, m.Basis = own, BasisCurrency
		}
		return m
	}
	if one := single(countries); one != "" {
		return Market{Country: one, Basis: BasisCountry}
	}
	return Market{}
}

// single returns the value every declaration shares, or "".
func single(list []Declared) string {
	if len(list) == 0 {
		return ""
	}
	for _, d := range list[1:] {
		if d.Value != list[0].Value {
			return ""
		}
	}
	return list[0].Value
}

var (
	usersOnce sync.Once
	users     map[string][]string
)

// currencyCountries maps an ISO 4217 code to the countries whose tender it
// is (CLDR data of golang.org/x/text), in code order.
func currencyCountries() map[string][]string {
	usersOnce.Do(func() {
		users = map[string][]string{}
		for a := 'A'; a <= 'Z'; a++ {
			for b := 'A'; b <= 'Z'; b++ {
				code := string([]rune{a, b})
				if c := countryCode(code); c == code {
					if u, ok := currency.FromRegion(language.MustParseRegion(code)); ok {
						users[u.String()] = append(users[u.String()], code)
					}
				}
			}
		}
	})
	return users
}

// countryNames are country names stores write in addressCountry instead of
// a code, in English and in their own language, lower case.
var countryNames = map[string]string{
	"united states": "US", "united states of america": "US", "u.s.": "US", "u.s.a.": "US", "america": "US",
	"united kingdom": "GB", "great britain": "GB", "england": "GB", "scotland": "GB", "wales": "GB",
	"canada": "CA", "australia": "AU", "new zealand": "NZ", "ireland": "IE", "éire": "IE",
	"germany": "DE", "deutschland": "DE", "france": "FR", "spain": "ES", "españa": "ES", "espana": "ES",
	"italy": "IT", "italia": "IT", "netherlands": "NL", "nederland": "NL", "the netherlands": "NL",
	"belgium": "BE", "belgië": "BE", "belgique": "BE", "austria": "AT", "österreich": "AT",
	"switzerland": "CH", "schweiz": "CH", "suisse": "CH", "svizzera": "CH", "portugal": "PT",
	"sweden": "SE", "sverige": "SE", "norway": "NO", "norge": "NO", "denmark": "DK", "danmark": "DK",
	"finland": "FI", "suomi": "FI", "poland": "PL", "polska": "PL", "japan": "JP", "日本": "JP",
	"mexico": "MX", "méxico": "MX", "brazil": "BR", "brasil": "BR", "india": "IN", "china": "CN",
	"singapore": "SG", "hong kong": "HK", "south africa": "ZA",
}

// countryCode reads an ISO 3166-1 alpha-2 or alpha-3 code (UK counts as
// GB) or a common country name, and returns the alpha-2 code of a country
// that exists today, or "".
func countryCode(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return ""
	}
	if c, ok := countryNames[strings.ToLower(s)]; ok {
		return c
	}
	if len(s) != 2 && len(s) != 3 {
		return ""
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return ""
		}
	}
	r, err := language.ParseRegion(s)
	if err != nil {
		return ""
	}
	r = r.Canonicalize()
	if !r.IsCountry() {
		return ""
	}
	if _, ok := currency.FromRegion(r); !ok {
		return "" // not a country today (a withdrawn code) or an uninhabited one
	}
	return r.String()
}

// pseudoLocales are og:locale values Facebook uses that are not a language
// in a country: es_LA is Spanish for Latin America, not Laos; ar_AR is
// Arabic, not Argentina. (Facebook's locale list; ogfixer.com, "og:locale
// and hreflang", 2026, shows es_LA as Spanish (Latin America).)
var pseudoLocales = map[string]bool{"es-la": true, "ar-ar": true, "en-ud": true, "en-pi": true}

// localeRegion returns the country of a BCP 47 tag (en-US, zh-Hant-TW) or
// an og:locale (en_US), when the tag names one explicitly; else "".
func localeRegion(tag string) string {
	tag = strings.ReplaceAll(strings.TrimSpace(tag), "_", "-")
	if tag == "" || len(tag) > 35 || pseudoLocales[strings.ToLower(tag)] || strings.HasPrefix(strings.ToLower(tag), "fb-") {
		return ""
	}
	t, err := language.Parse(tag)
	if err != nil {
		return ""
	}
	r, conf := t.Region()
	if conf != language.Exact {
		return ""
	}
	return countryCode(r.String())
}

// shopifyCurrency matches Shopify's storefront globals:
// Shopify.currency = {"active":"USD","rate":"1.0"};
var shopifyCurrency = regexp.MustCompile(`Shopify\.currency\s*=\s*\{[^{}]{0,200}?"active"\s*:\s*"([A-Za-z]{3})"`)

// ReadMarketSignals reads a page's market declarations: the head's html
// lang, meta and link tags, the JSON-LD blocks and Shopify's inline
// currency global.
func ReadMarketSignals(p *Page) MarketSignals {
	var s MarketSignals
	readHeadMarket(p, &s)
	for _, sc := range p.doc.scripts {
		switch {
		case isJSONLDType(sc.typ):
			if !bytes.Contains(sc.text, []byte("Currency")) && !bytes.Contains(sc.text, []byte("addressCountry")) {
				continue // nothing to read here; spare the parse
			}
			vals, _ := decodeLenient(sc.text)
			budget := maxWalkNodes
			for _, v := range vals {
				walkMarket(v, "", false, 0, &budget, &s)
			}
		case sc.typ == "" || strings.Contains(sc.typ, "javascript"):
			text := sc.text[:min(len(sc.text), maxShopifyCurrencyScan)]
			if m := shopifyCurrency.FindSubmatch(text); m != nil {
				s.AddCurrency(MarketShopifyCurrency, string(m[1]))
			}
		}
	}
	return s
}

// walkMarket collects priceCurrency, shipping destinations and address
// countries from a decoded JSON-LD value. key is the property holding v;
// ship is set under a shippingDestination.
func walkMarket(v any, key string, ship bool, depth int, budget *int, s *MarketSignals) {
	if depth > maxWalkDepth || *budget <= 0 {
		return
	}
	*budget--
	switch x := v.(type) {
	case map[string]any:
		if d, ok := x["doesNotShip"]; ok && (d == true || d == "true" || d == "True") {
			return // destinations it does not ship to
		}
		for _, k := range sortedKeys(x) {
			val := x[k]
			switch k {
			case "priceCurrency":
				if len(s.Currencies) < maxMarketDeclarations {
					s.AddCurrency(MarketJSONLDCurrency, str(val, 16))
				}
			case "addressCountry":
				src := MarketAddress
				if ship {
					src = MarketShipping
				} else if key != "address" {
					continue // a country of something else (areaServed, an origin)
				}
				for _, c := range asList(val) {
					name := str(c, 64)
					if m, ok := c.(map[string]any); ok { // a Country node
						name = firstNonEmpty(str(m["identifier"], 64), str(m["name"], 64))
					}
					if code := countryCode(name); code != "" && len(s.Countries) < maxMarketDeclarations {
						s.Countries = addDeclared(s.Countries, Declared{src, code})
					}
				}
			case "shippingOrigin", "areaServed", "eligibleRegion", "ineligibleRegion":
				// not where the store sells
			default:
				walkMarket(val, k, ship || k == "shippingDestination", depth+1, budget, s)
			}
		}
	case []any:
		for _, y := range x {
			walkMarket(y, key, ship, depth+1, budget, s)
		}
	}
}

// readHeadMarket reads <html lang>, og:locale, og:price:currency and
// product:price:currency, and the hreflang of the alternate link to the
// page itself, from the page's head. It stops at <body>.
func readHeadMarket(p *Page, s *MarketSignals) {
	z := html.NewTokenizer(bytes.NewReader(p.Body))
	var htmlLang string
scan:
	for n := 0; n < maxTokenPerPage; n++ {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		switch string(name) {
		case "body":
			break scan
		case "html":
			if htmlLang == "" {
				htmlLang = readAttrs(z, hasAttr, "lang")[0]
			}
		case "meta":
			a := readAttrs(z, hasAttr, "property", "name", "content")
			prop := strings.ToLower(strings.TrimSpace(firstNonEmpty(a[0], a[1])))
			switch prop {
			case "og:locale":
				if c := localeRegion(a[2]); c != "" {
					s.Locales = addDeclared(s.Locales, Declared{MarketOGLocale, c})
				}
			case "og:price:currency", "product:price:currency":
				s.AddCurrency(MarketMetaCurrency, a[2])
			}
		case "link":
			a := readAttrs(z, hasAttr, "rel", "hreflang", "href")
			if !slices.Contains(strings.Fields(strings.ToLower(a[0])), "alternate") || a[1] == "" {
				continue
			}
			if u := resolve(p.URL, a[2]); u != nil && p.URL != nil && samePage(u.Host, u.Path, p.URL.Host, p.URL.Path) {
				if c := localeRegion(a[1]); c != "" {
					s.Locales = addDeclared(s.Locales, Declared{MarketHreflang, c})
				}
			}
		}
	}
	if c := localeRegion(htmlLang); c != "" {
		s.Locales = addDeclared(s.Locales, Declared{MarketHTMLLang, c})
	}
}

// samePage compares hosts (case-insensitively) and paths, a trailing slash
// aside.
func samePage(h1, p1, h2, p2 string) bool {
	norm := func(p string) string {
		if p == "" {
			return "/"
		}
		return strings.TrimSuffix(p, "/") + "/"
	}
	return strings.EqualFold(h1, h2) && norm(p1) == norm(p2)
}
