package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"svc/datasets"
	"svc/pipeline/leaderboard"
	"svc/publish"
	svcsql "svc/sql"
)

// The precomputed store figures: adoption (spec 2.8), the protocol matrix
// (2.9) and the weekly figure (2.13). Their counts come from
// sql/aggregate_figures.sql; this file gives them their published shape.
// Every share is a count out of the stores where the signal was measured
// (n), never out of all stores: an unmeasured store is left out, not
// counted as "no". Percentages are count/n × 100 rounded half away from
// zero to one decimal, null when n is 0.

func share(count, n int64) publish.Share {
	return publish.Share{Count: count, N: n, Pct: Pct(count, n)}
}

// Pct is count/n in percent rounded half away from zero to one decimal,
// or nil when n is 0.
func Pct(count, n int64) *float64 {
	if n == 0 {
		return nil
	}
	v := math.Round(float64(count)*1000/float64(n)) / 10
	return &v
}

// Evidence labels of the protocol matrix.
const (
	Measured    = "Measured"
	Inferred    = "Inferred"
	NotMeasured = "Not measured"
)

// WeeklySchema names the weekly figure's format (spec 9.4).
const WeeklySchema = "svc-weekly-agent-checkout/1"

// HostedPlatforms are the platforms of the weekly figure's hosted-platform
// segment: hosted commerce services whose catalog and cart tools a plain
// HTTP agent can reach. The segment column of sql/aggregate_signals.sql
// lists the same platforms.
var HostedPlatforms = []string{"bigcommerce", "shopify"}

// The weekly figure's document; the types live in publish, which the
// pages that render it can import.
type (
	WeeklyEdition    = publish.WeeklyEdition
	WeeklySegment    = publish.WeeklySegment
	WeeklyComparison = publish.WeeklyComparison
	WeeklyPrevious   = publish.WeeklyPrevious
)

// groupCounts is one row of aggregate_figures.sql, in its column order.
type groupCounts struct {
	Grp                                              string
	Key                                              *string
	Stores, Checked, Shops                           int64
	UCPN, UCPValid, UCPServed, UCPDirectory          int64
	SMCPN, SMCP, CatalogN, Catalog                   int64
	ProductN, Product, WebMCPN, WebMCP               int64
	CWMEvidence, CWMInferred, CWMUnknown, CWMNotChkd int64
	CartN, Cart, LaneN, Lane                         int64
	BrowserN, Browser, BuyN, Buy                     int64
	ACPN, ACP, CardN, Card, BlockedN, Blocked        int64
	ScoreN, ScoreSum                                 int64
	MarketN, USStores, USLinkN, USLink               int64
	AsOf                                             *time.Time
}

func (g *groupCounts) scanTargets() []any {
	return []any{&g.Grp, &g.Key, &g.Stores, &g.Checked, &g.Shops,
		&g.UCPN, &g.UCPValid, &g.UCPServed, &g.UCPDirectory,
		&g.SMCPN, &g.SMCP, &g.CatalogN, &g.Catalog,
		&g.ProductN, &g.Product, &g.WebMCPN, &g.WebMCP,
		&g.CWMEvidence, &g.CWMInferred, &g.CWMUnknown, &g.CWMNotChkd,
		&g.CartN, &g.Cart, &g.LaneN, &g.Lane,
		&g.BrowserN, &g.Browser, &g.BuyN, &g.Buy,
		&g.ACPN, &g.ACP, &g.CardN, &g.Card, &g.BlockedN, &g.Blocked,
		&g.ScoreN, &g.ScoreSum, &g.MarketN, &g.USStores, &g.USLinkN, &g.USLink, &g.AsOf}
}

func (g groupCounts) checkoutWebMCP() publish.CheckoutWebMCPCounts {
	n := g.CWMEvidence + g.CWMInferred + g.CWMUnknown
	return publish.CheckoutWebMCPCounts{N: n, Evidence: share(g.CWMEvidence, n), Inferred: share(g.CWMInferred, n),
		Unknown: share(g.CWMUnknown, n), NotChecked: g.CWMNotChkd}
}

