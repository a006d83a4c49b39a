package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"svc/datasets/svc100"
	"svc/pipeline/durable"
	"svc/pipeline/leaderboard"
	"svc/pipeline/shop"
	"svc/publish"
)

// The shop stage (`svc shop` without a URL): the service's browser
// shoppers A to E over SVC-100 v1 (and the --stores list), one journal
// line per (store, shopper) as each run completes, in the run folder:
//
//	shop/shop.jsonl                     the journal (resumable)
//	shop/shard=<i>-of-<n>/shop.jsonl    the journal of shard i
//	shop/screens/<sha256>.jpg           each run's last page, named by content
//
// A screenshot is written before its journal line, so a line never names
// a missing file. WriteShopRuns turns the journals into the leaderboard's
// browser runs; BrowserLaneByHost into store_answers.buy_browser;
// WriteShopEvidence into the published step logs and screenshots.
const (
	ShopDirName  = "shop"
	ShopJournal  = "shop.jsonl"
	ShopScreens  = "shop/screens"
	DefaultPages = 2 // browser pages at once: fits 2 cores
)

// ShopDir is the shop stage's folder of a run or of one of its shards.
func ShopDir(runDir string, s Shard) string {
	if !s.Sharded() {
		return filepath.Join(runDir, ShopDirName)
	}
	return filepath.Join(runDir, ShopDirName, s.Dir())
}

// ShopRunner runs one path on one store: shop.Run over one shop.Options
// (with its Browser) is the real one.
type ShopRunner func(ctx context.Context, shopper shop.Shopper, rawURL string) (*shop.Report, error)

// ShopRecord is one journal line of the shop stage: one shopper's run on
// one store.
type ShopRecord struct {
	Host     string `json:"host"`
	Shopper  string `json:"shopper"`
	SVC100ID string `json:"svc100_id,omitempty"`
	// At is when the run started (UTC).
	At     time.Time    `json:"at"`
	Report *shop.Report `json:"report"`
}

func (r ShopRecord) key() string {
	if r.Host == "" || r.Shopper == "" {
		return ""
	}
	return r.Host + " " + r.Shopper
}

// ShopStageOptions configure ShopStage.
type ShopStageOptions struct {
	StageEnv
	// Stores are shopped beside SVC-100 v1 (the --stores list); nil for
	// SVC-100 only.
	Stores []Store
	// Concurrency bounds the browser pages at once; default DefaultPages.
	Concurrency int
	Shard       Shard
	// Shoppers run; default A to E.
	Shoppers []shop.Shopper
	// Run runs one path on one store. Required.
	Run ShopRunner
	// Now is the clock of the records; default time.Now.
	Now func() time.Time

	testSet []svc100.Store // nil: svc100.Stores(); tests shorten it
}

// shopItem is one (store, shopper) pair of the stage.
type shopItem struct {
	host, svc100ID string
	shopper        shop.Shopper
}

