package ucp

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	"svc/pipeline/fetch"
)

// minimal is a business profile that passes the 2026-08-25 schema and
// every rule (the shape of fixtures' minimalProfile).
const minimal = `{"ucp":{"version":"2026-08-25",
 "services":{"dev.ucp.shopping":[{"version":"2026-08-25","spec":"https://ucp.dev/2026-08-25/specification/overview/",
  "transport":"rest","schema":"https://ucp.dev/2026-08-25/services/shopping/rest.openapi.json","endpoint":"https://shop.example/ucp/v1"}]},
 "capabilities":{"dev.ucp.shopping.checkout":[{"version":"2026-08-25","spec":"https://ucp.dev/2026-08-25/specification/checkout/",
  "schema":"https://ucp.dev/2026-08-25/schemas/shopping/checkout.json"}]},
 "payment_handlers":{}}}`

// TestVerdictWithoutSchemas: a validator whose schemas could not be loaded
// calls a profile that breaks no rule unvalidated (neither valid nor
// invalid), still calls a rule-breaking one invalid, and with the schemas
// the same profile is valid: the schema source decides only what needs it.
func TestVerdictWithoutSchemas(t *testing.T) {
	ctx := context.Background()
	none, err := New(ctx, Config{CacheDir: t.TempDir(), Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	httpEndpoint := `{"ucp":{"version":"2026-08-25",
 "services":{"dev.ucp.shopping":[{"version":"2026-08-25","spec":"https://ucp.dev/2026-08-25/specification/overview/",
  "transport":"rest","schema":"https://ucp.dev/2026-08-25/services/shopping/rest.openapi.json","endpoint":"http://shop.example/ucp/v1"}]},
 "capabilities":{},"payment_handlers":{}}}`
	for _, tt := range []struct {
		name, profile, want string
	}{
		{"rules pass", minimal, VerdictUnvalidated},
		{"a rule fails", httpEndpoint, VerdictInvalid},
		{"not JSON", `{"ucp":`, VerdictInvalid},
		{"not an object", `[]`, VerdictInvalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := none.Validate(ctx, []byte(tt.profile))
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Verdict(); got != tt.want {
				t.Errorf("verdict %s, want %s (errors %v, schema %+v)", got, tt.want, r.Errors, r.Schema)
			}
			if r.Valid {
				t.Error("valid without the schemas")
			}
		})
	}
	t.Run("with schemas", func(t *testing.T) {
		r, err := testValidator(t).Validate(ctx, []byte(minimal))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Verdict(); got != VerdictValid {
			t.Errorf("verdict %s, want valid (errors %v)", got, r.Errors)
		}
	})
}

// hangingResolver never answers before its context ends, as a machine
// whose DNS hangs.
type hangingResolver struct{}

func (hangingResolver) LookupNetIP(ctx context.Context, _, host string) ([]netip.Addr, error) {
	<-ctx.Done()
	return nil, &net.DNSError{Err: ctx.Err().Error(), Name: host, IsTimeout: true}
}

// TestLoadSchemas: LoadSchemas says at once whether the official schemas
// can be had, and gives up on a hanging network within its timeout.
func TestLoadSchemas(t *testing.T) {
	ctx := context.Background()
	v, err := New(ctx, Config{CacheDir: t.TempDir(), Client: offlineClient(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.LoadSchemas(ctx, 5*time.Second); err == nil {
		t.Error("loaded schemas with no network and no cache")
	}
	c, err := fetch.New(fetch.Options{Resolver: hangingResolver{}})
	if err != nil {
		t.Fatal(err)
	}
	v, err = New(ctx, Config{CacheDir: t.TempDir(), Client: c})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := v.LoadSchemas(ctx, 300*time.Millisecond); err == nil {
		t.Error("loaded schemas over a hanging network")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("LoadSchemas took %s with a 300ms timeout", d)
	}
}
