package pages

import (
	"context"
	"fmt"
	"html/template"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The directory: /directory/ shows every category with its first stores;
// /directory/<category>/ lists one category, dirPageSize stores a page
// (/directory/<category>/2/, ...). Filtering is by links, so it works
// without JavaScript.
const (
	dirPreview  = 50  // stores per category on /directory/
	dirPageSize = 500 // stores per category page
)

type dirCategory struct {
	Slug     string
	Name     string
	Count    int
	Verdicts []verdictCount
}

type verdictCount struct {
	verdictInfo
	Count int
}

type dirSection struct {
	dirCategory
	Rows []dirEntry
	More bool // the section shows only the first rows
}

type pageLink struct {
	N       int
	URL     string
	Current bool
}

type directoryData struct {
	Total      int
	Categories []dirCategory // every category, for the filter links
	Current    *dirCategory  // the category of a category page
	Sections   []dirSection
	Legend     []verdictInfo
	Pages      []pageLink // pages of a category, when more than one
	Page       int
	FirstRow   int // 1-based number of the page's first row
}

func (b *builder) directory(ctx context.Context) error {
	sortEntries(b.listed)
	var cats []dirCategory
	byCat := map[string][]dirEntry{}
	for _, e := range b.listed {
		if _, ok := byCat[e.Category]; !ok {
			cats = append(cats, dirCategory{Slug: e.Category, Name: categoryName(e.Category)})
		}
		byCat[e.Category] = append(byCat[e.Category], e)
	}
	for i := range cats {
		cats[i].Count = len(byCat[cats[i].Slug])
		cats[i].Verdicts = countVerdicts(byCat[cats[i].Slug])
	}
	all := &directoryData{Total: len(b.listed), Categories: cats, Legend: legend()}
	for _, c := range cats {
		rows := byCat[c.Slug]
		sec := dirSection{dirCategory: c, Rows: rows}
		if len(rows) > dirPreview {
			sec.Rows, sec.More = rows[:dirPreview], true
		}
		all.Sections = append(all.Sections, sec)
	}
	body, err := b.render("directory", &Page{Title: "Store directory", Section: "directory",
		Description: "Stores svc checks, by category, with whether AI agents can reach checkout at each.", Data: all})
	if err != nil {
		return err
	}
	b.add(DirectoryFile, body, false)

	// The category pages, one row per listed store in all: rendered on
	// every core, added in order.
	type job struct {
		file string
		page *Page
		body []byte
		err  error
	}
	var jobs []*job
	for _, c := range cats {
		rows := byCat[c.Slug]
		n := (len(rows) + dirPageSize - 1) / dirPageSize
		var links []pageLink
		if n > 1 {
			for k := 1; k <= n; k++ {
				links = append(links, pageLink{N: k, URL: categoryPageURL(c.Slug, k)})
			}
		}
		for k := 1; k <= n; k++ {
			lo, hi := (k-1)*dirPageSize, min(k*dirPageSize, len(rows))
			cur := c
			d := &directoryData{Total: len(b.listed), Categories: cats, Current: &cur, Legend: all.Legend,
				Sections: []dirSection{{dirCategory: c, Rows: rows[lo:hi]}}, Page: k, FirstRow: lo + 1}
			if links != nil {
				d.Pages = make([]pageLink, len(links))
				copy(d.Pages, links)
				d.Pages[k-1].Current = true
			}
			title := c.Name + " stores"
			if n > 1 {
				title += fmt.Sprintf(", page %d of %d", k, n)
			}
			jobs = append(jobs, &job{file: categoryPageFile(c.Slug, k), page: &Page{Title: title, Section: "directory",
				Description: "Stores in the " + c.Name + " category, with whether AI agents can reach checkout at each.", Data: d}})
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) || ctx.Err() != nil {
					return
				}
				jobs[i].body, jobs[i].err = b.render("directory", jobs[i].page)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, j := range jobs {
		if j.err != nil {
			return j.err
		}
		b.add(j.file, j.body, false)
	}
	return nil
}

func countVerdicts(rows []dirEntry) []verdictCount {
	counts := map[string]int{}
	for _, r := range rows {
		counts[derefStr(r.Verdict)]++
	}
	var out []verdictCount
	for _, v := range legend() {
		if n := counts[v.Code]; n > 0 {
			out = append(out, verdictCount{v, n})
		}
	}
	return out
}

// legend is every verdict, then the unmeasured one.
func legend() []verdictInfo { return append(slices.Clone(verdicts), verdictOf(nil)) }

func categoryPageURL(slug string, k int) string {
	if k == 1 {
		return "/directory/" + slug + "/"
	}
	return fmt.Sprintf("/directory/%s/%d/", slug, k)
}

func categoryPageFile(slug string, k int) string {
	if k == 1 {
		return "directory/" + slug + "/index.html"
	}
	return fmt.Sprintf("directory/%s/%d/index.html", slug, k)
}

// dirRows renders the rows of a directory table. They are most of the
// directory's bytes (one row per listed store in all), and the template
// engine spent more time on them than on writing every table, so they are
// written here, with the markup and the escaping the template gave them
// (TestDirRowsLikeTemplate):
//
//	<tr><th scope="row"><a href="{{$site.Link (store .Host)}}">{{.Name}}</a> <span class="host">{{.Host}}</span></th>
//	<td>{{template "verdict" .Verdict}}</td>
//	<td>{{with .Score}}{{num .}}<span class="sub">/100</span>{{else}}<span class="sub">not measured</span>{{end}}</td>
//	<td>{{with .CheckedAt}}<time datetime="{{iso .}}">{{day .}}</time>{{else}}<span class="sub">never</span>{{end}}</td></tr>
//
// each row on a line of its own, without line breaks inside.
func dirRows(site *Site, rows []dirEntry) template.HTML {
	var b strings.Builder
	b.Grow(len(rows) * 400)
	for _, e := range rows {
		b.WriteString("\n<tr><th scope=\"row\"><a href=\"")
		htmlEscape(&b, site.Link(StoreURL(e.Host)))
		b.WriteString("\">")
		htmlEscape(&b, e.Name)
		b.WriteString("</a> <span class=\"host\">")
		htmlEscape(&b, e.Host)
		b.WriteString("</span></th><td>")
		v := verdictOf(e.Verdict)
		b.WriteString("<span class=\"tri ")
		htmlEscape(&b, v.Class)
		b.WriteString("\"><span aria-hidden=\"true\">")
		htmlEscape(&b, v.Mark)
		b.WriteString("</span> ")
		htmlEscape(&b, v.Words)
		b.WriteString("</span></td><td>")
		if e.Score != nil {
			b.WriteString(strconv.FormatInt(*e.Score, 10))
			b.WriteString("<span class=\"sub\">/100</span>")
		} else {
			b.WriteString("<span class=\"sub\">not measured</span>")
		}
		b.WriteString("</td><td>")
		if e.CheckedAt != nil {
			b.WriteString("<time datetime=\"")
			htmlEscape(&b, iso(e.CheckedAt))
			b.WriteString("\">")
			b.WriteString(e.CheckedAt.UTC().Format(time.DateOnly))
			b.WriteString("</time>")
		} else {
			b.WriteString("<span class=\"sub\">never</span>")
		}
		b.WriteString("</td></tr>")
	}
	return template.HTML(b.String())
}

// htmlEscape writes s escaped as html/template escapes text and quoted
// attribute values.
func htmlEscape(b *strings.Builder, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var r string
		switch s[i] {
		case 0:
			r = "\uFFFD"
		case '"':
			r = "&#34;"
		case '&':
			r = "&amp;"
		case '\'':
			r = "&#39;"
		case '+':
			r = "&#43;"
		case '<':
			r = "&lt;"
		case '>':
			r = "&gt;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(r)
		last = i + 1
	}
	b.WriteString(s[last:])
}
