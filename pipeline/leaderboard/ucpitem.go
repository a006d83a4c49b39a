// The item the UCP path asks a checkout for: from a catalog answer, from
// the store's public JSON catalog (/products.json, then the WooCommerce
// Store API) when the profile declares no catalog capability, or from the
// Product JSON-LD of the product pages its homepage links to.

package leaderboard

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"svc/pipeline/detect"
	"svc/pipeline/steplog"
)

// itemFromCatalog takes the first available variant of a catalog answer
// (catalog search.md: products[].variants[] with id and availability).
func itemFromCatalog(body map[string]any) string {
	products, _ := body["products"].([]any)
	first := ""
	for _, p := range products {
		pm, _ := p.(map[string]any)
		variants, _ := pm["variants"].([]any)
		for _, v := range variants {
			vm, _ := v.(map[string]any)
			id, _ := vm["id"].(string)
			if id == "" {
				continue
			}
			if first == "" {
				first = id
			}
			av, _ := vm["availability"].(map[string]any)
			if ok, _ := av["available"].(bool); ok {
				return id
			}
		}
	}
	return first
}

// publicCatalogItem finds an item id in the store's public JSON catalog
// when the profile declares no catalog capability: /products.json, then
// the WooCommerce Store API. The id is a variant's SKU (else its id).
func (r *ucpRun) publicCatalogItem(ctx context.Context, origin string) string {
	for _, path := range []string{"/products.json", "/wp-json/wc/store/v1/products", "/wp-json/wc/store/products"} {
		resp, err := r.client.Get(ctx, origin+path)
		step := steplog.Step{Action: "public_catalog", URL: origin + path}
		if err != nil {
			step.Note = "no answer"
			r.add(step)
			continue
		}
		step.Status = resp.StatusCode
		item := ""
		if resp.StatusCode == http.StatusOK {
			item = itemFromPublicCatalog(resp.Body)
		}
		if item == "" {
			step.Note = "no product"
			r.add(step)
			continue
		}
		step.Note = "product found"
		r.add(step)
		return item
	}
	return ""
}

// maxStorefrontPages bounds the product pages storefrontItem reads.
const maxStorefrontPages = 4

// storefrontItem finds an item id as a shopper would, on the storefront:
// the product pages the homepage links to, and the Product JSON-LD they
// carry. The id is the first in-stock product's sku; currency is its
// offer's. A homepage that does not answer gives "".
func (r *ucpRun) storefrontItem(ctx context.Context, origin string) (item, currency string) {
	resp, err := r.client.Get(ctx, origin+"/")
	step := steplog.Step{Action: "storefront_home", URL: origin + "/"}
	if err != nil {
		step.Note = "no answer"
		r.add(step)
		return "", ""
	}
	step.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		r.add(step)
		return "", ""
	}
	links := detect.ProductLinks(detect.NewPage(resp.URL, resp.StatusCode, resp.Header, resp.Body))
	step.Note = strconv.Itoa(len(links)) + " product links"
	r.add(step)
	for i, l := range links {
		if i >= maxStorefrontPages {
			break
		}
		resp, err := r.client.Get(ctx, l)
		step := steplog.Step{Action: "product_page", URL: steplog.RedactURL(l)}
		if err != nil {
			step.Note = "no answer"
			r.add(step)
			continue
		}
		step.Status = resp.StatusCode
		if resp.StatusCode == http.StatusOK {
			ld := detect.ExtractJSONLD(detect.NewPage(resp.URL, resp.StatusCode, resp.Header, resp.Body))
			for _, p := range ld.Products {
				if p.SKU == "" || !inStock(p) {
					continue
				}
				step.Note = "Product JSON-LD with a sku"
				r.add(step)
				for _, o := range p.Offers {
					if o.Currency != "" {
						return p.SKU, o.Currency
					}
				}
				return p.SKU, ""
			}
		}
		step.Note = "no in-stock Product JSON-LD with a sku"
		r.add(step)
	}
	return "", ""
}

// inStock reports whether a product's offers do not all say it cannot be
// bought.
func inStock(p detect.Product) bool {
	if len(p.Offers) == 0 {
		return true
	}
	for _, o := range p.Offers {
		switch o.Availability {
		case "OutOfStock", "SoldOut", "Discontinued":
		default:
			return true
		}
	}
	return false
}

func itemFromPublicCatalog(b []byte) string {
	type variant struct {
		ID        json.Number `json:"id"`
		SKU       string      `json:"sku"`
		Available *bool       `json:"available"`
	}
	var shop struct {
		Products []struct {
			Variants []variant `json:"variants"`
		} `json:"products"`
	}
	pick := func(vs []variant) string {
		for _, v := range vs {
			if v.Available != nil && !*v.Available {
				continue
			}
			if v.SKU != "" {
				return v.SKU
			}
			if v.ID != "" {
				return v.ID.String()
			}
		}
		return ""
	}
	if json.Unmarshal(b, &shop) == nil && len(shop.Products) > 0 {
		for _, p := range shop.Products {
			if id := pick(p.Variants); id != "" {
				return id
			}
		}
		return ""
	}
	var woo []variant
	if json.Unmarshal(b, &woo) == nil {
		return pick(woo)
	}
	return ""
}
