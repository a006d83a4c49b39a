package ciclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Config is what Run needs besides the hosts.
type Config struct {
	API         string   // base URL without a trailing slash (ParseAPI)
	Require     []string // the checks that decide the exit code (ParseRequire)
	Timeout     float64  // seconds to wait for each answer (ParseTimeout)
	TimeoutText string   // Timeout as given, for messages

	HTTP *http.Client // nil: a plain client
	Log  io.Writer    // one line per failed request (standard error)
}

// Run asks the API about every target, two requests each, and returns the
// report with its exit code set.
func Run(ctx context.Context, cfg Config, targets []Target) *Report {
	c := &client{cfg: cfg, http: cfg.HTTP}
	if c.http == nil {
		c.http = &http.Client{}
	}
	rep := &Report{Version: Version, API: cfg.API, Require: cfg.Require, Hosts: []HostResult{}}
	for _, t := range targets {
		rep.Hosts = append(rep.Hosts, c.checkHost(ctx, t))
	}
	rep.finish()
	return rep
}

// client asks the API.
type client struct {
	cfg  Config
	http *http.Client
	down *Failure // set once the API could not be reached: later requests are skipped
}

func (c *client) checkHost(ctx context.Context, t Target) HostResult {
	h := HostResult{Host: t.Host, Errors: []Failure{}}
	var report UCPReport
	var answer CheckAnswer
	ucpErr := c.get(ctx, "/api/ucp/validate", t, &report)
	ansErr := c.get(ctx, "/api/agent-checkout", t, &answer)
	for _, e := range []*Failure{ucpErr, ansErr} {
		if e != nil {
			h.Errors = append(h.Errors, *e)
		}
	}
	if ansErr == nil {
		h.SavedCheck = &SavedCheck{CheckedAt: answer.CheckedAt, Cached: answer.Cached, ResultURL: answer.ResultURL}
	}
	req := map[string]bool{}
	for _, n := range c.cfg.Require {
		req[n] = true
	}
	for _, n := range Names {
		var o Outcome
		switch {
		case n == "ucp" && ucpErr != nil:
			o = failedRequest(ucpErr)
		case n == "ucp":
			o = evalUCP(&report)
		case ansErr != nil:
			o = failedRequest(ansErr)
		default:
			o = savedRules[n](&answer)
		}
		o.name, o.Required = n, req[n]
		if o.exit == 0 && o.Status != StatusPass {
			o.exit = ExitFailed
		}
		h.Checks = append(h.Checks, o)
	}
	return h
}

// get asks one endpoint about a target and decodes its JSON object into
// answer, or says why there is none.
func (c *client) get(ctx context.Context, endpoint string, t Target, answer any) *Failure {
	if c.down != nil {
		f := *c.down
		f.Endpoint = endpoint
		return &f
	}
	obj, f, cause := c.fetch(ctx, endpoint, t)
	if f != nil {
		f.Endpoint = endpoint
		f.Message = clean(f.Message)
		f.Code = clean(f.Code)
		msg := fmt.Sprintf("svc check: %s: GET %s: %s", t.Host, endpoint, f.Message)
		if cause != nil {
			msg += " (" + cause.Error() + ")"
		}
		fmt.Fprintln(c.cfg.Log, msg)
		if f.Status == 0 && f.exit == ExitNetwork && f.Code != "bad_answer" {
			c.down = f
		}
		return f
	}
	decode(answer, obj)
	return nil
}

// fetch makes one request and returns the answer's JSON object, or the
// failure and its cause.
func (c *client) fetch(ctx context.Context, endpoint string, t Target) (map[string]any, *Failure, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(c.cfg.Timeout*float64(time.Second)))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.cfg.API+endpoint+"?url="+url.QueryEscape(t.URL), nil)
	if err != nil {
		return nil, &Failure{Code: "unreachable", Message: "could not connect to the API", exit: ExitNetwork}, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	timedOut := func() *Failure {
		return &Failure{Code: "timeout", Message: "the API did not answer within " + c.cfg.TimeoutText + " s", exit: ExitNetwork}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, timedOut(), err
		}
		return nil, &Failure{Code: "unreachable", Message: "could not connect to the API", exit: ExitNetwork}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, timedOut(), err
		}
		return nil, &Failure{Status: resp.StatusCode, Code: "unreachable", Message: "the API's answer broke off", exit: ExitNetwork}, err
	}
	st := resp.StatusCode
	if st >= 200 && st < 300 {
		if len(body) > maxBody {
			return nil, &Failure{Status: st, Code: "bad_answer", Message: "the API's answer is larger than 4 MiB", exit: ExitNetwork}, nil
		}
		var v any
		if json.Unmarshal(body, &v) != nil {
			return nil, &Failure{Status: st, Code: "bad_answer", Message: "the API's answer is not JSON", exit: ExitNetwork}, nil
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, &Failure{Status: st, Code: "bad_answer", Message: "the API's answer is not a JSON object", exit: ExitNetwork}, nil
		}
		return obj, nil, nil
	}
	f := &Failure{Status: st, Code: "http_" + strconv.Itoa(st), Message: "the API answered HTTP " + strconv.Itoa(st), exit: ExitNetwork}
	var v any
	if len(body) <= maxBody && json.Unmarshal(body, &v) == nil {
		var e APIError
		decode(&e, v)
		if s := e.Error.Code; s != nil && *s != "" {
			f.Code = *s
		}
		if s := e.Error.Message; s != nil && *s != "" {
			f.Message = *s
		}
	}
	switch st {
	case http.StatusTooManyRequests:
		f.exit = ExitRateLimited
	case http.StatusBadRequest:
		f.exit = ExitFailed
	}
	return nil, f, nil
}

// failedRequest is the outcome of a check whose API request failed.
func failedRequest(f *Failure) Outcome {
	var d string
	switch f.exit {
	case ExitRateLimited:
		d = "not checked: rate limited by the API: " + f.Message
	case ExitFailed:
		d = "not checked: the API refused the host: " + f.Message
	default:
		d = "not checked: " + f.Message
	}
	return Outcome{Status: StatusUnmeasured, Detail: d, exit: f.exit}
}
