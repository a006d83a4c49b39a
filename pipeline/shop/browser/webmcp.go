package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/webmcp"
	"github.com/chromedp/chromedp"
)

// The page's WebMCP tools as the browser itself reports them: Chromium's
// own implementation of the draft (the WebMCP features of Flags), read
// over the DevTools protocol's WebMCP domain. A tool is registered by a
// page script with document.modelContext.registerTool (or by a polyfill
// the page ships, which mirrors its tools into the browser's), or
// declared by a form with a toolname, whose input schema the browser
// derives from the form's fields.
//
// What the experiment of issue 34 found in Chromium 156 headless:
//   - document.modelContext exists only in a secure context (https, or
//     loopback); navigator.modelContext does not exist (that was the
//     polyfill's place).
//   - WebMCP.enable replays every tool registered so far as toolsAdded.
//   - A new document's tools come as toolsAdded with the same frameId
//     (the main frame keeps its id across navigations), and no
//     toolsRemoved is sent for the tools of the document that went: the
//     page drops a frame's tools itself when the frame navigates.
//   - An imperative tool's inputSchema is what the page gave (absent when
//     it gave none); a declarative tool has a backendNodeId (its form) and
//     an object schema of the form's named fields (required, enum from a
//     select's options, toolparamdescription as description); a form with
//     toolautosubmit has annotations.autosubmit.
//   - invokeTool answers with an invocationId; toolResponded follows with
//     the status Completed (output: what execute returned, as JSON), Error
//     (exception, or errorText) or Canceled. No user activation is
//     needed. An unknown name is the error "Tool not found".
//   - A declarative tool without toolautosubmit only fills its form: the
//     response comes when the form is submitted (output []), as a person
//     confirming it would; a form without a submit button answers Error
//     at once. With toolautosubmit the browser submits it.
//   - A tool whose call navigates may be answered twice (its own value,
//     then [] when its document goes): the first answer is the tool's.

// Tool is a WebMCP tool the browser reports in the page's main frame.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the tool's input schema as JSON; nil when none.
	InputSchema json.RawMessage
	// Node is the form of a declarative tool; 0 for an imperative one.
	Node cdp.BackendNodeID
	// Autosubmit: the browser submits a declarative tool's form itself.
	Autosubmit bool
	// Consequential: the page says calling the tool has consequences
	// (booking, paying).
	Consequential bool
	// Script is the address of the script whose call registered an
	// imperative tool (the innermost frame of the registration's stack):
	// a polyfill's own file when the page registered through one.
	Script string
}

// Bounds on what the page keeps of WebMCP.
const (
	maxTools      = 64
	maxToolSchema = 16 << 10
	maxToolOutput = 64 << 10
	maxResponses  = 16
)

// ToolResponse is the browser's answer to a tool call.
type ToolResponse struct {
	// Status is "Completed", "Error" or "Canceled".
	Status string
	// Output is what the tool returned as JSON (Completed only), at most
	// 64 KiB; nil when none.
	Output json.RawMessage
	// Error says why a call failed (Error only), at most 300 bytes.
	Error string
}

// mcpState is the page's WebMCP reading: the main frame's tools in the
// order the browser reported them, and the answers to its calls.
type mcpState struct {
	once    sync.Once
	err     error
	mu      sync.Mutex
	tools   []Tool
	answers map[string]ToolResponse
	waiting map[string]chan struct{}
}

// enableWebMCP starts the page's WebMCP reading once: it listens to the
// domain's events and enables it, which replays the tools registered so
// far.
func (p *Page) enableWebMCP(ctx context.Context) error {
	m := &p.mcp
	m.once.Do(func() {
		m.answers, m.waiting = map[string]ToolResponse{}, map[string]chan struct{}{}
		if m.err = chromedp.Listen(p.ctx, p.watchWebMCP); m.err != nil {
			return
		}
		_, m.err = chromedp.Call(ctx, webmcp.Enable, cdp.Empty{})
	})
	return m.err
}

// watchWebMCP keeps the main frame's tools and the answers to calls.
func (p *Page) watchWebMCP(ev any) {
	m := &p.mcp
	switch e := ev.(type) {
	case *webmcp.EventToolsAdded:
		m.mu.Lock()
		for _, t := range e.Tools {
			if t == nil || t.FrameID != p.frame || t.Name == "" {
				continue
			}
			m.drop(t.Name)
			if len(m.tools) < maxTools {
				m.tools = append(m.tools, toolOf(t))
			}
		}
		m.mu.Unlock()
	case *webmcp.EventToolsRemoved:
		m.mu.Lock()
		for _, t := range e.Tools {
			if t != nil && t.FrameID == p.frame {
				m.drop(t.Name)
			}
		}
		m.mu.Unlock()
	case *page.EventFrameNavigated:
		// A new document: the tools of the one that went are gone with it.
		if e.Frame != nil && e.Frame.ID == p.frame && e.Type != page.NavigationTypeBackForwardCacheRestore {
			m.mu.Lock()
			m.tools = nil
			m.mu.Unlock()
		}
	case *webmcp.EventToolResponded:
		m.mu.Lock()
		defer m.mu.Unlock()
		if _, ok := m.answers[e.InvocationID]; ok {
			return // the first answer is the tool's
		}
		if len(m.answers) >= maxResponses {
			for id := range m.answers {
				delete(m.answers, id)
				break
			}
		}
		m.answers[e.InvocationID] = responseOf(e)
		if ch := m.waiting[e.InvocationID]; ch != nil {
			close(ch)
			delete(m.waiting, e.InvocationID)
		}
	}
}

