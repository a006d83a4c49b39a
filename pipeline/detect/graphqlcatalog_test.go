package detect

import (
	"errors"
	"net/url"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseVendureProducts reads the Shop API answer Vendure 3.7.3 gave the
// lab (testdata/catalog/README.md): 10 products of 54, prices in minor
// units with tax.
func TestParseVendureProducts(t *testing.T) {
	body, err := os.ReadFile("testdata/catalog/vendure-3.7.3-shop-api-products.json")
	if err != nil {
		t.Fatal(err)
	}
	ps, slugs, err := ParseVendureProducts(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 10 || len(slugs) != 10 {
		t.Fatalf("%d products, %d slugs, want 10 each", len(ps), len(slugs))
	}
	want := Product{
		Source: SourceVendureShopAPI, Name: "Laptop", SKU: "L2201308", Variants: 4,
		Images: []string{"https://vendure.test/assets/preview/71/derick-david-409858-unsplash__preview.jpg"},
		Offers: []Offer{
			{Price: "1558.80", Currency: "USD", Availability: "InStock"},
			{Price: "1678.80", Currency: "USD", Availability: "InStock"},
			{Price: "2638.80", Currency: "USD", Availability: "InStock"},
			{Price: "2758.80", Currency: "USD", Availability: "InStock"},
		},
	}
	if diff := cmp.Diff(want, ps[0]); diff != "" {
		t.Errorf("first product (-want +got):\n%s", diff)
	}
	if slugs[0] != "laptop" || slugs[2] != "cordless-mouse" {
		t.Errorf("slugs %v, want laptop first and cordless-mouse third", slugs)
	}
	if c := ps[0].Completeness(); !c.Complete() {
		t.Errorf("first product missing %v", c.Missing)
	}
}

func TestParseVendureProductsShapes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []Product
		wantErr    bool
	}{
		{name: "empty catalog", body: `{"data":{"products":{"totalItems":0,"items":[]}}}`},
		{
			name: "stock strategies",
			body: `{"data":{"products":{"items":[{"name":"Mug","slug":"mug","featuredAsset":null,"variants":[
				{"sku":"M1","priceWithTax":0,"currencyCode":"eur","stockLevel":"OUT_OF_STOCK"},
				{"sku":"M2","priceWithTax":1250,"currencyCode":"EUR","stockLevel":"LOW_STOCK"},
				{"sku":"M3","priceWithTax":5,"currencyCode":"EUR","stockLevel":"7"}]}]}}}`,
			want: []Product{{Source: SourceVendureShopAPI, Name: "Mug", SKU: "M1", Variants: 3, Offers: []Offer{
				{Currency: "EUR", Availability: "OutOfStock"},
				{Price: "12.50", Currency: "EUR", Availability: "InStock"},
				{Price: "0.05", Currency: "EUR", Availability: "InStock"},
			}}},
		},
		// Vendure 3.7.3's answer to a field it lacks (HTTP 400).
		{name: "validation error", wantErr: true, body: `{"errors":[{"message":"Cannot query field \"nope\" on type \"Product\". Did you mean \"name\"?","locations":[{"line":1,"column":35}],"extensions":{"http":{"status":400,"headers":{}},"code":"GRAPHQL_VALIDATION_FAILED"}}]}`},
		{name: "data null", body: `{"data":null,"errors":[{"message":"x"}]}`, wantErr: true},
		{name: "items not products", body: `{"data":{"products":{"items":[{}]}}}`, wantErr: true},
		{name: "items an object", body: `{"data":{"products":{"items":{}}}}`, wantErr: true},
		{name: "html", body: `<!doctype html><html></html>`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := ParseVendureProducts([]byte(tc.body))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrNotCatalog) {
				t.Errorf("err %v is not ErrNotCatalog", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseEverShopProducts reads the /api/graphql answer EverShop 2.2.1
// gave the lab (testdata/catalog/README.md): its seed's images are not
// served offline, so image is null.
func TestParseEverShopProducts(t *testing.T) {
	body, err := os.ReadFile("testdata/catalog/evershop-2.2.1-graphql-products.json")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("https://evershop.test/")
	ps, err := ParseEverShopProducts(body, base)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 10 {
		t.Fatalf("%d products, want 10", len(ps))
	}
	want := Product{
		Source: SourceEverShopGraphQL, Name: "Stainless Steel Thermos - Yellow", SKU: "THERMO-005-YEL",
		URL:    "https://evershop.test/accessories/stainless-steel-thermos-yellow",
		Offers: []Offer{{Price: "35", Currency: "USD", Availability: "InStock"}},
	}
	if diff := cmp.Diff(want, ps[0]); diff != "" {
		t.Errorf("first product (-want +got):\n%s", diff)
	}
}

func TestParseEverShopProductsShapes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []Product
		wantErr    bool
	}{
		{name: "empty catalog", body: `{"data":{"products":{"total":0,"items":[]}}}`},
		{
			name: "decimal price, out of stock, image",
			body: `{"data":{"products":{"items":[{"name":"Tee","sku":"T1","url":"/men/tee","price":{"regular":{"value":19.5,"currency":"EUR"}},"inventory":{"isInStock":false},"image":{"url":"/assets/tee.jpg"}}]}}}`,
			want: []Product{{Source: SourceEverShopGraphQL, Name: "Tee", SKU: "T1", URL: "/men/tee", Images: []string{"/assets/tee.jpg"},
				Offers: []Offer{{Price: "19.5", Currency: "EUR", Availability: "OutOfStock"}}}},
		},
		// EverShop 2.2.1's answer (HTTP 200) to a query naming a field
		// Product lacks: {products{items{nope}}}.
		{name: "unvalidated query", wantErr: true, body: `{"data":{"products":{"items":[{},{},{}]}}}`},
		{name: "no products", body: `{"data":{}}`, wantErr: true},
		{name: "html", body: `<html></html>`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseEverShopProducts([]byte(tc.body), nil)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSlugLinks(t *testing.T) {
	u, _ := url.Parse("https://vendure.test/")
	p := NewPage(u, 200, nil, []byte(`<html><body>
<a href="/product/laptop">Laptop</a><a href="/catalogue/tablet/">Tablet</a><a href="/product/laptop#reviews">again</a>
<a href="https://elsewhere.test/p/cordless-mouse">other site</a><a href="/search?q=gaming-pc">query</a><a href="/collection/electronics">c</a>
</body></html>`))
	got := SlugLinks(p, []string{"laptop", "tablet", "cordless-mouse", "gaming-pc", ""})
	want := map[string]string{"laptop": "https://vendure.test/product/laptop", "tablet": "https://vendure.test/catalogue/tablet/"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
