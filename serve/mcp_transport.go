package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// The framing of the MCP endpoint (streamable HTTP, MCP 2025-11-25,
// basic/transports): what reaches the SDK's handler is one well-formed
// JSON-RPC 2.0 message of bounded size, and every error the endpoint
// answers is a JSON-RPC error object with a fitting HTTP status, never
// plain text.
//
//   - A GET that asks for text/event-stream is a client probing for the
//     server's stream: "The server MUST either return Content-Type:
//     text/event-stream in response to this HTTP GET, or else return HTTP
//     405 Method Not Allowed" (Listening for Messages from the Server,
//     item 3). svc offers no stream, so 405. Any other GET is the REST
//     Index answer.
//   - "The body of the POST request MUST be a single JSON-RPC request,
//     notification, or response" (Sending Messages to the Server, item 3);
//     the 2025-06-18 changelog: "Remove support for JSON-RPC batching".
//     A batch is refused by its first byte, before the rest is read, so its
//     size costs nothing and no call in it runs.

// mcpMaxBody bounds one POST: the largest tool input, a 256 KB UCP profile
// pasted as an escaped JSON string or a 200 KB leaderboard run, fits.
const mcpMaxBody = 1 << 20

// JSON-RPC 2.0 error codes (jsonrpc.org/specification, 5.1).
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInternalError  = -32603
	// rpcServerBusy is in the range JSON-RPC 2.0 leaves to servers
	// (-32000 to -32099): the request was not read because the caller or
	// the server is over a limit; Retry-After says when to try again.
	rpcServerBusy = -32000
)

// rpcError is a JSON-RPC 2.0 error response.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorDetail  `json:"error"`
}

type rpcErrorDetail struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// writeRPCError answers a JSON-RPC error object with status. id is the
// request's id when it could be read, else null (JSON-RPC 2.0, 5).
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, format string, args ...any) error {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, status, rpcError{JSONRPC: "2.0", ID: id, Error: rpcErrorDetail{Code: code, Message: fmt.Sprintf(format, args...)}})
}

// askGet is GET /api/ask: the REST Index answer, except for the stream
// probe of a streamable-HTTP MCP client, which gets 405.
func (s *Server) askGet(w http.ResponseWriter, r *http.Request) error {
	if acceptsEventStream(r.Header) {
		w.Header().Set("Allow", http.MethodPost)
		return writeRPCError(w, http.StatusMethodNotAllowed, nil, rpcInvalidRequest,
			"this MCP server offers no event stream: send each JSON-RPC message by POST to /api/ask "+
				"(a GET without Accept: text/event-stream answers the REST Index answer)")
	}
	return s.ask(w, r)
}

// acceptsEventStream reports whether an Accept header lists
// text/event-stream (with a q above 0).
func acceptsEventStream(h http.Header) bool {
	for _, v := range h.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || mt != "text/event-stream" {
				continue
			}
			if q, err := strconv.ParseFloat(params["q"], 64); params["q"] == "" || (err == nil && q > 0) {
				return true
			}
		}
	}
	return false
}

// mcpEndpoint is POST /api/ask: the MCP server, behind the checks above.
func (s *Server) mcpEndpoint(w http.ResponseWriter, r *http.Request) error {
	s.mcpOnce.Do(func() { s.mcpJSON, s.mcpSSE = s.newMCPHandlers() })
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return writeRPCError(w, http.StatusUnsupportedMediaType, nil, rpcInvalidRequest,
			"Content-Type must be application/json: POST one JSON-RPC 2.0 message")
	}
	br := bufio.NewReader(http.MaxBytesReader(w, r.Body, mcpMaxBody))
	first, err := firstNonSpace(br)
	if err == nil && first == '[' {
		// Not read further: the rest of a batch is never buffered or decoded.
		return writeRPCError(w, http.StatusBadRequest, nil, rpcInvalidRequest,
			"JSON-RPC batches are not supported (MCP removed batching in 2025-06-18): send one message per POST")
	}
	var body []byte
	if err == nil {
		body, err = io.ReadAll(br)
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return writeRPCError(w, http.StatusRequestEntityTooLarge, nil, rpcInvalidRequest,
			"the body is larger than %d KB: one JSON-RPC message per POST, tool arguments within their limits", mcpMaxBody>>10)
	case errors.Is(err, io.EOF):
		return writeRPCError(w, http.StatusBadRequest, nil, rpcInvalidRequest, "the body is empty: POST one JSON-RPC 2.0 message")
	case err != nil:
		return writeRPCError(w, http.StatusBadRequest, nil, rpcInvalidRequest, "the body could not be read")
	}
	msg, status, code, problem := checkRPCMessage(body)
	if problem != "" {
		return writeRPCError(w, status, msg.id, code, "%s", problem)
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	h := s.mcpJSON
	if streamOnly(r.Header) {
		h = s.mcpSSE
	}
	rw := &rpcErrorWriter{ResponseWriter: w}
	h.ServeHTTP(rw, r)
	if rw.status != 0 {
		code, text := rpcErrorFor(rw.status, string(rw.text), msg.method)
		if rw.status >= 500 {
			s.log.Error("mcp transport failed", "status", rw.status, "error", strings.TrimSpace(string(rw.text)))
		}
		return writeRPCError(w, rw.status, msg.id, code, "%s", text)
	}
	return nil
}

