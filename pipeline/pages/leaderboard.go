package pages

import (
	"context"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"

	"svc/publish"
)

type leaderboardData struct {
	Board *publish.Leaderboard
	Chart string // inline SVG, generated here
	Grid  []gridRow
	Paths []publish.AgentPathRow
}

type gridRow struct {
	publish.GridRow
	HasPage bool
	Cells   []*string // outcome per path, in path order
}

func (b *builder) leaderboard(ctx context.Context) error {
	board, err := b.leaderboardBoard()
	if err != nil {
		return err
	}
	body, err := b.render("leaderboard", leaderboardPage(board, func(host string) bool { return b.pages[host] }))
	if err != nil {
		return err
	}
	b.add(LeaderboardFile, body, false)
	return nil
}

// RenderLeaderboard renders the leaderboard page of board exactly as a
// snapshot publishes it (LeaderboardFile); hasPage says which hosts have a
// store page to link to. The server renders it when it lists outside
// runs accepted since the snapshot.
func RenderLeaderboard(w io.Writer, site *Site, board *publish.Leaderboard, hasPage func(host string) bool) error {
	p := leaderboardPage(board, hasPage)
	p.Site = site
	return renderPage(w, "leaderboard", p)
}

func leaderboardPage(board *publish.Leaderboard, hasPage func(host string) bool) *Page {
	d := &leaderboardData{Board: board}
	if board != nil {
		d.Paths = board.Paths
		d.Chart = leaderboardSVG(board.Paths)
		for _, g := range board.Stores {
			r := gridRow{GridRow: g, HasPage: hasPage(g.Host)}
			for _, p := range board.Paths {
				r.Cells = append(r.Cells, g.Outcomes[p.ID])
			}
			d.Grid = append(d.Grid, r)
		}
	}
	desc := "Cart success of AI agent paths over the fixed SVC-100 v1 test set, with Wilson 95% intervals. Stopped before payment."
	if board != nil && board.FixtureStandIn {
		desc = "Cart success of AI agent paths over the fixture world's stand-in for the SVC-100 v1 test set (synthetic stores, not real ones), " +
			"with Wilson 95% intervals. Stopped before payment."
	}
	return &Page{Title: "Agent leaderboard", Section: "leaderboard", Description: desc, Data: d}
}

// Chart geometry. The SVG has no viewBox, so nothing in it scales with
// its width: its text is set in rem (the labels at body size, at every
// width), its heights in em of that size, so a row keeps room for its
// label whatever the reader's text size, and its horizontal positions in
// percent of its width, so the bars stretch with the page.
const (
	lbTop    = 0.5 // em above the first row
	lbRow    = 3.2 // em per path: its label line and its bar
	lbBase   = 1.2 // em from a row's top to its label's baseline
	lbBar    = 1.6 // em from a row's top to its bar
	lbBarH   = 1.0 // em, the bar's height
	lbBottom = 2.0 // em below the rows: the axis labels
	lbAxis   = 0.875
)

// lbX is the x of a rate in percent of the chart's width: the axis spans
// 1 % to 99 %, so the whiskers at 0 and 1 are not cut.
func lbX(v float64) float64 { return 1 + v*98 }

