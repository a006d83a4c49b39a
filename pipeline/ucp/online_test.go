package ucp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/pipeline/fetch"
)

// testProfile is a minimal valid profile served by shop.test.
const testProfile = `{"ucp": {
  "version": "2026-08-25",
  "services": {"dev.ucp.shopping": [{"version": "2026-08-25", "spec": "https://ucp.dev/2026-08-25/specification/overview/",
    "transport": "rest", "schema": "https://ucp.dev/2026-08-25/services/shopping/rest.openapi.json",
    "endpoint": "https://shop.test/ucp/v1"}]},
  "capabilities": {"dev.ucp.shopping.checkout": [{"version": "2026-08-25",
    "spec": "https://ucp.dev/2026-08-25/specification/shopping/checkout",
    "schema": "https://ucp.dev/2026-08-25/schemas/shopping/checkout.json"}]},
  "payment_handlers": {}%s
}}`

func profileWith(extra string) string { return strings.Replace(testProfile, "%s", extra, 1) }

// goodHeaders are the hosting headers a profile should carry.
func goodHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("ETag", `"v1"`)
}

// tlsWorld starts an HTTPS server for *.test with its own CA and returns a
// validator whose safe client reaches it in fixture mode.
func tlsWorld(t *testing.T, h http.Handler, opts fetch.Options) *Validator {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ucp test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	leafKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "shop.test"},
		DNSNames:  []string{"*.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}}}
	ts.StartTLS()
	t.Cleanup(ts.Close)
	opts.FixtureAddr = ts.Listener.Addr().String()
	opts.FixtureCA = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	client, err := fetch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	base := testValidator(t)
	v := &Validator{cfg: Config{Client: client, Resolver: fakeResolver{}}, source: base.source, lookups: true}
	v.set.Store(base.set.Load()) // share the schemas compiled once
	return v
}

// fakeResolver resolves internal.example.com to a private address and
// nothing else, so tests never use the network for DNS.
type fakeResolver struct{}

func (fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if host == "internal.example.com" {
		return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func rules2(items []Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Rule)
	}
	return uniq(out)
}

