package pages_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"svc/pipeline/pages"
	"svc/publish"
)

// chartTextSizes runs in the leaderboard page and returns, for every text
// of the chart, the size it is drawn at in CSS px: its computed font size
// times the scale of its screen transform (a viewBox scales text that
// getComputedStyle alone does not show), beside the body's font size and
// the page's h2. It also reports a label that runs into its value or out
// of the chart.
const chartTextSizes = `(() => {
  const body = parseFloat(getComputedStyle(document.body).fontSize);
  const h2 = parseFloat(getComputedStyle(document.querySelector('h2')).fontSize);
  const svg = document.querySelector('figure svg');
  const box = svg.getBoundingClientRect();
  const texts = [];
  const problems = [];
  for (const el of svg.querySelectorAll('text')) {
    const m = el.getScreenCTM();
    const scale = Math.hypot(m.a, m.b);
    texts.push({cls: el.getAttribute('class'), text: el.textContent, px: parseFloat(getComputedStyle(el).fontSize) * scale,
      weight: getComputedStyle(el).fontWeight});
    const r = el.getBoundingClientRect();
    if (r.left < box.left - 1 || r.right > box.right + 1) problems.push(el.textContent + ' runs out of the chart');
  }
  const labels = [...svg.querySelectorAll('text.label')], values = [...svg.querySelectorAll('text.value')];
  labels.forEach((l, i) => {
    const v = values[i];
    if (v && l.getBoundingClientRect().right > v.getBoundingClientRect().left) problems.push(l.textContent + ' runs into its value ' + v.textContent);
  });
  return {body, h2, width: window.innerWidth, texts, problems};
})()`

// chartBoard is a board of seven paths as the snapshot publishes it:
// measured, not attempted (no rate) and not run.
func chartBoard() *publish.Leaderboard {
	b := &publish.Leaderboard{TestSet: "SVC-100 v1", TestSetSize: 100, SnapshotDate: "2026-11-23",
		TestSetURL: "/data/svc-100/v1/svc-100.csv", SubmissionSchemaURL: "/data/svc-100/v1/submission.schema.json",
		Methodology: "Test board.", Unverified: publish.UnverifiedRuns{Note: "None.", Runs: []publish.SubmissionRow{}}}
	labels := []string{"Browser shopper A", "Browser shopper B", "Browser shopper C", "Browser shopper D", "Browser shopper E", "UCP path", "Storefront MCP path"}
	for i, l := range labels {
		p := publish.AgentPathRow{ID: fmt.Sprint("p", i), Label: l, Path: "browser", Verified: true, Status: "measured", Evidence: "Measured"}
		switch i {
		case 3:
			p.Status, p.Evidence = "not_run", "Not measured"
		case 5:
			p.Status, p.Evidence = "not_attempted", "Not measured"
			p.Outcomes = &publish.OutcomeCounts{NotAttempted: 100}
			p.NotAttempted = &publish.NotAttempted{Count: 100, Reasons: []publish.ReasonCount{{Reason: "ucp_binding_not_driven", Count: 100}}}
		default:
			k, n := 10*i+5, 100
			r := float64(k) / float64(n)
			p.N, p.CartSuccesses, p.Rate = n, &k, &r
			p.Wilson95 = &publish.Interval{Low: max(0, r-0.08), High: r + 0.09}
			p.Outcomes = &publish.OutcomeCounts{AddedToCart: k, NoCart: n - k}
			p.NotAttempted = &publish.NotAttempted{Reasons: []publish.ReasonCount{}}
		}
		b.Paths = append(b.Paths, p)
	}
	return b
}

// TestLeaderboardChartLabelsBodySize is issue 35.4: the leaderboard
// chart's labels are drawn at the body's size at every width, not scaled
// with the SVG (they were about 28 px bold at 1280 px, above the h2).
// Chromium renders the page at 360, 1280 and 1920 px; each label and value
// must be within 1 px of the body's font size (the same CSS size, so only
// rounding separates them), the axis no larger, none above the h2, and no
// label may run into its value or out of the chart.
func TestLeaderboardChartLabelsBodySize(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium binary found (install Debian's chromium package, or set SVC_CHROMIUM)")
	}
	var page bytes.Buffer
	if err := pages.RenderLeaderboard(&page, &pages.Site{}, chartBoard(), func(string) bool { return false }); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if body, ok := pages.Asset(strings.TrimPrefix(r.URL.Path, "/")); ok {
			w.Header().Set("Content-Type", "text/css")
			w.Write(body)
			return
		}
		if r.URL.Path != "/leaderboard/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page.Bytes())
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	b, err := startBrowser(ctx, bin, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := b.close(); err != nil {
			t.Logf("closing chromium: %v", err)
		}
	}()
	if err := b.openPage(ctx); err != nil {
		t.Fatalf("%v\nchromium said:\n%s", err, b.stderr.String())
	}
	for _, width := range []int{360, 1280, 1920} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			if err := b.page(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
				"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600}, nil); err != nil {
				t.Fatal(err)
			}
			from := b.mark()
			if err := b.page(ctx, "Page.navigate", map[string]any{"url": srv.URL + "/leaderboard/"}, nil); err != nil {
				t.Fatal(err)
			}
			if err := b.waitFor(ctx, from, func(e cdpEvent) bool { return e.Method == "Page.loadEventFired" }); err != nil {
				t.Fatal(err)
			}
			var got struct {
				Body, H2 float64
				Width    int
				Texts    []struct {
					Cls, Text, Weight string
					Px                float64
				}
				Problems []string
			}
			if err := b.eval(ctx, chartTextSizes, &got); err != nil {
				t.Fatal(err)
			}
			if got.Width != width {
				t.Fatalf("the window is %d px wide, want %d", got.Width, width)
			}
			labels := 0
			for _, x := range got.Texts {
				switch x.Cls {
				case "label", "value":
					labels++
					if d := x.Px - got.Body; d > 1 || d < -1 {
						t.Errorf("%s %q is %.1f px, the body %.1f px", x.Cls, x.Text, x.Px, got.Body)
					}
				case "axis":
					if x.Px > got.Body+1 || x.Px < 0.75*got.Body {
						t.Errorf("axis %q is %.1f px, the body %.1f px", x.Text, x.Px, got.Body)
					}
				}
				if x.Px >= got.H2 {
					t.Errorf("%s %q is %.1f px, not below the h2's %.1f px", x.Cls, x.Text, x.Px, got.H2)
				}
			}
			if labels != 14 {
				t.Errorf("%d labels and values, want 14 (7 paths)", labels)
			}
			for _, p := range got.Problems {
				t.Error(p)
			}
		})
	}
}
