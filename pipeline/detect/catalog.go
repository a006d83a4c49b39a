package detect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// ErrNotCatalog means a body is not the catalog JSON it was asked for:
// not JSON at all (often an HTML soft 404), or JSON of another shape.
var ErrNotCatalog = errors.New("not a catalog answer")

// shopifyProducts is the part of Shopify's public /products.json we read.
type shopifyProducts struct {
	Products *[]struct {
		Title    string `json:"title"`
		Handle   string `json:"handle"`
		BodyHTML string `json:"body_html"`
		Vendor   string `json:"vendor"`
		Variants []struct {
			Price     any    `json:"price"`
			Available any    `json:"available"`
			SKU       any    `json:"sku"`
			Barcode   any    `json:"barcode"`
			Title     string `json:"title"`
		} `json:"variants"`
		Images []struct {
			Src string `json:"src"`
		} `json:"images"`
	} `json:"products"`
}

// ParseShopifyProducts reads a Shopify /products.json answer. Product URLs
// are resolved against base (the store URL) when it is not nil, else left as
// "/products/{handle}". The answer carries no currency, so Currency stays
// empty: the completeness summary then says so rather than guess.
//
// An empty list is a valid answer and returns no error; whether it means an
// empty catalog or a throttled one is for DetectThrottle to say.
func ParseShopifyProducts(body []byte, base *url.URL) ([]Product, error) {
	if len(body) > maxCatalogBytes {
		return nil, fmt.Errorf("parse products.json: %d bytes, over the %d limit: %w", len(body), maxCatalogBytes, ErrNotCatalog)
	}
	var doc shopifyProducts
	if err := decodeCatalog(body, &doc, "products"); err != nil {
		return nil, fmt.Errorf("parse products.json: %w", err)
	}
	if doc.Products == nil {
		return nil, fmt.Errorf("parse products.json: no products key: %w", ErrNotCatalog)
	}
	var out []Product
	for _, sp := range *doc.Products {
		if len(out) >= maxProducts*3 { // products.json pages hold up to 250
			break
		}
		p := Product{
			Source:      SourceShopifyJSON,
			Name:        truncateUTF8(strings.TrimSpace(sp.Title), maxFieldBytes),
			Description: truncateUTF8(strings.TrimSpace(sp.BodyHTML), maxDescription),
			Brand:       truncateUTF8(strings.TrimSpace(sp.Vendor), maxFieldBytes),
			Variants:    len(sp.Variants),
		}
		if h := strings.TrimSpace(sp.Handle); h != "" {
			p.URL = "/products/" + url.PathEscape(h)
			if base != nil {
				if u := resolve(base, p.URL); u != nil {
					p.URL = u.String()
				}
			}
		}
		for _, im := range sp.Images {
			if s := strings.TrimSpace(im.Src); s != "" && len(p.Images) < maxImages {
				p.Images = append(p.Images, truncateUTF8(s, maxAttrBytes))
			}
		}
		for _, v := range sp.Variants {
			if p.SKU == "" {
				p.SKU = str(v.SKU, maxFieldBytes)
			}
			if p.GTIN == "" {
				p.GTIN = str(v.Barcode, 64)
			}
			o := Offer{Price: parsePrice(v.Price)}
			switch v.Available {
			case true, "true":
				o.Availability = "InStock"
			case false, "false":
				o.Availability = "OutOfStock"
			}
			if len(p.Offers) < maxOffers {
				p.Offers = append(p.Offers, o)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// wooProduct is the part of a WooCommerce Store API product we read.
type wooProduct struct {
	ID               any    `json:"id"`
	Name             string `json:"name"`
	Permalink        string `json:"permalink"`
	SKU              string `json:"sku"`
	Description      string `json:"description"`
	ShortDescription string `json:"short_description"`
	Prices           *struct {
		Price             any    `json:"price"`
		CurrencyCode      string `json:"currency_code"`
		CurrencyMinorUnit any    `json:"currency_minor_unit"`
		PriceRange        *struct {
			MinAmount any `json:"min_amount"`
			MaxAmount any `json:"max_amount"`
		} `json:"price_range"`
	} `json:"prices"`
	Images []struct {
		Src string `json:"src"`
	} `json:"images"`
	IsInStock any `json:"is_in_stock"`
	Brands    []struct {
		Name string `json:"name"`
	} `json:"brands"`
	Variations []json.RawMessage `json:"variations"`
}

// ParseWooProducts reads a WooCommerce Store API product list
// (/wp-json/wc/store/v1/products or the older /wp-json/wc/store/products).
// Prices there are integers in minor units: "1999" with currency_minor_unit
// 2 is 19.99. A variable product whose price is 0 is read from its
// price_range minimum.
func ParseWooProducts(body []byte) ([]Product, error) {
	if len(body) > maxCatalogBytes {
		return nil, fmt.Errorf("parse store api products: %d bytes, over the %d limit: %w", len(body), maxCatalogBytes, ErrNotCatalog)
	}
	var list []wooProduct
	if err := decodeCatalog(body, &list); err != nil {
		return nil, fmt.Errorf("parse store api products: %w", err)
	}
	var out []Product
	for _, w := range list {
		if len(out) >= maxProducts {
			break
		}
		if w.ID == nil && w.Name == "" && w.Prices == nil {
			return nil, fmt.Errorf("parse store api products: items are not products: %w", ErrNotCatalog)
		}
		p := Product{
			Source:      SourceWooStoreAPI,
			Name:        truncateUTF8(strings.TrimSpace(w.Name), maxFieldBytes),
			Description: truncateUTF8(strings.TrimSpace(firstNonEmpty(w.ShortDescription, w.Description)), maxDescription),
			URL:         truncateUTF8(strings.TrimSpace(w.Permalink), maxAttrBytes),
			SKU:         truncateUTF8(strings.TrimSpace(w.SKU), maxFieldBytes),
			Variants:    len(w.Variations),
		}
		for _, b := range w.Brands {
			if p.Brand = strings.TrimSpace(b.Name); p.Brand != "" {
				break
			}
		}
		for _, im := range w.Images {
			if s := strings.TrimSpace(im.Src); s != "" && len(p.Images) < maxImages {
				p.Images = append(p.Images, truncateUTF8(s, maxAttrBytes))
			}
		}
		var o Offer
		if pr := w.Prices; pr != nil {
			unit := 2 // the Store API default, and most currencies'
			if n, err := strconv.Atoi(str(pr.CurrencyMinorUnit, 8)); err == nil {
				unit = n
			}
			o.Price = minorUnits(str(pr.Price, 32), unit)
			if o.Price == "" && pr.PriceRange != nil {
				o.Price = minorUnits(str(pr.PriceRange.MinAmount, 32), unit)
				o.HighPrice = minorUnits(str(pr.PriceRange.MaxAmount, 32), unit)
			}
			o.Currency = strings.ToUpper(truncateUTF8(strings.TrimSpace(pr.CurrencyCode), 16))
		}
		switch w.IsInStock {
		case true, "true":
			o.Availability = "InStock"
		case false, "false":
			o.Availability = "OutOfStock"
		}
		if o != (Offer{}) {
			p.Offers = []Offer{o}
		}
		out = append(out, p)
	}
	return out, nil
}

// decodeCatalog decodes a catalog body into v after checking it is JSON,
// so that an HTML page answering 200 reports ErrNotCatalog, not a syntax
// error deep in the decoder.
//
// shapeFields name the fields whose type defines the shape (Shopify's
// "products"); a wrong type there is an error.
func decodeCatalog(body []byte, v any, shapeFields ...string) error {
	b := bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
	if len(b) == 0 {
		return fmt.Errorf("empty body: %w", ErrNotCatalog)
	}
	if b[0] == '<' {
		return fmt.Errorf("body is HTML: %w", ErrNotCatalog)
	}
	if !json.Valid(b) {
		return fmt.Errorf("body is not valid JSON: %w", ErrNotCatalog)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		// A wrong type deep inside one product (an image src given as a
		// number) should not throw away the catalog: the decoder has filled
		// everything else. A wrong type at the top is another shape.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" && !slices.Contains(shapeFields, te.Field) {
			return nil
		}
		return fmt.Errorf("unexpected JSON shape: %v: %w", shortErr(err), ErrNotCatalog)
	}
	return nil
}

// shortErr keeps decoder messages short: they can quote input.
func shortErr(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "field " + strconv.Quote(truncateUTF8(te.Field, 64)) + " is a JSON " + te.Value
	}
	return truncateUTF8(err.Error(), 120)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