func (g groupCounts) adoption() publish.AdoptionCounts {
	c := publish.AdoptionCounts{
		Stores: g.Stores, Checked: g.Checked,
		ValidUCP:         share(g.UCPValid, g.UCPN),
		UCPDirectory:     share(g.UCPDirectory, g.UCPN),
		AgentCatalogs:    share(g.SMCP, g.SMCPN),
		CatalogAnswered:  share(g.Catalog, g.CatalogN),
		StorefrontWebMCP: share(g.WebMCP, g.WebMCPN),
		CheckoutWebMCP:   g.checkoutWebMCP(),
		CheckoutLinks:    share(g.Cart, g.CartN),
		BuyAgentCatalog:  share(g.Lane, g.LaneN),
		BuyBrowser:       share(g.Browser, g.BrowserN),
		AgentsCanBuy:     share(g.Buy, g.BuyN),
		Blocked:          share(g.Blocked, g.BlockedN),
	}
	if g.ScoreN > 0 {
		v := math.Round(float64(g.ScoreSum)*10/float64(g.ScoreN)) / 10
		c.AverageScore = &v
	}
	return c
}

// figureInputs is everything the figures are built from.
type figureInputs struct {
	run          RunInfo
	baseURL      string
	groups       []groupCounts
	indexChecked int64
	prev         *RunInfo              // nil without history
	prevSeries   []publish.SeriesPoint // from the previous adoption.json
	prevWeekly   *WeeklyEdition
	changes      []publish.FieldChange
	rechecks     int64
}

func (in *figureInputs) all() groupCounts {
	for _, g := range in.groups {
		if g.Grp == "all" {
			return g
		}
	}
	return groupCounts{Grp: "all"}
}

func (in *figureInputs) group(grp string) []groupCounts {
	var out []groupCounts
	for _, g := range in.groups {
		if g.Grp == grp {
			out = append(out, g)
		}
	}
	return out
}

// asOf is the latest completed check, else generatedAt (spec 2.8).
func (in *figureInputs) asOf() time.Time {
	if a := in.all().AsOf; a != nil {
		return runTime(*a)
	}
	return runTime(in.run.Started)
}

func (in *figureInputs) link(path string) string {
	return strings.TrimSuffix(in.baseURL, "/") + path
}

func (in *figureInputs) cite() string {
	return fmt.Sprintf("svc, agent-checkout readiness dataset, snapshot %s, %s. %s", in.run.Date,
		in.link("/data/"+in.run.Date+"/"), datasets.Attribution)
}

const adoptionMethodology = "Counts from svc's weekly plain-HTTP checks of every store in the directory (a curated sample, not a census). " +
	"Each share counts the stores where the signal was measured (n); a store where it could not be measured (blocked, " +
	"unreachable, parked, a failed check) is left out, never counted as no. validUcp: the profile at /.well-known/ucp " +
	"passes the UCP 2026-08-25 schema and every error-level rule (missing and invalid profiles count as no, unreadable " +
	"ones are left out); ucpDirectoryCount: the directory's lighter count, a dated version and a dev.ucp.shopping " +
	"service, so a store can count there and still have warnings. agentCatalogs: the hosted platform's storefront " +
	"MCP endpoint lists catalog tools. catalogAnswered: any catalog route answered (storefront MCP, /products.json, a " +
	"Store API). storefrontWebmcp: a WebMCP tool in the homepage server HTML (not a browser session). checkoutWebmcp: " +
	"platform-only; evidence when the page declares checkout tools, inferred from the platform (Shopify), unknown " +
	"otherwise, all out of the stores whose platform was measured; notChecked counts the stores whose platform was not. " +
	"checkoutLinks: the storefront cart returned a checkout link (a boolean; no URL is stored; not an order). " +
	"buyAgentCatalog, buyBrowser and agentsCanBuy are the buy lanes of store_answers. rechecks: stores checked in this " +
	"run that also had a completed check in the previous run. Percentages are rounded half away from zero to one decimal."

