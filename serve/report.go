package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"svc/pipeline/fetch"
	"svc/pipeline/inbox"
)

// reportCheckout (POST /api/agent-checkout/report) records one checkout attempt
// an agent made after a precheck: the store host and the outcome, nothing
// about the caller. The precheck's report_outcome points here. Reports are
// saved to the state log for the pipeline; they never change a score.

const (
	reportPath    = "/api/agent-checkout/report"
	maxReportBody = 8 << 10
)

// reportOutcomes are the run result outcomes of spec 3.
var reportOutcomes = []string{"added_to_cart", "checkout_reached", "no_cart", "blocked", "error", "not_attempted"}

// CheckoutReport is a saved report.
type CheckoutReport struct {
	Host    string    `json:"host"`
	Outcome string    `json:"outcome"`
	Agent   string    `json:"agent,omitempty"`
	At      time.Time `json:"at"`
}

// ReportAnswer is the answer to an accepted report.
type ReportAnswer struct {
	OK         bool      `json:"ok"`
	Host       string    `json:"host"`
	Outcome    string    `json:"outcome"`
	RecordedAt time.Time `json:"recordedAt"`
	Note       string    `json:"note"`
}

func (s *Server) reportCheckout(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxReportBody))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return fail(ErrTooLarge, "the report is larger than %d bytes", maxReportBody)
	}
	if err != nil {
		return fail(ErrInvalid, "the report body could not be read")
	}
	var in struct {
		Host    string `json:"host"`
		URL     string `json:"url"`
		Outcome string `json:"outcome"`
		Agent   string `json:"agent"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return fail(ErrInvalid, "the body must be JSON: {\"host\": \"shop.example\", \"outcome\": \"checkout_reached\"}")
	}
	target := in.Host
	if target == "" {
		target = in.URL
	}
	if strings.TrimSpace(target) == "" {
		return fail(ErrInvalid, "host (or url) is required: the store the attempt was made at")
	}
	u, err := fetch.ParseURL(target)
	if err != nil {
		return unsafeURL(err)
	}
	if !slices.Contains(reportOutcomes, in.Outcome) {
		return fail(ErrInvalid, "outcome must be one of %s", strings.Join(reportOutcomes, ", "))
	}
	if len(in.Agent) > 80 {
		return fail(ErrInvalid, "agent is at most 80 characters")
	}
	if err := s.limits.take(s.caller(r), 1, quotaReports); err != nil {
		return err
	}
	rep := CheckoutReport{Host: strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), Outcome: in.Outcome,
		Agent: in.Agent, At: s.now().UTC()}
	if err := s.state.Append(context.WithoutCancel(r.Context()), inbox.TypeCheckoutReport, rep.At, rep); err != nil {
		s.log.Error("save checkout report", "error", err)
		return stateUnavailable("the report could not be saved to the state store; try again later")
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusCreated, ReportAnswer{OK: true, Host: rep.Host, Outcome: rep.Outcome, RecordedAt: rep.At,
		Note: "Saved as self-reported. A report is not verified and never changes a score; no address or user agent is kept."})
}
