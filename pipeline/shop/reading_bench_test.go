package shop

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"svc/pipeline/shop/browser"
)

// gridProducts are n products for a collection page as big as real
// stores draw them (48 is Shopify's default products per page).
func gridProducts(n int) []hxProduct {
	names := []string{"Linen Shirt", "Canvas Tote", "Wool Beanie", "Oxford Shirt", "Denim Jacket", "Merino Scarf"}
	out := make([]hxProduct, n)
	for i := range out {
		name := fmt.Sprintf("%s %d", names[i%len(names)], i+1)
		out[i] = hxProduct{ID: fmt.Sprint(50000 + i), Handle: strings.ToLower(strings.ReplaceAll(name, " ", "-")), Name: name, Price: fmt.Sprintf("%d.00", 18+i%40)}
	}
	return out
}

// BenchmarkReadingAProductGrid measures the reading the shoppers make of
// every page they load, on a page the size of a real store's collection
// page: the held-out Dawn shop's home (testdata/realshops/dawn, after
// Shopify's Dawn theme) with 48 product cards, 1,286 elements. The
// floor is the page's own load in the same tab (navigate, load event),
// which every visit pays; the reading is the one Settle makes once the
// page has loaded (the page helper's state and items, in the isolated
// world, decoded in svc), cold as on every new document. Each of the
// rounds loads the page and then reads it; the medians are printed, and
// the reading as a share of the load. Printed, not asserted.
func BenchmarkReadingAProductGrid(b *testing.B) {
	if browser.FindExecPath() == "" {
		b.Skip("no Chromium found: the reading cannot be measured")
	}
	grid := gridProducts(48)
	shop := dawnShop()
	shop.serve = func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			serveDawn(h, s, w, r)
			return
		}
		h.render(w, r, s, "index", http.StatusOK, hxPage{Title: "Dawn Held-out", Products: grid})
	}
	h := newHeldout(b, []*realShop{shop})
	opts := h.runOptions(b)
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()
	page, err := opts.Browser.NewPage(ctx, browser.PageOptions{Library: domJS})
	if err != nil {
		b.Fatal(err)
	}
	defer page.Close()
	origin, _ := url.Parse("https://" + shop.host + "/")
	s := &session{opts: Options{StepTimeout: 30 * time.Second}, page: page, rep: &Report{}, ctx: ctx, origin: origin}
	read := s.prefetch(true, false)
	const rounds = 20
	for i := 0; i < b.N; i++ {
		var loads, reads []time.Duration
		var elements, items int
		for r := 0; r < rounds+1; r++ {
			t0 := time.Now()
			if err := page.Load(ctx, origin.String()); err != nil {
				b.Fatal(err)
			}
			load := time.Since(t0)
			t0 = time.Now()
			key, v := read(ctx)
			took := time.Since(t0)
			rd, _ := v.(*reading)
			if key == "" || rd == nil || rd.Snapshot == nil {
				b.Fatal("the page could not be read")
			}
			if r == 0 {
				// The first load warms the browser's own caches.
				if err := page.Eval(ctx, "document.getElementsByTagName('*').length", &elements); err != nil {
					b.Fatal(err)
				}
				items = len(rd.Snapshot.Items)
				continue
			}
			loads, reads = append(loads, load), append(reads, took)
		}
		load, rd := medianDur(loads), medianDur(reads)
		fmt.Printf("reading a product grid (Dawn, 48 cards: %d elements, %d controls read), median of %d rounds: load %s, reading %s (%.2f× the load)\n",
			elements, items, rounds, load.Round(100*time.Microsecond), rd.Round(100*time.Microsecond), rd.Seconds()/load.Seconds())
		b.ReportMetric(float64(rd.Microseconds())/1000, "ms_reading")
		b.ReportMetric(float64(load.Microseconds())/1000, "ms_load")
		b.ReportMetric(rd.Seconds()/load.Seconds(), "reading/load")
	}
}

func medianDur(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
