package shop

import (
	"strings"
	"testing"
)

// TestReportWriteText: the person's form of a report, as `svc shop` prints
// it without --json, names the outcome, each step with what the protocol
// answered, the refusals and the screenshot's hash, and always ends with
// the run having stopped before payment.
func TestReportWriteText(t *testing.T) {
	r := &Report{Shopper: UCP, Store: "https://shop.test", Outcome: "added_to_cart", Reason: "checkout_not_created", Steps: 2, Seconds: 1.25,
		Log: []Step{
			{N: 1, Action: "read_profile", URL: "https://shop.test/.well-known/ucp", Note: "version 2026-08-25"},
			{N: 2, Action: "create_checkout", Role: "rest", Name: "checkout", Status: 400, RPC: "error -32602", Codes: []string{"version_unsupported"}},
		},
		Refused:    []Refusal{{Host: "pay.example", Code: "payment_host", Count: 3}},
		Screenshot: &Screenshot{SHA256: "ab12", Bytes: 2048},
	}
	var b strings.Builder
	r.WriteText(&b)
	got := b.String()
	for _, want := range []string{
		"store      https://shop.test\n",
		"outcome    added_to_cart (checkout_not_created)\n",
		"steps      2 in 1.2 s\n",
		"   1. read_profile — version 2026-08-25\n      https://shop.test/.well-known/ucp\n",
		`   2. create_checkout rest "checkout" [HTTP 400] [error -32602] [version_unsupported]` + "\n",
		"refused    pay.example payment_host ×3\n",
		"screenshot sha256 ab12 (2048 bytes)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("text report lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(got, "payment    never: the run stopped before payment\n") {
		t.Errorf("text report does not end with the payment line:\n%s", got)
	}
	if strings.Contains(got, "browser ") {
		t.Errorf("a plain-HTTP path's report names a browser:\n%s", got)
	}
}
