package shop

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

//go:embed webmcp.js
var webmcpObserver string

// tool is one WebMCP tool a page offers: registered with modelContext
// (imperative) or declared by a form with a toolname (declarative).
type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Via         string          `json:"via"` // navigator, document, or form
	ref         int             // the form of a declarative tool
	form        *Form
}

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

// tools lists the page's WebMCP tools, imperative then declarative.
func (s *session) tools() ([]tool, error) {
	ctx, cancel := s.stepCtx()
	defer cancel()
	var imp []tool
	if err := s.page.EvalMain(ctx, "window.__svcWebMCP ? window.__svcWebMCP.list() : []", &imp); err != nil {
		return nil, err
	}
	var forms []struct {
		Ref         int    `json:"ref"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Form        *Form  `json:"form"`
	}
	if err := s.page.Eval(ctx, helper+".toolForms()", &forms); err != nil {
		return nil, err
	}
	out := imp
	for _, f := range forms {
		out = append(out, tool{Name: f.Name, Description: f.Description, Via: "form", ref: f.Ref, form: f.Form})
	}
	return out, nil
}

// checkoutWebMCP records the WebMCP tools of the checkout page the run
// has just reached (imperative and declarative), by name only; a page
// that cannot be read leaves it unmeasured. Reading runs no page action
// and sends no request.
func (s *session) checkoutWebMCP() {
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
		s.record("inspect", "", "", "no WebMCP tool: none registered with modelContext, no form with a toolname")
		return s.end(NoCart, "no_webmcp_tool")
	}
	s.record("inspect", "", "", "WebMCP tools: "+clipText(strings.Join(names, ", "), 200))
	pickTool := func(re *regexp.Regexp) (tool, bool) {
		for _, t := range ts {
			if re.MatchString(t.Name) && !forbiddenTool(t.Name, t.Description) {
				return t, true
			}
		}
		for _, t := range ts {
			if re.MatchString(t.Description) && !forbiddenTool(t.Name, t.Description) {
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
	if add.Via == "form" {
		err = s.submitTool(add)
	} else {
		var args map[string]any
		args, err = s.toolArgs(add, ts)
		if err == nil {
			result, err = s.callTool(add, args)
		}
	}
	if errors.Is(err, errStop) {
		return err
	}
	if err != nil {
		s.record("tool", "webmcp tool", add.Name, "the tool failed: "+clipText(err.Error(), 100))
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
	if co.Via == "form" {
		err = s.submitTool(co)
	} else {
		_, err = s.callTool(co, map[string]any{})
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
		if t.Via == "form" || !reToolSearch.MatchString(t.Name) || forbiddenTool(t.Name, t.Description) {
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

// callTool calls an imperative tool in the page and waits for the page to
// settle (a tool may navigate). The result is the tool's answer as JSON.
func (s *session) callTool(t tool, args map[string]any) (string, error) {
	if s.frozen.Load() {
		return "", s.refuse("webmcp tool", t.Name, GuardCheckoutPage)
	}
	if forbiddenTool(t.Name, t.Description) {
		return "", s.refuse("webmcp tool", t.Name, GuardPaymentControl)
	}
	ctx, cancel := s.stepCtx()
	defer cancel()
	a, _ := json.Marshal(args)
	name, _ := json.Marshal(t.Name)
	var res json.RawMessage
	s.forget()
	err := s.page.EvalMain(ctx, fmt.Sprintf("window.__svcWebMCP.call(%s, %s)", name, a), &res)
	navigated := err != nil && strings.Contains(err.Error(), "context was destroyed")
	if err != nil && !navigated {
		return "", err
	}
	s.page.Touch()
	_ = s.settle(ctx)
	st, _ := s.state()
	note := "call with " + clipText(string(a), 80)
	if isToolError(res) {
		note += ": the tool answered with an error"
	}
	s.recordState(st, "tool", "webmcp tool", t.Name, note)
	if jerr := s.judge(st); jerr != nil {
		return string(res), jerr
	}
	if isToolError(res) {
		return string(res), errors.New("the tool answered with an error")
	}
	return string(res), nil
}

func isToolError(res json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(res, &r) == nil && r.IsError
}

// submitTool calls a declarative tool: its form is submitted as the page
// declares it, after the same guard as any form.
func (s *session) submitTool(t tool) error {
	if s.frozen.Load() {
		return s.refuse("webmcp form", t.Name, GuardCheckoutPage)
	}
	if forbiddenTool(t.Name, t.Description) {
		return s.refuse("webmcp form", t.Name, GuardPaymentControl)
	}
	if f := t.form; f != nil {
		probe := Item{Tag: "button", Form: f}
		if r := Forbidden(probe); r != "" {
			return s.refuse("webmcp form", t.Name, r)
		}
	}
	ctx, cancel := s.stepCtx()
	defer cancel()
	var ok bool
	s.forget()
	if err := s.page.Eval(ctx, fmt.Sprintf("%s.submit(%d)", helper, t.ref), &ok); err != nil && !staleErr(err) {
		return err
	}
	s.page.Touch()
	_ = s.settle(ctx)
	st, _ := s.state()
	s.recordState(st, "tool", "webmcp form", t.Name, "submit the tool's form")
	return s.judge(st)
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
		if t.Via != "form" && reToolCart.MatchString(t.Name) && !forbiddenTool(t.Name, t.Description) {
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
