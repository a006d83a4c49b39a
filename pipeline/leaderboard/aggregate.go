package leaderboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"svc/datasets"
	"svc/datasets/svc100"
	"svc/pipeline/durable"
	"svc/pipeline/inbox"
	"svc/publish"
)

// FrozenFiles are the files of Aggregate that a snapshot publishes with
// publish.File.Frozen set.
var FrozenFiles = []string{svc100.CSVPath, svc100.SchemaPath}

// Methodology is published with the leaderboard.
const Methodology = "Cart success over the fixed SVC-100 v1 test set, stopped before payment. " +
	"n counts the stores a run attempted: a not_attempted result is unmeasured, not a failure, so it is counted apart (notAttempted, with its reasons) " +
	"and enters neither n, the rate nor the interval; a run that attempted no store (status not_attempted) is Not measured, with no figures, never 0 %. " +
	"The same rule holds for outside submissions. " +
	"A cart success is added_to_cart or checkout_reached; it is not an order. " +
	"The interval is the Wilson score interval at 95% (z = 1.96); rates and bounds are rounded to 3 decimals. " +
	"paths are the service's own measured runs: browser shoppers A to E (the shop stage's runs in headless Chromium, to the first checkout page) and the " +
	"pipeline's own UCP-path and storefront-MCP-path runs over plain HTTP. " +
	"The UCP path (method " + MethodVersion + ") reads the store's /.well-known/ucp profile, negotiates a version, takes a REST or MCP binding the profile declares, " +
	"finds a product (catalog capability, else the public catalog), creates a cart where the cart capability is declared and a checkout session with one line item, " +
	"reads it back and cancels it: a created session counts as checkout_reached; complete is never called and no payment is ever sent. " +
	"Every request to the binding is signed (RFC 9421, ES256) with the key svc's platform profile publishes. " +
	"A requirement svc cannot meet (buyer identity, an unsupported version, a signature the business does not accept) is no_cart with its UCP error code; " +
	"a profile the run could not check against the UCP schemas is not_attempted. " +
	"The storefront-MCP path stops at the cart: a cart that came back with a checkout link counts as checkout_reached (the link is never opened or kept), " +
	"a cart without one as added_to_cart. " +
	"Per-store reasons are in the leaderboard_results table, whose cart_success is null for a not_attempted row, so its average over a run is the run's rate. " +
	"A path without a run (status not_run, evidence Not measured) has no figures: it is unmeasured, not zero; a browser path is not run when " +
	"Chromium was absent or, for D, no model was configured. " +
	"rank is the standard competition rank (1, 2, 2, 4) within paths and, apart, within unverified: by the lower Wilson bound, " +
	"then cart successes, higher first; runs equal in both share a rank; a path with no result has none. " +
	"unverified holds outside submissions: self-reported, not checked by the service, kept apart and never mixed into paths."

// AggregateOptions configure Aggregate.
type AggregateOptions struct {
	// TablesDir and FilesDir are the run folder's out/tables and out/files.
	TablesDir, FilesDir string
	// Inbox holds the outside submissions; nil reads none.
	Inbox inbox.Reader
	// Date is the snapshot date (YYYY-MM-DD) and GeneratedAt the run's
	// start: both are published, and submissions received after
	// GeneratedAt wait for the next run, so a re-run writes the same bytes.
	Date        string
	GeneratedAt time.Time
}

// Aggregate builds the leaderboard of the run in runDir from its
// agent_runs folder and the outside submissions of the state log, and
// writes TablesDir/leaderboard_results.parquet, FilesDir/api/leaderboard
// (.json, -stores.json, .csv, -stores.csv) and the SVC-100 v1 files under
// FilesDir/data/svc-100/v1/. The contact of a submission is never read
// into any of them. It returns the board (with the grid).
func Aggregate(ctx context.Context, runDir string, opts AggregateOptions) (*publish.Leaderboard, error) {
	if opts.TablesDir == "" || opts.FilesDir == "" {
		return nil, errors.New("aggregate leaderboard: TablesDir and FilesDir are required")
	}
	own, err := ReadAgentRuns(runDir)
	if err != nil {
		return nil, fmt.Errorf("aggregate leaderboard: %w", err)
	}
	var subs []Stored
	if opts.Inbox != nil {
		subs, _, err = ReplaySubmissions(ctx, opts.Inbox, opts.GeneratedAt)
		if err != nil {
			return nil, fmt.Errorf("aggregate leaderboard: %w", err)
		}
	}
	board, rows := build(own, subs, opts)

	cols, err := datasets.FromRows(datasets.LeaderboardResults, rows)
	if err != nil {
		return nil, fmt.Errorf("aggregate leaderboard: %w", err)
	}
	var pq bytes.Buffer
	if err := datasets.WriteParquet(&pq, cols); err != nil {
		return nil, fmt.Errorf("aggregate leaderboard: %w", err)
	}
	files, err := Files(board)
	if err != nil {
		return nil, err
	}
	files[svc100.CSVPath], files[svc100.SchemaPath] = svc100.CSV(), svc100.Schema()
	if err := writeFile(filepath.Join(opts.TablesDir, datasets.LeaderboardResults.Name+".parquet"), pq.Bytes()); err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(files) {
		if err := writeFile(filepath.Join(opts.FilesDir, filepath.FromSlash(name)), files[name]); err != nil {
			return nil, err
		}
	}
	return board, nil
}

func writeFile(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("aggregate leaderboard: %w", err)
	}
	if err := durable.WriteFileAtomic(p, b, 0o644); err != nil {
		return fmt.Errorf("aggregate leaderboard: %w", err)
	}
	return nil
}
