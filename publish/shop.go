package publish

import "time"

// The browser shoppers' evidence (issue 20, item 5): per store, what each
// of the service's browser shoppers did and saw in the run of the
// snapshot, published beside the data:
//
//	data/shop/stores/<host>.json   ShopEvidence: outcomes, step logs
//	data/shop/screens/<sha256>.jpg each run's last page, named by content
//
// No checkout address is ever in either: a step's URL has no query or
// fragment, and on a checkout page only the origin with the words
// "(checkout page: address withheld)".
const (
	ShopEvidenceDir = "data/shop/stores"
	ShopScreensDir  = "data/shop/screens"
)

// ShopEvidencePath is the published path of a store's evidence.
func ShopEvidencePath(host string) string { return ShopEvidenceDir + "/" + host + ".json" }

// ShopScreenshotPath is the published path of a screenshot by its sha256.
func ShopScreenshotPath(sha string) string { return ShopScreensDir + "/" + sha + ".jpg" }

// ShopEvidence is one store's evidence file.
type ShopEvidence struct {
	Host     string  `json:"host"`
	Svc100ID *string `json:"svc100Id"`
	RunID    string  `json:"runId"`
	Note     string  `json:"note"`
	// StoppedBeforePayment is always true: no shopper pays or orders.
	StoppedBeforePayment bool          `json:"stoppedBeforePayment"`
	Shoppers             []ShopperSeen `json:"shoppers"`
}

// ShopperSeen is one shopper's run on the store.
type ShopperSeen struct {
	Shopper string     `json:"shopper"` // A … E
	Label   string     `json:"label"`
	Outcome string     `json:"outcome"`
	Reason  string     `json:"reason"`
	At      time.Time  `json:"at"`
	Seconds float64    `json:"seconds"`
	Steps   int        `json:"steps"`
	Log     []ShopStep `json:"log"`
	// Screenshot is the last page; nil when none was taken.
	Screenshot *ShopScreenshot `json:"screenshot"`
	Browser    string          `json:"browser,omitempty"`
	Model      string          `json:"model,omitempty"`
	// CheckoutWebMCP is what the shopper saw of WebMCP at the checkout
	// page it reached; null when it reached none (not measured).
	CheckoutWebMCP *ShopCheckoutWebMCP `json:"checkoutWebmcp"`
}

// ShopCheckoutWebMCP is the WebMCP tools a checkout page offered: their
// names only.
type ShopCheckoutWebMCP struct {
	Detected bool     `json:"detected"`
	Tools    []string `json:"tools"`
}

// ShopStep is one action of a run, as the shopper recorded it.
type ShopStep struct {
	N      int    `json:"n"`
	Action string `json:"action"`
	Role   string `json:"role,omitempty"`
	Name   string `json:"name,omitempty"`
	Title  string `json:"title,omitempty"`
	URL    string `json:"url,omitempty"`
	Note   string `json:"note,omitempty"`
}

// ShopScreenshot names a published screenshot.
type ShopScreenshot struct {
	Path   string `json:"path"` // under public/: data/shop/screens/<sha256>.jpg
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}
