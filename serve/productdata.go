package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"svc/datasets"
	"svc/serve/readlayer"
)

// ProductDataAnswer is GET /api/agent-checkout/product-data (spec 2.7):
// the product data the saved check read (Product JSON-LD of a product
// page, or the public products.json when the page had none), the vendor
// readiness read from it, the policy pages, when it was read and from
// which page. No request goes to the store. A host with no saved row
// answers known false with every field null.
type ProductDataAnswer struct {
	Host            string          `json:"host"`
	Known           bool            `json:"known"`
	ProductData     json.RawMessage `json:"productData"`
	Source          *string         `json:"source"`
	VendorReadiness json.RawMessage `json:"vendorReadiness"`
	Policies        *CardPolicies   `json:"policies"`
	CheckedAt       *time.Time      `json:"checkedAt"`
	ProductURL      *string         `json:"productUrl"`
	Note            string          `json:"note"`
	ScanURL         string          `json:"scan_url,omitempty"`
	Snapshot        string          `json:"snapshot"`
	License         string          `json:"license"`
}

const productDataNote = "Read from saved public evidence of the weekly check; no request was made to the store. " +
	"productData comes from Product JSON-LD on a product page, or the public products.json when the page has none. " +
	"vendorReadiness is a search-vendor agentic-checkout readiness read from that data: it is not vendor approval, and " +
	"merchant feed eligibility cannot be checked from outside. A null field was not measured."

// ProductData answers GET /api/agent-checkout/product-data and the
// product_data_check and vendor_checkout_readiness tools.
func (s *Server) ProductData(ctx context.Context, caller string, q ProductDataParams) (*ProductDataAnswer, error) {
	host, err := parseHost(q.Host, "host")
	if err != nil {
		return nil, err
	}
	rl, dir, err := s.hostView(caller, host, "product data", quotaSavedReads)
	if err != nil {
		return nil, err
	}
	defer rl.Release()
	ans := &ProductDataAnswer{Host: host, ProductData: json.RawMessage("null"), VendorReadiness: json.RawMessage("null"),
		Note: productDataNote, Snapshot: rl.Version(), License: datasets.License}
	if dir == nil || dir.Text(readlayer.FSource) == "opted-out" {
		if dir == nil {
			ans.ScanURL = s.link("/api/agent-checkout?url=" + url.QueryEscape(host))
			ans.Note = "No saved check of this host: scan_url runs a live check. " + productDataNote
		} else {
			ans.Note = "This store opted out of the directory: its saved data is not shown."
		}
		return ans, nil
	}
	ans.Known = !unknownSources[dir.Text(readlayer.FSource)]
	ans.Policies = &CardPolicies{Returns: dir.Bool(readlayer.FPolReturns), Shipping: dir.Bool(readlayer.FPolShipping),
		Privacy: dir.Bool(readlayer.FPolPrivacy), Terms: dir.Bool(readlayer.FPolTerms)}
	ans.CheckedAt = dir.Time(readlayer.FCheckedAt)
	if !rl.Serves(readlayer.ReadProductData) {
		return nil, fail(ErrUnavailable, "product data (product_data) is not in the published snapshot %s", rl.Version())
	}
	p, err := rl.Product(dir)
	if err != nil {
		return nil, fmt.Errorf("product data %s: %w", host, err)
	}
	if p == nil {
		return ans, nil // no product_data row for the store
	}
	ans.ProductURL, ans.Source = p.ProductURL, p.Source
	if d := p.ProductData; d != nil && json.Valid([]byte(*d)) {
		ans.ProductData = json.RawMessage(*d)
	}
	if v := p.VendorReadiness; v != nil && json.Valid([]byte(*v)) {
		ans.VendorReadiness = json.RawMessage(*v)
	}
	if p.CheckedAt != nil {
		ans.CheckedAt = p.CheckedAt
	}
	return ans, nil
}

func (s *Server) productData(w http.ResponseWriter, r *http.Request) error {
	return serveRead(s, w, r, decodeProductData, s.ProductData, cacheFiveMinutes)
}
