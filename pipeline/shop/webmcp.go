package shop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
)

// tool is one WebMCP tool the browser reports for the page: registered
// with its document.modelContext (by a page script, or through a
// polyfill the page ships) or declared by a form with a toolname.
type tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	Via         string            // page, polyfill, or form
	node        cdp.BackendNodeID // the form of a declarative tool
	autosubmit  bool
	// consequential: the page marks the tool as one with consequences
	// (booking, paying): never called.
	consequential bool
}

// Where a tool comes from (tool.Via).
const (
	viaPage     = "page"     // a page script, with the browser's document.modelContext
	viaPolyfill = "polyfill" // through the page's own modelContext (MCP-B), mirrored into the browser's
	viaForm     = "form"     // a form with a toolname, the browser's tool
)

// viaWords says in the log who registered a tool.
var viaWords = map[string]string{
	viaPage:     "registered by the page with the browser's modelContext",
	viaPolyfill: "registered through the page's own modelContext polyfill, which hands it to the browser's",
	viaForm:     "the browser's tool of a form with a toolname",
}

// polyfilledJS reports, in the page's own world, whether the page has put
// a modelContext of its own in place of the browser's: the browser's is a
// getter of Document.prototype, a polyfill (MCP-B's @mcp-b/global) defines
// one on document or navigator itself.
const polyfilledJS = `!!(Object.getOwnPropertyDescriptor(document, 'modelContext') || Object.getOwnPropertyDescriptor(navigator, 'modelContext'))`

// toolWait bounds the wait for a tool's answer.
const toolWait = 8 * time.Second

var (
	reToolAdd      = regexp.MustCompile(`(?i)add[\s_-]*(item[\s_-]*)?(to[\s_-]*)?(the[\s_-]*)?(cart|bag|basket)|cart[\s_-]*add|addtocart`)
	reToolCheckout = regexp.MustCompile(`(?i)check[\s_-]?out`)
	reToolSearch   = regexp.MustCompile(`(?i)search|find|list|catalog|products|browse`)
	reToolCart     = regexp.MustCompile(`(?i)^(view|get|read|show)[\s_-]*(the[\s_-]*)?(cart|bag|basket)$`)
	reToolFinish   = regexp.MustCompile(`(?i)complete|confirm|submit|finali[sz]e|pay`)
	reIDArg        = regexp.MustCompile(`(?i)(product|variant|item|sku|offer)[\s_-]*(id|code)?$|^id$|handle`)
)

// forbiddenTool reports a tool the shopper never calls: placing an order,
// paying, logging in, an account, a newsletter, by its name or its
// description.
func forbiddenTool(name, description string) bool {
	spaced := strings.NewReplacer("_", " ", "-", " ", ".", " ").Replace(name)
	if reForbiddenWords.MatchString(spaced) || reForbiddenWords.MatchString(description) || compoundHit(name) {
		return true
	}
	for _, t := range tokens(name) {
		if forbiddenTokens[t] {
			return true
		}
	}
	// Completing or confirming checkout is paying: by the tool's name, or
	// by a description that says it completes, pays or charges. "Open the
	// checkout page to enter shipping and payment details" does not.
	return reToolCheckout.MatchString(name) && (reToolFinish.MatchString(name) || reToolFinishDesc.MatchString(description))
}

var reToolFinishDesc = regexp.MustCompile(`(?i)\b(complete[sd]?|completing|confirm(s|ed|ing)?|submit(s|ted|ting)?|finali[sz](e|es|ed|ing)|place[sd]?|placing)\b|\bpa(y|ys|id|ying)\b|\bcharg(e|es|ed|ing)\b|\bbuy(s|ing)?\b|\bpurchas(e|es|ed|ing)\b`)

// tools lists the page's WebMCP tools as the browser reports them,
// imperative then declarative, each in the order registered.
func (s *session) tools() ([]tool, error) {
	ctx, cancel := s.stepCtx()
	defer cancel()
	bt, err := s.page.WebMCPTools(ctx)
	if err != nil {
		return nil, err
	}
	poly := false
	if len(bt) > 0 {
		_ = s.page.EvalMain(ctx, polyfilledJS, &poly)
	}
	out := make([]tool, 0, len(bt))
	for _, t := range bt {
		via := viaPage
		switch {
		case t.Node != 0:
			via = viaForm
		case poly:
			via = viaPolyfill
		}
		out = append(out, tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Via: via,
			node: t.Node, autosubmit: t.Autosubmit, consequential: t.Consequential})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Via != viaForm && out[j].Via == viaForm })
	return out, nil
}