func TestValidateURL(t *testing.T) {
	mux := http.NewServeMux()
	serve := func(path string, fn http.HandlerFunc) { mux.HandleFunc(path, fn) }
	serve("shop.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		goodHeaders(w)
		w.Write([]byte(profileWith("")))
	})
	serve("moved.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/.well-known/ucp/", http.StatusMovedPermanently)
	})
	serve("moved.test/.well-known/ucp/", func(w http.ResponseWriter, r *http.Request) {
		goodHeaders(w)
		w.Write([]byte(profileWith("")))
	})
	serve("nocache.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(profileWith("")))
	})
	serve("nostore.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		goodHeaders(w)
		w.Header().Set("Cache-Control", "no-store, max-age=600")
		w.Write([]byte(profileWith("")))
	})
	serve("soft404.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><title>Page not found</title>"))
	})
	serve("gone.test/", http.NotFound)
	serve("broken.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "oops", http.StatusInternalServerError)
	})
	serve("leafy.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		goodHeaders(w)
		w.Write([]byte(profileWith(`, "supported_versions": {"2026-04-08": "https://leafy.test/.well-known/ucp/2026-04-08"}`)))
	})
	serve("leafy.test/.well-known/ucp/2026-04-08", func(w http.ResponseWriter, r *http.Request) {
		goodHeaders(w)
		w.Write([]byte(strings.ReplaceAll(profileWith(""), "2026-08-25", "2026-01-23"))) // wrong version
	})
	serve("internal.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		goodHeaders(w)
		w.Write([]byte(strings.Replace(profileWith(""), "https://shop.test/ucp/v1", "https://internal.example.com/ucp/v1", 1)))
	})
	v := tlsWorld(t, mux, fetch.Options{})

	tests := []struct {
		url          string
		wantVerdict  string
		wantErrors   []string
		wantWarnings []string
		wantChecked  bool
		profileURL   string
	}{
		{url: "shop.test", wantVerdict: VerdictValid, wantChecked: true, profileURL: "https://shop.test/.well-known/ucp"},
		{url: "https://shop.test/products/red-shoes?x=1", wantVerdict: VerdictValid, wantChecked: true, profileURL: "https://shop.test/.well-known/ucp"},
		{url: "http://shop.test/", wantVerdict: VerdictValid, wantChecked: true, profileURL: "https://shop.test/.well-known/ucp"},
		{url: "https://shop.test/.well-known/ucp", wantVerdict: VerdictValid, wantChecked: true, profileURL: "https://shop.test/.well-known/ucp"},
		{url: "moved.test", wantVerdict: VerdictInvalid, wantErrors: []string{ruleNoRedirect}, wantChecked: true},
		{url: "nocache.test", wantVerdict: VerdictInvalid, wantErrors: []string{ruleCacheControl}, wantWarnings: []string{ruleValidatorHdr}, wantChecked: true},
		{url: "nostore.test", wantVerdict: VerdictInvalid, wantErrors: []string{ruleCacheControl}, wantChecked: true},
		{url: "soft404.test", wantVerdict: VerdictMissing, wantErrors: []string{ruleJSONObject}},
		{url: "gone.test", wantVerdict: VerdictMissing, wantErrors: []string{ruleStatus}},
		{url: "broken.test", wantVerdict: VerdictUnreachable, wantErrors: []string{ruleStatus}},
		{url: "leafy.test", wantVerdict: VerdictInvalid, wantErrors: []string{ruleSVLeaf}, wantChecked: true},
		{url: "internal.test", wantVerdict: VerdictInvalid, wantErrors: []string{rulePublicHost}, wantChecked: true},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			r, err := v.ValidateURL(context.Background(), tt.url, URLOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Verdict(); got != tt.wantVerdict {
				t.Errorf("verdict = %s, want %s\n%s", got, tt.wantVerdict, mustJSON(r))
			}
			if diff := cmp.Diff(tt.wantErrors, rules2(r.Errors)); diff != "" {
				t.Errorf("errors (-want +got):\n%s\n%s", diff, mustJSON(r))
			}
			if diff := cmp.Diff(tt.wantWarnings, rules2(r.Warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if r.Schema.Checked != tt.wantChecked {
				t.Errorf("schema checked = %v, want %v", r.Schema.Checked, tt.wantChecked)
			}
			if tt.profileURL != "" && r.Source.ProfileURL != tt.profileURL {
				t.Errorf("profile URL = %s, want %s", r.Source.ProfileURL, tt.profileURL)
			}
			if len(r.HTTPChecks) == 0 {
				t.Error("no http checks")
			}
			if r.FetchFailed() {
				t.Error("FetchFailed on an answer")
			}
		})
	}
}

