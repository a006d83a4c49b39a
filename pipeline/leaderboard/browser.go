package leaderboard

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"svc/datasets/svc100"
)

// BrowserMethodVersion names the method of the service's browser shoppers
// (package pipeline/shop); it is the agent.version of their runs.
// browser-shopper/2 (issue 34): shopper C and the Checkout WebMCP reading
// ask Chromium's own WebMCP (the DevTools WebMCP domain) for a page's
// tools and call them with WebMCP.invokeTool, instead of a modelContext
// stand-in injected into the page. browser-shopper/3: A, B and E choose
// a product's options drawn as Radix radio groups when its add waits on a
// choice, look for the add once on each product page, and wait up to 2 s
// for a storefront's router after a link click; a run whose tab's
// renderer died is error page_crashed.
const BrowserMethodVersion = "browser-shopper/3"

// BrowserMethod describes how the browser paths' runs are made.
const BrowserMethod = "the service's own browser shopper run in headless Chromium (the svc shop stage), method " + BrowserMethodVersion

// BrowserResult is one browser shopper's run on one SVC-100 store, as the
// shop stage journalled it.
type BrowserResult struct {
	ID      string // svc100-v1-NNN
	Outcome string
	Reason  string
	At      time.Time
	Seconds float64
	Steps   int
	Model   string // path D's model, "" for the others
	// EvidenceURL is where the run's step log and screenshot are
	// published; "" for none.
	EvidenceURL string
}

// WriteBrowserRuns writes the service's own browser-shopper runs of the
// pipeline run runID into runDir/agent_runs/browser-<x>.json, one per
// shopper "A" … "E" of byShopper, labelled as measured by the service,
// with the run's start (the first result's time) and end (the last
// result's end). A shopper with no result it attempted (none, or every one
// not_attempted, e.g. D without a model) gets no file, and an old file is
// removed: its path is not measured, never zero. So is a shopper with
// fewer results than a submission holds (a run stopped early).
func WriteBrowserRuns(runDir, runID string, byShopper map[string][]BrowserResult) error {
	for _, p := range Paths {
		if p.Path != "browser" {
			continue
		}
		letter := strings.ToUpper(strings.TrimPrefix(p.ID, "browser-"))
		r := browserRun(runID, p, byShopper[letter])
		if r == nil {
			if err := os.Remove(agentRunFile(runDir, p.ID)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("browser runs: %w", err)
			}
			continue
		}
		if _, err := Parse(mustJSON(r.Submission)); err != nil {
			return fmt.Errorf("browser run %s: the run does not validate: %w", p.ID, err)
		}
		if err := writeAgentRun(runDir, r); err != nil {
			return fmt.Errorf("browser runs: %w", err)
		}
	}
	return nil
}

// minResults is the fewest results a submission holds (spec 2.11).
const minResults = 10

// browserRun is the run of one shopper, nil when it is not measured.
func browserRun(runID string, p PathInfo, res []BrowserResult) *AgentRun {
	res = append([]BrowserResult(nil), res...)
	sort.Slice(res, func(i, j int) bool { return res[i].ID < res[j].ID })
	attempted := false
	for _, r := range res {
		attempted = attempted || r.Outcome != OutcomeNotAttempted
	}
	if !attempted || len(res) < minResults || len(res) > svc100.Size {
		return nil
	}
	var started, finished time.Time
	sub := &Submission{
		Spec: svc100.Spec, TestSet: svc100.TestSet,
		Agent: Agent{Name: p.Agent, Version: BrowserMethodVersion, Builder: MeasuredBy, Path: p.Path},
	}
	reasons := map[string]string{}
	for i, r := range res {
		at := r.At.UTC().Truncate(time.Microsecond)
		end := at.Add(time.Duration(r.Seconds * float64(time.Second))).Truncate(time.Microsecond)
		if i == 0 || at.Before(started) {
			started = at
		}
		if end.After(finished) {
			finished = end
		}
		secs := float64(int64(max(r.Seconds, 0)*1000)) / 1000
		steps := float64(r.Steps)
		sub.Results = append(sub.Results, Result{ID: r.ID, Outcome: r.Outcome, At: at.Format(time.RFC3339Nano),
			EvidenceURL: r.EvidenceURL, Steps: &steps, Seconds: &secs})
		reasons[r.ID] = r.Reason
		if r.Model != "" {
			sub.Agent.Model = r.Model
		}
	}
	sub.Run = Run{
		StartedAt: started.Format(time.RFC3339Nano), FinishedAt: finished.Format(time.RFC3339Nano),
		StoppedBeforePayment: true,
		Notes: "The service's own measured run (" + p.Label + ", method " + BrowserMethodVersion + ") in headless Chromium: " +
			"to the cart and the first checkout page, stopped before payment. No checkout URL was kept.",
	}
	return &AgentRun{
		RunID: "svc-" + p.ID + "-" + runID, PathID: p.ID, MeasuredBy: MeasuredBy,
		Method: BrowserMethod, Reasons: reasons, Submission: sub,
	}
}

// BrowserLane folds shopper outcomes into the buy.browser lane of one
// store: reached is true when any shopper reached the cart or checkout
// (added_to_cart or checkout_reached); tried is false when no shopper
// attempted the store (every outcome not_attempted, or none), and then the
// lane is unmeasured (null), never false.
func BrowserLane(outcomes []string) (reached, tried bool) {
	for _, o := range outcomes {
		if o == OutcomeNotAttempted {
			continue
		}
		tried = true
		reached = reached || CartSuccess(o)
	}
	return reached, tried
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
