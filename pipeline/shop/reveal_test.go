package shop

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Reveal-on-scroll: many store themes keep what lies below the fold
// transparent, or visibility: hidden, until it is scrolled to, and then
// fade it in. A person scrolling down sees it; a shopper that reads the
// page as it loads sees nothing there. The three ways below follow the
// public behaviour of the libraries that do it most (each written here
// from their documentation and sources, not copied):
//
//   - AOS (michalsnik/aos 3.0.0-beta.6: src/sass/_animations.scss,
//     _core.scss, src/js/helpers/handleScroll.js, offsetCalculator.js):
//     [data-aos^=fade] is opacity 0 and pointer-events: none until the
//     class aos-animate is added; on load and on scroll (throttled to
//     99 ms) an element gets the class once the page has scrolled to 120
//     px past the point where its top meets the bottom of the screen, and
//     loses it again when the page scrolls back above that point (once:
//     false is the default).
//   - WOW.js (matthieua/WOW, src/WOW.coffee): every .wow box gets an
//     inline visibility: hidden at start; a 50 ms interval, after any
//     scroll, shows the boxes in view (visibility: visible and their
//     animate.css animation, which fades from opacity 0), once.
//   - Elementor (elementor/elementor, frontend handlers): a widget with
//     an entrance animation is served with the class elementor-invisible
//     (visibility: hidden); when it enters the viewport the class is
//     swapped for "animated fadeInUp" (animate.css keyframes, 1.25 s),
//     once.
//
// Every shop puts its product grid, its buy box and its cart (lines and
// checkout link) under a hero taller than any screen, inside the
// revealing element, above a footer (AOS never shows an element too near
// the end of the page for its trigger point to be scrolled to); the
// checkout page (card fields, a place-order trap) is plain.

// revealKinds are the libraries the reveal shops follow.
var revealKinds = []string{"aos", "wow", "elementor"}

// revealStyle is what a page needs to reveal on scroll the way kind (one
// of revealKinds) does: the head's style and script, and the element that
// wraps what it reveals.
func revealStyle(kind string) (head, open, close string) {
	switch kind {
	case "aos":
		head = `<style>
html:not(.no-js) [data-aos^=fade][data-aos^=fade] { opacity: 0; transition-property: opacity, transform; transition-duration: 400ms }
html:not(.no-js) [data-aos^=fade][data-aos^=fade].aos-animate { opacity: 1; transform: none }
html:not(.no-js) [data-aos=fade-up] { transform: translate3d(0, 100px, 0) }
[data-aos] { pointer-events: none } [data-aos].aos-animate { pointer-events: auto }
</style>
<script>
(function () {
  let boxes = [];
  function offsetTop(n) { let t = 0; for (let e = n; e; e = e.offsetParent) t += e.offsetTop; return t; }
  function prepare() { boxes = [...document.querySelectorAll('[data-aos]')].map(n => { n.classList.add('aos-init'); return {n, in: offsetTop(n) - innerHeight + 120}; }); }
  function handle() { const y = pageYOffset; for (const b of boxes) { if (y >= b.in) b.n.classList.add('aos-animate'); else b.n.classList.remove('aos-animate'); } }
  function throttle(f, ms) {
    let last = 0, timer = null;
    return function () {
      const wait = ms - (Date.now() - last);
      if (wait <= 0) { last = Date.now(); f(); }
      else if (!timer) timer = setTimeout(() => { last = Date.now(); timer = null; f(); }, wait);
    };
  }
  addEventListener('load', () => { prepare(); handle(); addEventListener('scroll', throttle(handle, 99)); });
})();
</script>`
		open, close = `<div data-aos="fade-up">`, `</div>`
	case "wow":
		head = `<style>
@keyframes fadeInUp { from { opacity: 0; transform: translate3d(0, 100%, 0) } to { opacity: 1; transform: none } }
.animated { animation-duration: 1s; animation-fill-mode: both }
</style>
<script>
document.addEventListener('DOMContentLoaded', function () {
  let boxes = [...document.querySelectorAll('.wow')];
  let scrolled = true;
  for (const b of boxes) { b.style.visibility = 'hidden'; b.style.animationName = 'none'; }
  addEventListener('scroll', () => { scrolled = true; });
  function offsetTop(n) { let t = 0; for (let e = n; e; e = e.offsetParent) t += e.offsetTop; return t; }
  function inView(b) { const top = offsetTop(b), bottom = top + b.clientHeight; return top <= pageYOffset + innerHeight && bottom >= pageYOffset; }
  setInterval(function () {
    if (!scrolled) return;
    scrolled = false;
    boxes = boxes.filter(b => {
      if (!inView(b)) return true;
      b.style.visibility = 'visible'; b.style.animationName = 'fadeInUp'; b.classList.add('animated');
      return false;
    });
  }, 50);
});
</script>`
		open, close = `<div class="wow fadeInUp">`, `</div>`
	case "elementor":
		head = `<style>
.elementor-invisible { visibility: hidden }
@keyframes fadeInUp { from { opacity: 0; transform: translate3d(0, 100%, 0) } to { opacity: 1; transform: none } }
.animated { animation-duration: 1.25s } .fadeInUp { animation-name: fadeInUp }
</style>
<script>
document.addEventListener('DOMContentLoaded', function () {
  const seen = new IntersectionObserver(entries => {
    for (const e of entries) {
      if (!e.isIntersecting) continue;
      e.target.classList.remove('elementor-invisible'); e.target.classList.add('animated', 'fadeInUp');
      seen.unobserve(e.target);
    }
  });
  document.querySelectorAll('.elementor-invisible').forEach(n => seen.observe(n));
});
</script>`
		open, close = `<div class="elementor-element elementor-widget elementor-invisible" data-settings='{"_animation":"fadeInUp"}'>`, `</div>`
	default:
		panic("no reveal kind " + kind)
	}
	return head, open, close
}

