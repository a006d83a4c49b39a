package detect

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// Limits on what the HTML scan keeps. They bound memory and time on hostile
// pages; real storefronts stay far below them.
const (
	// MaxHTMLBytes is how much of an HTML body is read; the rest is ignored
	// and the page is marked Truncated. Large theme homepages run to about
	// 1 MiB, so 4 MiB keeps JSON-LD placed near the end.
	MaxHTMLBytes = 4 << 20

	maxScripts      = 512     // script elements kept
	maxScriptBytes  = 1 << 20 // inline text kept per script
	maxInlineTotal  = 8 << 20 // inline script text kept per page
	maxAnchors      = 4000
	maxForms        = 200
	maxFormFields   = 100
	maxIframes      = 100
	maxMetas        = 200
	maxLinkTags     = 200
	maxAttrBytes    = 2048 // attribute values kept (URLs, descriptions)
	maxShortText    = 512  // title, anchor text, h1
	maxTokenPerPage = 2_000_000
)

// Page is one fetched response as the detectors see it. NewPage scans the
// HTML once; every HTML detector then reads that scan, so a homepage is
// tokenised once however many detectors run over it.
//
// A Page is read-only after NewPage and safe for concurrent use.
type Page struct {
	// URL is the final URL after redirects. It may be nil, in which case
	// links cannot be resolved or judged same-site and are skipped.
	URL    *url.URL
	Status int
	Header http.Header
	// Body is the body as received, capped at MaxHTMLBytes.
	Body []byte
	// Truncated reports that the body was longer than MaxHTMLBytes.
	Truncated bool
	// Title is the text of the first <title>, whitespace collapsed.
	Title string

	doc document
}

// document is what the single tokenizer pass keeps of a page.
type document struct {
	base       *url.URL // <base href> resolved against the page URL, else the page URL
	bodyClass  []string
	h1         string
	scripts    []script
	anchors    []anchor
	forms      []form
	iframes    []string
	metas      []meta
	links      []linkTag
	inlineUsed int
}

// linkTag is a <link rel href> element.
type linkTag struct {
	rel, href string
}

type script struct {
	index int    // position among the page's script elements, from 1
	typ   string // type attribute, lower-cased, parameters kept
	src   string // src attribute as written
	text  []byte // inline text (copied), capped
}

type anchor struct {
	href string
	text string
	// product is true when the link's markup marks it as a product: a class
	// naming "product" on the link or on the element that holds it (product
	// cards and tiles on every major theme), or a data-product-id attribute.
	product bool
}

type form struct {
	index           int
	action          string
	toolName        string
	toolDescription string
	hasToolName     bool
	toolAutoSubmit  bool
	params          []formParam
}

type formParam struct {
	name        string
	description string
}

type meta struct {
	name, content string
}

// NewPage scans an HTML body once. u is the final URL (nil if unknown) and
// header may be nil. Bodies that are not HTML are scanned all the same: the
// tokenizer accepts any bytes, and a JSON or text body simply yields no
// elements.
func NewPage(u *url.URL, status int, header http.Header, body []byte) *Page {
	if header == nil {
		header = http.Header{}
	}
	p := &Page{URL: u, Status: status, Header: header, Body: body}
	if len(body) > MaxHTMLBytes {
		p.Body = body[:MaxHTMLBytes]
		p.Truncated = true
	}
	p.doc.base = u
	p.scan()
	return p
}

