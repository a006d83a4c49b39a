package detect

import (
	"errors"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseShopifyProducts(t *testing.T) {
	base, _ := url.Parse("https://shop.example/")
	tests := []struct {
		name    string
		body    string
		want    []Product
		wantErr bool
	}{
		{
			name: "two products",
			body: `{"products":[
				{"id":1,"title":"Trail Shoe","handle":"trail-shoe","body_html":"<p>Shoe</p>","vendor":"Acme",
				 "variants":[{"id":11,"title":"41","price":"89.90","available":true,"sku":"TS-41"},{"id":12,"title":"42","price":"89.90","available":false,"sku":"TS-42"}],
				 "images":[{"src":"https://cdn.shopify.com/s/1.jpg"}]},
				{"id":2,"title":"Gift Card","handle":"gift card","variants":[{"price":"0.00","available":true,"sku":null}],"images":[]}]}`,
			want: []Product{
				{
					Source: SourceShopifyJSON, Name: "Trail Shoe", Description: "<p>Shoe</p>", Brand: "Acme", URL: "https://shop.example/products/trail-shoe",
					Images: []string{"https://cdn.shopify.com/s/1.jpg"}, SKU: "TS-41", Variants: 2,
					Offers: []Offer{{Price: "89.90", Availability: "InStock"}, {Price: "89.90", Availability: "OutOfStock"}},
				},
				{
					Source: SourceShopifyJSON, Name: "Gift Card", URL: "https://shop.example/products/gift%20card", Variants: 1,
					Offers: []Offer{{Availability: "InStock"}},
				},
			},
		},
		{name: "empty list is an answer", body: `{"products":[]}`, want: nil},
		{
			name: "a wrong type deep inside is tolerated",
			body: `{"products":[{"title":"A","handle":"a","images":[{"src":12}],"variants":[{"price":{"amount":"1"},"available":"yes","sku":"s"}]}]}`,
			want: []Product{{Source: SourceShopifyJSON, Name: "A", URL: "https://shop.example/products/a", SKU: "s", Variants: 1, Offers: []Offer{{}}}},
		},
		{name: "HTML soft 404", body: "<!doctype html><html><body>Not here</body></html>", wantErr: true},
		{name: "other JSON", body: `{"error":"not found"}`, wantErr: true},
		{name: "wrong shape", body: `{"products":{"a":1}}`, wantErr: true},
		{name: "truncated JSON", body: `{"products":[{"title":"x"`, wantErr: true},
		{name: "empty body", body: ``, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseShopifyProducts([]byte(tt.body), base)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrNotCatalog) {
				t.Errorf("err = %v, want ErrNotCatalog", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseShopifyProducts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseShopifyProductsNoBase(t *testing.T) {
	got, err := ParseShopifyProducts([]byte(`{"products":[{"title":"A","handle":"a"}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].URL != "/products/a" {
		t.Errorf("URL = %q, want /products/a", got[0].URL)
	}
}

func TestParseWooProducts(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    []Product
		wantErr bool
	}{
		{
			name: "simple and variable products",
			body: `[
				{"id":10,"name":"Mug","permalink":"https://shop.example/product/mug/","sku":"MUG-1","short_description":"<p>A mug</p>",
				 "prices":{"price":"1250","regular_price":"1250","currency_code":"EUR","currency_minor_unit":2},
				 "images":[{"id":1,"src":"https://shop.example/mug.jpg"}],"is_in_stock":true,"is_purchasable":true},
				{"id":11,"name":"Tee","permalink":"https://shop.example/product/tee/","sku":"",
				 "prices":{"price":"0","currency_code":"JPY","currency_minor_unit":0,"price_range":{"min_amount":"1500","max_amount":"2500"}},
				 "images":[],"is_in_stock":false,"variations":[{"id":12},{"id":13}]}]`,
			want: []Product{
				{
					Source: SourceWooStoreAPI, Name: "Mug", Description: "<p>A mug</p>", URL: "https://shop.example/product/mug/", SKU: "MUG-1",
					Images: []string{"https://shop.example/mug.jpg"}, Offers: []Offer{{Price: "12.50", Currency: "EUR", Availability: "InStock"}},
				},
				{
					Source: SourceWooStoreAPI, Name: "Tee", URL: "https://shop.example/product/tee/", Variants: 2,
					Offers: []Offer{{Price: "1500", HighPrice: "2500", Currency: "JPY", Availability: "OutOfStock"}},
				},
			},
		},
		{
			name: "minor unit defaults to 2",
			body: `[{"id":1,"name":"X","prices":{"price":"999","currency_code":"usd"}}]`,
			want: []Product{{Source: SourceWooStoreAPI, Name: "X", Offers: []Offer{{Price: "9.99", Currency: "USD"}}}},
		},
		{name: "empty list", body: `[]`, want: nil},
		{
			name: "minor unit as a string",
			body: `[{"id":1,"name":"X","prices":{"price":"999","currency_code":"KWD","currency_minor_unit":"3"}}]`,
			want: []Product{{Source: SourceWooStoreAPI, Name: "X", Offers: []Offer{{Price: "0.999", Currency: "KWD"}}}},
		},
		{name: "list of numbers", body: `[1,2]`, wantErr: true},
		{name: "not products", body: `[{}]`, wantErr: true},
		{name: "object not list", body: `{"code":"rest_no_route"}`, wantErr: true},
		{name: "html", body: `<html></html>`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseWooProducts([]byte(tt.body))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseWooProducts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
