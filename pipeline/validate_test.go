package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// TestValidateAgreesWithEngine: over the fixture world, the validate stage
// and the check engine give every store the same UCP verdict, and the
// published report carries no address.
func TestValidateAgreesWithEngine(t *testing.T) {
	w := sharedWorld(t)
	if w.stats.Total != len(w.world.Stores) || w.stats.Failed != 0 || w.stats.Done != w.stats.Total {
		t.Errorf("validate stats %+v", w.stats)
	}
	dir := w.newRun(t, t.TempDir(), "r1", testDate)
	cols, err := ReadTableFile(filepath.Join(dir, UCPFile), datasets.UCPValidations)
	if err != nil {
		t.Fatal(err)
	}
	if cols.Len() != len(w.world.Stores) {
		t.Fatalf("%d rows, want %d", cols.Len(), len(w.world.Stores))
	}
	col := datasets.UCPValidations.ColumnIndex
	skipped := 0
	for i := range cols.Len() {
		host := cols.Value(i, col("host")).(string)
		p := w.crawl[host].Result.UCPProfile
		var wantValid, wantDir any
		if p.Valid != nil {
			wantValid = *p.Valid
		}
		if p.DirectoryCount != nil {
			wantDir = *p.DirectoryCount
		}
		var wantVersion any
		if p.DeclaredVersion != nil {
			wantVersion = *p.DeclaredVersion
		}
		got := [4]any{cols.Value(i, col("status")), cols.Value(i, col("valid")), cols.Value(i, col("declared_version")), cols.Value(i, col("counts_in_directory"))}
		if want := [4]any{p.Status, wantValid, wantVersion, wantDir}; got != want {
			t.Errorf("%s: validate says %v, the engine %v", host, got, want)
		}
		if p.Valid != nil {
			if e, w := cols.Value(i, col("errors")), int64(p.Errors); e != w {
				t.Errorf("%s: %v errors, the engine %d", host, e, w)
			}
		}
		report, _ := cols.Value(i, col("report")).(string)
		if cols.Value(i, col("fetch_error")) == "homepage_unreachable" {
			skipped++
			if report != "" {
				t.Errorf("%s: a report for a store whose homepage gave no answer", host)
			}
			continue
		}
		if report == "" {
			t.Errorf("%s: no report", host)
		}
		if strings.Contains(report, "127.0.0.1") || strings.Contains(report, "dial tcp") {
			t.Errorf("%s: the report carries an address or a raw network error", host)
		}
	}
	if skipped != w.stats.Skipped || skipped == 0 {
		t.Errorf("%d rows kept the crawl's verdict, stats say %d; the world has stores whose homepage times out", skipped, w.stats.Skipped)
	}
}

// fakeValidator answers ValidateURL from a table of canned results.
type fakeValidator struct {
	mu    sync.Mutex
	calls []string
	fn    func(host string) (*ucp.Report, error)
}

func (f *fakeValidator) ValidateURL(ctx context.Context, rawURL string, _ ucp.URLOptions) (*ucp.Report, error) {
	host := strings.TrimSuffix(strings.TrimPrefix(rawURL, "https://"), "/")
	f.mu.Lock()
	f.calls = append(f.calls, host)
	f.mu.Unlock()
	return f.fn(host)
}

