package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"svc/datasets"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// The validate stage fetches and validates the UCP profile of every store
// the crawl checked, and keeps the full report (spec 2.4) in
// ucp_validations.parquet.
//
// Why it fetches again rather than reuse the crawl journal: the check
// engine keeps only the verdict, counts and rule ids of a profile, not the
// report (items with paths and messages, hosting checks, the profile
// itself) that the table publishes. So validate calls the same
// ucp.Validator.ValidateURL the engine calls, on the same origin
// (https://<host>/) with the same options, built from the same flags
// (--ucp-schema-dir): over the same answer it gives the same verdict, and a
// test holds the two to that over the fixture world. Where the engine did
// not fetch the profile either (the homepage gave no HTTP answer, or the
// check itself failed), validate records the engine's verdict without a
// request: status unreachable (or not_checked), report null.

// ValidateJournal is the validate stage's append-only journal inside the
// run folder; like the crawl's, it makes an interrupted stage resumable.
const ValidateJournal = "ucp_validations.jsonl"

// ProfileValidator validates one store's UCP profile by URL;
// *ucp.Validator satisfies it.
type ProfileValidator interface {
	ValidateURL(ctx context.Context, rawURL string, opts ucp.URLOptions) (*ucp.Report, error)
}

// ValidateOptions configure the validate stage.
type ValidateOptions struct {
	Dir         string // DIR/work/<run-id>: reads checks.jsonl, writes the journal
	Concurrency int    // profiles validated at once
	// Shard, when set, reads the crawl partition ChecksDir(Dir, Shard) and
	// keeps the journal in UCPDir(Dir, Shard).
	Shard     Shard
	Validator ProfileValidator
	Progress  Progress // nil for none
	Log       *slog.Logger
	Now       func() time.Time // the validation time recorded; default time.Now
}

// ValidateStats counts the outcome of a validate run. Skipped stores got
// the engine's verdict without a request; Failed ones could not be
// validated at all (the URL was refused).
type ValidateStats struct {
	Total, Done, Resumed, Skipped, Failed int
	Elapsed                               time.Duration
}

// ValidationRecord is one line of the validate journal.
type ValidationRecord struct {
	Host       string          `json:"host"`
	Status     string          `json:"status"`
	HTTPStatus int             `json:"httpStatus,omitempty"`
	FetchError string          `json:"fetchError,omitempty"`
	Report     json.RawMessage `json:"report,omitempty"` // null when no request was made
	CheckedAt  time.Time       `json:"checkedAt"`        // zero when the store was never checked
}

// Validate validates the UCP profile of every store in the run's crawl
// journal not yet in its own journal. One store's failure is recorded and
// counted, never fatal; a cancelled ctx stops the stage, and the next run
// resumes where it stopped.
func Validate(ctx context.Context, opts ValidateOptions) (ValidateStats, error) {
	start := time.Now()
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Validator == nil {
		return ValidateStats{}, fmt.Errorf("validate %s: no UCP validator", opts.Dir)
	}
	if opts.Shard.Sharded() {
		if err := opts.Shard.Validate(); err != nil {
			return ValidateStats{}, fmt.Errorf("validate %s: %w", opts.Dir, err)
		}
	}
	if err := checkRunLayout(opts.Dir, opts.Shard); err != nil {
		return ValidateStats{}, fmt.Errorf("validate: %w", err)
	}
	crawled, err := crawledStores(opts.Dir, opts.Shard)
	if err != nil {
		return ValidateStats{}, err
	}
	dir := UCPDir(opts.Dir, opts.Shard)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ValidateStats{}, fmt.Errorf("validate %s: %w", opts.Dir, err)
	}
	path := filepath.Join(dir, ValidateJournal)
	done := map[string]bool{}
	if err := readValidations(path, func(r ValidationRecord) { done[r.Host] = true }); err != nil && !errors.Is(err, os.ErrNotExist) {
		return ValidateStats{}, err
	}
	j, err := openJournal(path)
	if err != nil {
		return ValidateStats{}, fmt.Errorf("validate %s: %w", opts.Dir, err)
	}
	defer j.close()
	c, writeErr := journaled[CrawlRecord]{
		name:        "validate",
		journal:     j,
		items:       crawled,
		host:        func(r CrawlRecord) string { return r.Store.Host },
		done:        done,
		concurrency: opts.Concurrency,
		progress:    opts.Progress,
		log:         opts.Log,
		failedMsg:   "profile validation failed",
		work: func(ctx context.Context, rec CrawlRecord) workResult {
			vr, skipped, failed := validateOne(ctx, opts, rec)
			return workResult{record: vr, host: vr.Host, skipped: skipped, failed: failed, errText: vr.FetchError}
		},
	}.run(ctx)
	stats := ValidateStats{Total: c.total, Done: c.done, Resumed: c.resumed, Skipped: c.skipped, Failed: c.failed, Elapsed: time.Since(start)}
	if writeErr != nil {
		writeErr = fmt.Errorf("validate %s: %w", opts.Dir, writeErr)
	}
	return stats, errors.Join(writeErr, ctx.Err())
}