// checkoutWebMCP records the WebMCP tools of the checkout page the run
// has just reached (imperative and declarative), by name only, as the
// browser's own WebMCP lists them; a page that cannot be read leaves it
// unmeasured. Reading runs no page action
// and sends no request.
func (s *session) checkoutWebMCP() {
	defer phase("checkout WebMCP tools")()
	if s.rep.CheckoutWebMCP != nil {
		return
	}
	ts, err := s.tools()
	if err != nil {
		return
	}
	s.rep.CheckoutWebMCP = &CheckoutWebMCP{Detected: len(ts) > 0, Tools: toolNames(ts)}
}

// toolNames are the distinct names of tools fit for a record: short,
// never an address, sorted, at most 32.
func toolNames(ts []tool) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, t := range ts {
		n := clipText(t.Name, 64)
		if n == "" || strings.Contains(n, "://") || strings.HasPrefix(n, "/") || strings.Contains(n, "www.") || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	sort.Strings(out)
	if len(out) > 32 {
		out = out[:32]
	}
	return out
}

// webmcp is shopper C: it acts only through the tools the page offers
// agents. No tool, no cart.
func (s *session) webmcp() error {
	ts, err := s.tools()
	if err != nil {
		return err
	}
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		names = append(names, t.Name+" ("+t.Via+")")
	}
	sort.Strings(names)
	if len(ts) == 0 {
		s.record("inspect", "", "", "no WebMCP tool: the browser lists none (none registered with document.modelContext, no form with a toolname)")
		return s.end(NoCart, "no_webmcp_tool")
	}
	s.record("inspect", "", "", "WebMCP tools: "+clipText(strings.Join(names, ", "), 200))
	pickTool := func(re *regexp.Regexp) (tool, bool) {
		for _, t := range ts {
			if re.MatchString(t.Name) && !t.consequential && !forbiddenTool(t.Name, t.Description) {
				return t, true
			}
		}
		for _, t := range ts {
			if re.MatchString(t.Description) && !t.consequential && !forbiddenTool(t.Name, t.Description) {
				return t, true
			}
		}
		return tool{}, false
	}
	add, ok := pickTool(reToolAdd)
	if !ok {
		return s.end(NoCart, "no_cart_tool")
	}
	var result string
	args, err := s.toolArgs(add, ts)
	if err == nil {
		result, err = s.callTool(add, args)
	}
	if errors.Is(err, errStop) {
		return err
	}
	if err != nil {
		if !errors.Is(err, errRefused) { // a refusal is logged as one: no call was made
			s.record("tool", "webmcp tool", add.Name, "the tool failed: "+clipText(err.Error(), 100))
		}
		return s.end(NoCart, "cart_tool_failed")
	}
	if !s.toolCartConfirmed(result, ts) {
		s.record("inspect", "", "", "the add was not confirmed by the page or a cart tool")
		return s.end(NoCart, "add_not_confirmed")
	}
	s.added = true
	// The tools may be registered again by a new document.
	if ts2, err := s.tools(); err == nil && len(ts2) > 0 {
		ts = ts2
	}
	co, ok := pickTool(reToolCheckout)
	if !ok {
		return s.end(AddedToCart, "no_checkout_tool")
	}
	if args, aerr := s.toolArgs(co, ts); aerr != nil {
		err = aerr
	} else {
		_, err = s.callTool(co, args)
	}
	if err != nil && !errors.Is(err, errStop) {
		return s.end(AddedToCart, "checkout_tool_failed")
	}
	if err != nil {
		return err
	}
	return s.end(AddedToCart, "checkout_not_reached")
}

