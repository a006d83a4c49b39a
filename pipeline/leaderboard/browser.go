package leaderboard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"svc/datasets/runs"
	"svc/datasets/svc100"
)

// ImportOptions say where browser-shopper runs come from.
type ImportOptions struct {
	// Dir is the folder the browser shoppers' run files are dropped in
	// (normally DIR/runs): *.json files in the submission format, each
	// with agent.path "browser" and agent.name "svc browser shopper A" …
	// "E"; the file name (without .json) is the run id. "" reads none.
	Dir string
	// Fixture adds the fixture world's runs shipped in datasets/runs
	// (run ids fixture-browser-a …), marked as fixture data. Set it only
	// when the pipeline runs over the fixture world.
	Fixture bool
}

// BrowserMethod describes how browser runs enter the board.
const BrowserMethod = "browser shopper run, imported from a file in the submission format"

var runIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,79}$`)

// ImportBrowserRuns copies the latest run of each browser shopper (by
// run.finished_at, then run.started_at, then run id) into
// runDir/agent_runs/browser-<x>.json, labelled as the service's own
// measured run, and removes the file of a shopper that has no run. Every
// file is validated as a submission; a file that is invalid, is not a
// browser shopper's or has an unusable name stops the import with an
// error naming it.
func ImportBrowserRuns(runDir string, opts ImportOptions) error {
	type cand struct {
		run   *AgentRun
		order [3]string
	}
	latest := map[string]cand{}
	var errs []error
	add := func(name string, body []byte, fixture bool) {
		id := strings.TrimSuffix(name, ".json")
		if fixture {
			id = "fixture-" + id
		}
		if !runIDRE.MatchString(id) {
			errs = append(errs, fmt.Errorf("browser run %s: the file name must be a run id (%s) with .json", name, runIDRE))
			return
		}
		sub, err := Parse(body)
		if err != nil {
			errs = append(errs, fmt.Errorf("browser run %s: %w", name, err))
			return
		}
		p, ok := pathByAgent(sub.Agent.Name)
		if !ok || sub.Agent.Path != "browser" {
			errs = append(errs, fmt.Errorf("browser run %s: agent %q (path %s) is not one of the service's browser shoppers", name, sub.Agent.Name, sub.Agent.Path))
			return
		}
		method, by := BrowserMethod, MeasuredBy
		if fixture {
			// Generated, not measured: no one measured it.
			method, by = "fixture data: generated from the fixture world's known answers; not a browser session, not measured", ""
		}
		c := cand{
			run: &AgentRun{RunID: id, PathID: p.ID, MeasuredBy: by, FixtureData: fixture,
				Method: method, Source: name, Submission: sub.Public()},
			order: [3]string{timeKey(sub.Run.FinishedAt), timeKey(sub.Run.StartedAt), id},
		}
		if old, ok := latest[p.ID]; !ok || lessOrder(old.order, c.order) {
			latest[p.ID] = c
		}
	}
	if opts.Fixture {
		files, err := runs.Fixture()
		if err != nil {
			return fmt.Errorf("import browser runs: %w", err)
		}
		for _, name := range sortedKeys(files) {
			add(name, files[name], true)
		}
	}
	if opts.Dir != "" {
		ents, err := os.ReadDir(opts.Dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("import browser runs %s: %w", opts.Dir, err)
		}
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(opts.Dir, e.Name()))
			if err != nil {
				errs = append(errs, fmt.Errorf("browser run %s: %w", e.Name(), err))
				continue
			}
			if len(b) > MaxBody {
				errs = append(errs, fmt.Errorf("browser run %s: %w", e.Name(), ErrTooLarge))
				continue
			}
			add(e.Name(), b, false)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("import browser runs: %w", err)
	}
	for _, p := range Paths {
		if p.Path != "browser" {
			continue
		}
		c, ok := latest[p.ID]
		if !ok {
			if err := os.Remove(agentRunFile(runDir, p.ID)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("import browser runs: %w", err)
			}
			continue
		}
		if err := writeAgentRun(runDir, c.run); err != nil {
			return fmt.Errorf("import browser runs: %w", err)
		}
	}
	return nil
}

// timeKey makes a submitted time sortable as text; a missing or
// unreadable time sorts first.
func timeKey(s string) string {
	t, ok := ParseTime(s)
	if !ok {
		return ""
	}
	return t.Format("2006-01-02T15:04:05.000000000Z")
}

func lessOrder(a, b [3]string) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// BrowserLaneByHost reads the browser-shopper runs of the run folder
// (runDir/agent_runs/browser-*.json, as ImportBrowserRuns left them) and
// returns the buy.browser lane per SVC-100 host: true when any shopper
// reached the cart or checkout there (added_to_cart or checkout_reached),
// false when at least one shopper tried the store (any other outcome but
// not_attempted) and none did. A host without an entry was not covered by
// any browser run: its buy_browser is null.
func BrowserLaneByHost(runDir string) (map[string]bool, error) {
	agentRuns, err := ReadAgentRuns(runDir)
	if err != nil {
		return nil, fmt.Errorf("browser lane %s: %w", runDir, err)
	}
	out := map[string]bool{}
	for _, p := range Paths {
		r, ok := agentRuns[p.ID]
		if !ok || p.Path != "browser" {
			continue
		}
		for _, res := range r.Submission.Results {
			st, ok := svc100.ByID(res.ID)
			if !ok || res.Outcome == OutcomeNotAttempted {
				continue
			}
			out[st.Host] = out[st.Host] || CartSuccess(res.Outcome)
		}
	}
	return out, nil
}