// crawledStores reads the crawl journal of shard s of the run in runDir; a
// run (or shard) that was never crawled is an error that says what to run.
func crawledStores(runDir string, s Shard) ([]CrawlRecord, error) {
	var out []CrawlRecord
	path := filepath.Join(ChecksDir(runDir, s), JournalName)
	err := ReadJournal(path, func(r CrawlRecord) { out = append(out, r) })
	if errors.Is(err, os.ErrNotExist) {
		id := filepath.Base(runDir)
		return nil, fmt.Errorf("run %s has no crawl journal %s: run `svc crawl --run %s%s` first", id, path, id, s.flag())
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// validateOne validates one crawled store the way the check engine does.
func validateOne(ctx context.Context, opts ValidateOptions, rec CrawlRecord) (vr ValidationRecord, skipped, failed bool) {
	host := rec.Store.Host
	vr = ValidationRecord{Host: host}
	switch {
	case rec.Result == nil:
		// The check itself failed: the engine has no verdict either.
		vr.Status, vr.FetchError = "not_checked", "check_failed"
		return vr, true, false
	case rec.Result.Reachability.HTTPStatus == 0:
		// The homepage gave no HTTP answer: the engine did not fetch the
		// profile and called it unreachable; so does this stage.
		vr.Status, vr.FetchError = ucp.VerdictUnreachable, "homepage_unreachable"
		vr.CheckedAt = rec.Result.CheckedAt // the verdict is the crawl's
		return vr, true, false
	}
	origin := "https://" + host + "/"
	rep, err := opts.Validator.ValidateURL(ctx, origin, ucp.URLOptions{})
	vr.CheckedAt = opts.Now().UTC().Truncate(time.Microsecond)
	switch {
	case err == nil:
	case errors.Is(err, ucp.ErrTooLarge):
		// As the engine: an oversized profile is invalid (ucp.doc.size).
		vr.Status, vr.FetchError = ucp.VerdictInvalid, "too_large"
		return vr, false, false
	default:
		vr.Status, vr.FetchError = "not_checked", check.ErrorClass(err)
		return vr, false, true
	}
	vr.Status = rep.Verdict()
	vr.HTTPStatus = rep.Source.Status
	b, err := json.Marshal(rep)
	if err != nil {
		vr.Status, vr.FetchError = "not_checked", "report_unencodable"
		return vr, false, true
	}
	if raw := rep.Source.FetchError; raw != "" {
		vr.FetchError = fetchErrorClass(raw)
		b = scrubError(b, raw, vr.FetchError)
	}
	vr.Report = b
	return vr, false, false
}

// fetchErrorClass reduces the validator's fetch error text to a class safe
// to publish (no address, no raw error).
func fetchErrorClass(msg string) string {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, fetch.ErrTimeout.Error()), strings.Contains(m, "deadline exceeded"), strings.Contains(m, "timeout"):
		return "timeout"
	case strings.Contains(m, fetch.ErrTooLarge.Error()):
		return "too_large"
	case strings.Contains(m, "tls"), strings.Contains(m, "x509"), strings.Contains(m, "certificate"):
		return "tls"
	case strings.Contains(m, "redirect"):
		return "too_many_redirects"
	}
	return "connection_failed"
}

