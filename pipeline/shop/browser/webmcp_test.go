package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/fixtures"
)

const webmcpPage = `<!doctype html><title>tools</title>
<form toolname="add_to_cart" tooldescription="Add a product to the cart" action="/cart" method="post">
<input name="product_id" toolparamdescription="The product" required>
<select name="size"><option>S<option>M</select>
<button>Add</button></form>
<form toolname="search" tooldescription="Search products" action="/search" toolautosubmit><input name="q"><button>Go</button></form>
<script>
document.modelContext.registerTool({name: 'getCart', description: 'Show the cart', inputSchema: {type: 'object', properties: {}},
  async execute(a) { return {content: [{type: 'text', text: JSON.stringify({items: [1], got: a})}]}; }});
document.modelContext.registerTool({name: 'throws', description: 'Fails', async execute() { throw new Error('boom'); }});
document.modelContext.registerTool({name: 'go', description: 'Go to checkout', async execute() { location.href = '/checkout'; return 'went'; }});
</script>`

// serveTLS serves h on a loopback port that speaks TLS for *.test names
// (the lab's listener): document.modelContext exists only in a secure
// context.
func serveTLS(t *testing.T, h http.HandlerFunc) *Page {
	t.Helper()
	needChromium(t)
	ln, ca, err := fixtures.Listen("127.0.0.1:0", 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	b := startBrowser(t, Options{FixtureAddr: ln.Addr().String(), FixtureCA: ca})
	p, err := b.NewPage(t.Context(), PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// TestWebMCPThroughTheBrowser: the browser's own WebMCP, over the
// protocol: the tools of the page (imperative and declarative, with the
// schema the browser derives from a form), a call and its answer, a
// declarative form filled by the call and answered when it is submitted,
// a call that navigates, and a new document's tools in place of the old.
func TestWebMCPThroughTheBrowser(t *testing.T) {
	var mu sync.Mutex
	var posted []string
	p := serveTLS(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, webmcpPage)
		case "/plain":
			fmt.Fprint(w, `<p>no tools</p>`)
		default:
			_ = r.ParseForm()
			mu.Lock()
			posted = append(posted, r.Method+" "+r.URL.Path+" "+r.Form.Encode())
			mu.Unlock()
			fmt.Fprint(w, `<p>done</p>`)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := p.Navigate(ctx, "https://shop.test/"); err != nil {
		t.Fatal(err)
	}
	// The reading starts after the page registered its tools: enabling
	// the domain replays them.
	ts, err := p.WebMCPTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Tool{}
	var names []string
	for _, tl := range ts {
		byName[tl.Name] = tl
		names = append(names, tl.Name)
	}
	sort.Strings(names) // the replay of enable is in no set order
	if got := strings.Join(names, ","); got != "add_to_cart,getCart,go,search,throws" {
		t.Fatalf("tools %s", got)
	}
	add := byName["add_to_cart"]
	if add.Node == 0 || add.Autosubmit || !strings.Contains(string(add.InputSchema), `"required":["product_id"]`) ||
		!strings.Contains(string(add.InputSchema), `"description":"The product"`) || !strings.Contains(string(add.InputSchema), `"enum":["S","M"]`) {
		t.Errorf("declarative tool %+v %s", add, add.InputSchema)
	}
	if s := byName["search"]; !s.Autosubmit || s.Node == 0 {
		t.Errorf("autosubmit form %+v", s)
	}
	if g := byName["getCart"]; g.Node != 0 || string(g.InputSchema) != `{"type":"object","properties":{}}` || !strings.HasPrefix(g.Script, "https://shop.test/") {
		t.Errorf("imperative tool %+v %s", g, g.InputSchema)
	}
	if byName["go"].InputSchema != nil {
		t.Errorf("a tool without a schema has %s", byName["go"].InputSchema)
	}

	call := func(name, in string) (ToolResponse, error) {
		t.Helper()
		inv, err := p.InvokeTool(ctx, name, json.RawMessage(in))
		if err != nil {
			return ToolResponse{}, err
		}
		wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		return inv.Wait(wctx)
	}
	if r, err := call("getCart", `{"x":1}`); err != nil || r.Status != "Completed" || !strings.Contains(string(r.Output), `\"got\":{\"x\":1}`) {
		t.Errorf("getCart: %+v %v", r, err)
	}
	if r, err := call("throws", `{}`); err != nil || r.Status != "Error" || !strings.Contains(r.Error, "boom") {
		t.Errorf("throws: %+v %v", r, err)
	}
	if _, err := call("nosuch", `{}`); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("an unknown tool: %v", err)
	}
	// A declarative tool without toolautosubmit fills its form and waits
	// for it to be submitted.
	inv, err := p.InvokeTool(ctx, "add_to_cart", json.RawMessage(`{"product_id":"p9","size":"M"}`))
	if err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, 500*time.Millisecond)
	if _, err := inv.Wait(short); err != ErrNoAnswer {
		t.Errorf("a form not submitted answered: %v", err)
	}
	cancelShort()
	var filled string
	if err := p.EvalMain(ctx, `document.forms[0].product_id.value + '/' + document.forms[0].size.value`, &filled); err != nil || filled != "p9/M" {
		t.Errorf("the form holds %q (%v)", filled, err)
	}
	if err := p.EvalMain(ctx, `document.forms[0].requestSubmit()`, nil); err != nil {
		t.Fatal(err)
	}
	wctx, cancelW := context.WithTimeout(ctx, 3*time.Second)
	r, err := inv.Wait(wctx)
	cancelW()
	if err != nil || r.Status != "Completed" {
		t.Errorf("the submitted form: %+v %v", r, err)
	}
	_ = p.Settle(ctx)
	mu.Lock()
	got := strings.Join(posted, "|")
	mu.Unlock()
	if got != "POST /cart product_id=p9&size=M" {
		t.Errorf("the form posted %q", got)
	}
	// The new document (/cart) has no tools: the old document's are gone.
	if ts, _ := p.WebMCPTools(ctx); len(ts) != 0 {
		t.Errorf("tools of a document that went: %+v", ts)
	}

	if err := p.Navigate(ctx, "https://shop.test/"); err != nil {
		t.Fatal(err)
	}
	if r, err := call("go", `{}`); err != nil || r.Status != "Completed" || string(r.Output) != `"went"` {
		t.Errorf("go: %+v %v", r, err)
	}
	_ = p.Settle(ctx)
	var loc string
	_ = p.EvalMain(ctx, "location.pathname", &loc)
	if loc != "/checkout" {
		t.Errorf("the call that navigates left the page at %q", loc)
	}
}
