package pipeline

import (
	"fmt"
	"math"

	"svc/datasets"
	"svc/pipeline/leaderboard"
	"svc/publish"
)

// The weekly figure (spec 2.13): the US share of stores whose UCP services
// returned a checkout link, frozen once a week as an edition.

// WeeklySchema names the weekly figure's format (spec 9.4).
const WeeklySchema = "svc-weekly-agent-checkout/1"

// HostedPlatforms are the platforms of the weekly figure's hosted-platform
// segment: hosted commerce services whose catalog and cart tools a plain
// HTTP agent can reach. The segment column of sql/aggregate_signals.sql
// lists the same platforms.
var HostedPlatforms = []string{"bigcommerce", "shopify"}

// WeeklyMarket is the country the weekly figure covers (spec 2.13: the US
// share of stores that returned a UCP checkout link).
const WeeklyMarket = "US"

const (
	weeklyMetric = "Share of US stores whose UCP services returned a checkout link to svc's own UCP agent path " +
		"(a plain-HTTP agent that reads the store's UCP profile and drives its shopping service), stopped before payment: " +
		"count = US stores with store_answers.ucp_checkout_link true, n = US stores where it was measured, " +
		"pct = count/n rounded to one decimal. ucp_checkout_link is false when the path ended without a checkout, and for " +
		"every store whose UCP profile is missing or invalid (it has no UCP service to return one); it is not measured, and " +
		"the store is left out of n, when the profile is valid, unreadable or unvalidated and the path did not take it to a " +
		"cart (the path runs over the SVC-100 stores). Another protocol's checkout link (storefront MCP, a browser cart) does " +
		"not count. A returned checkout link is not an order."
	weeklyScope = "US stores: store_answers.market = US, decided from what each store declares about itself, never from " +
		"where it is hosted. The currency it quotes decides (Product JSON-LD priceCurrency, og:price:currency, a catalog's " +
		"currency_code, Shopify.currency): USD makes a store US unless a country it declares (a shipping destination or " +
		"address in its JSON-LD) or its locale region (hreflang, og:locale, <html lang>) names another country that uses " +
		"the dollar, and unless it declares only countries outside the dollar area. Without a currency, declared countries " +
		"that agree decide; locale tags alone never do. Stores whose market is another country or unknown are not in the figure."
)

// ucpPathCreatesCheckout says whether the UCP agent path (pipeline/
// leaderboard, method leaderboard.MethodVersion) opens checkout sessions.
// Method agent-path/1 stopped at catalog search; agent-path/2 creates a
// session (then reads it back and cancels it), so the weekly figure
// carries no note.
const ucpPathCreatesCheckout = true

// weeklyNote says what the figure cannot show while the UCP agent path
// opens no checkout session: it counts what the path saw.
func weeklyNote() string {
	if ucpPathCreatesCheckout {
		return ""
	}
	return "The UCP agent path (method " + leaderboard.MethodVersion + ") drives a store's UCP service as far as catalog " +
		"search and opens no checkout session yet. Until a later method creates checkout sessions, the figure counts what " +
		"the path saw: stores whose UCP services returned no checkout link to it, or have none to return, count as no; " +
		"stores it could not take that far are left out of n, never counted as no."
}

// buildWeekly builds the weekly edition of the run's date.
func buildWeekly(in *figureInputs) publish.WeeklyEdition {
	all := in.all()
	seg := map[string]groupCounts{}
	for _, g := range in.group("segment") {
		if g.Key != nil {
			seg[*g.Key] = g
		}
	}
	hosted, other := seg["hosted_platform"], seg["not_detected"]
	segments := []publish.WeeklySegment{
		{ID: "hosted_platform", Label: "US stores on a hosted platform (Shopify, BigCommerce)",
			N: hosted.USLinkN, Count: hosted.USLink, Pct: Pct(hosted.USLink, hosted.USLinkN)},
		{ID: "not_detected", Label: "US stores with no hosted platform detected",
			N: other.USLinkN, Count: other.USLink, Pct: Pct(other.USLink, other.USLinkN)},
	}
	e := publish.WeeklyEdition{
		Schema: WeeklySchema, Date: in.run.Date, Segments: segments,
		N: all.USLinkN, Count: all.USLink, Pct: Pct(all.USLink, all.USLinkN),
		SnapshotDate: in.run.Date, DatasetVersion: in.run.Date,
		License: datasets.License, CCBY: datasets.Attribution,
		Metric: weeklyMetric, Scope: weeklyScope,
		Source: in.link("/data/" + in.run.Date + "/store_answers.csv"),
		Market: WeeklyMarket, MarketStores: all.USStores, NotMeasured: all.USStores - all.USLinkN,
	}
	e.Note = weeklyNote()
	switch {
	case all.USStores == 0:
		e.Headline = fmt.Sprintf("Week of %s: no checked store declares the US as its market, so there is no US figure.", in.run.Date)
	case e.Pct == nil:
		e.Headline = fmt.Sprintf("Week of %s: none of the %d US stores could be measured for a UCP checkout link.", in.run.Date, all.USStores)
	default:
		e.Headline = fmt.Sprintf("%s%% of %d US stores returned a UCP checkout link to an agent (week of %s).",
			fmtPct(e.Pct), e.N, in.run.Date)
	}
	e.Comparison.Text = fmt.Sprintf("US stores on a hosted platform: %s (%d of %d). US stores with no hosted platform detected: %s (%d of %d).",
		pctText(segments[0].Pct), segments[0].Count, segments[0].N, pctText(segments[1].Pct), segments[1].Count, segments[1].N)
	if segments[0].Pct != nil && segments[1].Pct != nil {
		d := math.Round((*segments[0].Pct-*segments[1].Pct)*10) / 10
		e.Comparison.DifferencePctPoints = &d
	}
	if p := in.prevWeekly; p != nil {
		if p.Metric == e.Metric {
			wp := &publish.WeeklyPrevious{Date: p.Date, N: p.N, Count: p.Count, Pct: p.Pct}
			if p.Pct != nil && e.Pct != nil {
				d := math.Round((*e.Pct-*p.Pct)*10) / 10
				wp.ChangePctPoints = &d
			}
			e.Comparison.Previous = wp
			e.Comparison.Text += fmt.Sprintf(" Previous edition (%s): %s of %d US stores.", p.Date, pctText(p.Pct), p.N)
		} else {
			e.Comparison.Text += fmt.Sprintf(" The previous edition (%s) measured something else, so it is not compared.", p.Date)
		}
	}
	e.AltText = fmt.Sprintf("Bar chart, week of %s: share of US stores (by the currency and country each store declares) whose "+
		"UCP services returned a checkout link to an agent. US stores on a hosted platform: %s of %d. US stores with no hosted "+
		"platform detected: %s of %d. All US stores: %s of %d (%d more US stores not measured).",
		in.run.Date, pctText(segments[0].Pct), segments[0].N, pctText(segments[1].Pct), segments[1].N, pctText(e.Pct), e.N, e.NotMeasured)
	e.Citation = fmt.Sprintf("svc, \"Share of US stores returning a UCP checkout link\", weekly figure %s (%s), dataset version %s (%s). Licensed %s.",
		in.run.Date, in.link("/api/weekly/agent-checkout/"+in.run.Date+".json"), in.run.Date, in.link("/data/"+in.run.Date+"/"), datasets.License)
	return e
}

func fmtPct(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", *p)
}

func pctText(p *float64) string {
	if p == nil {
		return "not measured"
	}
	return fmtPct(p) + "%"
}
