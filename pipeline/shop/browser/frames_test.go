package browser

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestChildFrames: a cross-origin iframe (a consent manager's, served from
// its own host) is listed with the iframe element it is drawn in, its
// document is read in the shopper's isolated world, and its
// accessibility tree is its own.
func TestChildFrames(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Host + r.URL.Path {
		case "shop.test/":
			fmt.Fprint(w, `<!doctype html><title>shop</title><main><button>Add to cart</button></main>
<div style="position:fixed;inset:0"><iframe src="http://cmp.test/index.html?message_id=1" title="SP Consent Message" style="width:100%;height:100%"></iframe></div>`)
		case "cmp.test/index.html":
			fmt.Fprint(w, `<!doctype html><title>notice</title><p>We value your privacy</p><button title="Accept">Accept</button>`)
		default:
			http.NotFound(w, r)
		}
	})
	_, p, ctx := openSite(t, site, "http://shop.test/", 20*time.Second)
	frames, err := p.Frames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 1 || frames[0].URL != "http://cmp.test/index.html?message_id=1" || frames[0].Owner == 0 {
		t.Fatalf("frames = %+v, want the consent frame with its iframe", frames)
	}
	f := frames[0]
	var title string
	if err := p.EvalIn(ctx, f.ID, "document.title", &title); err != nil || title != "notice" {
		t.Errorf("the frame's title = %q (%v), want notice", title, err)
	}
	// The isolated world is the frame's own, and it is kept.
	if err := p.EvalIn(ctx, f.ID, "globalThis.__probe = 7", nil); err != nil {
		t.Fatal(err)
	}
	var probe int
	if err := p.EvalIn(ctx, f.ID, "globalThis.__probe || 0", &probe); err != nil || probe != 7 {
		t.Errorf("the frame's world was not kept: %d (%v)", probe, err)
	}
	var tag string
	if err := p.CallOnNode(ctx, f.Owner, "function() { return this.tagName }", &tag); err != nil || tag != "IFRAME" {
		t.Errorf("the owner is %q (%v), want the IFRAME", tag, err)
	}
	nodes, err := p.AXTreeIn(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range nodes {
		var role, name string
		if n.Role != nil {
			_ = json.Unmarshal(n.Role.Value, &role)
		}
		if n.Name != nil {
			_ = json.Unmarshal(n.Name.Value, &name)
		}
		if role == "button" && name == "Accept" {
			found = true
			var text string
			if err := p.CallOnNodeIn(ctx, f.ID, n.BackendDOMNodeID, "function() { return this.textContent }", &text); err != nil || text != "Accept" {
				t.Errorf("the frame's button read %q (%v)", text, err)
			}
		}
	}
	if !found {
		t.Error("the frame's accessibility tree has no Accept button")
	}
}

// TestTheShoppersWorldIsKnownFromItsStart: the shopper's isolated world of
// a new document, and of its child frames, is known from the event that
// reports it made (by the init scripts, at the document's start), so the
// first reading after a load needs no round trip to make it.
func TestTheShoppersWorldIsKnownFromItsStart(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/frame" {
			fmt.Fprint(w, `<!doctype html><title>frame</title><p>in the frame</p>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>page</title><iframe src="/frame"></iframe>`)
	})
	_, p, ctx := openSite(t, site, "http://worlds.test/", 20*time.Second)
	pctx, cancel := p.with(ctx)
	defer cancel()
	for i := range 3 {
		// Load makes no evaluation: whatever world is known came from
		// the page's events.
		if err := p.Load(ctx, fmt.Sprintf("http://worlds.test/?%d", i)); err != nil {
			t.Fatal(err)
		}
		p.mu.Lock()
		world := p.world
		p.mu.Unlock()
		if world == 0 {
			t.Fatalf("load %d: the main frame's world is not known after the load", i)
		}
		var kind string
		if err := p.evaluate(pctx, world, "typeof globalThis.__svcMut", &kind); err != nil || kind != "object" {
			t.Errorf("load %d: the known world %d has the observer as %q (%v), want object: it is not the shopper's world of this document", i, world, kind, err)
		}
		frames, err := p.Frames(ctx)
		if err != nil || len(frames) != 1 {
			t.Fatalf("load %d: frames %v (%v), want one", i, frames, err)
		}
		fw := p.frames.get(frames[0].ID)
		if fw == 0 {
			t.Fatalf("load %d: the child frame's world is not known after the load", i)
		}
		var title string
		if err := p.evaluate(pctx, fw, "document.title", &title); err != nil || title != "frame" {
			t.Errorf("load %d: the child frame's known world reads the title %q (%v), want frame", i, title, err)
		}
	}
}
