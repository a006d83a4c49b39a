package pages

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"time"

	"svc/publish"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

//go:embed assets/site.css assets/icon.svg
var assetFS embed.FS

// asset is one file of assets/, published under a name that carries its
// sha256, so it can be cached for good.
type asset struct {
	file string // path under public/
	body []byte
}

var (
	styleAsset = loadAsset("assets/site.css")
	iconAsset  = loadAsset("assets/icon.svg")
)

func loadAsset(name string) asset {
	b, err := fs.ReadFile(assetFS, name)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	dot := strings.LastIndexByte(name, '.')
	return asset{file: fmt.Sprintf("%s-%s%s", name[:dot], hex.EncodeToString(sum[:6]), name[dot:]), body: b}
}

func assets() []asset { return []asset{styleAsset, iconAsset} }

// StyleFile and IconFile are the published paths of the style sheet and
// the icon the pages link to.
func StyleFile() string { return styleAsset.file }

// IconFile: see StyleFile.
func IconFile() string { return iconAsset.file }

// Asset returns the embedded asset published at name (for example
// "assets/site-0123456789ab.css"), so the server can serve the style of
// the pages it renders itself even before a snapshot published it.
func Asset(name string) ([]byte, bool) {
	for _, a := range assets() {
		if a.file == name {
			return a.body, true
		}
	}
	return nil, false
}

// Page is what the layout template needs of every page.
type Page struct {
	Site *Site
	// Title is the page's own title; the layout adds the site name.
	Title       string
	Description string
	// Section names the navigation entry of the page: home, directory,
	// leaderboard, weekly, validate, datasets; "" for none.
	Section string
	// NoIndex asks search engines not to index the page (the unknown-host
	// and not-found pages).
	NoIndex bool
	Data    any
}

var pageTemplates = parsePages()

// parsePages parses each page template with the layout and the shared
// partials into its own set, so every page can define "content".
func parsePages() map[string]*template.Template {
	names, err := fs.Glob(templateFS, "templates/*.tmpl")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".tmpl")
		if base == "layout" || base == "partials" {
			continue
		}
		t := template.Must(template.New("layout.tmpl").Funcs(funcs).ParseFS(templateFS,
			"templates/layout.tmpl", "templates/partials.tmpl", n))
		out[base] = t
	}
	return out
}

func renderPage(w io.Writer, name string, p *Page) error {
	t, ok := pageTemplates[name]
	if !ok {
		return fmt.Errorf("no page template %q", name)
	}
	if err := t.ExecuteTemplate(w, "layout.tmpl", p); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	return nil
}

var funcs = template.FuncMap{
	"style":     func() string { return "/" + styleAsset.file },
	"icon":      func() string { return "/" + iconAsset.file },
	"store":     StoreURL,
	"catURL":    func(slug string) string { return "/directory/" + slug + "/" },
	"when":      when,
	"iso":       iso,
	"day":       func(t time.Time) string { return t.UTC().Format(time.DateOnly) },
	"str":       derefStr,
	"num":       derefNum,
	"pct":       pct,
	"pct1":      pct1,
	"rate":      rate,
	"bytes":     humanBytes,
	"comma":     comma,
	"yesno":     yesNo,
	"bad":       badYesNo,
	"truth":     isTrue,
	"plural":    plural,
	"mark":      mark,
	"verdict":   verdictOf,
	"cat":       categoryName,
	"slug":      CategorySlug,
	"join":      strings.Join,
	"svg":       func(s string) template.HTML { return template.HTML(s) }, // only for SVG this package generated
	"robotWord": robotWord,
	"outcome":   outcomeOf,
	"strp":      func(s string) *string { return &s },
	"shopFile":  publish.ShopEvidencePath,
	"dirRows":   dirRows,
	"storeURL":  StoreURL,
}

// when is a time for people: UTC, to the minute, no seconds.
func when(t any) string {
	switch v := t.(type) {
	case time.Time:
		if v.IsZero() {
			return "never"
		}
		return v.UTC().Format("2 January 2006, 15:04 UTC")
	case *time.Time:
		if v == nil || v.IsZero() {
			return "never"
		}
		return when(*v)
	}
	return ""
}

// iso is a time for <time datetime>.
func iso(t any) string {
	switch v := t.(type) {
	case time.Time:
		return v.UTC().Format(time.RFC3339)
	case *time.Time:
		if v == nil {
			return ""
		}
		return v.UTC().Format(time.RFC3339)
	}
	return ""
}

func derefStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefNum(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
}

// pct writes a 0-1 rate as a percentage with one decimal.
func pct(f *float64) string {
	if f == nil {
		return "not measured"
	}
	return strconv.FormatFloat(math.Round(*f*1000)/10, 'f', 1, 64) + "%"
}

// pct1 writes a percentage already in 0-100 with one decimal.
func pct1(f *float64) string {
	if f == nil {
		return "not measured"
	}
	return strconv.FormatFloat(*f, 'f', 1, 64) + "%"
}

// rate writes a 0-1 value as a percentage.
func rate(f float64) string {
	return strconv.FormatFloat(math.Round(f*1000)/10, 'f', 1, 64) + "%"
}

func humanBytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

// comma groups digits by thousands.
func comma(n any) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Tri is a measured yes, a measured no, or unmeasured, with the words
// and the mark a page shows for it: colour is never the only signal.
type Tri struct {
	Class string // yes, no, partial, unknown: the colour
	Mark  string // ✓ ✗ ~ ?: the shape
	Words string
}

