package leaderboard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/unicode/norm"

	"svc/datasets/svc100"
)

// Limits of a submission (spec 2.11, 8).
const (
	// MaxBody is the largest body accepted: 200 KB (the API's 413 above).
	MaxBody = 200 << 10
	// MinResults and MaxResults bound the results of one run.
	MinResults = 10
	MaxResults = 100
)

// StatusUnverified is the status of an accepted outside submission until
// the service re-runs a sample (spec 3).
const StatusUnverified = "unverified"

// Run result outcomes (spec 3).
const (
	OutcomeAddedToCart     = "added_to_cart"
	OutcomeCheckoutReached = "checkout_reached"
	OutcomeNoCart          = "no_cart"
	OutcomeBlocked         = "blocked"
	OutcomeError           = "error"
	OutcomeNotAttempted    = "not_attempted"
)

// Outcomes lists every outcome in published order.
var Outcomes = []string{OutcomeAddedToCart, OutcomeCheckoutReached, OutcomeNoCart, OutcomeBlocked, OutcomeError, OutcomeNotAttempted}

// CartSuccess reports whether an outcome counts as a cart success: the
// agent put an item in the cart or reached checkout. Neither is an order.
func CartSuccess(outcome string) bool {
	return outcome == OutcomeAddedToCart || outcome == OutcomeCheckoutReached
}

// Errors of Parse. ErrTooLarge is the API's 413, ErrInvalid (always as an
// *InvalidError listing the problems) its 400.
var (
	ErrTooLarge = errors.New("submission body larger than 200 KB")
	ErrInvalid  = errors.New("invalid submission")
)

// Problem is one reason a submission is invalid, at a JSON path into the
// body ("$", "$.agent.name", "$.results[3].id").
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// InvalidError lists every problem found in a submission; errors.Is(err,
// ErrInvalid) matches it.
type InvalidError struct {
	Problems []Problem
}

func (e *InvalidError) Error() string {
	var b strings.Builder
	b.WriteString("invalid submission: ")
	for i, p := range e.Problems {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-5)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Path + ": " + p.Message)
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Submission is one run in the format svc-leaderboard-submission/v1
// (spec 2.11). Contact is private: it is kept in the server's state so the
// service can arrange verification, and is never written to any published
// file; Public drops it.
type Submission struct {
	Spec    string   `json:"spec"`
	TestSet string   `json:"test_set"`
	Agent   Agent    `json:"agent"`
	Run     Run      `json:"run"`
	Results []Result `json:"results"`
	Contact string   `json:"contact,omitempty"`

	raw []byte // the body as accepted
}

// Agent describes the agent of a run.
type Agent struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Builder string `json:"builder,omitempty"`
	URL     string `json:"url,omitempty"`
	Path    string `json:"path"`
	Model   string `json:"model,omitempty"`
}

// Run describes the run as a whole. Times are ISO 8601 (RFC 3339) text as
// submitted; ParseTime reads them.
type Run struct {
	StartedAt            string `json:"started_at,omitempty"`
	FinishedAt           string `json:"finished_at,omitempty"`
	StoppedBeforePayment bool   `json:"stopped_before_payment"`
	Notes                string `json:"notes,omitempty"`
}

// Result is the outcome at one store of the test set.
type Result struct {
	ID          string   `json:"id"`
	Outcome     string   `json:"outcome"`
	At          string   `json:"at,omitempty"`
	EvidenceURL string   `json:"evidence_url,omitempty"`
	Steps       *float64 `json:"steps,omitempty"`
	Seconds     *float64 `json:"seconds,omitempty"`
}

// ReadBody reads a submission body of at most MaxBody bytes from r;
// a longer one is ErrTooLarge.
func ReadBody(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("read submission: %w", err)
	}
	if len(b) > MaxBody {
		return nil, ErrTooLarge
	}
	return b, nil
}

