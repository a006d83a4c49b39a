package pages_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chromium finds the headless browser: $SVC_CHROMIUM, or Debian's
// chromium on the PATH.
func chromium() string {
	if p := os.Getenv("SVC_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// pageVisit is one page the browser test loads.
type pageVisit struct {
	name   string
	path   string // under the demo's base
	status int    // of the document
	// submit, when set, is run on the loaded page and must navigate to
	// the page checked (a form post).
	submit string
	// want is text the page must show.
	want string
}

// a11yCheck runs in the page and returns what is wrong with it: landmarks,
// one h1 and headings in order, labelled fields, alt text, labelled SVG,
// no script, the style sheet applied, no sideways scrolling, and words
// beside every coloured mark.
const a11yCheck = `(() => {
  const out = [];
  const doc = document.documentElement;
  if (!doc.lang) out.push('no lang attribute');
  if (!document.querySelector('meta[name=viewport]')) out.push('no viewport meta');
  if (!document.title) out.push('no title');
  for (const sel of ['header', 'nav', 'main', 'footer']) if (!document.querySelector(sel)) out.push('no <' + sel + '> landmark');
  const h1 = document.querySelectorAll('h1').length;
  if (h1 !== 1) out.push(h1 + ' h1 elements');
  let prev = 0;
  for (const h of document.querySelectorAll('h1,h2,h3,h4,h5,h6')) {
    const l = +h.tagName[1];
    if (prev && l > prev + 1) out.push('heading jumps from h' + prev + ' to h' + l + ': ' + h.textContent.trim().slice(0, 60));
    if (!h.textContent.trim()) out.push('empty heading');
    prev = l;
  }
  for (const el of document.querySelectorAll('input:not([type=hidden]), textarea, select')) {
    if (!(el.labels && el.labels.length) && !el.getAttribute('aria-label')) out.push('unlabelled field ' + (el.name || el.id));
  }
  for (const img of document.querySelectorAll('img')) {
    if (!img.hasAttribute('alt')) out.push('img without alt: ' + img.src);
    if (!img.complete || img.naturalWidth === 0) out.push('image did not load: ' + img.src);
  }
  for (const svg of document.querySelectorAll('svg')) {
    if (svg.getAttribute('role') !== 'img' || !svg.querySelector('title')) out.push('inline svg without role=img and a title');
  }
  for (const a of document.querySelectorAll('a[href]')) {
    if (!a.textContent.trim() && !a.getAttribute('aria-label')) out.push('link without text: ' + a.href);
  }
  const ids = new Set();
  for (const el of document.querySelectorAll('[id]')) { if (ids.has(el.id)) out.push('duplicate id ' + el.id); ids.add(el.id); }
  for (const attr of ['aria-labelledby', 'aria-describedby']) {
    for (const el of document.querySelectorAll('[' + attr + ']')) {
      for (const id of el.getAttribute(attr).split(/\s+/)) if (!document.getElementById(id)) out.push(attr + ' names no element: ' + id);
    }
  }
  for (const t of document.querySelectorAll('.tri')) {
    const words = [...t.childNodes].filter(n => !(n.nodeType === 1 && n.getAttribute('aria-hidden') === 'true')).map(n => n.textContent).join('').trim();
    if (!words) out.push('a coloured mark without words');
  }
  for (const r of document.querySelectorAll('[role=region]')) if (!r.getAttribute('aria-labelledby') && !r.getAttribute('aria-label')) out.push('region without a name');
  if (document.scripts.length) out.push(document.scripts.length + ' script elements');
  const header = document.querySelector('header.site');
  if (header && getComputedStyle(header).backgroundColor === 'rgba(0, 0, 0, 0)') out.push('the style sheet is not applied');
  if (doc.scrollWidth > window.innerWidth + 1) out.push('the page scrolls sideways: ' + doc.scrollWidth + 'px in ' + window.innerWidth + 'px');
  return out;
})()`

// TestPagesInChromium loads every kind of page from the demo server in
// headless Chromium, at desktop and phone widths: no console error, no
// failed or outside request, the accessibility checks above, and a
// screenshot of each into $SVC_SCREENSHOT_DIR or the test's artifact
// folder (go test -artifacts keeps it).
func TestPagesInChromium(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium binary found (install Debian's chromium package, or set SVC_CHROMIUM): the pages are not loaded in a browser")
	}
	d := sharedDemo(t)
	byVerdict := d.storesByVerdict(t)
	need := func(v string, i int) string {
		hs := byVerdict[v]
		if len(hs) <= i {
			t.Fatalf("the demo has no %d stores with verdict %s", i+1, v)
		}
		return hs[i]
	}
	answered := answeredStores(t, byVerdict, 2)
	buyer, blocked, live := answered[0], need("blocked", 0), answered[1]
	// A live check after the snapshot: its page is rendered by the server.
	var ans struct {
		ResultURL string `json:"resultUrl"`
	}
	d.getJSON(t, "/api/agent-checkout?url="+url.QueryEscape("https://"+live+"/"), &ans)
	var weekly struct {
		Date string `json:"date"`
	}
	d.getJSON(t, "/api/weekly/agent-checkout.json", &weekly)

	visits := []pageVisit{
		{name: "home", path: "/", status: 200, want: "Can AI agents buy here?"},
		{name: "directory", path: "/directory/", status: 200, want: "Store directory"},
		{name: "directory-category", path: "/directory/footwear/", status: 200, want: "Footwear stores"},
		{name: "store", path: "/stores/" + buyer + "/", status: 200, want: "Every rail"},
		{name: "store-blocked", path: "/stores/" + blocked + "/", status: 200, want: "Blocked the check"},
		{name: "store-live", path: ans.ResultURL, status: 200, want: "Newer live check"},
		{name: "store-unknown", path: "/stores/never-checked.test/", status: 404, want: "No saved check of never-checked.test"},
		{name: "leaderboard", path: "/leaderboard/", status: 200, want: "Unverified outside submissions"},
		{name: "weekly", path: "/weekly/", status: 200, want: "Every edition"},
		{name: "weekly-edition", path: "/weekly/" + weekly.Date + "/", status: 200, want: "Cite this figure"},
		{name: "weekly-chart", path: "/api/weekly/agent-checkout/" + weekly.Date + ".svg", status: 200},
		{name: "validate", path: "/validate/", status: 200, want: "Validate a pasted profile"},
		{name: "validate-url", path: "/validate/?url=" + url.QueryEscape(buyer), status: 200, want: "Report"},
		{name: "validate-post", path: "/validate/", status: 200, want: "Not a valid UCP profile",
			// A version that is no date breaks a rule: invalid with or without the schemas.
			submit: `document.getElementById('profile').value = '{"ucp": {"version": "draft", "services": {}}}'; document.querySelector('form[method=post]').submit();`},
		{name: "datasets", path: "/data/", status: 200, want: "Query it with DuckDB"},
		{name: "not-found", path: "/directory/no-such-category/", status: 404, want: "Page not found"},
	}

	out := os.Getenv("SVC_SCREENSHOT_DIR")
	if out == "" {
		out = t.ArtifactDir()
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// Generous deadlines: the test machines are shared, and a loaded one
	// renders slowly.
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
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
	for i, v := range visits {
		for _, vp := range []viewport{desktop, phone} {
			t.Run(fmt.Sprintf("%s/%s", v.name, vp.name), func(t *testing.T) {
				pctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
				defer cancel()
				shot := filepath.Join(out, fmt.Sprintf("%02d-%s-%s.png", i+1, v.name, vp.name))
				visitPage(t, pctx, b, d.base, v, vp, shot)
			})
		}
	}
	t.Logf("screenshots in %s", out)
}

type viewport struct {
	name          string
	width, height int
	mobile        bool
}

var (
	desktop = viewport{"desktop", 1280, 900, false}
	phone   = viewport{"phone", 390, 844, true}
)

func visitPage(t *testing.T, ctx context.Context, b *browser, base string, v pageVisit, vp viewport, shot string) {
	if err := b.page(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": vp.width, "height": vp.height, "deviceScaleFactor": 1, "mobile": vp.mobile}, nil); err != nil {
		t.Fatal(err)
	}
	target := base + v.path
	from := b.mark()
	if err := b.page(ctx, "Page.navigate", map[string]any{"url": target}, nil); err != nil {
		t.Fatal(err)
	}
	loaded := func(e cdpEvent) bool { return e.Method == "Page.loadEventFired" }
	if err := b.waitFor(ctx, from, loaded); err != nil {
		t.Fatalf("%s did not load: %v", target, err)
	}
	if v.submit != "" {
		// The form is posted as a person would: the page runs no script.
		from = b.mark()
		if err := b.eval(ctx, v.submit, nil); err != nil {
			t.Fatal(err)
		}
		if err := b.waitFor(ctx, from, loaded); err != nil {
			t.Fatalf("the form post from %s did not load: %v", target, err)
		}
	}
	if err := b.settle(ctx, from, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for _, p := range pageProblems(b.eventsSince(from), base, v.status) {
		t.Error(p)
	}
	if v.want != "" {
		var text string
		if err := b.eval(ctx, `document.body.innerText`, &text); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, v.want) {
			t.Errorf("%s does not show %q", target, v.want)
		}
	}
	if !strings.HasSuffix(v.path, ".svg") {
		var problems []string
		if err := b.eval(ctx, a11yCheck, &problems); err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s at %s width: %s", target, vp.name, p)
		}
	}
	if err := screenshot(ctx, b, vp, shot); err != nil {
		t.Errorf("screenshot: %v", err)
	}
}

// pageProblems reads a page load's events: console errors, exceptions,
// error log entries, failed requests, error statuses (but the document's
// expected one) and requests that leave the site.
func pageProblems(events []cdpEvent, base string, docStatus int) []string {
	var out []string
	var docURL string
	for _, e := range events {
		switch e.Method {
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string `json:"type"`
				Args []struct {
					Value any `json:"value"`
				} `json:"args"`
			}
			json.Unmarshal(e.Params, &p)
			if p.Type == "error" || p.Type == "assert" || p.Type == "warning" {
				out = append(out, fmt.Sprintf("console %s: %v", p.Type, p.Args))
			}
		case "Runtime.exceptionThrown":
			out = append(out, "exception: "+string(e.Params))
		case "Network.requestWillBeSent":
			var p struct {
				Type    string `json:"type"`
				Request struct {
					URL string `json:"url"`
				} `json:"request"`
			}
			json.Unmarshal(e.Params, &p)
			if p.Type == "Document" && docURL == "" {
				docURL = p.Request.URL
			}
			if !strings.HasPrefix(p.Request.URL, base+"/") && !strings.HasPrefix(p.Request.URL, "data:") && p.Request.URL != "about:blank" {
				out = append(out, "request outside the site: "+p.Request.URL)
			}
		case "Network.responseReceived":
			var p struct {
				Type     string `json:"type"`
				Response struct {
					URL    string `json:"url"`
					Status int    `json:"status"`
				} `json:"response"`
			}
			json.Unmarshal(e.Params, &p)
			switch {
			case p.Type == "Document":
				if p.Response.Status != docStatus {
					out = append(out, fmt.Sprintf("%s answered %d, want %d", p.Response.URL, p.Response.Status, docStatus))
				}
			case p.Response.Status >= 400:
				out = append(out, fmt.Sprintf("%s answered %d", p.Response.URL, p.Response.Status))
			}
		case "Network.loadingFailed":
			var p struct {
				ErrorText     string `json:"errorText"`
				BlockedReason string `json:"blockedReason"`
				Type          string `json:"type"`
			}
			json.Unmarshal(e.Params, &p)
			out = append(out, fmt.Sprintf("a %s request failed: %s %s", p.Type, p.ErrorText, p.BlockedReason))
		case "Log.entryAdded":
			var p struct {
				Entry struct {
					Level  string `json:"level"`
					Text   string `json:"text"`
					URL    string `json:"url"`
					Source string `json:"source"`
				} `json:"entry"`
			}
			json.Unmarshal(e.Params, &p)
			if p.Entry.Level != "error" && p.Entry.Level != "warning" {
				continue
			}
			// The document's own expected error status is logged too.
			if docStatus >= 400 && p.Entry.Source == "network" && p.Entry.URL == docURL &&
				strings.Contains(p.Entry.Text, fmt.Sprintf("status of %d", docStatus)) {
				continue
			}
			out = append(out, fmt.Sprintf("log %s (%s): %s %s", p.Entry.Level, p.Entry.Source, p.Entry.Text, p.Entry.URL))
		}
	}
	return out
}

// screenshot writes the page (its first 6,000 CSS pixels) as PNG.
func screenshot(ctx context.Context, b *browser, vp viewport, path string) error {
	var lm struct {
		CSSContentSize struct {
			Height float64 `json:"height"`
		} `json:"cssContentSize"`
	}
	if err := b.page(ctx, "Page.getLayoutMetrics", nil, &lm); err != nil {
		return err
	}
	h := min(max(lm.CSSContentSize.Height, float64(vp.height)), 6000)
	var shot struct {
		Data string `json:"data"`
	}
	if err := b.page(ctx, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true, "optimizeForSpeed": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": vp.width, "height": h, "scale": 1}}, &shot); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}
