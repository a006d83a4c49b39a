package shop

// The server of the held-out shops (testdata/realshops): small stores whose
// HTML and JavaScript follow the structure of real storefront themes and
// consent managers, written apart from the shoppers, so that the shoppers
// are tested on markup they were not written beside. Each shop's directory
// holds its pages (Go text templates), its scripts and a README naming the
// public theme files it follows. This file serves them over TLS for the
// *.test hosts, keeps each shop's cart in a cookie, and records every trap:
// a request only a forbidden action sends (placing an order, paying,
// logging in, typing in a card field, an express or "buy now" button).

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	"svc/pipeline/fetch"
	"svc/pipeline/shop/browser"
)

// realShop is one held-out shop: its host, the directory of its files and
// its request handler.
type realShop struct {
	host  string
	dir   string // under testdata/realshops
	serve func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request)
	// trap reports requests only a forbidden action sends, beside the
	// common ones (anything under /trap/).
	trap func(r *http.Request) bool
	// extra hosts the shop's pages load from (a consent manager's frame,
	// a payment host), answered by the same handler.
	extra []string
	tmpl  *template.Template
}

// heldout serves the held-out shops.
type heldout struct {
	srv    *httptest.Server
	caPEM  []byte
	byHost map[string]*realShop

	mu    sync.Mutex
	traps map[string]int
}

// product is what every held-out shop sells (each shop renders it in its
// own platform's words).
type hxProduct struct {
	ID, Handle, Name, Price string
	SoldOut                 bool
}

var hxCatalog = []hxProduct{
	{ID: "40211", Handle: "linen-shirt", Name: "Linen Shirt", Price: "48.00"},
	{ID: "40212", Handle: "canvas-tote", Name: "Canvas Tote", Price: "24.00"},
	{ID: "40213", Handle: "wool-beanie", Name: "Wool Beanie", Price: "19.00"},
}

func hxFind(key string) (hxProduct, bool) {
	for _, p := range hxCatalog {
		if p.ID == key || p.Handle == key {
			return p, true
		}
	}
	return hxProduct{}, false
}

// hxSecret is in every checkout address of the held-out shops: no report
// may ever contain it.
const hxSecret = "hx_secret_c0ffee"

func newHeldout(t testing.TB, shops []*realShop) *heldout {
	t.Helper()
	h := &heldout{byHost: map[string]*realShop{}, traps: map[string]int{}}
	names := []string{}
	for _, s := range shops {
		s.tmpl = loadTemplates(t, s.dir)
		h.byHost[s.host] = s
		names = append(names, s.host)
		for _, x := range s.extra {
			h.byHost[x] = s
			names = append(names, x)
		}
	}
	ca, leaf := testCertificates(t, names)
	h.caPEM = ca
	h.srv = httptest.NewUnstartedServer(http.HandlerFunc(h.ServeHTTP))
	h.srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}, NextProtos: []string{"http/1.1"}}
	h.srv.StartTLS()
	t.Cleanup(h.srv.Close)
	return h
}

func (h *heldout) addr() string { return h.srv.Listener.Addr().String() }

// runOptions starts a browser and a safe client that reach the held-out
// shops only, for the test's life.
func (h *heldout) runOptions(t testing.TB) Options {
	t.Helper()
	b, err := browser.Start(t.Context(), browser.Options{FixtureAddr: h.addr(), FixtureCA: h.caPEM})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	c, err := fetch.New(fetch.Options{FixtureAddr: h.addr(), FixtureCA: h.caPEM})
	if err != nil {
		t.Fatal(err)
	}
	return Options{Browser: b, Client: c}
}

func (h *heldout) hit(host, what string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.traps[host+" "+what]++
}

// Traps returns the traps touched so far, by host and request.
func (h *heldout) Traps() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]int{}
	for k, v := range h.traps {
		out[k] = v
	}
	return out
}

func (h *heldout) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := strings.ToLower(r.Host)
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	if os.Getenv("SVC_HX_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "hx %s %s%s\n", r.Method, host, r.URL.RequestURI())
	}
	s, ok := h.byHost[host]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/trap/") || s.trap != nil && s.trap(r) {
		h.hit(host, r.Method+" "+r.URL.Path)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>Recorded</title><h1>This was a trap</h1>")
		return
	}
	s.serve(h, s, w, r)
}

// loadTemplates parses every *.html of a shop's directory as one set.
// A shop with no directory writes its pages itself (nil templates).
func loadTemplates(t testing.TB, dir string) *template.Template {
	t.Helper()
	if dir == "" {
		return nil
	}
	files, err := filepath.Glob(filepath.Join("testdata", "realshops", dir, "*.html"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates for %s: %v", dir, err)
	}
	tm, err := template.New(dir).Funcs(template.FuncMap{
		"add": func(a, b int) int { return a + b },
	}).ParseFiles(files...)
	if err != nil {
		t.Fatalf("templates of %s: %v", dir, err)
	}
	return tm
}

// hxPage is what a template is given.
type hxPage struct {
	Title    string
	Host     string
	Products []hxProduct
	Product  hxProduct
	Items    []hxProduct
	Count    int
	Total    string
	Secret   string
	Path     string
	Query    string
	// Message is a notice the page shows (MessageType: notice, success).
	Message, MessageType string
}

func (h *heldout) render(w http.ResponseWriter, r *http.Request, s *realShop, name string, status int, p hxPage) {
	p.Host, p.Secret, p.Path = s.host, hxSecret, r.URL.Path
	if p.Products == nil {
		p.Products = hxCatalog
	}
	p.Items = hxCart(r)
	p.Count, p.Total = len(p.Items), hxTotal(p.Items)
	var b strings.Builder
	if err := s.tmpl.ExecuteTemplate(&b, name, p); err != nil {
		http.Error(w, "template "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprint(w, b.String())
}

// asset serves a file of the shop's assets directory.
func (h *heldout) asset(w http.ResponseWriter, s *realShop, name string) {
	name = path.Clean("/" + name)[1:]
	b, err := os.ReadFile(filepath.Join("testdata", "realshops", s.dir, "assets", filepath.FromSlash(name)))
	if err != nil {
		http.NotFound(w, nil)
		return
	}
	switch {
	case strings.HasSuffix(name, ".js"):
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	case strings.HasSuffix(name, ".css"):
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
	case strings.HasSuffix(name, ".html"):
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	case strings.HasSuffix(name, ".svg"):
		w.Header().Set("Content-Type", "image/svg+xml")
	}
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

// hxCart reads the cart cookie: product ids joined by dots.
func hxCart(r *http.Request) []hxProduct {
	c, err := r.Cookie("hx_cart")
	if err != nil {
		return nil
	}
	var out []hxProduct
	for _, id := range strings.Split(c.Value, ".") {
		if p, ok := hxFind(id); ok && len(out) < 20 {
			out = append(out, p)
		}
	}
	return out
}

// hxAdd adds product id to the cart cookie; false for an unknown or sold
// out product.
func hxAdd(w http.ResponseWriter, r *http.Request, id string) ([]hxProduct, bool) {
	p, ok := hxFind(id)
	if !ok || p.SoldOut {
		return nil, false
	}
	items := append(hxCart(r), p)
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	http.SetCookie(w, &http.Cookie{Name: "hx_cart", Value: strings.Join(ids, "."), Path: "/", Secure: true, SameSite: http.SameSiteLaxMode})
	return items, true
}

// testCertificates makes a CA and one leaf for names, for the held-out
// shops' TLS server.
func testCertificates(t testing.TB, names []string) (caPEM []byte, leaf tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "svc held-out shops CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
