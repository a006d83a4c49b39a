package leaderboard

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/steplog"
)

// ucpREST drives the REST binding (checkout, cart and catalog rest.md;
// rest.openapi.json). Every request carries UCP-Agent with the agent's
// profile (RFC 8941 dictionary), a fresh Request-Id, and state-changing
// ones an Idempotency-Key (checkout rest.md "HTTP Headers").
type ucpREST struct {
	run      *ucpRun
	endpoint string // without a trailing slash
}

// restOps maps an operation to its method and path; {id} is the session.
var restOps = map[string][2]string{
	"search_catalog":  {http.MethodPost, "/catalog/search"},
	"lookup_catalog":  {http.MethodPost, "/catalog/lookup"},
	"create_cart":     {http.MethodPost, "/carts"},
	"get_cart":        {http.MethodGet, "/carts/{id}"},
	"create_checkout": {http.MethodPost, "/checkout-sessions"},
	"get_checkout":    {http.MethodGet, "/checkout-sessions/{id}"},
	"cancel_checkout": {http.MethodPost, "/checkout-sessions/{id}/cancel"},
}

func (d *ucpREST) offers(op string) bool { _, ok := restOps[op]; return ok }

func (d *ucpREST) do(ctx context.Context, op, id string, arg map[string]any) ucpAnswer {
	step := steplog.Step{Action: op}
	m, ok := restOps[op]
	if !ok || forbidden(op) {
		step.Note = errForbidden.Error()
		d.run.add(step)
		return ucpAnswer{failure: "not_ucp"}
	}
	path := m[1]
	step.URL = steplog.RedactURL(d.endpoint) + path // the template: the id never enters the log
	h := http.Header{
		"Accept":     {"application/json"},
		"UCP-Agent":  {d.run.agentHeader()},
		"Request-Id": {uuid4()},
	}
	var body []byte
	if m[0] != http.MethodGet {
		h.Set("Content-Type", "application/json")
		h.Set("Idempotency-Key", uuid4())
		body, _ = json.Marshal(arg)
	}
	target := d.endpoint + strings.ReplaceAll(path, "{id}", urlSegment(id))
	resp, failure := d.run.send(ctx, &step, m[0], target, h, body)
	a := ucpAnswer{failure: failure}
	if resp == nil {
		return a
	}
	a.status = resp.StatusCode
	step.Status = resp.StatusCode
	var v map[string]any
	if json.Unmarshal(resp.Body, &v) == nil {
		a.body = v
		a.codes = codesOf(v)
	} else if resp.StatusCode < 400 {
		a.failure = "not_ucp"
		step.Note = "not a JSON answer"
	}
	step.Codes = a.codes
	if a.ok() {
		step.Note = resultNote(op, v)
	}
	d.run.add(step)
	return a
}

// urlSegment escapes an id for a path segment.
func urlSegment(id string) string {
	var b strings.Builder
	for _, c := range []byte(id) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~", c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
		}
	}
	return b.String()
}

// resultNote says what came back, without ids or URLs: a session's status.
func resultNote(op string, v map[string]any) string {
	switch op {
	case "search_catalog":
		ps, _ := v["products"].([]any)
		return strconv.Itoa(len(ps)) + " products"
	case "create_cart", "get_cart":
		return "cart"
	}
	if st, _ := v["status"].(string); ucpCodeRE.MatchString(st) {
		return "checkout " + st
	}
	return ""
}

// ucpMCP drives the MCP binding (checkout, cart and catalog mcp.md):
// JSON-RPC tools/call with arguments.meta["ucp-agent"].profile on every
// call and meta["idempotency-key"] on the calls that change state, the
// same key also as the Idempotency-Key header, which a signature then
// covers (checkout mcp.md "Request Signing": required for cancel and
// complete).
type ucpMCP struct {
	run      *ucpRun
	endpoint string
	tools    map[string]bool
	nextID   int
}

// open initializes the session and lists the tools; ok is false when the
// path ends there.
func (d *ucpMCP) open(ctx context.Context) (PathResult, bool) {
	a, _ := d.rpc(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "svc-agent-path", "version": MethodVersion},
	}, "")
	if a.failure != "" {
		res, _ := d.run.failed(a, "ucp_binding_unreachable")
		return res, false
	}
	a, raw := d.rpc(ctx, "tools/list", map[string]any{"_meta": d.meta(false)}, "")
	if a.rpc != "result" {
		if len(a.codes) == 0 && a.failure == "" {
			return d.run.end(OutcomeNoCart, "ucp_binding_refused"), false
		}
		res, _ := d.run.failed(a, "ucp_binding_refused")
		return res, false
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(raw, &list)
	d.tools = map[string]bool{}
	for _, t := range list.Tools {
		d.tools[t.Name] = true
	}
	if !d.tools["create_checkout"] {
		d.run.add(steplog.Step{Action: "tools/list", Note: "no create_checkout tool"})
		return d.run.end(OutcomeNoCart, "ucp_no_checkout_operation"), false
	}
	return PathResult{}, true
}

