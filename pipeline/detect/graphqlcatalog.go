package detect

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// The public GraphQL catalogs of headless stores: Vendure's Shop API and
// EverShop's storefront /api/graphql. Both answer a POST of a query with
// {"data": ...}, or {"errors": [...]} for a query they refuse.

// VendureProductsQuery is the Shop API query the check sends to a Vendure
// store: the first page of products, each with its variants' prices. It
// uses only fields of the core Shop API schema
// (packages/core/src/api/schema/shop-api/shop.api.graphql Query.products,
// common/product.type.graphql Product and ProductVariant), present since
// Vendure 1.0.
const VendureProductsQuery = `{products(options:{take:10}){totalItems items{name slug featuredAsset{preview} variants{sku priceWithTax currencyCode stockLevel}}}}`

// vendureMoneyPrecision is DefaultMoneyStrategy.precision (Vendure 2+,
// config/entity/default-money-strategy.ts; the fixed behaviour of 1.x):
// Money is an integer in hundredths of the currency unit, whatever the
// currency.
const vendureMoneyPrecision = 2

type vendureAnswer struct {
	Data *struct {
		Products *struct {
			Items *[]struct {
				Name          string `json:"name"`
				Slug          string `json:"slug"`
				FeaturedAsset *struct {
					Preview string `json:"preview"`
				} `json:"featuredAsset"`
				Variants []struct {
					SKU          any    `json:"sku"`
					PriceWithTax any    `json:"priceWithTax"`
					CurrencyCode string `json:"currencyCode"`
					StockLevel   any    `json:"stockLevel"`
				} `json:"variants"`
			} `json:"items"`
		} `json:"products"`
	} `json:"data"`
}

// ParseVendureProducts reads a Vendure Shop API answer to
// VendureProductsQuery. Each product has one offer per variant (its
// priceWithTax, an integer in minor units: 155880 is 1558.80) and no URL:
// the Shop API names a product by its slug, and where the storefront shows
// it is the storefront's choice. slugs[i] is the slug of products[i].
//
// An answer with errors and no products (a query the server refused, an
// unknown field) is ErrNotCatalog; an empty list is a valid answer.
func ParseVendureProducts(body []byte) (products []Product, slugs []string, err error) {
	if len(body) > maxCatalogBytes {
		return nil, nil, fmt.Errorf("parse vendure shop api products: %d bytes, over the %d limit: %w", len(body), maxCatalogBytes, ErrNotCatalog)
	}
	var doc vendureAnswer
	if err := decodeCatalog(body, &doc, "data", "data.products", "data.products.items"); err != nil {
		return nil, nil, fmt.Errorf("parse vendure shop api products: %w", err)
	}
	if doc.Data == nil || doc.Data.Products == nil || doc.Data.Products.Items == nil {
		return nil, nil, fmt.Errorf("parse vendure shop api products: no data.products.items: %w", ErrNotCatalog)
	}
	for _, vp := range *doc.Data.Products.Items {
		if len(products) >= maxProducts {
			break
		}
		if vp.Name == "" && vp.Slug == "" && vp.Variants == nil {
			return nil, nil, fmt.Errorf("parse vendure shop api products: items are not products: %w", ErrNotCatalog)
		}
		p := Product{
			Source:   SourceVendureShopAPI,
			Name:     truncateUTF8(strings.TrimSpace(vp.Name), maxFieldBytes),
			Variants: len(vp.Variants),
		}
		if a := vp.FeaturedAsset; a != nil && strings.TrimSpace(a.Preview) != "" {
			p.Images = []string{truncateUTF8(strings.TrimSpace(a.Preview), maxAttrBytes)}
		}
		for _, v := range vp.Variants {
			if p.SKU == "" {
				p.SKU = str(v.SKU, maxFieldBytes)
			}
			o := Offer{
				Price:        minorUnits(str(v.PriceWithTax, 32), vendureMoneyPrecision),
				Currency:     strings.ToUpper(truncateUTF8(strings.TrimSpace(v.CurrencyCode), 16)),
				Availability: vendureStock(v.StockLevel),
			}
			if len(p.Offers) < maxOffers && o != (Offer{}) {
				p.Offers = append(p.Offers, o)
			}
		}
		products = append(products, p)
		slugs = append(slugs, truncateUTF8(strings.TrimSpace(vp.Slug), maxFieldBytes))
	}
	return products, slugs, nil
}

// vendureStock reads ProductVariant.stockLevel: IN_STOCK, LOW_STOCK or
// OUT_OF_STOCK from DefaultStockDisplayStrategy
// (config/catalog/default-stock-display-strategy.ts), or the saleable
// count from a strategy that shows numbers.
func vendureStock(v any) string {
	s := strings.ToUpper(str(v, 32))
	switch s {
	case "IN_STOCK", "LOW_STOCK":
		return "InStock"
	case "OUT_OF_STOCK":
		return "OutOfStock"
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n > 0 {
			return "InStock"
		}
		return "OutOfStock"
	}
	return ""
}

