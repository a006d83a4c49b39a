package pages

import (
	"bytes"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// TestPagesWellFormed parses every page: landmarks, one h1, headings in
// order, labelled fields, no script, no outside resource, and every link
// of the site pointing at a page that exists or a route of the server.
func TestPagesWellFormed(t *testing.T) {
	got := build(t, testInput(t))
	maps.Copy(got, storePages(t, testInput(t)))
	for name, body := range got {
		if !strings.HasSuffix(name, ".html") && !strings.HasPrefix(name, "stores/") {
			continue
		}
		doc, err := html.Parse(bytes.NewReader(body))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, p := range wellFormed(doc) {
			t.Errorf("%s: %s", name, p)
		}
		for _, link := range links(doc) {
			if !linkResolves(got, link) {
				t.Errorf("%s: link %s leads nowhere", name, link)
			}
		}
	}
}

func wellFormed(doc *html.Node) []string {
	var out []string
	count := map[atom.Atom]int{}
	labels := map[string]bool{}
	var fields []string
	prev := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			count[n.DataAtom]++
			switch n.DataAtom {
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				l := int(n.Data[1] - '0')
				if prev != 0 && l > prev+1 {
					out = append(out, fmt.Sprintf("heading jumps from h%d to h%d", prev, l))
				}
				prev = l
			case atom.Label:
				labels[attr(n, "for")] = true
			case atom.Input, atom.Textarea, atom.Select:
				if attr(n, "type") != "hidden" {
					fields = append(fields, attr(n, "id"))
				}
			case atom.Link, atom.Img:
				for _, a := range []string{"href", "src"} {
					if v := attr(n, a); strings.HasPrefix(v, "http") || strings.HasPrefix(v, "//") {
						out = append(out, "an outside resource: "+v)
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, a := range []atom.Atom{atom.Header, atom.Nav, atom.Main, atom.Footer} {
		if count[a] == 0 {
			out = append(out, "no <"+a.String()+">")
		}
	}
	if count[atom.H1] != 1 {
		out = append(out, fmt.Sprintf("%d h1", count[atom.H1]))
	}
	if count[atom.Script] != 0 {
		out = append(out, "a script")
	}
	for _, id := range fields {
		if id == "" || !labels[id] {
			out = append(out, "a field without a label: "+id)
		}
	}
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// links returns every root-relative href, src and form action.
func links(doc *html.Node) []string {
	var out []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, k := range []string{"href", "src", "action"} {
				if v := attr(n, k); strings.HasPrefix(v, "/") {
					out = append(out, v)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// serverRoutes are paths the server answers without a published page.
var serverRoutes = regexp.MustCompile(`^/(api/(store|precheck|agent-checkout|agent-checkout/product-data|leaderboard|weekly/agent-checkout\.json|weekly/agent-checkout/\d{4}-\d{2}-\d{2}\.json)|validate/|data/(latest|svc-100|\d{4}-\d{2}-\d{2})/|data/$)`)

func linkResolves(files map[string][]byte, link string) bool {
	p, _, _ := strings.Cut(link, "?")
	p, _, _ = strings.Cut(p, "#")
	switch {
	case strings.HasPrefix(p, "/stores/") && strings.HasSuffix(p, "/"+BadgeFile):
		// The badge of a store that has a page: drawn by the server.
		return files[strings.TrimPrefix(strings.TrimSuffix(p, BadgeFile), "/")] != nil
	case strings.HasPrefix(p, "/stores/"):
		return files[strings.TrimPrefix(p, "/")] != nil // rendered by the server
	case strings.HasSuffix(p, "/"):
		if files[strings.TrimPrefix(p, "/")+"index.html"] != nil {
			return true
		}
	default:
		if files[strings.TrimPrefix(p, "/")] != nil {
			return true
		}
	}
	return serverRoutes.MatchString(p)
}
