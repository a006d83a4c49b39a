package pages

import (
	"context"
	"fmt"
	"html"
	"io"
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

// Chart geometry, in SVG user units: the chart scales with its container.
const (
	lbWidth  = 480
	lbLeft   = 8
	lbRight  = 472 // the axis spans lbLeft..lbRight
	lbTop    = 8
	lbRow    = 60 // one path: its label line and its bar
	lbBottom = 40 // the axis labels
)

func lbX(v float64) float64 { return lbLeft + v*(lbRight-lbLeft) }

// leaderboardSVG draws each path's cart-success rate as a bar with its
// Wilson 95% interval as an error whisker. The SVG is labelled for screen
// readers; the table beside it gives every number as text.
func leaderboardSVG(paths []publish.AgentPathRow) string {
	h := lbTop + len(paths)*lbRow + lbBottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-labelledby="lb-title lb-desc" xmlns="http://www.w3.org/2000/svg">`, lbWidth, h)
	b.WriteString(`<title id="lb-title">Cart success per agent path, with Wilson 95% intervals</title>`)
	var desc []string
	for _, p := range paths {
		if p.Rate == nil || p.Wilson95 == nil {
			desc = append(desc, p.Label+": not run")
			continue
		}
		desc = append(desc, fmt.Sprintf("%s: %s (interval %s to %s, n %d)", chartLabel(p), rate(*p.Rate), rate(p.Wilson95.Low), rate(p.Wilson95.High), p.N))
	}
	fmt.Fprintf(&b, `<desc id="lb-desc">%s.</desc>`, html.EscapeString(strings.Join(desc, "; ")))
	// Grid lines and axis labels every 25%.
	axisY := lbTop + len(paths)*lbRow
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		x := lbX(v)
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`, x, lbTop, x, axisY)
		anchor := "middle"
		switch v {
		case 0:
			anchor = "start"
		case 1:
			anchor = "end"
		}
		fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%d" text-anchor="%s">%d%%</text>`, x, axisY+24, anchor, int(v*100))
	}
	for i, p := range paths {
		y := lbTop + i*lbRow
		fmt.Fprintf(&b, `<text class="label" x="%d" y="%d">%s</text>`, lbLeft, y+20, html.EscapeString(chartLabel(p)))
		barY := y + 28
		if p.Rate == nil || p.Wilson95 == nil {
			fmt.Fprintf(&b, `<text class="value" x="%d" y="%d" text-anchor="end">not run</text>`, lbRight, y+20)
			continue
		}
		fmt.Fprintf(&b, `<text class="value" x="%d" y="%d" text-anchor="end">%s</text>`, lbRight, y+20, rate(*p.Rate))
		fmt.Fprintf(&b, `<rect class="track" x="%d" y="%d" width="%d" height="16"/>`, lbLeft, barY, lbRight-lbLeft)
		if w := lbX(*p.Rate) - lbLeft; w > 0 {
			fmt.Fprintf(&b, `<rect class="bar" x="%d" y="%d" width="%.1f" height="16"/>`, lbLeft, barY, w)
		}
		lo, hi, mid := lbX(p.Wilson95.Low), lbX(p.Wilson95.High), barY+8
		fmt.Fprintf(&b, `<line class="whisker" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`, lo, mid, hi, mid)
		fmt.Fprintf(&b, `<line class="whisker" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`, lo, barY+2, lo, barY+14)
		fmt.Fprintf(&b, `<line class="whisker" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`, hi, barY+2, hi, barY+14)
	}
	b.WriteString(`</svg>`)
	return b.String()
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