// EverShopProductsQuery is the storefront GraphQL query the check sends to
// an EverShop store at /api/graphql: ten products with their price,
// stock, image and page URL (EverShop 2.x modules/catalog/graphql/types/
// Product/Product.graphql Query.products, Price/ProductPrice.graphql,
// Inventory/Inventory.graphql, Image/Image.graphql; the limit filter is
// the one its own widgets send).
const EverShopProductsQuery = `{products(filters:[{key:"limit",operation:eq,value:"10"}]){total items{name sku url price{regular{value currency}} inventory{isInStock} image{url}}}}`

type everShopAnswer struct {
	Data *struct {
		Products *struct {
			Items *[]struct {
				Name  string `json:"name"`
				SKU   any    `json:"sku"`
				URL   string `json:"url"`
				Price *struct {
					Regular *struct {
						Value    any    `json:"value"`
						Currency string `json:"currency"`
					} `json:"regular"`
				} `json:"price"`
				Inventory *struct {
					IsInStock any `json:"isInStock"`
				} `json:"inventory"`
				Image *struct {
					URL string `json:"url"`
				} `json:"image"`
			} `json:"items"`
		} `json:"products"`
	} `json:"data"`
}

// ParseEverShopProducts reads an EverShop /api/graphql answer to
// EverShopProductsQuery. Prices there are decimals in the store currency
// (Price.value is a Float). Product URLs (the store's url_rewrite paths)
// are resolved against base when it is not nil.
func ParseEverShopProducts(body []byte, base *url.URL) ([]Product, error) {
	if len(body) > maxCatalogBytes {
		return nil, fmt.Errorf("parse evershop graphql products: %d bytes, over the %d limit: %w", len(body), maxCatalogBytes, ErrNotCatalog)
	}
	var doc everShopAnswer
	if err := decodeCatalog(body, &doc, "data", "data.products", "data.products.items"); err != nil {
		return nil, fmt.Errorf("parse evershop graphql products: %w", err)
	}
	if doc.Data == nil || doc.Data.Products == nil || doc.Data.Products.Items == nil {
		return nil, fmt.Errorf("parse evershop graphql products: no data.products.items: %w", ErrNotCatalog)
	}
	var out []Product
	for _, ep := range *doc.Data.Products.Items {
		if len(out) >= maxProducts {
			break
		}
		// EverShop 2.2.1 checks a query against nothing before running it
		// (graphqlMiddleware calls validateSchema, not validate): a query
		// naming fields its Product lacks answers 200 with empty items.
		if ep.Name == "" && ep.SKU == nil && ep.URL == "" && ep.Price == nil {
			return nil, fmt.Errorf("parse evershop graphql products: items are not products: %w", ErrNotCatalog)
		}
		p := Product{
			Source: SourceEverShopGraphQL,
			Name:   truncateUTF8(strings.TrimSpace(ep.Name), maxFieldBytes),
			SKU:    str(ep.SKU, maxFieldBytes),
			URL:    truncateUTF8(strings.TrimSpace(ep.URL), maxAttrBytes),
		}
		if p.URL != "" && base != nil {
			if u := resolve(base, p.URL); u != nil {
				p.URL = u.String()
			}
		}
		if im := ep.Image; im != nil && strings.TrimSpace(im.URL) != "" {
			p.Images = []string{truncateUTF8(strings.TrimSpace(im.URL), maxAttrBytes)}
		}
		var o Offer
		if pr := ep.Price; pr != nil && pr.Regular != nil {
			o.Currency = strings.ToUpper(truncateUTF8(strings.TrimSpace(pr.Regular.Currency), 16))
			o.Price = parsePriceIn(pr.Regular.Value, o.Currency)
		}
		if inv := ep.Inventory; inv != nil {
			switch inv.IsInStock {
			case true:
				o.Availability = "InStock"
			case false:
				o.Availability = "OutOfStock"
			}
		}
		if o != (Offer{}) {
			p.Offers = []Offer{o}
		}
		out = append(out, p)
	}
	return out, nil
}

// SlugLinks maps each slug to the first same-site link of the page whose
// last path segment is that slug (/product/laptop for "laptop"), so a
// catalog that names products by slug is matched to the pages the site
// itself links; a slug the page links nowhere is left out. Nothing about
// the storefront's routes is assumed.
func SlugLinks(p *Page, slugs []string) map[string]string {
	if p == nil || p.URL == nil || len(slugs) == 0 {
		return nil
	}
	want := map[string]bool{}
	for _, s := range slugs {
		if s != "" {
			want[s] = true
		}
	}
	pageHost := strings.ToLower(p.URL.Hostname())
	site := RegistrableDomain(pageHost)
	out := map[string]string{}
	for _, a := range p.doc.anchors {
		u := resolve(p.doc.base, a.href)
		if u == nil || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		if h := strings.ToLower(u.Hostname()); h != pageHost && (site == "" || RegistrableDomain(h) != site) {
			continue
		}
		path := strings.TrimSuffix(u.EscapedPath(), "/")
		last := path[strings.LastIndexByte(path, '/')+1:]
		if seg, err := url.PathUnescape(last); err == nil {
			last = seg
		}
		if !want[last] || out[last] != "" {
			continue
		}
		u.Fragment = ""
		out[last] = u.String()
	}
	return out
}