// ShopStage runs the browser shoppers over SVC-100 v1 (and o.Stores) for
// the run, o.Concurrency pages at once, appending each run to the
// journal as it completes, so a stage that is killed resumes without
// running a finished (store, shopper) pair again. With a shard it runs
// only the stores of its shard. When the whole set is covered (no shard),
// it also writes the leaderboard's browser runs (WriteShopRuns); aggregate
// does it again over every shard's journal.
func ShopStage(ctx context.Context, o ShopStageOptions) error {
	if o.Run == nil {
		return errors.New("shop: no runner")
	}
	if o.Shard.Sharded() {
		if err := o.Shard.Validate(); err != nil {
			return fmt.Errorf("shop: %w", err)
		}
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultPages
	}
	if len(o.Shoppers) == 0 {
		o.Shoppers = []shop.Shopper{shop.Semantic, shop.Accessibility, shop.WebMCP, shop.Model, shop.Mobile}
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	files, log := o.files(), o.log()
	ri, err := files.OpenRun(ctx, o.RunID, time.Now())
	if err != nil {
		return err
	}
	dir := RunDir(o.DataDir, o.RunID)
	part := ShopDir(dir, o.Shard)
	synced := []string{filepath.ToSlash(filepath.Join(ShopDirName, ShopJournal))}
	if o.Shard.Sharded() {
		synced = []string{filepath.ToSlash(filepath.Join(ShopDirName, o.Shard.Dir()))}
	}
	if err := files.Pull(ctx, o.RunID, append(synced, ShopScreens)...); err != nil {
		return err
	}
	for _, d := range []string{part, filepath.Join(dir, ShopScreens)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("shop: %w", err)
		}
	}
	var stores []shopItem
	set := o.testSet
	if set == nil {
		set = svc100.Stores()
	}
	for _, st := range shopStores(set, o.Stores) {
		if o.Shard.Contains(st.host) {
			stores = append(stores, st)
		}
	}
	items := shopItems(stores, o.Shoppers)
	path := filepath.Join(part, ShopJournal)
	done := map[string]bool{}
	err = readShopJournal(path, func(r ShopRecord) { done[r.key()] = true })
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	j, err := openJournalEach(path)
	if err != nil {
		return fmt.Errorf("shop: %w", err)
	}
	defer j.close()
	start := time.Now()
	screens := filepath.Join(dir, ShopScreens)
	c, writeErr := journaled[shopItem]{
		name:        "shop",
		journal:     j,
		items:       items,
		host:        func(it shopItem) string { return it.host + " " + string(it.shopper) },
		done:        done,
		concurrency: o.Concurrency,
		progress:    NewProgress(o.ErrOut, "shop", log),
		log:         log,
		failedMsg:   "shop run ended in error", failedDebug: true,
		work: func(ctx context.Context, it shopItem) workResult {
			rec := ShopRecord{Host: it.host, Shopper: string(it.shopper), SVC100ID: it.svc100ID, At: now().UTC().Truncate(time.Microsecond)}
			rep, err := o.Run(ctx, it.shopper, "https://"+it.host+"/")
			rec.Report = shopReport(rep, err, it)
			res := workResult{record: rec, host: rec.key()}
			if sc := rec.Report.Screenshot; sc != nil {
				// Kept before its journal line, which then never names a
				// missing file; one that cannot be kept is not named.
				if len(sc.Data) == 0 {
					rec.Report.Screenshot = nil
				} else if werr := writeScreenshot(screens, sc); werr != nil {
					rec.Report.Screenshot = nil
					log.Warn("shop screenshot not kept", "host", it.host, "error", werr)
				}
			}
			res.failed = rec.Report.Outcome == shop.Error
			res.errText = rec.Report.Reason
			if r := rec.Report.Reason; r == "browser_crashed" || r == "browser_unresponsive" {
				// A fault of svc's own browser, not of the store: the run
				// is kept as error (not tried again) and the next runs
				// open in a new Chromium.
				log.Warn("shop run lost with the browser; a new browser takes the next runs", "host", it.host, "shopper", string(it.shopper), "reason", r)
			}
			return res
		},
	}.run(ctx)
	if err := errors.Join(writeErr, ctx.Err()); err != nil {
		return fmt.Errorf("shop %s%s: %w", o.RunID, o.Shard.label(), err)
	}
	if !o.Shard.Sharded() {
		if err := WriteShopRuns(dir, ri.ID); err != nil {
			return err
		}
	}
	push := append(synced, ShopScreens)
	if !o.Shard.Sharded() {
		// The folder may hold no browser run (none attempted), but a
		// path pushed must exist.
		if err := os.MkdirAll(filepath.Join(dir, leaderboard.AgentRunsDir), 0o755); err != nil {
			return fmt.Errorf("shop: %w", err)
		}
		push = append(push, leaderboard.AgentRunsDir)
	}
	if err := files.Push(ctx, o.RunID, push...); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "shop %s%s: %d runs (%d stores × %d shoppers), %d run now, %d resumed, %d errors, journal %s (%s)\n",
		o.RunID, o.Shard.label(), c.total, len(items)/max(len(o.Shoppers), 1), len(o.Shoppers), c.done, c.resumed, c.failed,
		path, time.Since(start).Round(time.Millisecond))
	return nil
}

