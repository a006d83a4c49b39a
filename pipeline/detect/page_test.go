package detect

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewPage(t *testing.T) {
	html := `<!doctype html><html><head><title>
		Acme &amp; Co  –  Shoes</title><title>second</title>
		<base href="https://cdn.shop.example/base/">
		<script/>document.modelContext.registerTool({name:"selfclosed"})</script>
		</head><body class="Home WooCommerce-JS"><h1>Big <b>sale</b></h1>
		<a href="/x" aria-label="Label">Text <span>more</span></a>
		<a>no href</a><a href="/y">unclosed<a href="/z">next</a>
		<iframe src="/frame"></iframe><meta name="Generator" content="WooCommerce 9.0">
		</body></html>`
	p := htmlPage(t, "https://shop.example/", html)
	if p.Title != "Acme & Co – Shoes" {
		t.Errorf("Title = %q", p.Title)
	}
	if got := p.doc.base.String(); got != "https://cdn.shop.example/base/" {
		t.Errorf("base = %q", got)
	}
	if diff := cmp.Diff([]string{"home", "woocommerce-js"}, p.doc.bodyClass); diff != "" {
		t.Errorf("bodyClass (-want +got):\n%s", diff)
	}
	if p.doc.h1 != "Big sale" {
		t.Errorf("h1 = %q", p.doc.h1)
	}
	wantAnchors := []anchor{{href: "/x", text: "Label Text more"}, {href: "/y", text: "unclosed"}, {href: "/z", text: "next"}}
	if diff := cmp.Diff(wantAnchors, p.doc.anchors, cmp.AllowUnexported(anchor{})); diff != "" {
		t.Errorf("anchors (-want +got):\n%s", diff)
	}
	if w := DetectWebMCP(p); len(w.Tools) != 1 || w.Tools[0] != "selfclosed" {
		t.Errorf("self-closed script not scanned: %+v", w)
	}
	if diff := cmp.Diff([]string{"/frame"}, p.doc.iframes); diff != "" {
		t.Errorf("iframes (-want +got):\n%s", diff)
	}
}

func TestNewPageBounds(t *testing.T) {
	big := bytes.Repeat([]byte("<p>x</p>"), MaxHTMLBytes/8+10)
	p := NewPage(nil, 200, nil, big)
	if !p.Truncated || len(p.Body) != MaxHTMLBytes {
		t.Errorf("Truncated = %v, len = %d", p.Truncated, len(p.Body))
	}
	if p.Header == nil {
		t.Error("nil header not replaced")
	}

	// Hostile shapes must neither panic nor keep more than the caps.
	hostile := []string{
		strings.Repeat("<div>", 200000),
		strings.Repeat("<a href=x>", maxAnchors*2),
		strings.Repeat("<script>x</script>", maxScripts*2),
		"<script>" + strings.Repeat("a", maxScriptBytes*2) + "</script>",
		strings.Repeat("<form toolname=t>", maxForms*2),
		"<title>" + strings.Repeat("t", 100000),
		"<plaintext>" + strings.Repeat("<a href=x>", 1000),
		"\x00<\x00a\x00 href=\x00>\xff\xfe",
	}
	for i, h := range hostile {
		p := NewPage(nil, 200, nil, []byte(h))
		d := p.doc
		if len(d.anchors) > maxAnchors || len(d.scripts) > maxScripts || len(d.forms) > maxForms || len(p.Title) > maxShortText {
			t.Errorf("hostile %d: over caps: %d anchors, %d scripts, %d forms, title %d", i, len(d.anchors), len(d.scripts), len(d.forms), len(p.Title))
		}
		for _, s := range d.scripts {
			if len(s.text) > maxScriptBytes {
				t.Errorf("hostile %d: script text %d bytes", i, len(s.text))
			}
		}
	}
}

// A Page is shared by the engine's detectors; they must only read it.
func TestPageConcurrentReaders(t *testing.T) {
	p := htmlPage(t, "https://shop.example/products/trail-shoe", benchProductPage)
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			ExtractJSONLD(p)
			DetectWebMCP(p)
			DetectPlatform(p)
			DetectBlock(p)
			DetectParked(p)
			FindPolicies(p)
		}()
	}
	for range 4 {
		<-done
	}
}
