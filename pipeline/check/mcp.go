package check

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"svc/pipeline/fetch"
)

// mcpClient speaks just enough JSON-RPC 2.0 over streamable HTTP to use a
// platform's storefront MCP endpoint: initialize, tools/list and tools/call.
// Answers may arrive as application/json or as one SSE event.
type mcpClient struct {
	http     *fetch.Client
	endpoint string
	nextID   int
	// calls records every request made (tool name or method, HTTP status,
	// JSON-RPC outcome), for the agent paths' step log; never a body.
	calls []MCPCall
	tool  string // the tool of the tools/call in flight
}

// MCPCall is one JSON-RPC request of an MCP client, as a step log shows it.
type MCPCall struct {
	Name   string // the method, or the tool of a tools/call
	Status int    // HTTP status; 0 when no answer came
	RPC    string // "result", "tool_error", "error <code>", "" when no JSON-RPC answer
	Note   string
}

func (m *mcpClient) record(method string, status int, rpc, note string) {
	name := method
	if method == "tools/call" && m.tool != "" {
		name = m.tool
	}
	if len(m.calls) < 64 {
		m.calls = append(m.calls, MCPCall{Name: name, Status: status, RPC: rpc, Note: note})
	}
}

// rpcError is a JSON-RPC error object, or a tool result with isError set.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message) }

// errNotJSONRPC marks an endpoint that answered, but not with JSON-RPC (a
// soft 404 page, an HTML error, a redirect to a login).
var errNotJSONRPC = errors.New("not a JSON-RPC answer")

// call sends one request and decodes result into out. The response headers
// come back too: throttling is told by them, not by the body.
func (m *mcpClient) call(ctx context.Context, method string, params any, out any) (http.Header, error) {
	m.nextID++
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.nextID, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	resp, err := m.http.Do(ctx, fetch.Request{
		Method: http.MethodPost,
		URL:    m.endpoint,
		Header: http.Header{
			"Content-Type":         {"application/json"},
			"Accept":               {"application/json, text/event-stream"},
			"Mcp-Protocol-Version": {"2025-06-18"},
		},
		Body:       body,
		NoRedirect: true,
	})
	if err != nil {
		m.record(method, 0, "", "no answer")
		return nil, err
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		m.record(method, resp.StatusCode, "", "rate limited")
		return resp.Header, &rpcError{Code: 429, Message: "rate limited (HTTP 429)"}
	}
	payload := resp.Body
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		payload = SSEData(payload)
	}
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(payload, &env); err != nil || env.JSONRPC != "2.0" {
		m.record(method, resp.StatusCode, "", "not a JSON-RPC answer")
		return resp.Header, fmt.Errorf("%s %s: HTTP %d: %w", method, m.endpoint, resp.StatusCode, errNotJSONRPC)
	}
	if env.Error != nil {
		m.record(method, resp.StatusCode, "error "+strconv.Itoa(env.Error.Code), "")
		return resp.Header, env.Error
	}
	m.record(method, resp.StatusCode, "result", "")
	if out != nil {
		if err := json.Unmarshal(env.Result, out); err != nil {
			return resp.Header, fmt.Errorf("%s: decode result: %w", method, err)
		}
	}
	return resp.Header, nil
}

// SSEData returns the data of the first event of an SSE stream (an MCP
// Streamable HTTP answer sent as text/event-stream).
func SSEData(b []byte) []byte {
	var data []byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), len(b)+1)
	for sc.Scan() {
		line := sc.Text()
		if line == "" && len(data) > 0 {
			break
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(v, " ")...)
		}
	}
	return data
}

type mcpTool struct {
	Name string `json:"name"`
}

// toolResult is the result of tools/call: JSON inside text content and/or
// structuredContent.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// callTool runs tools/call and returns the tool's data as decoded JSON (any),
// preferring structuredContent and falling back to the first text item.
func (m *mcpClient) callTool(ctx context.Context, name string, args map[string]any) (any, http.Header, error) {
	return m.callToolMeta(ctx, name, args, nil)
}

// callToolMeta is callTool with params._meta set when meta is not nil (a
// UCP binding wants meta["ucp-agent"].profile there).
func (m *mcpClient) callToolMeta(ctx context.Context, name string, args, meta map[string]any) (any, http.Header, error) {
	params := map[string]any{"name": name, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	var res toolResult
	m.tool = name
	hdr, err := m.call(ctx, "tools/call", params, &res)
	m.tool = ""
	if err != nil {
		return nil, hdr, err
	}
	var text string
	for _, c := range res.Content {
		if c.Type == "text" || c.Type == "" {
			text = c.Text
			break
		}
	}
	if res.IsError {
		if n := len(m.calls); n > 0 {
			m.calls[n-1].RPC = "tool_error"
		}
		msg := text
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return nil, hdr, &rpcError{Code: -1, Message: "tool error: " + msg}
	}
	var data any
	if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		if err := json.Unmarshal(res.StructuredContent, &data); err == nil {
			return data, hdr, nil
		}
	}
	if err := json.Unmarshal([]byte(text), &data); err != nil {
		// Plain prose is an answer too, just not a structured one.
		return text, hdr, nil
	}
	return data, hdr, nil
}

// findKey walks decoded JSON depth-first and returns the first value stored
// under one of keys. Storefront answers nest products and carts differently
// from platform to platform and version to version.
func findKey(v any, keys ...string) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range keys {
			if x, ok := t[k]; ok && x != nil {
				return x, true
			}
		}
		for _, k := range sortedKeys(t) {
			if x, ok := findKey(t[k], keys...); ok {
				return x, true
			}
		}
	case []any:
		for _, e := range t {
			if x, ok := findKey(e, keys...); ok {
				return x, true
			}
		}
	}
	return nil, false
}

// findString is findKey for a non-empty string or number value.
func findString(v any, keys ...string) string {
	x, ok := findKey(v, keys...)
	if !ok {
		return ""
	}
	switch t := x.(type) {
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return ""
}

// productList returns the list of products in a catalog answer: the first
// array found under "products" (or the answer itself when it is an array).
func productList(v any) ([]any, bool) {
	if a, ok := v.([]any); ok {
		return a, true
	}
	x, ok := findKey(v, "products", "items", "results")
	if !ok {
		return nil, false
	}
	a, ok := x.([]any)
	return a, ok
}
