package check

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/fixtures"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// worldEngine starts a fixture world and an engine that reaches it through
// the fixture flags, as `svc probe --fixture-addr --fixture-ca` does.
func worldEngine(t testing.TB, n int) (*fixtures.World, *Engine, bool) {
	t.Helper()
	world := fixtures.Generate(1, n)
	// Slow stores answer after 1.5 s; the client gives up after 1 s.
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	schemaDir := fixtures.UCPSchemaDir()
	cfg := ucp.Config{SchemaDir: schemaDir, Client: client, CacheDir: t.TempDir()}
	v, err := ucp.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	return world, New(Options{Client: client, UCP: v, Now: func() time.Time { return now }}), schemaDir != ""
}

// asExpect projects a result onto the fields the fixture world predicts.
func asExpect(r *Result) fixtures.Expect {
	e := fixtures.Expect{
		Platform:        r.Platform,
		CatalogAnswered: r.CatalogAnswered,
		ProductFound:    r.ProductFound,
		CartLink:        r.CartLink,
		StorefrontMCP:   r.StorefrontMCP.Detected,
		WebMCP:          r.WebMCP,
		CheckoutWebMCP:  fixtures.CheckoutWebMCP{Status: r.CheckoutWebMCP.Status, Detected: r.CheckoutWebMCP.Detected},
		UCPProfile: fixtures.UCPProfile{
			Status:   r.UCPProfile.Status,
			Version:  r.UCPProfile.DeclaredVersion,
			Warnings: r.UCPProfile.WarningRules,
		},
		Robots:                map[string]string{},
		BlockStatus:           fixtures.BlockStatus{Blocked: r.BlockStatus.Blocked, Reason: r.BlockStatus.Reason},
		Parked:                r.Reachability.Parked,
		RedirectsToOtherBrand: r.Reachability.RedirectsToOtherBrand,
		Fix:                   fixtures.Fix{Code: r.Fix.Code},
		ACP:                   r.ACP.Found,
	}
	if len(r.UCPProfile.ErrorRules) > 0 {
		e.UCPProfile.Rule = &r.UCPProfile.ErrorRules[0]
	}
	for a, v := range r.Robots.Agents {
		e.Robots[a] = v.Verdict
	}
	if r.ProductData != nil {
		pd := r.ProductData
		e.ProductData = &fixtures.ProductData{
			Source: pd.Source, Name: pd.Name != nil, Price: pd.Price != nil, Currency: pd.Currency != nil,
			Availability: pd.Availability != nil, GTINOrSKU: pd.GTIN != nil || pd.SKU != nil, Image: pd.Image != nil,
		}
	}
	if r.Policies.Returns != nil {
		e.Policies = &fixtures.Policies{Returns: *r.Policies.Returns, Shipping: *r.Policies.Shipping,
			Privacy: *r.Policies.Privacy, Terms: *r.Policies.Terms}
	}
	if r.MCPServerCard.Found != nil && *r.MCPServerCard.Found {
		e.MCPServerCard = &r.MCPServerCard.Path
	} else if r.MCPServerCard.Found == nil {
		e.MCPServerCard = nil
	}
	return e
}

// TestWorld checks every store of the fixture world: each field of each
// store must be exactly its known answer.
func TestWorld(t *testing.T) {
	world, eng, haveSchema := worldEngine(t, fixtures.DefaultStores)
	if !haveSchema {
		t.Log("../shared/ucp/schema not found: UCP verdicts are compared only where they do not need the schema")
	}
	results := make([]*Result, len(world.Stores))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i, st := range world.Stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			res, err := eng.Check(context.Background(), "https://"+st.Host+"/")
			if err != nil {
				t.Errorf("%s: %v", st.Host, err)
				return
			}
			results[i] = res
		}()
	}
	wg.Wait()
	for i, st := range world.Stores {
		res := results[i]
		if res == nil {
			continue
		}
		want := st.Expect
		got := asExpect(res)
		if !haveSchema {
			got.UCPProfile, want.UCPProfile = fixtures.UCPProfile{}, fixtures.UCPProfile{}
			got.Fix, want.Fix = fixtures.Fix{}, fixtures.Fix{}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s %v (-want +got):\n%s", st.Host, st.Traits, diff)
		}
	}
}