// writeCrawlJournal writes a crawl journal of n stores; shop-003 failed
// its check, shop-004's homepage gave no answer.
func writeCrawlJournal(t *testing.T, dir string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range n {
		host := fmt.Sprintf("shop-%03d.test", i)
		rec := CrawlRecord{Store: Store{Host: host, Source: "seed"}}
		switch i {
		case 3:
			rec.Error = "refused"
		case 4:
			rec.Result = &check.Result{Host: host, CheckedAt: testStarted, Reachability: check.Reachability{Error: "timeout"}}
		default:
			rec.Result = &check.Result{Host: host, CheckedAt: testStarted, Reachability: check.Reachability{HTTPStatus: 200}}
		}
		line, _ := json.Marshal(rec)
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, JournalName), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestValidateResumesAndCounts(t *testing.T) {
	dir := t.TempDir()
	writeCrawlJournal(t, dir, 12)
	at := time.Date(2026, 5, 4, 7, 0, 0, 0, time.UTC)
	now := func() time.Time { return at }
	fv := &fakeValidator{fn: func(host string) (*ucp.Report, error) {
		switch host {
		case "shop-005.test":
			return nil, fmt.Errorf("validate: %w", ucp.ErrTooLarge)
		case "shop-006.test":
			return nil, &fetch.RefusedError{Code: fetch.CodeBlockedAddress, Reason: "private address"}
		case "shop-007.test":
			return &ucp.Report{Source: ucp.Source{Type: "url", ProfileURL: "https://" + host + "/.well-known/ucp",
				FetchError: "Get https://shop-007.test/.well-known/ucp: dial tcp 10.1.2.3:443: connect: connection refused"},
				Summary: "could not fetch: Get https://shop-007.test/.well-known/ucp: dial tcp 10.1.2.3:443: connect: connection refused",
				Profile: json.RawMessage("null")}, nil
		}
		v := "2026-08-25"
		return &ucp.Report{Valid: bp(true), DeclaredVersion: &v, Counts: ucp.Counts{Warnings: 2},
			Source:  ucp.Source{Type: "url", ProfileURL: "https://" + host + "/.well-known/ucp", Status: 200},
			Profile: json.RawMessage(`{"ucp":{"version":"2026-08-25","services":{"dev.ucp.shopping":[{"transport":"rest"}]}}}`)}, nil
	}}

	// A first, interrupted run left four records and a torn line.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Validate(ctx, ValidateOptions{Dir: dir, Validator: fv, Now: now}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled validate: %v", err)
	}
	fv.calls = nil
	var b strings.Builder
	for i := range 4 {
		host := fmt.Sprintf("shop-%03d.test", i+8)
		line, _ := json.Marshal(ValidationRecord{Host: host, Status: "missing", HTTPStatus: 404, CheckedAt: at})
		b.Write(append(line, '\n'))
	}
	b.WriteString(`{"host":"shop-001.test","sta`)
	if err := os.WriteFile(filepath.Join(dir, ValidateJournal), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	st, err := Validate(context.Background(), ValidateOptions{Dir: dir, Validator: fv, Now: now, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := (ValidateStats{Total: 12, Done: 8, Resumed: 4, Skipped: 2, Failed: 1}); st.Total != want.Total ||
		st.Done != want.Done || st.Resumed != want.Resumed || st.Skipped != want.Skipped || st.Failed != want.Failed {
		t.Errorf("stats %+v, want %+v", st, want)
	}
	if len(fv.calls) != 6 { // the 8 stores not yet done, less the 2 that keep the crawl's verdict
		t.Errorf("validator called for %v, want 6 stores", fv.calls)
	}
	n, err := WriteUCPValidations(dir)
	if err != nil || n != 12 {
		t.Fatalf("wrote %d rows: %v", n, err)
	}
	cols, err := ReadTableFile(filepath.Join(dir, UCPFile), datasets.UCPValidations)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][3]any{}
	for _, r := range cols.Rows() {
		got[r[0].(string)] = [3]any{r[1], r[11], r[13]} // status, fetch_error, checked_at
		if rep, _ := r[12].(string); strings.Contains(rep, "10.1.2.3") || strings.Contains(rep, "dial tcp") {
			t.Errorf("%s: the published report carries the raw network error: %s", r[0], rep)
		}
	}
	want := map[string][3]any{
		"shop-000.test": {"valid", nil, at}, "shop-001.test": {"valid", nil, at}, "shop-002.test": {"valid", nil, at},
		"shop-003.test": {"not_checked", "check_failed", nil},
		"shop-004.test": {"unreachable", "homepage_unreachable", testStarted},
		"shop-005.test": {"invalid", "too_large", at},
		"shop-006.test": {"not_checked", "refused_blocked_address", at},
		"shop-007.test": {"unreachable", "connection_failed", at},
	}
	for i := 8; i < 12; i++ {
		want[fmt.Sprintf("shop-%03d.test", i)] = [3]any{"missing", nil, at}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	r0 := cols.Row(0)
	if r0[5] != true || r0[6] != true || r0[8] != int64(2) || r0[2] != "https://shop-000.test/.well-known/ucp" {
		t.Errorf("shop-000 row %v: want valid, counted in the directory, 2 warnings, the profile URL", r0)
	}

	// A run that was never crawled says what to run.
	_, err = Validate(context.Background(), ValidateOptions{Dir: filepath.Join(t.TempDir(), "r9"), Validator: fv})
	if err == nil || !strings.Contains(err.Error(), "svc crawl --run r9") {
		t.Errorf("no crawl: %v", err)
	}
	fresh := filepath.Join(t.TempDir(), "r8")
	writeCrawlJournal(t, fresh, 2)
	if _, err := WriteUCPValidations(fresh); err == nil || !strings.Contains(err.Error(), "svc validate --run r8") {
		t.Errorf("no validate journal: %v", err)
	}
}

func TestFetchErrorClass(t *testing.T) {
	for msg, want := range map[string]string{
		"Get https://a.test/.well-known/ucp: request timed out":         "timeout",
		"context deadline exceeded":                                     "timeout",
		"tls: failed to verify certificate: x509: unknown authority":    "tls",
		"refused https://a.test/: too many redirects":                   "too_many_redirects",
		"dial tcp 203.0.113.9:443: connect: connection refused":         "connection_failed",
		"Get https://a.test/: response body over the size limit (3 MB)": "too_large",
	} {
		if got := fetchErrorClass(msg); got != want {
			t.Errorf("fetchErrorClass(%q) = %s, want %s", msg, got, want)
		}
	}
}
