package pages

import (
	"context"
	"fmt"
	"slices"
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

	for _, c := range cats {
		if err := ctx.Err(); err != nil {
			return err
		}
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
			body, err := b.render("directory", &Page{Title: title, Section: "directory",
				Description: "Stores in the " + c.Name + " category, with whether AI agents can reach checkout at each.", Data: d})
			if err != nil {
				return err
			}
			b.add(categoryPageFile(c.Slug, k), body, false)
		}
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
