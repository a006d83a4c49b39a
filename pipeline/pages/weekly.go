package pages

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"svc/publish"
)

// chartBars are the chart's bars of an edition: the segments, then every
// store.
func chartBars(e *publish.WeeklyEdition) []publish.WeeklySegment {
	out := slices.Clone(e.Segments)
	label := "All checked stores"
	if e.Market != "" {
		label = "All " + e.Market + " stores"
	}
	return append(out, publish.WeeklySegment{ID: "all", Label: label, N: e.N, Count: e.Count, Pct: e.Pct})
}

// chartTitle is the chart's title and subtitle: editions that cover one
// market count UCP checkout links there; earlier ones counted any checkout
// link a plain-HTTP agent saw.
func chartTitle(e *publish.WeeklyEdition) (title, subtitle string) {
	if e.Market != "" {
		return e.Market + " stores returning a UCP checkout link", "Week of " + e.Date + " · UCP agent path · stopped before payment"
	}
	return "Share of stores returning a checkout link", "Week of " + e.Date + " · plain-HTTP agent check · stopped before payment"
}

type weeklyData struct {
	Edition          *publish.WeeklyEdition
	Bars             []publish.WeeklySegment
	Height           int // of the chart
	PageURL          string
	JSONURL, SVGURL  string
	Prev, Next       string // dates of the neighbouring editions, "" when none
	PrevURL, NextURL string
}

type weeklyIndex struct {
	Latest   *weeklyData
	Editions []*publish.WeeklyEdition // newest first
}

// weekly renders a page per edition (this run's and every one already
// published), the index of editions, and the chart of each edition that
// has none yet, frozen beside its JSON.
func (b *builder) weekly(ctx context.Context) error {
	eds, svgs, err := b.editions(ctx)
	if err != nil {
		return err
	}
	idx := &weeklyIndex{}
	for i, e := range eds {
		d := &weeklyData{Edition: e, Bars: chartBars(e), Height: weeklySVGHeight(e),
			PageURL: b.site.Link("/weekly/" + e.Date + "/"),
			JSONURL: b.site.Link("/" + publish.WeeklyDir + "/" + e.Date + ".json"), SVGURL: b.site.Link("/" + WeeklySVGFile(e.Date))}
		if i > 0 {
			d.Next, d.NextURL = eds[i-1].Date, b.site.Link("/weekly/"+eds[i-1].Date+"/")
		}
		if i+1 < len(eds) {
			d.Prev, d.PrevURL = eds[i+1].Date, b.site.Link("/weekly/"+eds[i+1].Date+"/")
		}
		if i == 0 {
			idx.Latest = d
		}
		isNew := b.in.Weekly != nil && b.in.Weekly.Date == e.Date
		if isNew || !svgs[e.Date] {
			b.add(WeeklySVGFile(e.Date), weeklySVG(e), true)
		}
		body, err := b.render("edition", &Page{Title: "Weekly figure, week of " + e.Date, Section: "weekly",
			Description: e.Headline, Data: d})
		if err != nil {
			return err
		}
		b.add("weekly/"+e.Date+"/index.html", body, false)
	}
	idx.Editions = eds
	body, err := b.render("weekly", &Page{Title: "Weekly figure", Section: "weekly",
		Description: "Each week, one frozen figure: the share of US stores whose UCP services returned a checkout link to an agent.", Data: idx})
	if err != nil {
		return err
	}
	b.add(WeeklyFile, body, false)
	return nil
}