func (m *mcpState) drop(name string) {
	for i, t := range m.tools {
		if t.Name == name {
			m.tools = append(m.tools[:i], m.tools[i+1:]...)
			return
		}
	}
}

func toolOf(t *webmcp.Tool) Tool {
	out := Tool{Name: clip(t.Name, 100), Description: clip(t.Description, 300), Node: t.BackendNodeID}
	if b, err := json.Marshal(t.InputSchema); err == nil && len(b) <= maxToolSchema && string(b) != "null" {
		out.InputSchema = b
	}
	if a := t.Annotations; a != nil {
		out.Autosubmit, out.Consequential = a.Autosubmit, a.Consequential
	}
	if st := t.StackTrace; st != nil && len(st.CallFrames) > 0 {
		out.Script = clip(st.CallFrames[0].URL, 300)
	}
	return out
}

func responseOf(e *webmcp.EventToolResponded) ToolResponse {
	r := ToolResponse{Status: string(e.Status), Error: clip(e.ErrorText, 300)}
	if b, err := json.Marshal(e.Output); err == nil && string(b) != "null" {
		if len(b) > maxToolOutput {
			b = nil
			r.Error = "the tool's answer is too large"
		}
		r.Output = b
	}
	if e.Exception != nil && r.Error == "" {
		r.Error = clip(e.Exception.Description, 300)
		if r.Error == "" {
			r.Error = "the tool threw an exception"
		}
	}
	return r
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// WebMCPTools returns the WebMCP tools the browser reports for the page's
// main frame now, in the order they were registered.
func (p *Page) WebMCPTools(ctx context.Context) ([]Tool, error) {
	ctx, cancel := p.with(ctx)
	defer cancel()
	if err := p.enableWebMCP(ctx); err != nil {
		return nil, fmt.Errorf("webmcp: %w", err)
	}
	m := &p.mcp
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Tool(nil), m.tools...), nil
}

// Invocation is a tool call the browser has started.
type Invocation struct {
	p  *Page
	ID string
}

// ErrNoAnswer is returned by Wait when the call is not answered in time.
var ErrNoAnswer = errors.New("webmcp: the tool has not answered")

// InvokeTool asks the browser to call the main frame's tool name with
// input (a JSON object). The call runs in the page; Wait reads its answer.
// The caller's guard decides whether a tool may be called at all: this
// calls whatever it is given.
func (p *Page) InvokeTool(ctx context.Context, name string, input json.RawMessage) (*Invocation, error) {
	ctx, cancel := p.with(ctx)
	defer cancel()
	if err := p.enableWebMCP(ctx); err != nil {
		return nil, fmt.Errorf("webmcp: %w", err)
	}
	var in jsonv2.Value
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("webmcp: input: %w", err)
	}
	p.mu.Lock()
	p.activity = time.Now()
	p.mu.Unlock()
	res, err := chromedp.Call(ctx, webmcp.InvokeTool, webmcp.InvokeToolParams{FrameID: p.frame, ToolName: name, Input: in})
	if err != nil {
		return nil, fmt.Errorf("webmcp: invoke %s: %w", clip(name, 100), err)
	}
	return &Invocation{p: p, ID: res.InvocationID}, nil
}

// Wait returns the tool's answer, or ErrNoAnswer when none comes before
// ctx ends.
func (inv *Invocation) Wait(ctx context.Context) (ToolResponse, error) {
	m := &inv.p.mcp
	m.mu.Lock()
	if r, ok := m.answers[inv.ID]; ok {
		m.mu.Unlock()
		return r, nil
	}
	ch := m.waiting[inv.ID]
	if ch == nil {
		ch = make(chan struct{})
		m.waiting[inv.ID] = ch
	}
	m.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
		return ToolResponse{}, ErrNoAnswer
	case <-inv.p.ctx.Done():
		return ToolResponse{}, ErrNoAnswer
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.answers[inv.ID], nil
}

// Cancel asks the browser to cancel the call (a declarative tool whose
// form was filled and is not to be submitted).
func (inv *Invocation) Cancel(ctx context.Context) {
	ctx, cancel := inv.p.with(ctx)
	defer cancel()
	_, _ = chromedp.Call(ctx, webmcp.CancelInvocation, webmcp.CancelInvocationParams{InvocationID: inv.ID})
	m := &inv.p.mcp
	m.mu.Lock()
	delete(m.waiting, inv.ID)
	m.mu.Unlock()
}
