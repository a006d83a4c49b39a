package shop

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// optionButtonsShop draws its product page the way Vercel's Next.js
// Commerce template does (vercel/commerce components/product/
// variant-selector.tsx and components/cart/add-to-cart.tsx, modal.tsx):
// each option is a <form> holding <dl><dt>Color</dt><dd> and one plain
// <button> per value, titled "Color Black", the chosen one marked only by
// a CSS ring (no aria-pressed, no radio); a value out of stock is a
// disabled button. Until every option is chosen the add button is
// disabled and labelled "Please select an option"; then it is "Add to
// cart". The cart opens as a modal dialog with "Proceed to Checkout". The
// cart holds only a variant whose options were all chosen; the checkout
// page has card fields and a place-order trap.
func optionButtonsShop() *realShop {
	return &realShop{host: "option-buttons.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		page := func(title, body string) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>%s</title>
<style>.ring-2 { outline: 2px solid #2563eb } [hidden] { display: none }</style></head>
<body><nav><a href="/">Acme Store</a> <button aria-label="Open cart" id="open-cart"><svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true"><path d="M3 3h2l2 12h12l2-8H6"/></svg><span id="badge"></span></button></nav>
<main>%s</main>
<div role="dialog" aria-modal="true" id="cart" hidden style="position: fixed; top: 0; right: 0; bottom: 0; width: 390px; background: #fff">
<p>My Cart</p><ul id="lines"></ul><form action="/cart/checkout" method="post"><button type="submit">Proceed to Checkout</button></form>
<button aria-label="Close cart" onclick="document.getElementById('cart').hidden = true">&times;</button></div>
</body></html>`, title, body)
		}
		switch {
		case r.URL.Path == "/":
			page("Acme Store", `<ul><li><a href="/product/acme-t-shirt" class="relative inline-block h-full w-full"><span>Acme T-Shirt</span> <span>$20.00</span></a></li></ul>`)
		case r.URL.Path == "/product/acme-t-shirt":
			page("Acme T-Shirt", `<h1>Acme T-Shirt</h1><p>$20.00</p>
<form class="opt"><dl class="mb-8"><dt class="mb-4 text-sm uppercase tracking-wide">Color</dt><dd class="flex flex-wrap gap-3">
<button data-o="color" data-v="Black" title="Color Black">Black</button><button data-o="color" data-v="White" title="Color White">White</button></dd></dl></form>
<form class="opt"><dl class="mb-8"><dt class="mb-4 text-sm uppercase tracking-wide">Size</dt><dd class="flex flex-wrap gap-3">
<button data-o="size" data-v="XS" title="Size XS (Out of Stock)" aria-disabled="true" disabled>XS</button><button data-o="size" data-v="S" title="Size S">S</button><button data-o="size" data-v="M" title="Size M">M</button></dd></dl></form>
<form id="add"><button id="add-button" aria-label="Please select an option" disabled class="cursor-not-allowed opacity-60">Add To Cart</button>
<p aria-live="polite" class="sr-only" role="status"></p></form>
<script>
const state = {};
document.querySelectorAll('form.opt').forEach(f => f.addEventListener('submit', e => {
  e.preventDefault();
  const b = e.submitter;
  state[b.dataset.o] = b.dataset.v;
  b.closest('dd').querySelectorAll('button').forEach(x => x.classList.toggle('ring-2', x === b));
  const u = new URL(location.href); u.searchParams.set(b.dataset.o, b.dataset.v.toLowerCase()); history.replaceState(null, '', u);
  if (state.color && state.size) {
    const a = document.getElementById('add-button');
    a.disabled = false; a.setAttribute('aria-label', 'Add to cart'); a.classList.remove('cursor-not-allowed', 'opacity-60');
  }
}));
document.getElementById('add').addEventListener('submit', async e => {
  e.preventDefault();
  const r = await fetch('/api/cart', {method: 'POST', body: new URLSearchParams({variant: state.color + '-' + state.size})});
  if (!r.ok) return;
  document.getElementById('badge').textContent = '1';
  document.getElementById('lines').innerHTML = '<li>Acme T-Shirt ' + state.color + ' / ' + state.size + '</li>';
  document.getElementById('cart').hidden = false;
});
</script>`)
		case r.URL.Path == "/api/cart" && r.Method == http.MethodPost:
			v := formValue(r, "variant")
			if color, size, ok := strings.Cut(v, "-"); !ok || (color != "Black" && color != "White") || (size != "S" && size != "M") {
				http.Error(w, "choose a color and a size", http.StatusBadRequest)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: "cart", Value: v, Path: "/"})
			w.WriteHeader(http.StatusNoContent)
		case r.URL.Path == "/cart/checkout" && r.Method == http.MethodPost:
			if _, err := r.Cookie("cart"); err != nil {
				http.Error(w, "the cart is empty", http.StatusBadRequest)
				return
			}
			http.Redirect(w, r, "/checkout", http.StatusSeeOther)
		case r.URL.Path == "/checkout":
			page("Checkout", "<h1>Checkout</h1>"+trapCheckout)
		default:
			http.NotFound(w, r)
		}
	}}
}

// chosenOptions are the names of the option values a run clicked to
// choose, in order.
func chosenOptions(rep *Report) []string {
	var chose []string
	for _, st := range rep.Log {
		if st.Action == "click" && strings.HasPrefix(st.Note, "choose") {
			chose = append(chose, st.Name)
		}
	}
	return chose
}

// TestShoppersChooseOptionsFromPlainButtons: on a product page whose
// options are plain buttons under a term that names the option (Next.js
// Commerce's), A and E choose one available value of each option, once,
// and reach checkout. B's accessibility tree says nothing of those buttons
// being choices (no radio, no pressed state), and the add button is
// disabled until they are made: B ends without a cart.
func TestShoppersChooseOptionsFromPlainButtons(t *testing.T) {
	reps := runOnShop(t, optionButtonsShop(), Semantic, Mobile, Accessibility)
	for _, sh := range []Shopper{Semantic, Mobile} {
		rep := reps[sh]
		wantOutcome(t, sh, rep, CheckoutReached)
		chose := chosenOptions(rep)
		if len(chose) != 2 {
			t.Errorf("%s chose %q, want one value of each of the two options", sh, chose)
		}
	}
	b := reps[Accessibility]
	wantOutcome(t, Accessibility, b, NoCart)
	if b.Reason == "sold_out" {
		t.Errorf("B says the product is sold out; its add button was only waiting for a choice")
	}
}

// listboxShop's product page picks its size from a listbox drawn by
// script, the way Headless UI's Listbox (tailwindlabs/headlessui,
// packages/@headlessui-react/src/components/listbox) renders one: a button
// with aria-haspopup="listbox" and aria-expanded="false" showing "Select a
// size"; a click renders a role="listbox" labelled by that button, whose
// role="option" items carry aria-selected (a size out of stock is
// aria-disabled). There is no native select. The add button stays
// disabled until a size is chosen. The cart and checkout follow cartFlow.
func listboxShop() *realShop {
	return &realShop{host: "listbox-select.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		page := func(title, body string) { shopPage(w, `<a href="/">Northwind Outfitters</a>`, title, body, "") }
		switch {
		case r.URL.Path == "/":
			page("Northwind Outfitters", `<ul><li class="product"><a href="/products/rain-jacket">Rain Jacket</a></li></ul>`)
		case r.URL.Path == "/products/rain-jacket":
			page("Rain Jacket", `<p>$140.00</p>
<div class="relative"><label id="size-label">Size</label>
<button type="button" id="size-button" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="size-label size-button"><span>Select a size</span></button>
<div id="size-options"></div></div>
<form method="post" action="/cart/add"><input type="hidden" name="id" value=""><button type="submit" id="add" disabled>Add to cart</button></form>
<script>
const sizes = [['S', false], ['M', true], ['L', true]];
const button = document.getElementById('size-button'), box = document.getElementById('size-options');
let chosen = '';
function close() { box.innerHTML = ''; button.setAttribute('aria-expanded', 'false'); }
button.addEventListener('click', () => {
  if (button.getAttribute('aria-expanded') === 'true') { close(); return; }
  button.setAttribute('aria-expanded', 'true');
  box.innerHTML = '<ul role="listbox" aria-labelledby="size-button" tabindex="0">' + sizes.map(([v, ok]) =>
    '<li role="option" data-v="' + v + '" aria-selected="' + (v === chosen) + '"' + (ok ? '' : ' aria-disabled="true"') + ' tabindex="-1">' + v + (ok ? '' : ' (sold out)') + '</li>').join('') + '</ul>';
  box.querySelectorAll('[role=option]').forEach(o => o.addEventListener('click', () => {
    if (o.getAttribute('aria-disabled') === 'true') return;
    chosen = o.dataset.v;
    button.querySelector('span').textContent = chosen;
    document.querySelector('[name=id]').value = 'jacket-' + chosen;
    document.getElementById('add').disabled = false;
    close();
  }));
});
</script>`)
		case r.URL.Path == "/cart/add" && r.Method == http.MethodPost && !strings.HasPrefix(formValue(r, "id"), "jacket-"):
			http.Error(w, "choose a size", http.StatusBadRequest)
		case r.URL.Path == "/cart/add" && r.Method == http.MethodPost:
			http.SetCookie(w, &http.Cookie{Name: "cart", Value: "jacket", Path: "/"})
			http.Redirect(w, r, "/cart", http.StatusSeeOther)
		case !cartFlow(w, r, "jacket", "Rain Jacket", func(title, body string) { page(title, body) }):
			http.NotFound(w, r)
		}
	}}
}

// TestShoppersChooseFromAListbox: A and E open a size listbox drawn by
// script, choose the first size on sale (not the sold-out one) and reach
// checkout; B, which sees a plain button named "Size Select a size"
// (Chromium's tree keeps no sign of its popup), opens it by its words,
// chooses from the options then in the tree, and does too.
func TestShoppersChooseFromAListbox(t *testing.T) {
	wantEach(t, listboxShop(), CheckoutReached, Semantic, Accessibility, Mobile)
}