// buildAdoption builds adoption.json.
func buildAdoption(in *figureInputs) publish.Adoption {
	all := in.all()
	ad := publish.Adoption{
		Now:              all.adoption(),
		Categories:       []publish.CategoryAdoption{},
		ByPlatform:       []publish.PlatformAdoption{},
		PlatformCoverage: buildCoverage(in),
		Series:           buildSeries(in),
		Methodology:      adoptionMethodology,
		GeneratedAt:      runTime(in.run.Started),
		AsOf:             in.asOf(),
		Available:        all.Checked > 0,
		SnapshotDate:     in.run.Date,
		Note:             "The set is a curated sample of stores, not a census. A returned checkout link means checkout was reachable, not that a purchase happened.",
		License:          datasets.License,
		Cite:             in.cite(),
	}
	for _, g := range in.group("category") {
		ad.Categories = append(ad.Categories, publish.CategoryAdoption{Category: g.Key, AdoptionCounts: g.adoption()})
	}
	for _, g := range in.group("platform") {
		ad.ByPlatform = append(ad.ByPlatform, publish.PlatformAdoption{Platform: g.Key, AdoptionCounts: g.adoption()})
	}
	if in.prev != nil {
		ad.Changes = &publish.AdoptionChanges{Since: in.prev.Date, Week: in.run.Date, Fields: in.changes}
		r := in.rechecks
		ad.Rechecks = &r
	}
	return ad
}

func buildCoverage(in *figureInputs) publish.PlatformCoverage {
	all := in.all()
	pc := publish.PlatformCoverage{Checked: all.Checked, Measured: share(all.Shops, all.Checked),
		NotMeasured: all.Checked - all.Shops, Platforms: []publish.PlatformShare{}}
	var hosted int64
	for _, g := range in.group("platform") {
		if g.Key == nil {
			continue
		}
		pc.Platforms = append(pc.Platforms, publish.PlatformShare{Platform: *g.Key, Share: share(g.Shops, all.Shops)})
		if slices.Contains(HostedPlatforms, *g.Key) {
			hosted += g.Shops
		}
	}
	pc.HostedPlatform = share(hosted, all.Shops)
	return pc
}

// buildSeries appends this run's point to the previous run's series,
// replacing a point of the same date, in date order.
func buildSeries(in *figureInputs) []publish.SeriesPoint {
	all := in.all()
	now := publish.SeriesPoint{
		Date: in.run.Date, StoresChecked: all.Checked,
		ValidUCP: share(all.UCPValid, all.UCPN), AgentCatalogs: share(all.SMCP, all.SMCPN),
		StorefrontWebMCP: share(all.WebMCP, all.WebMCPN), CheckoutWebMCP: all.checkoutWebMCP(),
		CheckoutLinks: share(all.Cart, all.CartN), AgentsCanBuy: share(all.Buy, all.BuyN),
	}
	var out []publish.SeriesPoint
	for _, p := range in.prevSeries {
		if p.Date < in.run.Date {
			out = append(out, p)
		}
	}
	out = append(out, now)
	slices.SortStableFunc(out, func(a, b publish.SeriesPoint) int { return strings.Compare(a.Date, b.Date) })
	return slices.CompactFunc(out, func(a, b publish.SeriesPoint) bool { return a.Date == b.Date })
}

const protocolsMethodology = "Each protocol (row) is followed through four stages: declare (the store publishes it), validate " +
	"(what it publishes is valid), answer (its endpoint answers an agent) and transact (an agent reaches checkout through " +
	"it; svc stops before payment and never places an order). A percentage is the share of the checked stores where the " +
	"stage was measured (n), with an evidence label: Measured (observed over plain HTTP), Inferred (from the platform, " +
	"not observed on the store) or Not measured (null: svc has no check for it, never 0). Validation is not certification."

// Protocols the matrix covers, in row order (spec 2.9).
var protocolInfos = []publish.ProtocolInfo{
	{ID: "ucp", Name: "Universal Commerce Protocol"},
	{ID: "acp", Name: "Agentic Commerce Protocol"},
	{ID: "pap", Name: "PAP"}, // named by its id only: svc has no check for it yet
	{ID: "webmcp", Name: "WebMCP"},
	{ID: "mcp", Name: "Model Context Protocol (storefront MCP)"},
	{ID: "payments", Name: "Agent payment rails"},
}

func measured(count, n int64, basis string) publish.ProtocolStage {
	if n == 0 {
		return notMeasured(basis + " No store could be measured.")
	}
	return publish.ProtocolStage{Percentage: Pct(count, n), Count: &count, N: &n, Evidence: Measured, Basis: basis}
}

func inferred(count, n int64, basis string) publish.ProtocolStage {
	s := measured(count, n, basis)
	if s.Evidence == Measured {
		s.Evidence = Inferred
	}
	return s
}