func (d *ucpMCP) offers(op string) bool { return d.tools[op] && !forbidden(op) }

func (d *ucpMCP) meta(idempotent bool) map[string]any {
	agent := map[string]any{"profile": d.run.profile}
	if d.run.version != "" {
		agent["version"] = d.run.version
	}
	m := map[string]any{"ucp-agent": agent, "request-id": uuid4()}
	if idempotent {
		m["idempotency-key"] = uuid4()
	}
	return m
}

func (d *ucpMCP) do(ctx context.Context, op, id string, arg map[string]any) ucpAnswer {
	if !d.offers(op) {
		d.run.add(steplog.Step{Action: op, Note: errForbidden.Error()})
		return ucpAnswer{failure: "not_ucp"}
	}
	meta := d.meta(op != "get_checkout" && op != "get_cart" && op != "search_catalog")
	args := map[string]any{"meta": meta}
	idem, _ := meta["idempotency-key"].(string)
	switch op {
	case "search_catalog", "lookup_catalog":
		args["catalog"] = arg
	case "create_cart":
		args["cart"] = arg
	case "create_checkout":
		args["checkout"] = arg
	}
	if id != "" {
		args["id"] = id
	}
	a, raw := d.rpc(ctx, "tools/call", map[string]any{"name": op, "arguments": args}, idem)
	if a.rpc == "result" {
		var res struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
		}
		_ = json.Unmarshal(raw, &res)
		body := res.StructuredContent
		if body == nil {
			for _, c := range res.Content {
				if c.Type == "text" && json.Unmarshal([]byte(c.Text), &body) == nil {
					break
				}
			}
		}
		a.body = body
		a.codes = codesOf(body)
		if res.IsError {
			a.rpc = "tool_error"
		}
	}
	step := &d.run.log[len(d.run.log)-1] // the step rpc logged
	step.Action, step.RPC, step.Codes = op, a.rpc, a.codes
	if a.ok() {
		step.Note = resultNote(op, a.body)
	}
	return a
}

// rpc sends one JSON-RPC request (with the Idempotency-Key header when
// idem is set), logs it as a step, and returns the answer with the raw
// result.
func (d *ucpMCP) rpc(ctx context.Context, method string, params any, idem string) (ucpAnswer, json.RawMessage) {
	d.nextID++
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": d.nextID, "method": method, "params": params})
	step := steplog.Step{Action: method, URL: steplog.RedactURL(d.endpoint)}
	h := http.Header{
		"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2025-06-18"}, "UCP-Agent": {d.run.agentHeader()},
	}
	if idem != "" {
		h.Set("Idempotency-Key", idem)
	}
	resp, failure := d.run.send(ctx, &step, http.MethodPost, d.endpoint, h, body)
	a := ucpAnswer{failure: failure}
	if resp == nil {
		return a, nil
	}
	a.status, step.Status = resp.StatusCode, resp.StatusCode
	payload := resp.Body
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		payload = check.SSEData(payload)
	}
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code int            `json:"code"`
			Data map[string]any `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(payload, &env) != nil || env.JSONRPC != "2.0" {
		a.failure = "not_ucp"
		if resp.StatusCode == http.StatusTooManyRequests {
			a.failure = ""
		}
		step.Note = "not a JSON-RPC answer"
		d.run.add(step)
		return a, nil
	}
	if env.Error != nil {
		a.rpc = "error " + strconv.Itoa(env.Error.Code)
		a.codes = codesOf(env.Error.Data)
	} else {
		a.rpc = "result"
	}
	step.RPC, step.Codes = a.rpc, a.codes
	d.run.add(step)
	return a, env.Result
}

// send signs one request to a binding and sends it. With no answer (the
// request could not be signed, or the business did not answer) it notes
// why on step, logs the step and returns a nil response with the failure:
// "unsigned", "unreachable" or "timeout".
func (r *ucpRun) send(ctx context.Context, step *steplog.Step, method, target string, h http.Header, body []byte) (*fetch.Response, string) {
	if err := r.sign(method, target, h, body); err != nil {
		step.Note = "the request could not be signed"
		r.add(*step)
		return nil, "unsigned"
	}
	r.ops++
	resp, err := r.client.Do(ctx, fetch.Request{Method: method, URL: target, Header: h, Body: body, NoRedirect: true})
	if err != nil {
		failure := "unreachable"
		if errors.Is(err, fetch.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
			failure = "timeout"
		}
		step.Note = "no answer: " + failure
		r.add(*step)
		return nil, failure
	}
	return resp, ""
}