// scan walks the tokens of the body once. It uses the tokenizer rather than
// the tree builder: the detectors need elements and attributes, not a DOM,
// and the tokenizer costs a fraction of the allocations on large pages.
func (p *Page) scan() {
	z := html.NewTokenizer(bytes.NewReader(p.Body))
	d := &p.doc
	var (
		inScript  = -1 // index into d.scripts while inside <script>
		inAnchor  = -1
		inForm    = -1
		inTitle   bool
		titleSeen bool
		inH1      bool
		h1Seen    bool
		baseSeen  bool
		title     strings.Builder
		h1        strings.Builder
		anchorTxt strings.Builder
		nScripts  int
		nForms    int
		// productCtx is set by the latest block start tag whose class or
		// data attributes mark a product card; the next anchor inherits it.
		productCtx bool
	)
	closeAnchor := func() {
		if inAnchor >= 0 {
			d.anchors[inAnchor].text = collapseSpace(anchorTxt.String())
			anchorTxt.Reset()
			inAnchor = -1
		}
	}
	defer func() {
		closeAnchor()
		if titleSeen {
			p.Title = collapseSpace(title.String())
		}
		if h1Seen {
			d.h1 = collapseSpace(h1.String())
		}
	}()
	for n := 0; n < maxTokenPerPage; n++ {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return
		case html.TextToken:
			t := z.Text()
			switch {
			case inScript >= 0:
				s := &d.scripts[inScript]
				room := min(maxScriptBytes-len(s.text), maxInlineTotal-d.inlineUsed)
				if room > 0 {
					t = t[:min(len(t), room)]
					s.text = append(s.text, t...)
					d.inlineUsed += len(t)
				}
			case inTitle:
				appendShort(&title, t)
			default:
				if inAnchor >= 0 {
					appendShort(&anchorTxt, t)
				}
				if inH1 {
					appendShort(&h1, t)
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			inScript = -1
			switch string(name) {
			case "script":
				nScripts++
				attrs := readAttrs(z, hasAttr, "type", "src")
				if len(d.scripts) < maxScripts {
					d.scripts = append(d.scripts, script{index: nScripts, typ: strings.ToLower(strings.TrimSpace(attrs[0])), src: strings.TrimSpace(attrs[1])})
					// "<script/>" is a start tag to a browser: the
					// self-closing flag is ignored on non-void elements and
					// the tokenizer still reads raw text up to </script>.
					inScript = len(d.scripts) - 1
				}
			case "title":
				if !titleSeen && tt == html.StartTagToken {
					inTitle, titleSeen = true, true
				}
			case "h1":
				if !h1Seen {
					inH1, h1Seen = true, true
				}
			case "base":
				if !baseSeen {
					baseSeen = true
					href := readAttrs(z, hasAttr, "href")[0]
					if b := resolve(p.URL, href); b != nil {
						d.base = b
					}
				}
			case "body":
				cls := readAttrs(z, hasAttr, "class")[0]
				if d.bodyClass == nil {
					d.bodyClass = strings.Fields(strings.ToLower(cls))
				}
			case "li", "div", "article", "figure", "section":
				a := readAttrsPresent(z, hasAttr, "class", "data-product-id")
				productCtx = a[1].present || classNamesProduct(a[0].val)
			case "a":
				closeAnchor()
				a := readAttrs(z, hasAttr, "href", "aria-label", "title", "class", "data-product-id")
				if len(d.anchors) < maxAnchors && a[0] != "" {
					product := productCtx || a[4] != "" || classNamesProduct(a[3])
					productCtx = false
					d.anchors = append(d.anchors, anchor{href: strings.TrimSpace(a[0]), product: product})
					inAnchor = len(d.anchors) - 1
					if a[1] != "" || a[2] != "" {
						appendShort(&anchorTxt, []byte(a[1]+" "+a[2]+" "))
					}
				}
			case "form":
				nForms++
				a := readAttrsPresent(z, hasAttr, "action", "toolname", "tooldescription", "toolautosubmit")
				if len(d.forms) < maxForms {
					d.forms = append(d.forms, form{
						index:           nForms,
						action:          a[0].val,
						toolName:        strings.TrimSpace(a[1].val),
						hasToolName:     a[1].present,
						toolDescription: collapseSpace(a[2].val),
						toolAutoSubmit:  a[3].present,
					})
					inForm = len(d.forms) - 1
				}
			case "input", "select", "textarea", "button":
				if inForm >= 0 {
					a := readAttrsPresent(z, hasAttr, "name", "toolparamdescription")
					f := &d.forms[inForm]
					if a[1].present && len(f.params) < maxFormFields {
						f.params = append(f.params, formParam{name: a[0].val, description: collapseSpace(a[1].val)})
					}
				}
			case "iframe":
				if src := readAttrs(z, hasAttr, "src")[0]; src != "" && len(d.iframes) < maxIframes {
					d.iframes = append(d.iframes, src)
				}
			case "link":
				a := readAttrs(z, hasAttr, "rel", "href")
				if len(d.links) < maxLinkTags && a[0] != "" && a[1] != "" {
					d.links = append(d.links, linkTag{rel: strings.ToLower(strings.TrimSpace(a[0])), href: strings.TrimSpace(a[1])})
				}
			case "meta":
				a := readAttrs(z, hasAttr, "name", "content")
				if len(d.metas) < maxMetas {
					d.metas = append(d.metas, meta{name: strings.ToLower(a[0]), content: a[1]})
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script":
				inScript = -1
			case "title":
				inTitle = false
			case "h1":
				inH1 = false
			case "a":
				closeAnchor()
			case "form":
				inForm = -1
			}
		}
	}
}

// readAttrs returns the values of the named attributes ("" when absent).
// Values are copied: the tokenizer reuses its buffer.
func readAttrs(z *html.Tokenizer, more bool, names ...string) []string {
	out := make([]string, len(names))
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		for i, n := range names {
			if out[i] == "" && string(k) == n {
				out[i] = string(v[:min(len(v), maxAttrBytes)])
			}
		}
	}
	return out
}

type attrVal struct {
	val     string
	present bool
}

// readAttrsPresent is readAttrs for boolean attributes such as
// toolautosubmit, where presence is the signal.
func readAttrsPresent(z *html.Tokenizer, more bool, names ...string) []attrVal {
	out := make([]attrVal, len(names))
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		for i, n := range names {
			if !out[i].present && string(k) == n {
				out[i] = attrVal{val: string(v[:min(len(v), maxAttrBytes)]), present: true}
			}
		}
	}
	return out
}

