package detect

import (
	"strings"
	"unicode/utf8"
)

// Where a Product came from.
const (
	SourceJSONLD      = "json-ld"
	SourceShopifyJSON = "shopify-products-json"
	SourceWooStoreAPI = "woocommerce-store-api"
	// SourceVendureShopAPI is Vendure's Shop API (GraphQL, /shop-api).
	SourceVendureShopAPI = "vendure-shop-api"
	// SourceEverShopGraphQL is EverShop's storefront GraphQL (/api/graphql).
	SourceEverShopGraphQL = "evershop-graphql"
)

// Product is one product as an agent would read it, whatever the source.
// Empty strings mean the source did not give the field (or gave it in a form
// we could not read, such as a price of 0).
type Product struct {
	// Source is SourceJSONLD, SourceShopifyJSON, SourceWooStoreAPI,
	// SourceVendureShopAPI or SourceEverShopGraphQL.
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
