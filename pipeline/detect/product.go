package detect

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Where a Product came from.
const (
	SourceJSONLD      = "json-ld"
	SourceShopifyJSON = "shopify-products-json"
	SourceWooStoreAPI = "woocommerce-store-api"
)

// Product is one product as an agent would read it, whatever the source.
// Empty strings mean the source did not give the field (or gave it in a form
// we could not read, such as a price of 0).
type Product struct {
	// Source is SourceJSONLD, SourceShopifyJSON or SourceWooStoreAPI.
	Source string `json:"source"`
	// Type is the schema.org type (Product, ProductGroup,
	// IndividualProduct); empty for catalog JSON.
	Type        string   `json:"type,omitempty"`
	Name        string   `json:"name,omitempty"`
	Description string   `json:"description,omitempty"`
	URL         string   `json:"url,omitempty"`
	Images      []string `json:"images,omitempty"`
	SKU         string   `json:"sku,omitempty"`
	// GTIN is the first of gtin, gtin14, gtin13, gtin12, gtin8 (or a
	// variant barcode) that is present.
	GTIN   string  `json:"gtin,omitempty"`
	MPN    string  `json:"mpn,omitempty"`
	Brand  string  `json:"brand,omitempty"`
	Offers []Offer `json:"offers,omitempty"`
	// Variants counts the variants folded into this product (ProductGroup
	// hasVariant, catalog variants).
	Variants int `json:"variants,omitempty"`
}

// Offer is one price offer.
type Offer struct {
	// Price is a decimal string greater than zero ("19.99"); empty when the
	// source gave none, zero, a negative or an unreadable price. For an
	// AggregateOffer without a price it is the lowPrice.
	Price string `json:"price,omitempty"`
	// HighPrice is set for an AggregateOffer.
	HighPrice string `json:"highPrice,omitempty"`
	// Currency is the ISO 4217 code as given, upper-cased.
	Currency string `json:"currency,omitempty"`
	// Availability is the short schema.org name: InStock, OutOfStock...
	Availability    string `json:"availability,omitempty"`
	PriceValidUntil string `json:"priceValidUntil,omitempty"`
	// ItemCondition is the short schema.org name: NewCondition...
	ItemCondition string `json:"itemCondition,omitempty"`
	// Aggregate marks an AggregateOffer.
	Aggregate bool `json:"aggregate,omitempty"`
}

// Completeness says which of the fields an agent needs to buy a product are
// present. A product is complete when all six are.
type Completeness struct {
	Name         bool `json:"name"`
	Price        bool `json:"price"`
	Currency     bool `json:"currency"`
	Availability bool `json:"availability"`
	GTINOrSKU    bool `json:"gtinOrSku"`
	Image        bool `json:"image"`
	// Missing names the absent fields in the order above, with the JSON
	// names used here.
	Missing []string `json:"missing,omitempty"`
}

// Complete reports whether nothing is missing.
func (c Completeness) Complete() bool { return len(c.Missing) == 0 }

// Count is the number of fields present, out of six.
func (c Completeness) Count() int { return 6 - len(c.Missing) }

// Completeness summarises p. Price, currency and availability count when
// any offer has them, because a product with several variants usually
// prices each.
func (p Product) Completeness() Completeness {
	var c Completeness
	c.Name = p.Name != ""
	for _, o := range p.Offers {
		c.Price = c.Price || o.Price != ""
		c.Currency = c.Currency || o.Currency != ""
		c.Availability = c.Availability || o.Availability != ""
	}
	c.GTINOrSKU = p.GTIN != "" || p.SKU != ""
	c.Image = len(p.Images) > 0
	for _, f := range []struct {
		ok   bool
		name string
	}{{c.Name, "name"}, {c.Price, "price"}, {c.Currency, "currency"}, {c.Availability, "availability"}, {c.GTINOrSKU, "gtinOrSku"}, {c.Image, "image"}} {
		if !f.ok {
			c.Missing = append(c.Missing, f.name)
		}
	}
	return c
}

// BestProduct returns the product with the most complete data, the first
// one on a tie, so a page listing related products is judged by its main
// product rather than by a sparse carousel entry. ok is false for none.
func BestProduct(ps []Product) (best Product, ok bool) {
	n := -1
	for _, p := range ps {
		if c := p.Completeness().Count(); c > n {
			best, n = p, c
		}
	}
	return best, n >= 0
}