// Parse validates a submission body and returns it. The checks, every one
// reported with its JSON path: at most MaxBody bytes (else ErrTooLarge);
// one JSON object; the published JSON Schema (2020-12, formats asserted:
// 10 to 100 results, constants, enums, lengths, https agent URL, RFC 3339
// times, no unknown members, run.stopped_before_payment true); every
// result id a store of the SVC-100 v1 CSV; no id twice; finished_at not
// before started_at.
func Parse(body []byte) (*Submission, error) {
	if len(body) > MaxBody {
		return nil, ErrTooLarge
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return nil, &InvalidError{Problems: []Problem{{Path: "$", Message: "not valid JSON: " + err.Error()}}}
	}
	sch, err := schema()
	if err != nil {
		return nil, err
	}
	var problems []Problem
	if err := sch.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, fmt.Errorf("validate submission: %w", err)
		}
		problems = schemaProblems(doc, ve)
	}
	var s Submission
	if err := json.Unmarshal(body, &s); err == nil {
		problems = append(problems, s.semanticProblems()...)
	} else if len(problems) == 0 {
		problems = append(problems, Problem{Path: "$", Message: "does not decode as a submission: " + err.Error()})
	}
	if len(problems) > 0 {
		return nil, &InvalidError{Problems: sortProblems(problems)}
	}
	s.raw = bytes.Clone(body)
	return &s, nil
}

// semanticProblems checks what the schema cannot: ids against the CSV,
// duplicates and the order of the run's times.
func (s *Submission) semanticProblems() []Problem {
	var out []Problem
	first := map[string]int{}
	for i, r := range s.Results {
		p := fmt.Sprintf("$.results[%d].id", i)
		if !svc100.IDPattern.MatchString(r.ID) {
			continue // the schema reported it
		}
		if _, ok := svc100.ByID(r.ID); !ok {
			out = append(out, Problem{p, fmt.Sprintf("%s is not a store of %s (see %s)", r.ID, svc100.TestSet, svc100.CSVPath)})
			continue
		}
		if j, dup := first[r.ID]; dup {
			out = append(out, Problem{p, fmt.Sprintf("%s is listed twice (first at $.results[%d])", r.ID, j)})
			continue
		}
		first[r.ID] = i
	}
	start, okS := ParseTime(s.Run.StartedAt)
	end, okE := ParseTime(s.Run.FinishedAt)
	if okS && okE && end.Before(start) {
		out = append(out, Problem{"$.run.finished_at", "is before run.started_at"})
	}
	return out
}

var (
	printer   = message.NewPrinter(language.English)
	schemaURL = "https://svc.invalid/" + svc100.SchemaPath
	schema    = sync.OnceValues(func() (*jsonschema.Schema, error) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(svc100.Schema()))
		if err != nil {
			return nil, fmt.Errorf("submission schema: %w", err)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if err := c.AddResource(schemaURL, doc); err != nil {
			return nil, fmt.Errorf("submission schema: %w", err)
		}
		sch, err := c.Compile(schemaURL)
		if err != nil {
			return nil, fmt.Errorf("submission schema: %w", err)
		}
		return sch, nil
	})
)

// schemaProblems flattens a JSON Schema error into one problem per leaf,
// naming the member itself for a missing or unknown member.
func schemaProblems(doc any, ve *jsonschema.ValidationError) []Problem {
	var out []Problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		path := jsonPath(doc, e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				out = append(out, Problem{memberPath(path, m), "is required"})
			}
		case *kind.AdditionalProperties:
			for _, m := range k.Properties {
				out = append(out, Problem{memberPath(path, m), "is not a member of the format"})
			}
		case *kind.Const:
			if path == "$.run.stopped_before_payment" {
				out = append(out, Problem{path, "must be true: only runs that stopped before payment are accepted"})
				break
			}
			out = append(out, Problem{path, e.ErrorKind.LocalizedString(printer)})
		case *kind.Pattern:
			switch {
			case strings.HasSuffix(path, ".id"):
				out = append(out, Problem{path, "must be a store id of the form svc100-v1-NNN"})
			case path == "$.agent.url":
				out = append(out, Problem{path, "must be an https URL"})
			case path == "$.agent.name":
				out = append(out, Problem{path, "must not be blank"})
			default:
				out = append(out, Problem{path, e.ErrorKind.LocalizedString(printer)})
			}
		case *kind.MinItems:
			out = append(out, Problem{path, fmt.Sprintf("must hold %d to %d results (got %d)", MinResults, MaxResults, k.Got)})
		case *kind.MaxItems:
			out = append(out, Problem{path, fmt.Sprintf("must hold %d to %d results (got %d)", MinResults, MaxResults, k.Got)})
		default:
			out = append(out, Problem{path, e.ErrorKind.LocalizedString(printer)})
		}
	}
	walk(ve)
	return out
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// jsonPath turns an instance location into a JSONPath, using the document
// to tell array indexes from member names.
func jsonPath(doc any, loc []string) string {
	p := "$"
	v := doc
	for _, tok := range loc {
		switch x := v.(type) {
		case []any:
			p += "[" + tok + "]"
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
		case map[string]any:
			p = memberPath(p, tok)
			v = x[tok]
		default:
			p = memberPath(p, tok)
			v = nil
		}
	}
	return p
}