// scrubError replaces every occurrence of the raw fetch error in the
// report's JSON with its class: the published report never carries an
// address or a raw network error.
func scrubError(report []byte, raw, class string) []byte {
	q, _ := json.Marshal(raw) // the text as it appears inside JSON strings
	inner := q[1 : len(q)-1]
	return bytes.ReplaceAll(report, inner, []byte(class))
}

// readValidations calls fn for the last complete record of every host in
// the validate journal, in host order. Torn lines are skipped.
func readValidations(path string, fn func(ValidationRecord)) error {
	return readLastByHost(path, "validations", func(r ValidationRecord) string { return r.Host }, fn)
}

// WriteUCPValidations turns the run's validate journal into
// ucp_validations.parquet (one row per crawled host that was validated)
// and returns the row count. It writes atomically, so a re-run replaces the
// file whole.
func WriteUCPValidations(dir string) (int, error) {
	return WriteShardUCPValidations(dir, Shard{})
}

// WriteShardUCPValidations is WriteUCPValidations for shard s of the run in
// runDir: it reads the shard's crawl and validate journals and writes
// ucp_validations.parquet into UCPDir(runDir, s).
func WriteShardUCPValidations(runDir string, s Shard) (int, error) {
	cols, err := datasets.NewColumns(datasets.UCPValidations, 0)
	if err != nil {
		return 0, err
	}
	crawled, err := crawledStores(runDir, s)
	if err != nil {
		return 0, err
	}
	dir := UCPDir(runDir, s)
	hosts := make(map[string]bool, len(crawled))
	for _, r := range crawled {
		hosts[r.Store.Host] = true
	}
	var rowErr error
	err = readValidations(filepath.Join(dir, ValidateJournal), func(r ValidationRecord) {
		if rowErr == nil && hosts[r.Host] {
			rowErr = cols.AppendRow(ValidationRow(r))
		}
	})
	if errors.Is(err, os.ErrNotExist) {
		id := filepath.Base(runDir)
		return 0, fmt.Errorf("run %s has no validate journal: run `svc validate --run %s%s` first", id, id, s.flag())
	}
	if err != nil {
		return 0, fmt.Errorf("write ucp validations %s: %w", dir, err)
	}
	if rowErr != nil {
		return 0, fmt.Errorf("write ucp validations %s: %w", dir, rowErr)
	}
	if err := writeParquetFile(filepath.Join(dir, UCPFile), cols); err != nil {
		return 0, fmt.Errorf("write ucp validations %s: %w", dir, err)
	}
	return cols.Len(), nil
}

// ValidationRow maps one journal record to a row of datasets.UCPValidations.
func ValidationRow(r ValidationRecord) datasets.Row {
	var at any
	if !r.CheckedAt.IsZero() {
		at = r.CheckedAt
	}
	row := datasets.Row{r.Host, r.Status, nil, nullInt(r.HTTPStatus), nil, nil, nil, nil, nil, nil, nil,
		nullStr(r.FetchError), nil, at}
	if len(r.Report) == 0 || string(r.Report) == "null" {
		return row
	}
	var rep ucp.Report
	if err := json.Unmarshal(r.Report, &rep); err != nil {
		return row
	}
	row[2] = nullStr(rep.Source.ProfileURL)
	row[4] = rep.DeclaredVersion
	if r.Status == ucp.VerdictValid || r.Status == ucp.VerdictInvalid || r.Status == ucp.VerdictUnvalidated {
		if r.Status != ucp.VerdictUnvalidated {
			row[5] = rep.Valid // unvalidated: null, as the engine
		}
		if len(rep.Profile) > 0 { // as the engine: a body that is not a profile does not count
			row[6] = ucp.CountsInDirectory(rep.Profile)
		}
	}
	row[7], row[8], row[9] = int64(rep.Counts.Errors), int64(rep.Counts.Warnings), int64(rep.Counts.Info)
	row[10] = nullStr(rep.SchemaSource.Type)
	row[12] = string(r.Report)
	return row
}
