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
	"svc/publish"
	svcsql "svc/sql"
)

// The precomputed store figures: adoption (spec 2.8), the protocol matrix
// (2.9, figures_protocols.go) and the weekly figure (2.13,
// figures_weekly.go). Their counts come from sql/aggregate_figures.sql;
// these files fill in the publish types. This one holds the counts, the
// adoption document and the step that writes all three.
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

// groupCounts is one row of aggregate_figures.sql, in its column order.
type groupCounts struct {
	Grp                                              string
	Key                                              *string
	Stores, Checked, Shops                           int64
	UCPN, UCPValid, UCPServed, UCPDirectory          int64
	UCPDirectoryN, UCPUnvalidated                    int64
	SMCPN, SMCP, CatalogN, Catalog                   int64
	ProductN, Product, WebMCPN, WebMCP               int64
	CWMMeasured, CWMMeasuredYes                      int64
	CWMEvidence, CWMInferred, CWMUnknown, CWMNotChkd int64
	CartN, Cart, LaneN, Lane                         int64
	BrowserN, Browser, BuyN, Buy                     int64
	ACPN, ACP, CardN, Card, BlockedN, Blocked        int64
	ScoreN, ScoreSum                                 int64
	MarketN, USStores, USLinkN, USLink               int64
	UCPLinkN, UCPLink                                int64
	AsOf                                             *time.Time
}

func (g *groupCounts) scanTargets() []any {
	return []any{&g.Grp, &g.Key, &g.Stores, &g.Checked, &g.Shops,
		&g.UCPN, &g.UCPValid, &g.UCPServed, &g.UCPDirectory, &g.UCPDirectoryN, &g.UCPUnvalidated,
		&g.SMCPN, &g.SMCP, &g.CatalogN, &g.Catalog,
		&g.ProductN, &g.Product, &g.WebMCPN, &g.WebMCP,
		&g.CWMMeasured, &g.CWMMeasuredYes, &g.CWMEvidence, &g.CWMInferred, &g.CWMUnknown, &g.CWMNotChkd,
		&g.CartN, &g.Cart, &g.LaneN, &g.Lane,
		&g.BrowserN, &g.Browser, &g.BuyN, &g.Buy,
		&g.ACPN, &g.ACP, &g.CardN, &g.Card, &g.BlockedN, &g.Blocked,
		&g.ScoreN, &g.ScoreSum, &g.MarketN, &g.USStores, &g.USLinkN, &g.USLink,
		&g.UCPLinkN, &g.UCPLink, &g.AsOf}
}

func (g groupCounts) checkoutWebMCP() publish.CheckoutWebMCPCounts {
	n := g.CWMMeasured + g.CWMEvidence + g.CWMInferred + g.CWMUnknown
	return publish.CheckoutWebMCPCounts{N: n, Measured: share(g.CWMMeasured, n),
		MeasuredDetected: share(g.CWMMeasuredYes, g.CWMMeasured),
		Evidence:         share(g.CWMEvidence, n), Inferred: share(g.CWMInferred, n),
		Unknown: share(g.CWMUnknown, n), NotChecked: g.CWMNotChkd}
}

// validUCP is the share of valid UCP profiles, or not measured (0 of 0, pct
// null) while any profile read could not be validated: those are exactly
// the profiles that broke no rule, so a share over the rest would count
// only the invalid ones and read 0% however many are valid (a demo without
// ../shared once published 0 of 54, Measured).
func (g groupCounts) validUCP() publish.Share {
	if g.UCPUnvalidated > 0 {
		return share(0, 0)
	}
	return share(g.UCPValid, g.UCPN)
}

func (g groupCounts) adoption() publish.AdoptionCounts {
	c := publish.AdoptionCounts{
		Stores: g.Stores, Checked: g.Checked,
		ValidUCP:         g.validUCP(),
		UCPDirectory:     share(g.UCPDirectory, g.UCPDirectoryN),
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
	prevWeekly   *publish.WeeklyEdition
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
	"ones are left out; not measured, pct null, while any profile read could not be validated for want of its schemas, " +
	"since those are the ones that broke no rule); ucpDirectoryCount: the directory's lighter count, a dated version and a dev.ucp.shopping " +
	"service, so a store can count there and still have warnings. agentCatalogs: the hosted platform's storefront " +
	"MCP endpoint lists catalog tools. catalogAnswered: any catalog route answered (storefront MCP, /products.json, a " +
	"Store API, or a headless platform's public GraphQL catalog: Vendure's, EverShop's). storefrontWebmcp: a WebMCP tool in the homepage server HTML (not a browser session). checkoutWebmcp: " +
	"measured where one of svc's browser shoppers reached the store's checkout page and read the WebMCP tools " +
	"registered or declared there (measuredDetected: of those, the stores where it saw at least one); else evidence " +
	"when the homepage declares checkout tools, inferred from the platform (Shopify: no shopper reached checkout), " +
	"unknown otherwise; measured, evidence, inferred and unknown split the stores whose platform was measured (n); " +
	"notChecked counts the stores whose platform was not. " +
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
		ValidUCP: all.validUCP(), AgentCatalogs: share(all.SMCP, all.SMCPN),
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
		var pw publish.WeeklyEdition
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