func memberPath(p, name string) string {
	if identRE.MatchString(name) {
		return p + "." + name
	}
	b, _ := json.Marshal(name)
	return p + "[" + string(b) + "]"
}

// sortProblems orders problems by path (indexes numerically) and drops
// exact repeats, so the same body always gives the same list.
func sortProblems(ps []Problem) []Problem {
	sort.SliceStable(ps, func(i, j int) bool {
		if c := comparePaths(ps[i].Path, ps[j].Path); c != 0 {
			return c < 0
		}
		return ps[i].Message < ps[j].Message
	})
	return slices.Compact(ps)
}

var indexRE = regexp.MustCompile(`\[(\d+)\]`)

func comparePaths(a, b string) int {
	pad := func(s string) string {
		return indexRE.ReplaceAllStringFunc(s, func(m string) string {
			return fmt.Sprintf("[%08s]", m[1:len(m)-1])
		})
	}
	return strings.Compare(pad(a), pad(b))
}

// ParseTime reads an RFC 3339 time as submitted (a lower-case t or z is
// accepted, as RFC 3339 allows).
func ParseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// Public returns a copy without the private contact: the only form that
// may reach a published file.
func (s *Submission) Public() *Submission {
	c := *s
	c.Contact = ""
	c.raw = nil
	c.Results = slices.Clone(s.Results)
	return &c
}

// CartSuccesses counts the results that are cart successes.
func (s *Submission) CartSuccesses() int {
	n := 0
	for _, r := range s.Results {
		if CartSuccess(r.Outcome) {
			n++
		}
	}
	return n
}

// Key is the duplicate-run key: the hex sha256 of this text, one line each
// (normalise = Unicode NFKC, lower case, white space trimmed and collapsed
// to one space):
//
//	svc-leaderboard-submission/v1
//	name=<normalised agent.name>
//	version=<normalised agent.version>
//	path=<agent.path>
//	model=<normalised agent.model>
//	<id>=<outcome>          one line per result, sorted by id
//
// Two submissions are the same run when their keys are equal: the same
// agent (name, version, path, model) with the same outcome at the same
// stores. Times, steps, seconds, evidence URLs, notes, builder, agent URL
// and contact do not count, so re-sending a run with new timestamps or a
// corrected note is still a duplicate.
func (s *Submission) Key() string {
	var b strings.Builder
	b.WriteString(svc100.Spec + "\n")
	b.WriteString("name=" + normalise(s.Agent.Name) + "\n")
	b.WriteString("version=" + normalise(s.Agent.Version) + "\n")
	b.WriteString("path=" + s.Agent.Path + "\n")
	b.WriteString("model=" + normalise(s.Agent.Model) + "\n")
	lines := make([]string, len(s.Results))
	for i, r := range s.Results {
		lines[i] = r.ID + "=" + r.Outcome + "\n"
	}
	sort.Strings(lines)
	for _, l := range lines {
		b.WriteString(l)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

func normalise(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(norm.NFKC.String(s))), " ")
}

// ID is the public id of an outside submission: "sub-" and the first 16
// hex digits of Key, so a duplicate gets the id of the run it repeats.
func (s *Submission) ID() string { return "sub-" + s.Key()[:16] }

// Receipt is the body of the API's 201 (and, with the existing id, 200)
// answer to a submission.
type Receipt struct {
	OK     bool   `json:"ok"`
	ID     string `json:"id"`
	Status string `json:"status"`
	// N counts the stores the run attempted (as on the board): its
	// not_attempted results are counted in NotAttempted, not in N.
	N             int `json:"n"`
	CartSuccesses int `json:"cart_successes"`
	NotAttempted  int `json:"not_attempted"`
}

// Receipt returns the answer to an accepted submission.
func (s *Submission) Receipt() Receipt {
	skipped := 0
	for _, r := range s.Results {
		if r.Outcome == OutcomeNotAttempted {
			skipped++
		}
	}
	return Receipt{OK: true, ID: s.ID(), Status: StatusUnverified, N: len(s.Results) - skipped,
		CartSuccesses: s.CartSuccesses(), NotAttempted: skipped}
}
