package steplog

import "testing"

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://shop.test/ucp/v1/checkout-sessions", "https://shop.test/ucp/v1/checkout-sessions"},
		{"https://shop.test/ucp/v1/checkout-sessions/chk_ABC-101_9f2c/cancel", "https://shop.test/ucp/v1/checkout-sessions/{id}/cancel"},
		{"https://shop.test/ucp/v1/carts/12345?key=secret#x", "https://shop.test/ucp/v1/carts/{id}"},
		{"https://shop.test/api/ucp/mcp", "https://shop.test/api/ucp/mcp"},
		{"not a url", ""},
	} {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