// shopStores is the test set and then the extra stores, each host once.
func shopStores(set []svc100.Store, extra []Store) []shopItem {
	seen := map[string]bool{}
	var out []shopItem
	for _, st := range set {
		seen[st.Host] = true
		out = append(out, shopItem{host: st.Host, svc100ID: st.ID})
	}
	for _, st := range extra {
		if !seen[st.Host] && st.Source != "opted-out" {
			seen[st.Host] = true
			out = append(out, shopItem{host: st.Host})
		}
	}
	return out
}

// shopItems is every (store, shopper) pair, store by store.
func shopItems(stores []shopItem, shoppers []shop.Shopper) []shopItem {
	out := make([]shopItem, 0, len(stores)*len(shoppers))
	for _, st := range stores {
		for _, s := range shoppers {
			st.shopper = s
			out = append(out, st)
		}
	}
	return out
}

// shopReport is the report a journal line keeps: the run's, or for a run
// that did not happen, an outcome that says why. Step addresses are
// checked once more: none may be a checkout address.
func shopReport(rep *shop.Report, err error, it shopItem) *shop.Report {
	if rep == nil {
		rep = &shop.Report{Shopper: it.shopper, Store: "https://" + it.host, StoppedBeforePayment: true, Log: []shop.Step{}}
		switch {
		case errors.Is(err, shop.ErrInvalidURL):
			rep.Outcome, rep.Reason = shop.NotAttempted, "unsafe_url"
		default:
			rep.Outcome, rep.Reason = shop.Error, "run_failed"
		}
	}
	for i := range rep.Log {
		rep.Log[i].URL = safeStepURL(rep.Log[i].URL)
	}
	return rep
}

// safeStepURL keeps a step address only in the form shop.StepURL gives:
// no query or fragment, and a checkout page's address withheld.
func safeStepURL(u string) string {
	if u == "" || strings.HasSuffix(u, "/"+shop.Withheld) {
		return u
	}
	return shop.StepURL(u, false)
}

// writeScreenshot keeps a screenshot under its content hash, once.
func writeScreenshot(dir string, s *shop.Screenshot) error {
	if len(s.SHA256) != 64 || strings.Trim(s.SHA256, "0123456789abcdef") != "" {
		return fmt.Errorf("screenshot: bad hash %q", s.SHA256)
	}
	p := filepath.Join(dir, s.SHA256+".jpg")
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	return durable.WriteFileAtomic(p, s.Data, 0o644)
}

// readShopJournal calls fn for the last complete record of every (host,
// shopper) of one journal; torn lines are skipped.
func readShopJournal(path string, fn func(ShopRecord)) error {
	return readLastByHost(path, "shop journal", ShopRecord.key, func(r ShopRecord) {
		if r.Report != nil {
			fn(r)
		}
	})
}

// ReadShopRecords reads every shop journal of the run folder (the
// unsharded one and every shard's), the last record of each (host,
// shopper), sorted by host then shopper. No journal is no records.
func ReadShopRecords(runDir string) ([]ShopRecord, error) {
	paths := []string{filepath.Join(runDir, ShopDirName, ShopJournal)}
	shards, _ := filepath.Glob(filepath.Join(runDir, ShopDirName, "shard=*", ShopJournal))
	paths = append(paths, shards...)
	last := map[string]ShopRecord{}
	for _, p := range paths {
		err := readShopJournal(p, func(r ShopRecord) { last[r.key()] = r })
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	out := make([]ShopRecord, 0, len(last))
	for _, r := range last {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Host != out[j].Host {
			return out[i].Host < out[j].Host
		}
		return out[i].Shopper < out[j].Shopper
	})
	return out, nil
}

// WriteShopRuns writes the leaderboard's browser runs
// (agent_runs/browser-<x>.json) from the run's shop journals: per
// shopper, its results on the SVC-100 v1 stores. With no journal (no
// browser) every browser path is left without a run: not measured.
func WriteShopRuns(runDir, runID string) error {
	recs, err := ReadShopRecords(runDir)
	if err != nil {
		return fmt.Errorf("shop runs: %w", err)
	}
	by := map[string][]leaderboard.BrowserResult{}
	for _, r := range recs {
		st, ok := svc100.ByHost(r.Host)
		if !ok {
			continue
		}
		by[r.Shopper] = append(by[r.Shopper], leaderboard.BrowserResult{
			ID: st.ID, Outcome: r.Report.Outcome, Reason: r.Report.Reason, At: r.At,
			Seconds: r.Report.Seconds, Steps: r.Report.Steps, Model: r.Report.Model,
			EvidenceURL: "/" + publish.ShopEvidencePath(r.Host),
		})
	}
	if err := leaderboard.WriteBrowserRuns(runDir, runID, by); err != nil {
		return fmt.Errorf("shop runs: %w", err)
	}
	return nil
}