// toolArgs fills a tool's required arguments: a product id from a search
// tool (or the page's JSON-LD), a quantity of one, the first value of an
// enum. A required argument it cannot fill safely stops the call.
func (s *session) toolArgs(t tool, all []tool) (map[string]any, error) {
	var schema struct {
		Properties map[string]struct {
			Type string `json:"type"`
			Enum []any  `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(t.InputSchema, &schema)
	args := map[string]any{}
	for _, name := range schema.Required {
		p := schema.Properties[name]
		ln := strings.ToLower(name)
		switch {
		case reIDArg.MatchString(ln):
			id, err := s.productID(all)
			if err != nil {
				return nil, err
			}
			if p.Type == "integer" || p.Type == "number" {
				var n json.Number = json.Number(id)
				args[name] = n
			} else {
				args[name] = id
			}
		case strings.Contains(ln, "quantity") || ln == "qty" || ln == "count":
			args[name] = 1
		case len(p.Enum) > 0:
			args[name] = p.Enum[0]
		default:
			return nil, fmt.Errorf("required argument %q cannot be filled", name)
		}
	}
	if _, ok := schema.Properties["quantity"]; ok {
		if _, set := args["quantity"]; !set {
			args["quantity"] = 1
		}
	}
	return args, nil
}

// productID finds the id of an available product: from a search tool's
// answer, else from the page's Product JSON-LD.
func (s *session) productID(all []tool) (string, error) {
	for _, t := range all {
		if t.Via == viaForm || !reToolSearch.MatchString(t.Name) || t.consequential || forbiddenTool(t.Name, t.Description) {
			continue
		}
		res, err := s.callTool(t, map[string]any{"query": ""})
		if err != nil {
			continue
		}
		if id := firstID(res); id != "" {
			return id, nil
		}
	}
	st, err := s.state()
	if err == nil {
		for _, p := range jsonldProducts(st) {
			if p.SKU != "" {
				return p.SKU, nil
			}
		}
	}
	return "", errors.New("no product id found")
}

// firstID reads the first available product's id from a tool answer: the
// JSON inside its text content, or its structured content.
func firstID(res string) string {
	var msg struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent any `json:"structuredContent"`
	}
	if json.Unmarshal([]byte(res), &msg) != nil {
		return ""
	}
	var docs []any
	if msg.StructuredContent != nil {
		docs = append(docs, msg.StructuredContent)
	}
	for _, c := range msg.Content {
		var v any
		if c.Type == "text" && json.Unmarshal([]byte(c.Text), &v) == nil {
			docs = append(docs, v)
		}
	}
	var walk func(v any, depth int) string
	walk = func(v any, depth int) string {
		if depth > 6 {
			return ""
		}
		switch x := v.(type) {
		case map[string]any:
			if avail, ok := x["available"].(bool); ok && !avail {
				return ""
			}
			for _, k := range []string{"product_id", "variant_id", "productId", "variantId", "id", "sku"} {
				switch id := x[k].(type) {
				case string:
					if id != "" {
						return id
					}
				case float64:
					return fmt.Sprint(int64(id))
				}
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if id := walk(x[k], depth+1); id != "" {
					return id
				}
			}
		case []any:
			for _, e := range x {
				if id := walk(e, depth+1); id != "" {
					return id
				}
			}
		}
		return ""
	}
	for _, d := range docs {
		if id := walk(d, 0); id != "" {
			return id
		}
	}
	return ""
}

// callTool calls a tool through the browser's WebMCP (WebMCP.invokeTool)
// after the guard allows it, and follows what the call starts (a
// navigation, a new document, a route of a single-page shop, a new tab)
// before it judges the page. A declarative tool's form is filled by the
// browser; unless the page lets the browser submit it (toolautosubmit),
// the shopper submits it, as the person confirming it would. The result
// is the tool's answer as JSON.
func (s *session) callTool(t tool, args map[string]any) (string, error) {
	role := "webmcp tool"
	if t.Via == viaForm {
		role = "webmcp form"
	}
	if s.frozen.Load() {
		return "", s.refuse(role, t.Name, GuardCheckoutPage)
	}
	if t.consequential || forbiddenTool(t.Name, t.Description) {
		return "", s.refuse(role, t.Name, GuardPaymentControl)
	}
	ctx, cancel := s.stepCtx()
	defer cancel()
	if t.Via == viaForm {
		var f *Form
		if err := s.page.CallOnNode(ctx, t.node, "function () { return "+helper+".formOf(this); }", &f); err != nil {
			return "", err
		}
		if r := Forbidden(Item{Tag: "button", Form: f}); f == nil || r != "" {
			if r == "" {
				r = GuardPaymentControl
			}
			return "", s.refuse(role, t.Name, r)
		}
	}
	a, _ := json.Marshal(args)
	s.forget()
	docs := len(s.page.Documents())
	_ = s.page.TakeOpened(ctx) // what the page opened before the call is not the call's
	inv, err := s.page.InvokeTool(ctx, t.Name, a)
	if err != nil {
		return "", err
	}
	wctx, wcancel := context.WithTimeout(ctx, toolWait)
	defer wcancel()
	note := "call with " + clipText(string(a), 80)
	if t.Via == viaForm && !t.autosubmit {
		// The browser filled the form; it waits for a submission.
		brief, bcancel := context.WithTimeout(ctx, 300*time.Millisecond)
		res, werr := inv.Wait(brief)
		bcancel()
		if werr == nil && res.Status != "Completed" {
			s.record("tool", role, t.Name, note+": "+clipText(res.Error, 100))
			return "", errors.New("the tool answered with an error: " + clipText(res.Error, 100))
		}
		if werr != nil {
			var ok bool
			if err := s.page.CallOnNode(ctx, t.node, "function () { return "+helper+".submitForm(this); }", &ok); err != nil && !staleErr(err) {
				inv.Cancel(ctx)
				return "", err
			}
			note += ", then submit the form it filled"
		}
	}
	res, werr := inv.Wait(wctx)
	s.page.Touch()
	_ = s.settle(ctx)
	st, _ := s.state()
	note += " (" + viaWords[t.Via] + ")"
	follow := ""
	if u := s.page.TakeOpened(ctx); len(s.page.Documents()) == docs {
		switch pu := webURL(u); {
		case pu == nil:
		case s.sameBrand(pu):
			note, follow = note+"; it opened a new tab", u
		default:
			note += "; it opened a tab on another site, not followed"
		}
	}
	failed := ""
	switch {
	case werr != nil:
		failed = "the tool did not answer"
	case res.Status != "Completed":
		failed = "the tool failed"
		if res.Error != "" {
			failed += ": " + clipText(res.Error, 100)
		}
	case isToolError(res.Output):
		failed = "the tool answered with an error"
	}
	if failed != "" {
		note += ": " + failed
	}
	s.recordState(st, "tool", role, t.Name, note)
	if jerr := s.judge(st); jerr != nil {
		return string(res.Output), jerr
	}
	if follow != "" {
		if r := Forbidden(Item{Tag: "a", Href: follow, Name: t.Name}); r != "" {
			return "", s.refuse(role, t.Name, r)
		}
		if err := s.open(follow, "follow the new tab in this one"); err != nil {
			return "", err
		}
	}
	if failed != "" {
		return string(res.Output), errors.New(failed)
	}
	return string(res.Output), nil
}

func isToolError(res json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(res, &r) == nil && r.IsError
}

func staleErr(err error) bool {
	m := err.Error()
	return strings.Contains(m, "context was destroyed") || strings.Contains(m, "Cannot find context")
}

// toolCartConfirmed reports whether the cart verifiably holds the item
// after an add tool: the page shows it, or a cart tool, or the add tool's
// own answer, counts an item.
func (s *session) toolCartConfirmed(addResult string, all []tool) bool {
	if st, err := s.state(); err == nil {
		if ok, _ := s.cartEvidence(st); ok {
			return true
		}
	}
	if cartCount(addResult) > 0 {
		return true
	}
	for _, t := range all {
		if t.Via != viaForm && reToolCart.MatchString(t.Name) && !t.consequential && !forbiddenTool(t.Name, t.Description) {
			if res, err := s.callTool(t, map[string]any{}); err == nil && cartCount(res) > 0 {
				return true
			}
		}
	}
	return false
}

// cartCount reads an item count from a tool answer: a "count" or
// "item_count" number, or the length of an "items" list.
func cartCount(res string) int {
	var msg struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal([]byte(res), &msg) != nil {
		return 0
	}
	for _, c := range msg.Content {
		var v struct {
			Count     *int  `json:"count"`
			ItemCount *int  `json:"item_count"`
			Items     []any `json:"items"`
		}
		if json.Unmarshal([]byte(c.Text), &v) != nil {
			continue
		}
		switch {
		case v.Count != nil && *v.Count > 0:
			return *v.Count
		case v.ItemCount != nil && *v.ItemCount > 0:
			return *v.ItemCount
		case len(v.Items) > 0:
			return len(v.Items)
		}
	}
	return 0
}
