package detect

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func htmlPage(t testing.TB, rawURL, body string) *Page {
	t.Helper()
	var u *url.URL
	if rawURL != "" {
		var err error
		if u, err = url.Parse(rawURL); err != nil {
			t.Fatal(err)
		}
	}
	return NewPage(u, 200, nil, []byte(body))
}

func ldPage(blocks ...string) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>P</title>")
	for _, s := range blocks {
		b.WriteString(s)
	}
	b.WriteString("</head><body></body></html>")
	return b.String()
}

func ld(json string) string { return `<script type="application/ld+json">` + json + `</script>` }

func TestExtractJSONLD(t *testing.T) {
	full := Product{
		Source: SourceJSONLD, Type: "Product", Name: "Trail Shoe", Description: "A shoe.",
		Images: []string{"https://shop.example/shoe.jpg"}, SKU: "TS-1", GTIN: "0123456789012", MPN: "M1", Brand: "Acme",
		Offers: []Offer{{Price: "89.90", Currency: "EUR", Availability: "InStock", PriceValidUntil: "2027-01-01", ItemCondition: "NewCondition"}},
	}
	tests := []struct {
		name string
		html string
		want JSONLD
	}{
		{
			name: "top-level product with every field",
			html: ldPage(ld(`{"@context":"https://schema.org","@type":"Product","name":"Trail Shoe","description":"A shoe.",
				"image":"https://shop.example/shoe.jpg","sku":"TS-1","gtin13":"0123456789012","mpn":"M1",
				"brand":{"@type":"Brand","name":"Acme"},
				"offers":{"@type":"Offer","price":"89.90","priceCurrency":"EUR","availability":"https://schema.org/InStock",
				"priceValidUntil":"2027-01-01","itemCondition":"https://schema.org/NewCondition"}}`)),
			want: JSONLD{Blocks: 1, Products: []Product{full}, Types: []string{"Product"}},
		},
		{
			name: "product in @graph, numeric price, short availability, brand string, image array",
			html: ldPage(ld(`{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"S"},
				{"@type":["Product","Thing"],"name":"Mug","brand":"Acme","image":["a.jpg",{"@type":"ImageObject","url":"b.jpg"}],
				"gtin":4006381333931,"offers":[{"@type":"Offer","price":12.5,"priceCurrency":"usd","availability":"InStock"}]}]}`)),
			want: JSONLD{Blocks: 1, Types: []string{"WebSite", "Product", "Thing"}, Products: []Product{{
				Source: SourceJSONLD, Type: "Product", Name: "Mug", Brand: "Acme", Images: []string{"a.jpg", "b.jpg"}, GTIN: "4006381333931",
				Offers: []Offer{{Price: "12.5", Currency: "USD", Availability: "InStock"}},
			}}},
		},
		{
			name: "products in a top-level array",
			html: ldPage(ld(`[{"@type":"Organization","name":"Acme"},{"@type":"IndividualProduct","name":"One-off","offers":{"price":"5","priceCurrency":"GBP"}}]`)),
			want: JSONLD{Blocks: 1, Types: []string{"Organization", "IndividualProduct"}, Products: []Product{{
				Source: SourceJSONLD, Type: "IndividualProduct", Name: "One-off", Offers: []Offer{{Price: "5", Currency: "GBP"}},
			}}},
		},
		{
			name: "aggregate offer uses lowPrice",
			html: ldPage(ld(`{"@type":"Product","name":"Tee","offers":{"@type":"AggregateOffer","lowPrice":"10.00","highPrice":"20.00","priceCurrency":"EUR","offerCount":3}}`)),
			want: JSONLD{Blocks: 1, Types: []string{"Product"}, Products: []Product{{
				Source: SourceJSONLD, Type: "Product", Name: "Tee", Offers: []Offer{{Price: "10.00", HighPrice: "20.00", Currency: "EUR", Aggregate: true}},
			}}},
		},
		{
			name: "zero and negative prices are not prices",
			html: ldPage(ld(`{"@type":"Product","name":"Free","offers":[{"price":"0.00","priceCurrency":"EUR"},{"price":-3,"priceCurrency":"EUR"}]}`)),
			want: JSONLD{Blocks: 1, Types: []string{"Product"}, Products: []Product{{
				Source: SourceJSONLD, Type: "Product", Name: "Free", Offers: []Offer{{Currency: "EUR"}, {Currency: "EUR"}},
			}}},
		},
		{
			name: "price specification",
			html: ldPage(ld(`{"@type":"Product","name":"X","offers":{"@type":"Offer","priceSpecification":{"@type":"UnitPriceSpecification","price":"1.299,00","priceCurrency":"EUR"}}}`)),
			want: JSONLD{Blocks: 1, Types: []string{"Product"}, Products: []Product{{
				Source: SourceJSONLD, Type: "Product", Name: "X", Offers: []Offer{{Price: "1299.00", Currency: "EUR"}},
			}}},
		},
		{
			name: "product group folds in its variants",
			html: ldPage(ld(`{"@type":"ProductGroup","name":"Hoodie","brand":{"name":"Acme"},"hasVariant":[
				{"@type":"Product","sku":"H-S","image":"s.jpg","offers":{"price":"40","priceCurrency":"EUR","availability":"http://schema.org/OutOfStock"}},
				{"@type":"Product","sku":"H-M","offers":{"price":"40","priceCurrency":"EUR","availability":"schema:InStock"}}]}`)),
			want: JSONLD{Blocks: 1, Types: []string{"ProductGroup"}, Products: []Product{{
				Source: SourceJSONLD, Type: "ProductGroup", Name: "Hoodie", Brand: "Acme", SKU: "H-S", Images: []string{"s.jpg"}, Variants: 2,
				Offers: []Offer{{Price: "40", Currency: "EUR", Availability: "OutOfStock"}, {Price: "40", Currency: "EUR", Availability: "InStock"}},
			}}},
		},
		{
			name: "nested in WebPage mainEntity, full schema.org type URL",
			html: ldPage(ld(`{"@type":"WebPage","mainEntity":{"@type":"http://schema.org/Product","name":"Deep"}}`)),
			want: JSONLD{Blocks: 1, Types: []string{"WebPage"}, Products: []Product{{Source: SourceJSONLD, Type: "Product", Name: "Deep"}}},
		},
		{
			name: "comments, CDATA, trailing commas, raw newline in string, type with parameters",
			html: ldPage(`<script type="Application/LD+JSON; charset=utf-8">
				<!--
				//<![CDATA[
				{
				  // the product
				  "@type": "Product", /* inline */
				  "name": "Line
break",
				  "offers": {"price": "3.00", "priceCurrency": "EUR",},
				}
				//]]>
				-->
				</script>`),
			want: JSONLD{Blocks: 1, Types: []string{"Product"}, Products: []Product{{
				Source: SourceJSONLD, Type: "Product", Name: "Line break", Offers: []Offer{{Price: "3.00", Currency: "EUR"}},
			}}},
		},
		{
			name: "one invalid block does not hide another",
			html: ldPage(ld(`{"@type":"Product","name":`), ld(`{"@type":"Product","name":"Good"}`), `<script type="application/json">{"@type":"Product","name":"not ld"}</script>`),
			want: JSONLD{Blocks: 2, Invalid: 1, Types: []string{"Product"}, Products: []Product{{Source: SourceJSONLD, Type: "Product", Name: "Good"}}},
		},
		{
			name: "two values in one block",
			html: ldPage(ld(`{"@type":"Product","name":"A"} {"@type":"Product","name":"B"}`)),
			want: JSONLD{Blocks: 1, Types: []string{"Product"}, Products: []Product{{Source: SourceJSONLD, Type: "Product", Name: "A"}, {Source: SourceJSONLD, Type: "Product", Name: "B"}}},
		},
		{
			name: "no product",
			html: ldPage(ld(`{"@context":"https://schema.org","@type":"Organization","name":"Acme"}`)),
			want: JSONLD{Blocks: 1, Types: []string{"Organization"}},
		},
		{
			name: "empty blocks are no blocks",
			html: ldPage(ld(`   `), ld(``), ld(`null`), ld(`false`), ld(`<!-- -->`), ld(`// nothing yet`)),
			want: JSONLD{},
		},
		{
			name: "an HTML comment beside the JSON does not lose the block",
			html: ldPage(ld(`<!-- generated by a plugin -->
				{"@type":"Product","name":"A","offers":{"price":"5","priceCurrency":"EUR"}}`),
				ld(`{"@type":"Product","name":"B"} <!-- end of product data -->`)),
			want: JSONLD{Blocks: 2, Types: []string{"Product"}, Products: []Product{
				{Source: SourceJSONLD, Type: "Product", Name: "A", Offers: []Offer{{Price: "5", Currency: "EUR"}}},
				{Source: SourceJSONLD, Type: "Product", Name: "B"},
			}},
		},
		{
			name: "HTML comment and CDATA wrappers",
			html: ldPage(ld(`<!-- {"@type":"Product","name":"A"} -->`), ld(`<![CDATA[ {"@type":"Product","name":"B"} ]]>`),
				ld(`/*<![CDATA[*/ {"@type":"Product","name":"C"} /*]]>*/`)),
			want: JSONLD{Blocks: 3, Types: []string{"Product"}, Products: []Product{
				{Source: SourceJSONLD, Type: "Product", Name: "A"}, {Source: SourceJSONLD, Type: "Product", Name: "B"},
				{Source: SourceJSONLD, Type: "Product", Name: "C"},
			}},
		},
		{
			name: "a comment marker inside a string is text",
			html: ldPage(ld(`<!-- note --> {"@type":"Product","name":"<!-- A -->"}`)),
			want: JSONLD{Blocks: 1, Types: []string{"Product"}, Products: []Product{{Source: SourceJSONLD, Type: "Product", Name: "<!-- A -->"}}},
		},
		{
			name: "JSON-LD encoded twice as a JSON string",
			html: ldPage(ld(`"{\"@type\":\"Product\",\"name\":\"A\"}"`)),
			want: JSONLD{Blocks: 1, Types: []string{"Product"}, Products: []Product{{Source: SourceJSONLD, Type: "Product", Name: "A"}}},
		},
		{
			name: "Product subtypes, alone or declared with Product",
			html: ldPage(ld(`[{"@type":["Product","Vehicle"],"name":"Van"},{"@type":"Car","name":"Coupe"},{"@type":"ProductModel","name":"Model"},
				{"@type":"SomeProducts","name":"Bulk"},{"@type":["Vehicle","Product"],"name":"Bus"},{"@type":"ProductCollection","name":"Kit"},
				{"@type":"Organization","name":"Not a product"}]`)),
			want: JSONLD{Blocks: 1, Types: []string{"Product", "Vehicle", "Car", "ProductModel", "SomeProducts", "ProductCollection", "Organization"},
				Products: []Product{
					{Source: SourceJSONLD, Type: "Product", Name: "Van"}, {Source: SourceJSONLD, Type: "Car", Name: "Coupe"},
					{Source: SourceJSONLD, Type: "ProductModel", Name: "Model"}, {Source: SourceJSONLD, Type: "SomeProducts", Name: "Bulk"},
					{Source: SourceJSONLD, Type: "Vehicle", Name: "Bus"}, {Source: SourceJSONLD, Type: "ProductCollection", Name: "Kit"},
				}},
		},
		{
			name: "too deep",
			html: ldPage(ld(strings.Repeat("[", 100) + strings.Repeat("]", 100))),
			want: JSONLD{Blocks: 1, Invalid: 1},
		},
		{
			name: "value objects and language arrays",
			html: ldPage(ld(`{"@type":"Product","name":[{"@value":"Käse","@language":"de"}],"sku":12345,"offers":{"price":"9.99","priceCurrency":"EUR","availability":{"@id":"https://schema.org/PreOrder"}}}`)),
			want: JSONLD{Blocks: 1, Types: []string{"Product"}, Products: []Product{{
				Source: SourceJSONLD, Type: "Product", Name: "Käse", SKU: "12345", Offers: []Offer{{Price: "9.99", Currency: "EUR", Availability: "PreOrder"}},
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExtractJSONLD(htmlPage(t, "https://shop.example/p", tt.html))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ExtractJSONLD mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompleteness(t *testing.T) {
	tests := []struct {
		name string
		p    Product
		want Completeness
	}{
		{
			name: "complete",
			p:    Product{Name: "A", GTIN: "1", Images: []string{"i"}, Offers: []Offer{{Price: "1", Currency: "EUR", Availability: "InStock"}}},
			want: Completeness{Name: true, Price: true, Currency: true, Availability: true, GTINOrSKU: true, Image: true},
		},
		{
			name: "products.json lacks currency",
			p:    Product{Name: "A", SKU: "s", Images: []string{"i"}, Offers: []Offer{{Price: "1", Availability: "InStock"}}},
			want: Completeness{Name: true, Price: true, Availability: true, GTINOrSKU: true, Image: true, Missing: []string{"currency"}},
		},
		{
			name: "fields spread over offers",
			p:    Product{Name: "A", Offers: []Offer{{Price: "1"}, {Currency: "EUR", Availability: "InStock"}}},
			want: Completeness{Name: true, Price: true, Currency: true, Availability: true, Missing: []string{"gtinOrSku", "image"}},
		},
		{
			name: "empty",
			p:    Product{},
			want: Completeness{Missing: []string{"name", "price", "currency", "availability", "gtinOrSku", "image"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.p.Completeness()); diff != "" {
				t.Errorf("Completeness mismatch (-want +got):\n%s", diff)
			}
		})
	}
	best, ok := BestProduct([]Product{{Name: "thin"}, tests[0].p, tests[1].p})
	if !ok || best.GTIN != "1" {
		t.Errorf("BestProduct = %+v, %v; want the complete product", best, ok)
	}
	if _, ok := BestProduct(nil); ok {
		t.Error("BestProduct(nil) ok = true")
	}
}

func TestMinorUnits(t *testing.T) {
	tests := []struct {
		amount string
		unit   int
		want   string
	}{
		{"1999", 2, "19.99"}, {"5", 2, "0.05"}, {"100", 2, "1.00"}, {"1999", 0, "1999"}, {"1999", 3, "1.999"},
		{"0", 2, ""}, {"", 2, ""}, {"-100", 2, ""}, {"12.5", 2, ""}, {"007", 2, "0.07"},
	}
	for _, tt := range tests {
		if got := minorUnits(tt.amount, tt.unit); got != tt.want {
			t.Errorf("minorUnits(%q, %d) = %q, want %q", tt.amount, tt.unit, got, tt.want)
		}
	}
}