// firstNonSpace returns the first byte after JSON whitespace, unread.
func firstNonSpace(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c, br.UnreadByte()
		}
	}
}

// rpcMessage is what the endpoint reads of a message before the SDK does.
type rpcMessage struct {
	id     json.RawMessage // a valid request id, else nil
	method string
}

// checkRPCMessage checks body is one JSON-RPC 2.0 message: a request or
// notification (method, optional id, structured params) or a response
// (id and result or error). It returns the status, JSON-RPC code and
// message of the problem, "" when there is none.
func checkRPCMessage(body []byte) (rpcMessage, int, int, string) {
	var m struct {
		JSONRPC, ID, Method, Params, Result, Error json.RawMessage
	}
	var msg rpcMessage
	if err := json.Unmarshal(body, &m); err != nil {
		if syn := (*json.SyntaxError)(nil); errors.As(err, &syn) {
			return msg, http.StatusBadRequest, rpcParseError, fmt.Sprintf("parse error: the body is not valid JSON (at byte %d)", syn.Offset)
		}
		if !json.Valid(body) {
			return msg, http.StatusBadRequest, rpcParseError, "parse error: the body is not valid JSON"
		}
		return msg, http.StatusBadRequest, rpcInvalidRequest, "invalid request: the body must be one JSON-RPC 2.0 message, a JSON object"
	}
	if len(m.ID) > 0 {
		switch c := m.ID[0]; {
		case c == '"' || c == '-' || (c >= '0' && c <= '9'):
			msg.id = m.ID
		case string(m.ID) == "null":
		default:
			return msg, http.StatusBadRequest, rpcInvalidRequest, `invalid request: "id" must be a string or a number`
		}
	}
	var version string
	if json.Unmarshal(m.JSONRPC, &version) != nil || version != "2.0" {
		return msg, http.StatusBadRequest, rpcInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`
	}
	if len(m.Method) == 0 {
		if msg.id == nil || (len(m.Result) == 0 && len(m.Error) == 0) {
			return msg, http.StatusBadRequest, rpcInvalidRequest, `invalid request: a request needs "method" (tools/list, tools/call, initialize ...)`
		}
		return msg, 0, 0, ""
	}
	if json.Unmarshal(m.Method, &msg.method) != nil || msg.method == "" {
		return msg, http.StatusBadRequest, rpcInvalidRequest, `invalid request: "method" must be a non-empty string`
	}
	if p := bytes.TrimSpace(m.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' && string(p) != "null" {
		return msg, http.StatusBadRequest, rpcInvalidRequest, `invalid request: "params" must be an object`
	}
	return msg, 0, 0, ""
}

// streamOnly reports whether the client accepts text/event-stream and not
// JSON: it gets its answer as an event stream.
func streamOnly(h http.Header) bool {
	if !acceptsEventStream(h) {
		return false
	}
	for _, v := range h.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil &&
				(mt == "application/json" || mt == "application/*" || mt == "*/*") {
				return false
			}
		}
	}
	return true
}

// rpcErrorFor turns a plain-text error of the SDK into a JSON-RPC code and
// message.
func rpcErrorFor(status int, text, method string) (int, string) {
	if status >= 500 {
		return rpcInternalError, "internal error; the problem was logged"
	}
	if strings.Contains(text, "JSON RPC not handled") {
		return rpcMethodNotFound, fmt.Sprintf("method %q is not supported by this server", method)
	}
	text, _, _ = strings.Cut(strings.TrimSpace(text), "\n")
	text = strings.TrimPrefix(text, "Bad Request: ")
	if text == "" {
		text = http.StatusText(status)
	}
	return rpcInvalidRequest, cut(text, 300)
}

// rpcErrorWriter holds back a plain-text error the SDK writes (its
// http.Error calls) so mcpEndpoint can answer it as a JSON-RPC error;
// everything else passes through.
type rpcErrorWriter struct {
	http.ResponseWriter
	status int    // the held-back error's status, 0 when none
	text   []byte // its text, at most 1 KB
}

func (w *rpcErrorWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rpcErrorWriter) Write(b []byte) (int, error) {
	if w.status != 0 {
		w.text = append(w.text, b[:min(len(b), max(1024-len(w.text), 0))]...)
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// FlushError lets the SDK flush an event stream.
func (w *rpcErrorWriter) FlushError() error {
	if w.status != 0 {
		return nil
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