func appendShort(b *strings.Builder, t []byte) {
	if room := maxShortText - b.Len(); room > 0 {
		b.Write(t[:min(len(t), room)])
	}
}

// collapseSpace trims s and folds runs of white space into one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// resolve resolves ref against base; it returns nil for an empty, unparsable
// or non-HTTP reference, or when base is nil and ref is relative.
func resolve(base *url.URL, ref string) *url.URL {
	ref = strings.TrimSpace(ref)
	if ref == "" || len(ref) > maxAttrBytes {
		return nil
	}
	r, err := url.Parse(ref)
	if err != nil {
		return nil
	}
	if base != nil {
		r = base.ResolveReference(r)
	}
	if !r.IsAbs() {
		return nil
	}
	switch strings.ToLower(r.Scheme) {
	case "http", "https":
	default:
		return nil
	}
	if r.Host == "" {
		return nil
	}
	r.Fragment = ""
	r.RawFragment = ""
	return r
}

// contains reports whether body contains sub, byte for byte.
func contains(body []byte, sub string) bool {
	return bytes.Contains(body, []byte(sub))
}

// containsFold reports whether s contains sub ignoring ASCII case. sub must
// be lower case. It does not allocate and stays linear on large bodies: the
// next position of each case of the first byte is kept, so no byte is
// scanned twice by IndexByte.
func containsFold(s []byte, sub string) bool {
	n := len(sub)
	if n == 0 {
		return true
	}
	lo := sub[0]
	up := lo
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	next := func(c byte, from int) int {
		if j := bytes.IndexByte(s[from:], c); j >= 0 {
			return from + j
		}
		return len(s)
	}
	nl, nu := -1, -1
	for i := 0; i+n <= len(s); {
		if nl < i {
			nl = next(lo, i)
		}
		if up == lo {
			nu = nl
		} else if nu < i {
			nu = next(up, i)
		}
		c := min(nl, nu)
		if c+n > len(s) {
			return false
		}
		if equalFoldASCII(s[c:c+n], sub) {
			return true
		}
		i = c + 1
	}
	return false
}

func equalFoldASCII(b []byte, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// headerContainsFold reports whether any value of the header key contains
// sub (lower case) ignoring case.
func headerContainsFold(h http.Header, key, sub string) bool {
	for _, v := range h.Values(key) {
		if strings.Contains(strings.ToLower(v), sub) {
			return true
		}
	}
	return false
}

// cookieNames lists the cookie names set by the response.
func cookieNames(h http.Header) []string {
	var out []string
	for _, v := range h.Values("Set-Cookie") {
		name, _, ok := strings.Cut(v, "=")
		if !ok {
			continue
		}
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// snippet returns up to n bytes of s around [i, j), on one line, for evidence.
func snippet(s []byte, i, j, n int) string {
	if i < 0 || j > len(s) || i > j {
		return ""
	}
	pad := max(0, (n-(j-i))/2)
	a, b := max(0, i-pad), min(len(s), j+pad)
	if b-a > n {
		b = a + n
	}
	return collapseSpace(strings.ToValidUTF8(string(s[a:b]), ""))
}

// classNamesProduct reports whether a class attribute names a product card
// or link ("product-card", "product-item-link", "card--product"), but not
// a listing ("products", "product-grid" still counts: it holds cards).
func classNamesProduct(class string) bool {
	for _, c := range strings.Fields(strings.ToLower(class)) {
		if strings.Contains(c, "product") && c != "products" {
			return true
		}
	}
	return false
}
