package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/parquet-go/parquet-go"

	"svc/datasets"
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
func (s *Server) ProductData(ctx context.Context, caller, rawHost string) (*ProductDataAnswer, error) {
	host, err := parseHost(rawHost, "host")
	if err != nil {
		return nil, err
	}
	rl, err := s.readView()
	if err != nil {
		return nil, err
	}
	defer rl.release()
	if err := s.limits.take(caller, 1, quotaSavedReads); err != nil {
		return nil, err
	}
	ans := &ProductDataAnswer{Host: host, ProductData: json.RawMessage("null"), VendorReadiness: json.RawMessage("null"),
		Note: productDataNote, Snapshot: rl.version, License: datasets.License}
	dir, err := rl.lookup(host)
	if err != nil {
		return nil, fmt.Errorf("product data %s: %w", host, err)
	}
	if dir == nil || dir.text(fSource) == "opted-out" {
		if dir == nil {
			ans.ScanURL = s.link("/api/agent-checkout?url=" + url.QueryEscape(host))
			ans.Note = "No saved check of this host: scan_url runs a live check. " + productDataNote
		} else {
			ans.Note = "This store opted out of the directory: its saved data is not shown."
		}
		return ans, nil
	}
	ans.Known = !unknownSources[dir.text(fSource)]
	ans.Policies = &CardPolicies{Returns: dir.boolean(fPolReturns), Shipping: dir.boolean(fPolShipping),
		Privacy: dir.boolean(fPolPrivacy), Terms: dir.boolean(fPolTerms)}
	ans.CheckedAt = dir.time(fCheckedAt)
	if rl.product == nil {
		return nil, fail(ErrUnavailable, "product data (product_data) is not in the published snapshot %s", rl.version)
	}
	at := dir.integer(fProductRow)
	if at == nil {
		return ans, nil // no product_data row for the store
	}
	p := rl.product
	err = p.read(*at, 1, func(row parquet.Row) error {
		ans.ProductURL, ans.Source = p.str(row, "product_url"), p.str(row, "source")
		if d := p.str(row, "product_data"); d != nil && json.Valid([]byte(*d)) {
			ans.ProductData = json.RawMessage(*d)
		}
		if v := p.str(row, "vendor_readiness"); v != nil && json.Valid([]byte(*v)) {
			ans.VendorReadiness = json.RawMessage(*v)
		}
		if t := p.when(row, "checked_at"); t != nil {
			ans.CheckedAt = t
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("product data %s: %w", host, err)
	}
	return ans, nil
}

func (s *Server) productData(w http.ResponseWriter, r *http.Request) error {
	ans, err := s.ProductData(r.Context(), s.caller(r), r.URL.Query().Get("host"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", cacheFiveMinutes)
	return writeJSON(w, http.StatusOK, ans)
}