func notMeasured(basis string) publish.ProtocolStage {
	return publish.ProtocolStage{Evidence: NotMeasured, Basis: basis}
}

// buildProtocols builds protocols.json.
func buildProtocols(in *figureInputs) publish.ProtocolMatrix {
	g := in.all()
	noCheck := "svc has no check for this stage."
	cwm := g.checkoutWebMCP()
	cwmStage := inferred(cwm.Evidence.Count+cwm.Inferred.Count, cwm.N,
		"Checkout WebMCP tools (get_checkout, update_checkout, complete_checkout) in the platform's hosted checkout, out of the stores whose platform was measured; buyer approval is required.")
	if cwm.Inferred.Count == 0 && cwm.Evidence.Count > 0 {
		cwmStage.Evidence = Measured
	}
	rows := []publish.ProtocolRow{
		{ID: "ucp", Stages: publish.ProtocolStages{
			Declare:  measured(g.UCPServed, g.UCPN, "A UCP profile is served at /.well-known/ucp (valid or invalid), out of the stores where it could be read or was missing."),
			Validate: measured(g.UCPValid, g.UCPN, "The profile passes the UCP 2026-08-25 schema and every error-level rule."),
			Answer:   notMeasured("UCP service endpoints are not called: a valid profile does not prove that they work. " + noCheck),
			Transact: notMeasured("No UCP checkout session is opened. " + noCheck),
		}},
		{ID: "acp", Stages: publish.ProtocolStages{
			Declare:  measured(g.ACP, g.ACPN, "/.well-known/acp.json serves an ACP discovery document."),
			Validate: notMeasured("The discovery document is not validated against the ACP schema. " + noCheck),
			Answer:   notMeasured("ACP endpoints are not called. " + noCheck),
			Transact: notMeasured("No ACP checkout session is opened. " + noCheck),
		}},
		{ID: "pap", Stages: publish.ProtocolStages{
			Declare: notMeasured(noCheck), Validate: notMeasured(noCheck),
			Answer: notMeasured(noCheck), Transact: notMeasured(noCheck),
		}},
		{ID: "webmcp", Stages: publish.ProtocolStages{
			Declare:  measured(g.WebMCP, g.WebMCPN, "A WebMCP tool (a registerTool call or a toolname form) in the homepage server HTML."),
			Validate: notMeasured("Tool declarations are not validated. " + noCheck),
			Answer:   notMeasured("Answering needs a browser session; svc reads server HTML only. " + noCheck),
			Transact: cwmStage,
		}},
		{ID: "mcp", Stages: publish.ProtocolStages{
			Declare:  measured(g.Card, g.CardN, "An MCP server card at /.well-known/mcp.json, /.well-known/mcp/server-card.json or /.well-known/mcp-server-card (draft)."),
			Validate: notMeasured("Server cards and tool schemas are not validated. " + noCheck),
			Answer:   measured(g.SMCP, g.SMCPN, "The storefront MCP endpoint (POST /api/mcp) answered with catalog tools."),
			Transact: measured(g.Cart, g.CartN, "The storefront MCP cart returned a checkout link (stopped before payment; no order)."),
		}},
		{ID: "payments", Stages: publish.ProtocolStages{
			Declare: notMeasured(noCheck), Validate: notMeasured(noCheck),
			Answer: notMeasured(noCheck), Transact: notMeasured("svc stops before payment. " + noCheck),
		}},
	}
	for i := range rows {
		rows[i].Name = protocolInfos[i].Name
	}
	return publish.ProtocolMatrix{
		Rows: rows, StoresChecked: g.Checked, IndexStoresChecked: in.indexChecked,
		AsOf: in.asOf(), Methodology: protocolsMethodology, License: datasets.License, Cite: in.cite(),
		Available: g.Checked > 0, Protocols: protocolInfos,
		Stages:      []string{"declare", "validate", "answer", "transact"},
		GeneratedAt: runTime(in.run.Started),
	}
}

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
// Method agent-path/1 stops at catalog search; the method that creates
// sessions sets this, and the weekly figure drops its note.
const ucpPathCreatesCheckout = false

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
func buildWeekly(in *figureInputs) WeeklyEdition {
	all := in.all()
	seg := map[string]groupCounts{}
	for _, g := range in.group("segment") {
		if g.Key != nil {
			seg[*g.Key] = g
		}
	}
	hosted, other := seg["hosted_platform"], seg["not_detected"]
	segments := []WeeklySegment{
		{ID: "hosted_platform", Label: "US stores on a hosted platform (Shopify, BigCommerce)",
			N: hosted.USLinkN, Count: hosted.USLink, Pct: Pct(hosted.USLink, hosted.USLinkN)},
		{ID: "not_detected", Label: "US stores with no hosted platform detected",
			N: other.USLinkN, Count: other.USLink, Pct: Pct(other.USLink, other.USLinkN)},
	}
	e := WeeklyEdition{
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
			wp := &WeeklyPrevious{Date: p.Date, N: p.N, Count: p.Count, Pct: p.Pct}
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

// changeFields are the signals adoption.json's changes counts, sorted.
var changeFields = []string{"agents_can_buy", "buy_agent_catalog", "cart_link", "catalog_answered",
	"listed", "storefront_mcp", "ucp_valid", "webmcp"}

// figures queries the counts and renders adoption.json, protocols.json and
// the weekly edition into a.out.
func (a *aggregator) figures(ctx context.Context) error {
	in := &figureInputs{run: a.run, baseURL: a.opts.BaseURL}
	res, err := a.duck.query(ctx, svcsql.Text("aggregate_figures.sql"))
	if err != nil {
		return fmt.Errorf("aggregate_figures.sql: %w", err)
	}
	for _, row := range res.rows {
		var g groupCounts
		if err := scanRow(row, g.scanTargets()...); err != nil {
			return fmt.Errorf("aggregate_figures.sql: %w", err)
		}
		in.groups = append(in.groups, g)
	}
	if err := a.queryCount(ctx, "aggregate_index_checked.sql", &in.indexChecked); err != nil {
		return err
	}
	if a.hasPrev() {
		prev := a.prev
		in.prev = &prev
		if err := a.queryCount(ctx, "aggregate_rechecks.sql", &in.rechecks); err != nil {
			return err
		}
		got := map[string]publish.FieldChange{}
		res, err := a.duck.query(ctx, svcsql.Text("aggregate_change_counts.sql"))
		if err != nil {
			return fmt.Errorf("aggregate_change_counts.sql: %w", err)
		}
		for _, row := range res.rows {
			var fc publish.FieldChange
			if err := scanRow(row, &fc.Field, &fc.Gained, &fc.Lost); err != nil {
				return fmt.Errorf("aggregate_change_counts.sql: %w", err)
			}
			got[fc.Field] = fc
		}
		for _, f := range changeFields {
			fc := got[f]
			fc.Field = f
			in.changes = append(in.changes, fc)
		}
		var prevAd struct {
			Series []publish.SeriesPoint `json:"series"`
		}
		if err := readPrevJSON(filepath.Join(a.prevDir, OutFiles, filepath.FromSlash(publish.AdoptionPath)), &prevAd); err != nil {
			return err
		}
		in.prevSeries = prevAd.Series
		var pw WeeklyEdition
		path := filepath.Join(a.prevDir, OutWeekly, a.prev.Date+".json")
		if err := readPrevJSON(path, &pw); err != nil {
			return err
		}
		if pw.Schema == WeeklySchema {
			in.prevWeekly = &pw
		}
	}

	for _, f := range []struct {
		path string
		v    any
	}{
		{filepath.ToSlash(filepath.Join(OutFiles, publish.AdoptionPath)), buildAdoption(in)},
		{filepath.ToSlash(filepath.Join(OutFiles, publish.ProtocolsPath)), buildProtocols(in)},
		{filepath.ToSlash(filepath.Join(OutWeekly, a.run.Date+".json")), buildWeekly(in)},
	} {
		b, err := encodeJSON(f.v)
		if err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		a.out[f.path] = b
	}
	return nil
}

// queryCount runs a SQL file whose result is one count.
func (a *aggregator) queryCount(ctx context.Context, file string, n *int64) error {
	res, err := a.duck.query(ctx, svcsql.Text(file))
	if err == nil && len(res.rows) != 1 {
		err = fmt.Errorf("%d rows, want 1", len(res.rows))
	}
	if err == nil {
		err = scanRow(res.rows[0], n)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// readPrevJSON reads a previous run's JSON output; a missing file leaves v
// as it is.
func readPrevJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("previous run: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("previous run %s: %w", path, err)
	}
	return nil
}
