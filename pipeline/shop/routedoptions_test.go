package shop

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// routedOptionsShop draws its pages the way the lab's Vendure storefront
// does (github.com/vendurehq/nextjs-starter-vendure at 0895266, the
// source in ../shared/platforms/src): a link is followed by the app's
// router, which changes the address only when its transition renders
// (here 600 ms after the click, with no request, as a busy machine sees
// Next.js's Link), then shows the route's loading state, a skeleton with
// no text (src/app/product/[slug]/loading.tsx), and draws the product
// 250 ms later. The product's options are shadcn/Radix radio groups
// (src/components/commerce/product-info.tsx, components/ui/radio-group.tsx):
// a <div role="radiogroup"> with no name of its own after a <label> not
// tied to it ("screen size", "RAM": the second names no option word),
// each value a <button role="radio" aria-checked id=N> named by its
// <label for=N>. The add button reads "Select Options" and is disabled
// until every option is chosen. The first product on the home page is
// sold out, so the second is the one the run buys, on a page of its own.
func routedOptionsShop() *realShop {
	const router = `<script>
const routes = {
  '/product/tablet': '<h1>Tablet</h1><p>$394.80</p><p>Out of stock</p><button data-slot="button" disabled>Out of Stock</button>',
  '/product/laptop': '<h1>Laptop</h1><p>$1,558.80</p>' +
    '<div><label data-slot="label">screen size</label><div role="radiogroup" data-slot="radio-group" class="grid gap-3">' +
    '<div class="flex items-center gap-2"><button type="button" role="radio" aria-checked="false" value="5" id="5" class="size-4"></button><label for="5">13 inch</label></div>' +
    '<div class="flex items-center gap-2"><button type="button" role="radio" aria-checked="false" value="6" id="6" class="size-4"></button><label for="6">15 inch</label></div></div></div>' +
    '<div><label data-slot="label">RAM</label><div role="radiogroup" data-slot="radio-group" class="grid gap-3">' +
    '<div class="flex items-center gap-2"><button type="button" role="radio" aria-checked="false" value="7" id="7" class="size-4"></button><label for="7">8GB</label></div>' +
    '<div class="flex items-center gap-2"><button type="button" role="radio" aria-checked="false" value="8" id="8" class="size-4"></button><label for="8">16GB</label></div></div></div>' +
    '<button data-slot="button" id="add" disabled>Select Options</button>',
};
function draw(path) {
  const main = document.querySelector('main');
  main.innerHTML = '<div class="animate-pulse h-9 w-3/4"></div><div class="animate-pulse h-4 w-full"></div>';
  setTimeout(() => { main.innerHTML = routes[path]; wire(); }, 250);
}
function wire() {
  document.querySelectorAll('[role=radiogroup]').forEach(g => g.querySelectorAll('[role=radio]').forEach(b => b.addEventListener('click', () => {
    g.querySelectorAll('[role=radio]').forEach(x => x.setAttribute('aria-checked', String(x === b)));
    const add = document.getElementById('add');
    if ([...document.querySelectorAll('[role=radiogroup]')].every(x => x.querySelector('[aria-checked=true]'))) {
      add.disabled = false; add.textContent = 'Add to Cart';
    }
  })));
  const add = document.getElementById('add');
  if (add) add.addEventListener('click', async () => {
    const r = await fetch('/api/cart', {method: 'POST', body: new URLSearchParams({variant: [...document.querySelectorAll('[aria-checked=true]')].map(x => x.value).join('-')})});
    if (r.ok) document.getElementById('cart').textContent = '1 Shopping Cart';
  });
}
document.addEventListener('click', e => {
  const a = e.target.closest && e.target.closest('a[data-route]');
  if (!a) return;
  e.preventDefault();
  setTimeout(() => { history.pushState(null, '', a.href); document.title = a.dataset.route + ' | Routed Store'; draw(new URL(a.href).pathname); }, 600);
});
if (routes[location.pathname]) draw(location.pathname);
</script>`
	return &realShop{host: "routed-options.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		page := func(title, body string) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>%s</title></head>
<body><header><a href="/">Routed Store</a> <a href="/cart" id="cart">Shopping Cart</a></header><main>%s</main><footer>© Routed Store</footer>%s</body></html>`, title, body, router)
		}
		switch {
		case r.URL.Path == "/":
			page("Routed Store", `<ul><li><a data-route="Tablet" href="/product/tablet"><span>Tablet</span> <span>from $394.80</span></a></li>
<li><a data-route="Laptop" href="/product/laptop"><span>Laptop</span> <span>from $1,558.80</span></a></li></ul>`)
		case r.URL.Path == "/product/tablet" || r.URL.Path == "/product/laptop":
			page("Routed Store", "")
		case r.URL.Path == "/api/cart" && r.Method == http.MethodPost:
			v := formValue(r, "variant")
			if a, b, ok := strings.Cut(v, "-"); !ok || (a != "5" && a != "6") || (b != "7" && b != "8") {
				http.Error(w, "choose every option", http.StatusBadRequest)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: "cart", Value: v, Path: "/"})
			w.WriteHeader(http.StatusNoContent)
		case r.URL.Path == "/cart":
			if _, err := r.Cookie("cart"); err != nil {
				page("Cart", "<h1>Shopping Cart</h1><p>Your cart is empty.</p>")
				return
			}
			page("Cart", `<h1>Shopping Cart</h1><ul><li>Laptop 13 inch 8GB $1,558.80</li></ul><a href="/checkout">Proceed to Checkout</a>`)
		case r.URL.Path == "/checkout":
			page("Checkout", "<h1>Checkout</h1>"+trapCheckout)
		default:
			http.NotFound(w, r)
		}
	}}
}

// TestShoppersFollowARouterAndChooseRadixOptions: A, B and E wait for a
// link the app's router follows late, wait once on each product page for
// the product its loading state stands in for, choose a value of each
// radio group (the one named "RAM" too, because the add waits on it), and
// reach checkout through the cart.
func TestShoppersFollowARouterAndChooseRadixOptions(t *testing.T) {
	reps := runOnShop(t, routedOptionsShop(), Semantic, Accessibility, Mobile)
	for _, sh := range []Shopper{Semantic, Accessibility, Mobile} {
		rep := reps[sh]
		wantOutcome(t, sh, rep, CheckoutReached)
		chose := chosenOptions(rep)
		if strings.Join(chose, ",") != "13 inch,8GB" {
			t.Errorf("%s chose %q, want the first value of each option (13 inch, 8GB)", sh, chose)
		}
	}
}