// BrowserLaneByHost returns the buy.browser lane of each store the shop
// stage covered in the run in runDir: true when a shopper reached the
// cart or checkout there, false when shoppers tried and none did. A host
// that is absent was not covered, or every shopper was not_attempted: its
// buy_browser is null (unmeasured), never false.
func BrowserLaneByHost(runDir string) (map[string]bool, error) {
	recs, err := ReadShopRecords(runDir)
	if err != nil {
		return nil, fmt.Errorf("browser lane: %w", err)
	}
	outcomes := map[string][]string{}
	for _, r := range recs {
		outcomes[r.Host] = append(outcomes[r.Host], r.Report.Outcome)
	}
	out := map[string]bool{}
	for h, list := range outcomes {
		if reached, tried := leaderboard.BrowserLane(list); tried {
			out[h] = reached
		}
	}
	return out, nil
}

// shopNote is the note of every evidence file.
const shopNote = "What the service's browser shoppers did and saw at this store, stopped before payment: " +
	"each action with the element's role and name, the page title and address (without query or fragment; " +
	"on a checkout page the address is withheld), and the last page as a small screenshot. No order was placed."

// WriteShopEvidence writes the published evidence of the run's shop
// journals into the run's out/files: one publish.ShopEvidence per store
// at publish.ShopEvidencePath and each screenshot it names at
// publish.ShopScreenshotPath. What an earlier aggregate of the run wrote
// there is replaced. It returns the number of stores.
func WriteShopEvidence(runDir, runID string) (int, error) {
	recs, err := ReadShopRecords(runDir)
	if err != nil {
		return 0, fmt.Errorf("shop evidence: %w", err)
	}
	out := filepath.Join(runDir, OutFiles)
	if err := os.RemoveAll(filepath.Join(out, "data", "shop")); err != nil {
		return 0, fmt.Errorf("shop evidence: %w", err)
	}
	if len(recs) == 0 {
		return 0, nil
	}
	for _, d := range []string{publish.ShopEvidenceDir, publish.ShopScreensDir} {
		if err := os.MkdirAll(filepath.Join(out, filepath.FromSlash(d)), 0o755); err != nil {
			return 0, fmt.Errorf("shop evidence: %w", err)
		}
	}
	byHost := map[string]*publish.ShopEvidence{}
	var hosts []string
	for _, r := range recs {
		ev := byHost[r.Host]
		if ev == nil {
			ev = &publish.ShopEvidence{Host: r.Host, RunID: runID, Note: shopNote, StoppedBeforePayment: true, Shoppers: []publish.ShopperSeen{}}
			if r.SVC100ID != "" {
				id := r.SVC100ID
				ev.Svc100ID = &id
			}
			byHost[r.Host] = ev
			hosts = append(hosts, r.Host)
		}
		rep := r.Report
		seen := publish.ShopperSeen{Shopper: r.Shopper, Label: "Browser shopper " + r.Shopper, Outcome: rep.Outcome, Reason: rep.Reason,
			At: r.At, Seconds: rep.Seconds, Steps: rep.Steps, Log: []publish.ShopStep{}, Browser: rep.Browser, Model: rep.Model}
		if cw := rep.CheckoutWebMCP; cw != nil {
			tools := append([]string{}, cw.Tools...)
			seen.CheckoutWebMCP = &publish.ShopCheckoutWebMCP{Detected: cw.Detected, Tools: tools}
		}
		for _, st := range rep.Log {
			seen.Log = append(seen.Log, publish.ShopStep{N: st.N, Action: st.Action, Role: st.Role, Name: st.Name,
				Title: st.Title, URL: safeStepURL(st.URL), Note: st.Note})
		}
		if sc := rep.Screenshot; sc != nil {
			b, err := os.ReadFile(filepath.Join(runDir, ShopScreens, sc.SHA256+".jpg"))
			switch {
			case errors.Is(err, os.ErrNotExist):
				// not kept: shown as none
			case err != nil:
				return 0, fmt.Errorf("shop evidence: %w", err)
			default:
				p := publish.ShopScreenshotPath(sc.SHA256)
				if err := durable.WriteFileAtomic(filepath.Join(out, filepath.FromSlash(p)), b, 0o644); err != nil {
					return 0, fmt.Errorf("shop evidence: %w", err)
				}
				seen.Screenshot = &publish.ShopScreenshot{Path: p, SHA256: sc.SHA256, Bytes: len(b)}
			}
		}
		ev.Shoppers = append(ev.Shoppers, seen)
	}
	for _, h := range hosts {
		b, err := json.MarshalIndent(byHost[h], "", "  ")
		if err != nil {
			return 0, fmt.Errorf("shop evidence: %w", err)
		}
		p := filepath.Join(out, filepath.FromSlash(publish.ShopEvidencePath(h)))
		if err := durable.WriteFileAtomic(p, append(b, '\n'), 0o644); err != nil {
			return 0, fmt.Errorf("shop evidence: %w", err)
		}
	}
	return len(hosts), nil
}