func yesNo(b *bool, yes, no string) Tri {
	switch {
	case b == nil:
		return Tri{"unknown", "?", "Not measured"}
	case *b:
		return Tri{"yes", "✓", yes}
	}
	return Tri{"no", "✗", no}
}

// badYesNo is yesNo for a signal whose yes is bad news (blocked).
func badYesNo(b *bool, yes, no string) Tri {
	switch {
	case b == nil:
		return Tri{"unknown", "?", "Not measured"}
	case *b:
		return Tri{"no", "✗", yes}
	}
	return Tri{"yes", "✓", no}
}

// plural writes a count with its noun: 1 error, 2 errors.
func plural(n any, word string) string {
	var v int64
	switch x := n.(type) {
	case int:
		v = int64(x)
	case int64:
		v = x
	case *int64:
		if x == nil {
			return "no " + word + "s measured"
		}
		v = *x
	}
	if v == 1 {
		return "1 " + word
	}
	return comma(v) + " " + word + "s"
}

// mark is a Tri of a class with given words.
func mark(class, words string) Tri {
	m := map[string]string{"yes": "✓", "no": "✗", "partial": "~", "unknown": "?"}[class]
	return Tri{class, m, words}
}

// verdictInfo is one store_answers.verdict in plain words.
type verdictInfo struct {
	Tri
	Code    string
	Explain string
}

// verdicts in the order the directory counts them.
var verdicts = []verdictInfo{
	{Tri{"yes", "✓", "Agents can buy"}, "agents_can_buy", "A buy lane reached the cart or checkout. Not a completed order."},
	{Tri{"partial", "~", "Cart link, UCP profile not valid"}, "cart_without_valid_ucp", "The cart returned a checkout link, but the store's UCP profile is not valid."},
	{Tri{"partial", "~", "Catalog throttled"}, "catalog_throttled", "The catalog answered empty with throttle signals: not an empty catalog."},
	{Tri{"partial", "~", "Catalog only"}, "catalog_only", "A catalog answered with a priced product; no buy lane reached the cart."},
	{Tri{"no", "✗", "No agent catalog"}, "no_agent_catalog", "The store answered, but no catalog with a product did."},
	{Tri{"no", "✗", "Blocked the check"}, "blocked", "The store's edge refused the check (bot wall, challenge or rate limit)."},
	{Tri{"no", "✗", "Not a store"}, "not_a_store", "The host is parked or redirects to another brand."},
	{Tri{"no", "✗", "Unreachable"}, "unreachable", "The homepage did not answer."},
	{Tri{"unknown", "?", "Check failed"}, "check_failed", "The check itself could not run."},
}

func verdictOf(v any) verdictInfo {
	var code string
	switch x := v.(type) {
	case string:
		code = x
	case *string:
		if x != nil {
			code = *x
		}
	}
	if code == "" {
		return verdictInfo{Tri{"unknown", "?", "Not measured"}, "", "No verdict: the store was not measured."}
	}
	for _, vi := range verdicts {
		if vi.Code == code {
			return vi
		}
	}
	return verdictInfo{Tri{"unknown", "?", code}, code, ""}
}

// categoryNames are the directory categories (spec 2.12) in words.
var categoryNames = map[string]string{
	"apparel": "Apparel", "footwear": "Footwear", "beauty": "Beauty", "home": "Home",
	"food-drink": "Food and drink", "supplements": "Supplements", "outdoor": "Outdoor",
	"kids": "Kids", "pets": "Pets", "electronics": "Electronics", "jewelry": "Jewelry",
	uncategorized: "Not categorised",
}

// categoryOrder is the order of spec 2.12; other categories follow by name.
var categoryOrder = []string{
	"apparel", "footwear", "beauty", "home", "food-drink", "supplements",
	"outdoor", "kids", "pets", "electronics", "jewelry",
}

const uncategorized = "uncategorized"

func categoryName(slug string) string {
	if n, ok := categoryNames[slug]; ok {
		return n
	}
	if slug == "" {
		return "Not categorised"
	}
	return strings.ToUpper(slug[:1]) + strings.ReplaceAll(slug[1:], "-", " ")
}

func robotWord(v *string) Tri {
	if v == nil {
		return Tri{"unknown", "?", "Not measured"}
	}
	switch *v {
	case "allowed":
		return Tri{"yes", "✓", "Allowed"}
	case "disallowed":
		return Tri{"no", "✗", "Disallowed"}
	case "no_rule":
		return Tri{"yes", "✓", "No rule (allowed)"}
	}
	return Tri{"unknown", "?", *v}
}

// outcomeOf is one leaderboard outcome in words.
func outcomeOf(o *string) Tri {
	if o == nil {
		return Tri{"unknown", "–", "No result"}
	}
	switch *o {
	case "checkout_reached":
		return Tri{"yes", "✓", "Checkout reached"}
	case "added_to_cart":
		return Tri{"yes", "✓", "Added to cart"}
	case "no_cart":
		return Tri{"no", "✗", "No cart"}
	case "blocked":
		return Tri{"no", "✗", "Blocked"}
	case "error":
		return Tri{"no", "✗", "Error"}
	case "not_attempted":
		return Tri{"unknown", "–", "Not attempted"}
	}
	return Tri{"unknown", "?", *o}
}