func TestValidateURLFailures(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("slow.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("huge.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		goodHeaders(w)
		w.Write([]byte(`{"ucp": {"version": "2026-08-25", "x": "` + strings.Repeat("a", MaxProfileBytes) + `"}}`))
	})
	mux.HandleFunc("down.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("gone.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		http.NotFound(w, r)
	})
	mux.HandleFunc("loop.test/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
	})
	v := tlsWorld(t, mux, fetch.Options{Timeout: time.Second})
	ctx := context.Background()

	t.Run("timeout", func(t *testing.T) {
		r, err := v.ValidateURL(ctx, "slow.test", URLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// A profile that timed out was not read: no verdict (valid null),
		// never "not a valid profile" (issue 16, item 7).
		if !r.FetchFailed() || r.Verdict() != VerdictUnreachable || r.Valid != nil ||
			!strings.Contains(mustJSON(r), `"valid": null`) || strings.Contains(r.Summary, "Not a valid") ||
			!strings.Contains(r.Summary, "could not be read") {
			t.Errorf("want an unreachable report with valid null, got %s", mustJSON(r))
		}
	})
	t.Run("server error", func(t *testing.T) {
		r, err := v.ValidateURL(ctx, "down.test", URLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict() != VerdictUnreachable || r.Valid != nil || strings.Contains(r.Summary, "Not a valid") ||
			!strings.Contains(r.Summary, "HTTP 503") {
			t.Errorf("want an unreachable report with valid null, got %s", mustJSON(r))
		}
	})
	t.Run("missing is not valid", func(t *testing.T) {
		r, err := v.ValidateURL(ctx, "gone.test", URLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// A 404 was read: the store publishes no profile, a measured false.
		if r.Verdict() != VerdictMissing || r.Valid == nil || *r.Valid {
			t.Errorf("want a missing report with valid false, got %s", mustJSON(r))
		}
	})
	t.Run("too many redirects", func(t *testing.T) {
		r, err := v.ValidateURL(ctx, "loop.test", URLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !r.FetchFailed() || rules2(r.Errors)[0] != ruleNoRedirect {
			t.Errorf("want a redirect failure, got %s", mustJSON(r))
		}
	})
	t.Run("too large", func(t *testing.T) {
		_, err := v.ValidateURL(ctx, "huge.test", URLOptions{})
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("err = %v, want ErrTooLarge", err)
		}
	})
	for _, bad := range []string{"http://127.0.0.1/", "ftp://shop.test/", "https://user:pw@shop.test/", "", "http://[::1]/.well-known/ucp"} {
		t.Run("refused "+bad, func(t *testing.T) {
			_, err := v.ValidateURL(ctx, bad, URLOptions{})
			if !errors.Is(err, fetch.ErrRefused) {
				t.Errorf("err = %v, want a refusal", err)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := v.ValidateURL(cctx, "slow.test", URLOptions{}); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestCacheControlProblem(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{"public, max-age=60", true},
		{"Public, Max-Age=3600, stale-while-revalidate=60", true},
		{`public, max-age="120"`, true},
		{"public, max-age=59", false},
		{"public, s-maxage=600", false},
		{"max-age=600", false},
		{"public, max-age=600, no-cache", false},
		{"public, max-age=600, private", false},
		{"", false},
	} {
		if got := cacheControlProblem(tt.in) == ""; got != tt.ok {
			t.Errorf("cacheControlProblem(%q) ok = %v, want %v", tt.in, got, tt.ok)
		}
	}
}

// TestDeepArtifacts fetches the third-party schema documents a profile names.
func TestDeepArtifacts(t *testing.T) {
	vendor := `, "capabilities": {"dev.ucp.shopping.checkout": [{"version": "2026-08-25",
    "schema": "https://ucp.dev/2026-08-25/schemas/shopping/checkout.json"}],
    "test.deep.gift_wrap": [{"version": "2026-06-01", "schema": "https://deep.test/schemas/gift.json", "extends": "dev.ucp.shopping.checkout"}],
    "test.deep.notes": [{"version": "2026-06-01", "schema": "https://deep.test/schemas/notes.json", "extends": "dev.ucp.shopping.checkout"}]}`
	mux := http.NewServeMux()
	mux.HandleFunc("deep.test/.well-known/ucp", func(w http.ResponseWriter, r *http.Request) {
		goodHeaders(w)
		p := strings.Replace(profileWith(""), `"capabilities": {"dev.ucp.shopping.checkout": [{"version": "2026-08-25",
    "spec": "https://ucp.dev/2026-08-25/specification/shopping/checkout",
    "schema": "https://ucp.dev/2026-08-25/schemas/shopping/checkout.json"}]},
  "payment_handlers": {}`, `"payment_handlers": {}`+vendor, 1)
		w.Write([]byte(p))
	})
	mux.HandleFunc("deep.test/schemas/gift.json", func(w http.ResponseWriter, r *http.Request) {
		goodHeaders(w)
		w.Write([]byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema"}`))
	})
	mux.HandleFunc("deep.test/schemas/notes.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere.json", http.StatusFound)
	})
	v := tlsWorld(t, mux, fetch.Options{})
	r, err := v.ValidateURL(context.Background(), "deep.test", URLOptions{Deep: true})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, it := range r.Warnings {
		if it.Rule == ruleArtifacts {
			paths = append(paths, it.Path)
		}
	}
	want := []string{"/ucp/capabilities/test.deep.notes/0/schema"}
	if diff := cmp.Diff(want, paths); diff != "" || !r.IsValid() {
		t.Errorf("artifact warnings (-want +got):\n%s\n%s", diff, mustJSON(r.Errors)+mustJSON(r.Warnings))
	}
}
