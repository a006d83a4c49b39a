package serve

import (
	"encoding/json"
	"strings"
	"testing"
)

// The Index answer's Checkout WebMCP rail says what the snapshot
// measured at the checkout page (tools and reason), and keeps the
// platform words only for a row without its own reason.
func TestCheckoutRailMeasured(t *testing.T) {
	st, yes, no := "measured", true, false
	reason := "Measured: browser shopper C reached the checkout page on 2026-11-21 and the page offered the WebMCP tools listed."
	r := checkoutRail(CardCheckoutWebMCP{Status: &st, Detected: &yes, Tools: json.RawMessage(`["get_checkout","update_checkout"]`), Reason: &reason})
	if *r.Status != "measured" || !*r.Detected || strings.Join(r.Tools, ",") != "get_checkout,update_checkout" || r.Reason != reason {
		t.Errorf("measured with tools: %+v", r)
	}
	none := "Measured: browser shopper A reached the checkout page on 2026-11-21 and no WebMCP tool was registered or declared there."
	r = checkoutRail(CardCheckoutWebMCP{Status: &st, Detected: &no, Tools: json.RawMessage(`[]`), Reason: &none})
	if *r.Detected || r.Tools == nil || len(r.Tools) != 0 || r.Reason != none {
		t.Errorf("measured without tools: %+v", r)
	}
	inf := "inferred"
	r = checkoutRail(CardCheckoutWebMCP{Status: &inf})
	if r.Detected != nil || len(r.Tools) == 0 || !strings.HasPrefix(r.Reason, "Inferred from the platform") {
		t.Errorf("inferred without a saved reason: %+v", r)
	}
}