// revealShop is a one-product shop whose controls below the fold appear
// only when scrolled to, the way kind (one of revealKinds) does it.
func revealShop(kind string) *realShop {
	head, open, close := revealStyle(kind)
	return &realShop{host: kind + "-reveal.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		page := func(title, body string, revealed bool) {
			if revealed {
				body = `<div class="hero" style="height: 1400px; background: #efe"><p>New season, new colours.</p></div>` + open + body + close
			}
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>%s</head><body><header><a href="/">Drift Supply</a></header><main><h1>%s</h1>%s</main>
<footer style="height: 400px"><p>Drift Supply, Portland</p></footer></body></html>`, title, head, title, body)
		}
		switch {
		case r.URL.Path == "/veils":
			// Beside the revealed grid, two controls below the fold that
			// scrolling never shows: a card's caption shown on hover, and
			// a footer menu's item shown when its menu opens.
			page("Drift Supply", `<ul class="products"><li class="product"><a href="/products/field-jacket">Field Jacket</a></li></ul>`+close+
				`<style>.card .quick { opacity: 0 } .card:hover .quick { opacity: 1 } .menu .sub { visibility: hidden } .menu:hover .sub { visibility: visible }</style>
<div class="card"><img alt="" width="200" height="200"><a class="quick" href="/products/field-jacket">Quick view</a></div>
<div class="menu"><span>More</span><ul class="sub"><li><a href="/pages/gift-cards">Gift cards</a></li></ul></div>`+open, true)
		case r.URL.Path == "/":
			page("Drift Supply", `<ul class="products"><li class="product"><a href="/products/field-jacket">Field Jacket</a> $120.00</li></ul>`, true)
		case r.URL.Path == "/products/field-jacket":
			page("Field Jacket", `<p>$120.00</p><form method="post" action="/cart/add"><input type="hidden" name="id" value="jacket"><button type="submit">Add to cart</button></form>`, true)
		case !cartFlow(w, r, "jacket", "Field Jacket", func(title, body string) { page(title, body, !strings.HasPrefix(title, "Checkout")) }):
			http.NotFound(w, r)
		}
	}}
}

// TestShoppersSeeWhatAppearsWhenScrolledTo: on stores whose product grid,
// buy box and checkout link appear only when scrolled to (AOS, WOW.js,
// Elementor's entrance animations), A, B and E find each control by
// scrolling down, click it once it has appeared, and reach checkout.
func TestShoppersSeeWhatAppearsWhenScrolledTo(t *testing.T) {
	for _, kind := range revealKinds {
		t.Run(kind, func(t *testing.T) {
			wantEach(t, revealShop(kind), CheckoutReached, Semantic, Accessibility, Mobile)
		})
	}
}

// TestRevealCountsOnlyWhatScrollingShows: reveal scrolls to the veiled
// controls below the fold and counts as seen only the one that appears
// when scrolled to (AOS's), never a hover caption or a closed menu's item;
// a second reveal on the same page waits for none of them again.
func TestRevealCountsOnlyWhatScrollingShows(t *testing.T) {
	s := shopSession(t, revealShop("aos"))
	if err := s.open("https://aos-reveal.test/veils", "test"); err != nil {
		t.Fatal(err)
	}
	names := func() map[string]bool {
		s.forget()
		its, err := s.items()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, it := range its {
			out[it.Name] = true
		}
		return out
	}
	before := names()
	for _, n := range []string{"Field Jacket", "Quick view", "Gift cards"} {
		if before[n] {
			t.Errorf("before scrolling, %q counts as seen", n)
		}
	}
	if appeared, _ := s.reveal(0); !appeared {
		t.Fatal("reveal says nothing appeared")
	}
	if last := s.rep.Log[len(s.rep.Log)-1]; !strings.Contains(last.Note, "1 of 3 controls") {
		t.Errorf("reveal's step says %q, want 1 of 3 controls appeared", last.Note)
	}
	after := names()
	if !after["Field Jacket"] {
		t.Error("the product link AOS shows when scrolled to is not seen after reveal")
	}
	for _, n := range []string{"Quick view", "Gift cards"} {
		if after[n] {
			t.Errorf("%q counts as seen after reveal, but scrolling never shows it", n)
		}
	}
	steps := len(s.rep.Log)
	if appeared, _ := s.reveal(0); appeared || len(s.rep.Log) != steps {
		t.Error("a second reveal scrolled again to controls already swept")
	}
}

// lazyGridShop renders its home page's product grid only when the grid's
// place comes near the screen, as storefronts that load their sections
// lazily do (an IntersectionObserver on the section, then a fetch of its
// products): nothing below the fold is in the page until a person scrolls
// down, and the page offers no other way to a product.
func lazyGridShop() *realShop {
	return &realShop{host: "lazy-grid.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		page := func(title, body string) {
			shopPage(w, `<a href="/">Fern &amp; Field</a>`, title, body, `<footer style="height: 300px">Fern &amp; Field</footer>`)
		}
		switch {
		case r.URL.Path == "/":
			page("Fern & Field", `<div class="hero" style="height: 1600px; background: #efe"><p>Plants for every room.</p></div>
<section id="featured" data-section="/sections/featured" style="min-height: 200px"></section>
<script>
const section = document.getElementById('featured');
const seen = new IntersectionObserver(async entries => {
  if (!entries.some(e => e.isIntersecting)) return;
  seen.disconnect();
  section.innerHTML = await (await fetch(section.dataset.section)).text();
}, {rootMargin: '200px'});
seen.observe(section);
</script>`)
		case r.URL.Path == "/journal":
			// A tall page of 20,500 paragraphs: beyond what the shoppers read.
			page("Journal", strings.Repeat("<p>Notes from the greenhouse.</p>", 20500))
		case r.URL.Path == "/sections/featured":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<h2>Featured</h2><ul><li class="product"><a href="/products/snake-plant">Snake Plant</a></li></ul>`)
		case r.URL.Path == "/products/snake-plant":
			page("Snake Plant", `<p>$32.00</p><form method="post" action="/cart/add"><input type="hidden" name="id" value="plant"><button type="submit">Add to cart</button></form>`)
		case !cartFlow(w, r, "plant", "Snake Plant", func(title, body string) { page(title, body) }):
			http.NotFound(w, r)
		}
	}}
}

// TestShoppersScrollDownToALazyGrid: when a look finds no product, A, B
// and E scroll down the page before looking again, so that a grid loaded
// when its place is scrolled near is there, and reach checkout.
func TestShoppersScrollDownToALazyGrid(t *testing.T) {
	wantEach(t, lazyGridShop(), CheckoutReached, Semantic, Accessibility, Mobile)
}

// TestRevealGlancesOnlyWithinTheReadingBound: the second look glances down
// a tall page, but leaves a document beyond the 20,000 elements the
// shoppers read as it is (scrolling one had the renderer keep some 40 MB
// more).
func TestRevealGlancesOnlyWithinTheReadingBound(t *testing.T) {
	s := shopSession(t, lazyGridShop())
	for _, c := range []struct {
		path string
		want bool
	}{{"/", true}, {"/journal", false}} {
		if err := s.open("https://lazy-grid.test"+c.path, "test"); err != nil {
			t.Fatal(err)
		}
		if _, glanced := s.reveal(patience); glanced != c.want {
			t.Errorf("%s: glanced %v, want %v", c.path, glanced, c.want)
		}
	}
}
