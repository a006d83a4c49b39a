package pages

import (
	"bytes"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// dirRowsTemplate is the markup dirRows writes, as a template.
const dirRowsTemplate = `{{define "rows"}}{{$site := .Site}}
{{- range .Rows}}
<tr><th scope="row"><a href="{{$site.Link (store .Host)}}">{{.Name}}</a> <span class="host">{{.Host}}</span></th><td>{{template "verdict" .Verdict}}</td><td>{{with .Score}}{{num .}}<span class="sub">/100</span>{{else}}<span class="sub">not measured</span>{{end}}</td><td>{{with .CheckedAt}}<time datetime="{{iso .}}">{{day .}}</time>{{else}}<span class="sub">never</span>{{end}}</td></tr>
{{- end}}{{end}}`

// TestDirRowsLikeTemplate: the directory's rows, written without the
// template engine, are byte for byte what the template wrote, escaping
// included.
func TestDirRowsLikeTemplate(t *testing.T) {
	tmpl := template.Must(template.Must(template.New("rows").Funcs(funcs).ParseFS(templateFS, "templates/partials.tmpl")).Parse(dirRowsTemplate))
	str := func(s string) *string { return &s }
	num := func(n int64) *int64 { return &n }
	at := time.Date(2026, 11, 16, 9, 30, 0, 123, time.FixedZone("X", 3600))
	rows := []dirEntry{
		{Host: "a.test", Name: "Plain", Verdict: str("agents_can_buy"), Score: num(80), CheckedAt: &at},
		{Host: "b-2.example.test", Name: `Tom & Jerry's "<Shop>" + more` + "\x00é✓", Verdict: str("cart_without_valid_ucp"), Score: num(0)},
		{Host: "c.test", Name: "c.test", Verdict: str("some_new_code<&>")},
		{Host: "d.test", Name: "No verdict", CheckedAt: &at},
	}
	for _, v := range verdicts {
		rows = append(rows, dirEntry{Host: "v.test", Name: v.Code, Verdict: str(v.Code)})
	}
	for _, base := range []string{"", "https://svc.example/x+y/", "https://svc.example/a%20b"} {
		site, err := NewSite(base, "2026-11-16")
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := tmpl.ExecuteTemplate(&want, "rows", map[string]any{"Site": site, "Rows": rows}); err != nil {
			t.Fatal(err)
		}
		if got := string(dirRows(site, rows)); got != want.String() {
			t.Errorf("base %q: dirRows wrote\n%s\nthe template\n%s", base, got, want.String())
		}
	}
}

// TestSortEntries: directory rows come in category order (unknown
// categories last, by slug), then by name ignoring case, then by host.
func TestSortEntries(t *testing.T) {
	cats := append(slices.Clone(categoryOrder[:3]), "zz-unknown", "aa-unknown")
	names := []string{"beta", "Alpha", "alpha", "Beta", "gamma"}
	var es []dirEntry
	for i := range 200 {
		es = append(es, dirEntry{Host: fmt.Sprintf("h%03d.test", (i*37)%200), Name: names[i%len(names)], Category: cats[i%len(cats)]})
	}
	rank := func(c string) int {
		if i := slices.Index(categoryOrder, c); i >= 0 {
			return i
		}
		return len(categoryOrder)
	}
	want := slices.Clone(es)
	sort.SliceStable(want, func(i, j int) bool {
		a, b := want[i], want[j]
		if rank(a.Category) != rank(b.Category) {
			return rank(a.Category) < rank(b.Category)
		}
		if a.Category != b.Category {
			return a.Category < b.Category
		}
		if la, lb := strings.ToLower(a.Name), strings.ToLower(b.Name); la != lb {
			return la < lb
		}
		return a.Host < b.Host
	})
	sortEntries(es)
	if !slices.Equal(es, want) {
		t.Errorf("sortEntries order differs:\n got %v\nwant %v", es[:10], want[:10])
	}
}