// editions returns every edition, newest first: the ones published, and
// this run's (which wins over a published one of the same date), and the
// dates whose chart is already published.
func (b *builder) editions(ctx context.Context) ([]*publish.WeeklyEdition, map[string]bool, error) {
	bodies := map[string][]byte{}
	svgs := map[string]bool{}
	if st := b.in.Published; st != nil {
		names, err := st.List(ctx, publish.WeeklyDir)
		if err != nil {
			return nil, nil, err
		}
		for _, n := range names {
			if d, ok := strings.CutSuffix(n, ".svg"); ok {
				svgs[d] = true
				continue
			}
			d, ok := strings.CutSuffix(n, ".json")
			if !ok || !isDate(d) {
				continue
			}
			body, err := readPublished(ctx, st, publish.WeeklyDir+"/"+n)
			if err != nil {
				return nil, nil, err
			}
			bodies[d] = body
		}
	}
	if w := b.in.Weekly; w != nil {
		bodies[w.Date] = w.Body
	}
	var out []*publish.WeeklyEdition
	for _, d := range slices.Sorted(maps.Keys(bodies)) {
		var e publish.WeeklyEdition
		if err := json.Unmarshal(bodies[d], &e); err != nil {
			return nil, nil, fmt.Errorf("weekly edition %s: %w", d, err)
		}
		e.Date = d
		out = append(out, &e)
	}
	slices.Reverse(out)
	return out, svgs, nil
}

func readPublished(ctx context.Context, st publish.Store, name string) ([]byte, error) {
	r, err := st.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// isDate reports whether s looks like YYYY-MM-DD.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range s {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// The weekly chart's geometry.
const (
	wkWidth = 640
	wkLeft  = 24
	wkTrack = 480 // bar length at 100%
	wkTop   = 84
	wkRow   = 70
)

// weeklySVG draws an edition as a standalone SVG: a horizontal bar per
// segment and one for every store, labelled with its share and counts.
// It carries the edition's headline as its title, its alt_text as its
// description, and the CC-BY line.
func weeklySVGHeight(e *publish.WeeklyEdition) int { return wkTop + len(chartBars(e))*wkRow + 56 }

func weeklySVG(e *publish.WeeklyEdition) []byte {
	bars := chartBars(e)
	h := weeklySVGHeight(e)
	var b strings.Builder
	esc := html.EscapeString
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-labelledby="title desc" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif">`+"\n",
		wkWidth, h, wkWidth, h)
	fmt.Fprintf(&b, "<title id=\"title\">%s</title>\n<desc id=\"desc\">%s</desc>\n", esc(e.Headline), esc(e.AltText))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", wkWidth, h)
	title, subtitle := chartTitle(e)
	fmt.Fprintf(&b, `<text x="%d" y="34" font-size="18" font-weight="700" fill="#16191d">%s</text>`+"\n", wkLeft, esc(title))
	fmt.Fprintf(&b, `<text x="%d" y="58" font-size="14" fill="#3d4550">%s</text>`+"\n", wkLeft, esc(subtitle))
	for i, s := range bars {
		y := wkTop + i*wkRow
		weight := "400"
		if s.ID == "all" {
			weight = "700"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="15" font-weight="%s" fill="#16191d">%s</text>`+"\n", wkLeft, y+14, weight, esc(s.Label))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="22" fill="#e3e7ec"/>`+"\n", wkLeft, y+22, wkTrack)
		if s.Pct != nil {
			w := *s.Pct / 100 * wkTrack
			if w > 0 {
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%s" height="22" fill="#1f56a8"/>`+"\n", wkLeft, y+22, strconv.FormatFloat(w, 'f', 1, 64))
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="16" font-weight="700" fill="#16191d">%s</text>`+"\n", wkLeft+wkTrack+12, y+39, pct1(s.Pct))
		} else {
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="14" fill="#3d4550">not measured</text>`+"\n", wkLeft+wkTrack+12, y+39)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="13" fill="#3d4550">%s of %s stores</text>`+"\n", wkLeft, y+60, comma(s.Count), comma(s.N))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" fill="#3d4550">%s</text>`+"\n", wkLeft, h-34, esc("svc weekly figure "+e.Date+" · dataset version "+e.DatasetVersion))
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" fill="#3d4550">%s</text>`+"\n", wkLeft, h-16, esc(e.CCBY))
	b.WriteString("</svg>\n")
	return []byte(b.String())
}