// parsePrice reads a price given as a JSON number or a string and returns
// it as a plain decimal string, or "" unless it is a finite number > 0.
// It accepts what stores write in practice besides the schema.org form:
// a currency symbol or code around the number, thousands separators, and a
// decimal comma ("19,99", "1.299,00").
func parsePrice(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		return positiveNumber(x.String())
	case float64:
		return positiveNumber(strconv.FormatFloat(x, 'f', -1, 64))
	default:
		return ""
	}
	s = strings.TrimSpace(s)
	if len(s) == 0 || len(s) > 64 {
		return ""
	}
	// Keep only digits and separators; a minus sign means a negative price.
	// Text between digits ("1e3", "10 to 20") is not one price.
	var b strings.Builder
	gap := false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			if gap {
				return ""
			}
			b.WriteRune(r)
		case r == '.', r == ',':
			b.WriteRune(r)
		case r == '-':
			return ""
		case r == '\'' || r == '\u00a0' || r == '\u202f' || r == ' ':
			// thousands separators ("1'299", "1 299") only between digits
			if b.Len() == 0 {
				continue
			}
		default:
			if b.Len() > 0 {
				gap = true
			}
		}
	}
	n := b.String()
	if n == "" {
		return ""
	}
	lastDot, lastComma := strings.LastIndexByte(n, '.'), strings.LastIndexByte(n, ',')
	switch {
	case lastDot >= 0 && lastComma >= 0:
		if lastComma > lastDot { // 1.299,00
			n = strings.ReplaceAll(n, ".", "")
			n = strings.Replace(n, ",", ".", 1)
		} else { // 1,299.00
			n = strings.ReplaceAll(n, ",", "")
		}
	case lastComma >= 0:
		// "19,99" is a decimal comma; "1,299" is a thousands separator.
		if strings.Count(n, ",") == 1 && len(n)-lastComma-1 != 3 {
			n = strings.Replace(n, ",", ".", 1)
		} else {
			n = strings.ReplaceAll(n, ",", "")
		}
	case strings.Count(n, ".") > 1: // 1.299.000
		n = strings.ReplaceAll(n, ".", "")
	}
	return positiveNumber(n)
}

// positiveNumber returns n as a plain decimal string if it is a finite
// number greater than zero, else "".
func positiveNumber(n string) string {
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return ""
	}
	if strings.ContainsAny(n, "eE+") {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	// Keep the store's precision ("19.90") but drop noise: a bare trailing
	// point and leading zeros.
	n = strings.TrimSuffix(n, ".")
	if strings.HasPrefix(n, ".") {
		n = "0" + n
	}
	for len(n) > 1 && n[0] == '0' && n[1] != '.' {
		n = n[1:]
	}
	return n
}

// minorUnits turns an integer amount in minor units ("1999") into a decimal
// string ("19.99") without going through floating point. It returns "" for
// anything that is not a positive integer.
func minorUnits(amount string, unit int) string {
	amount = strings.TrimSpace(amount)
	if amount == "" || len(amount) > 30 || unit < 0 || unit > 8 {
		return ""
	}
	for i := 0; i < len(amount); i++ {
		if amount[i] < '0' || amount[i] > '9' {
			return ""
		}
	}
	amount = strings.TrimLeft(amount, "0")
	if amount == "" {
		return "" // zero
	}
	if unit == 0 {
		return amount
	}
	if len(amount) <= unit {
		amount = strings.Repeat("0", unit-len(amount)+1) + amount
	}
	return amount[:len(amount)-unit] + "." + amount[len(amount)-unit:]
}

var availabilityNames = shortNames("InStock", "OutOfStock", "PreOrder", "BackOrder", "Discontinued",
	"InStoreOnly", "LimitedAvailability", "OnlineOnly", "SoldOut", "PreSale", "MadeToOrder", "Reserved")

var conditionNames = shortNames("NewCondition", "UsedCondition", "RefurbishedCondition", "DamagedCondition")

func shortNames(names ...string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[strings.ToLower(n)] = n
	}
	return m
}

// schemaShort reduces "https://schema.org/InStock", "schema:InStock" or
// "instock" to "InStock". Values outside the known list are kept as given
// (after the last '/' or ':'), so evidence is not lost.
func schemaShort(s string, known map[string]string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexAny(s, "/:#"); i >= 0 {
		s = s[i+1:]
	}
	if n, ok := known[strings.ToLower(s)]; ok {
		return n
	}
	return truncateUTF8(s, 64)
}

// truncateUTF8 cuts s to at most n bytes without splitting a rune.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