// leaderboardSVG draws each path's cart-success rate as a bar with its
// Wilson 95% interval as an error whisker. The SVG is labelled for screen
// readers; the table beside it gives every number as text.
func leaderboardSVG(paths []publish.AgentPathRow) string {
	em := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + "em" }
	pc := func(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) + "%" }
	h := lbTop + float64(len(paths))*lbRow + lbBottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="bars" width="100%%" height="%s" role="img" aria-labelledby="lb-title lb-desc" xmlns="http://www.w3.org/2000/svg">`, em(h))
	b.WriteString(`<title id="lb-title">Cart success per agent path, with Wilson 95% intervals</title>`)
	var desc []string
	for _, p := range paths {
		if p.Rate == nil || p.Wilson95 == nil {
			desc = append(desc, chartLabel(p)+": "+unmeasured(p))
			continue
		}
		d := fmt.Sprintf("%s: %s (interval %s to %s, n %d", chartLabel(p), rate(*p.Rate), rate(p.Wilson95.Low), rate(p.Wilson95.High), p.N)
		if p.NotAttempted != nil && p.NotAttempted.Count > 0 {
			d += fmt.Sprintf("; %d not attempted, not counted", p.NotAttempted.Count)
		}
		desc = append(desc, d+")")
	}
	fmt.Fprintf(&b, `<desc id="lb-desc">%s.</desc>`, html.EscapeString(strings.Join(desc, "; ")))
	// Grid lines and axis labels every 25%.
	axisY := lbTop + float64(len(paths))*lbRow
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		x := pc(lbX(v))
		fmt.Fprintf(&b, `<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>`, x, em(lbTop), x, em(axisY))
		anchor := "middle"
		switch v {
		case 0:
			anchor = "start"
		case 1:
			anchor = "end"
		}
		// The axis text is smaller: its em is its own size.
		fmt.Fprintf(&b, `<text class="axis" x="%s" y="%s" text-anchor="%s">%d%%</text>`, x, em((axisY+1.5)/lbAxis), anchor, int(v*100))
	}
	for i, p := range paths {
		y := lbTop + float64(i)*lbRow
		fmt.Fprintf(&b, `<text class="label" x="%s" y="%s">%s</text>`, pc(lbX(0)), em(y+lbBase), html.EscapeString(chartLabel(p)))
		if p.Rate == nil || p.Wilson95 == nil {
			fmt.Fprintf(&b, `<text class="value" x="%s" y="%s" text-anchor="end">%s</text>`, pc(lbX(1)), em(y+lbBase), unmeasured(p))
			continue
		}
		barY := y + lbBar
		fmt.Fprintf(&b, `<text class="value" x="%s" y="%s" text-anchor="end">%s</text>`, pc(lbX(1)), em(y+lbBase), rate(*p.Rate))
		fmt.Fprintf(&b, `<rect class="track" x="%s" y="%s" width="%s" height="%s"/>`, pc(lbX(0)), em(barY), pc(lbX(1)-lbX(0)), em(lbBarH))
		if w := lbX(*p.Rate) - lbX(0); w > 0 {
			fmt.Fprintf(&b, `<rect class="bar" x="%s" y="%s" width="%s" height="%s"/>`, pc(lbX(0)), em(barY), pc(w), em(lbBarH))
		}
		lo, hi, mid := pc(lbX(p.Wilson95.Low)), pc(lbX(p.Wilson95.High)), em(barY+lbBarH/2)
		top, bottom := em(barY+0.125), em(barY+lbBarH-0.125)
		fmt.Fprintf(&b, `<line class="whisker" x1="%s" y1="%s" x2="%s" y2="%s"/>`, lo, mid, hi, mid)
		fmt.Fprintf(&b, `<line class="whisker" x1="%s" y1="%s" x2="%s" y2="%s"/>`, lo, top, lo, bottom)
		fmt.Fprintf(&b, `<line class="whisker" x1="%s" y1="%s" x2="%s" y2="%s"/>`, hi, top, hi, bottom)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// unmeasured is what the chart says of a path with no rate: not run (no
// run), or not measured (a run that attempted no store).
func unmeasured(p publish.AgentPathRow) string {
	if p.NotAttempted != nil && p.NotAttempted.Count > 0 {
		return "not measured"
	}
	return "not run"
}

// chartLabel is a path's label in the chart, with what its figure is not.
func chartLabel(p publish.AgentPathRow) string {
	switch {
	case p.FixtureData:
		return p.Label + " (fixture data, not measured)"
	case !p.Verified:
		return p.Label + " (unverified)"
	}
	return p.Label
}
