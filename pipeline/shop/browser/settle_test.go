package browser

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestSettleWaitsForTheDOMAndForRequestedNavigations holds Settle to what
// a shopper reads after a click: a DOM that keeps changing for a while
// with no request (a script-driven drawer) is read once it stops, and a
// navigation a script asks for a moment after the click, to a slow page,
// is waited for. The DOM observer lives in the shopper's isolated world,
// out of the page's reach.
func TestSettleWaitsForTheDOMAndForRequestedNavigations(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<!doctype html><title>start</title>
<button id="dom" style="position:absolute;left:10px;top:10px;width:120px;height:40px">DOM</button>
<button id="nav" style="position:absolute;left:10px;top:80px;width:120px;height:40px">Nav</button>
<p id="out">idle</p>
<script>
document.getElementById('dom').onclick = () => {
  let i = 0;
  const t = setInterval(() => { i++; document.getElementById('out').textContent = 'step ' + i;
    if (i === 12) { clearInterval(t); document.getElementById('out').textContent = 'done'; } }, 20);
};
document.getElementById('nav').onclick = () => setTimeout(() => { location.href = '/next'; }, 30);
</script>`)
		case "/next":
			time.Sleep(300 * time.Millisecond)
			fmt.Fprint(w, `<!doctype html><title>next</title><p>next</p>`)
		default:
			http.NotFound(w, r)
		}
	})
	_, p, ctx := openSite(t, site, "http://shop.test/", 20*time.Second)
	var kinds [2]string
	if err := p.Eval(ctx, "typeof globalThis.__svcMut", &kinds[0]); err != nil {
		t.Fatal(err)
	}
	if err := p.EvalMain(ctx, "typeof globalThis.__svcMut", &kinds[1]); err != nil {
		t.Fatal(err)
	}
	if kinds != [2]string{"object", "undefined"} {
		t.Errorf("the DOM observer is %q in the shopper's world and %q in the page's, want object and undefined", kinds[0], kinds[1])
	}
	click := func(id string) {
		t.Helper()
		var r struct{ X, Y float64 }
		if err := p.Eval(ctx, `(() => { const b = document.getElementById('`+id+`').getBoundingClientRect(); return {X: b.x + b.width / 2, Y: b.y + b.height / 2} })()`, &r); err != nil {
			t.Fatal(err)
		}
		if err := p.Click(ctx, r.X, r.Y); err != nil {
			t.Fatal(err)
		}
		if err := p.Settle(ctx); err != nil {
			t.Fatal(err)
		}
	}
	click("dom")
	var out string
	if err := p.Eval(ctx, "document.getElementById('out').textContent", &out); err != nil {
		t.Fatal(err)
	}
	if out != "done" {
		t.Errorf("after the click settled the page shows %q, want done: Settle did not wait for the DOM to stop changing", out)
	}
	click("nav")
	var title string
	if err := p.Eval(ctx, "document.title", &title); err != nil {
		t.Fatal(err)
	}
	if title != "next" {
		t.Errorf("after the click settled the title is %q, want next: Settle did not wait for the requested navigation", title)
	}
}