// CheckoutWebMCPSeen is what the shop stage saw of Checkout WebMCP at one
// store. Measured is true when a browser shopper reached the store's
// checkout page (Detected and Tools then hold what it registered there);
// false when shoppers ran but none reached checkout. Reason says which
// shoppers and when, in words.
type CheckoutWebMCPSeen struct {
	Measured, Detected bool
	Tools              []string
	Reason             string
}

// CheckoutWebMCPByHost returns, per store the shop stage covered in the
// run in runDir, the WebMCP tools its browser shoppers found registered
// or declared at the store's checkout page. A store where no shopper
// reached checkout is listed with Measured false and a reason; a store
// no shopper ran at (or every one was not_attempted) is absent.
func CheckoutWebMCPByHost(runDir string) (map[string]CheckoutWebMCPSeen, error) {
	recs, err := ReadShopRecords(runDir)
	if err != nil {
		return nil, fmt.Errorf("checkout webmcp: %w", err)
	}
	type acc struct {
		reached, tried []string
		detected       bool
		tools          map[string]bool
		last           time.Time
	}
	by := map[string]*acc{}
	var hosts []string
	for _, r := range recs {
		if r.Report.Outcome == shop.NotAttempted {
			continue
		}
		a := by[r.Host]
		if a == nil {
			a = &acc{tools: map[string]bool{}}
			by[r.Host] = a
			hosts = append(hosts, r.Host)
		}
		a.tried = append(a.tried, r.Shopper)
		cw := r.Report.CheckoutWebMCP
		if cw == nil {
			continue
		}
		a.reached = append(a.reached, r.Shopper)
		a.detected = a.detected || cw.Detected
		for _, t := range cw.Tools {
			a.tools[t] = true
		}
		if r.At.After(a.last) {
			a.last = r.At
		}
	}
	out := make(map[string]CheckoutWebMCPSeen, len(hosts))
	for _, h := range hosts {
		a := by[h]
		if len(a.reached) == 0 {
			out[h] = CheckoutWebMCPSeen{Tools: []string{}, Reason: "No browser shopper reached this store's checkout page (shoppers " +
				strings.Join(a.tried, ", ") + " tried), so Checkout WebMCP was not measured there."}
			continue
		}
		tools := sortedKeys(a.tools)
		seen := "no WebMCP tool was registered or declared there"
		if a.detected {
			seen = "the page offered the WebMCP tools listed"
		}
		out[h] = CheckoutWebMCPSeen{Measured: true, Detected: a.detected, Tools: tools,
			Reason: "Measured: browser shopper " + strings.Join(a.reached, ", ") + " reached the checkout page on " +
				a.last.UTC().Format("2006-01-02") + " and " + seen + " (tools registered as the page ran, and toolname forms). " +
				"Buyer approval is required before any order; svc called none."}
	}
	return out, nil
}
