package check_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/fixtures"
	"svc/fixtures/truth"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// worldEngine starts a fixture world and an engine that reaches it through
// the fixture flags, as `svc probe --fixture-addr --fixture-ca` does.
func worldEngine(t testing.TB, n int) (*fixtures.World, *check.Engine, bool) {
	t.Helper()
	world := fixtures.Generate(1, n)
	// Slow stores answer after 4 s; the client gives up after 2 s, which
	// leaves every other store room to answer on a loaded machine.
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	schemaDir := fixtures.UCPSchemaDir()
	cfg := ucp.Config{SchemaDir: schemaDir, Client: client, CacheDir: t.TempDir(), Offline: true}
	v, err := ucp.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	return world, check.New(check.Options{Client: client, UCP: v, Now: func() time.Time { return now }}), schemaDir != ""
}

// TestWorld checks every store of the fixture world: each field of each
// store must be exactly its known answer.
func TestWorld(t *testing.T) {
	world, eng, haveSchema := worldEngine(t, fixtures.DefaultStores)
	if !haveSchema {
		t.Log("../shared/ucp/schema not found: UCP profiles are held to the answers of a run without schemas")
		world.WithoutUCPSchemas()
	}
	results := make([]*check.Result, len(world.Stores))
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
		got := truth.FromResult(res)
		if (res.UCPProfile.Valid == nil) != (want.UCPProfile.Status != fixtures.UCPValid && want.UCPProfile.Status != fixtures.UCPInvalid) {
			t.Errorf("%s: ucpProfile.valid %v with status %s: want a validity exactly for valid and invalid profiles",
				st.Host, res.UCPProfile.Valid, want.UCPProfile.Status)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s %v (-want +got):\n%s", st.Host, st.Traits, diff)
		}
	}
}
