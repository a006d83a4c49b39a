package shop

import (
	"net/http"
	"strings"
	"testing"
)

// everShopShop follows EverShop 2.2.1's product page as the lab's store
// serves it (https://evershop.test/accessories/stainless-steel-thermos-yellow,
// its React SSR markup with Tailwind's classes cut): the colour's values
// are plain buttons, each in a list item of its own, under
// <div><span>Color</span></div>, beside an empty hidden
// input[name=variant_selected]; "Add to cart" (a button of type button)
// refuses with a message until a colour is clicked, and the header's cart
// is a button named "Shopping cart with N items".
func everShopShop() *realShop {
	const header = `<div class="header__middle page-width flex items-center gap-6 py-6"><div class="logo flex justify-center items-center"><a href="/" class="logo-icon" aria-label="An Amazing EverShop Store – home"><svg width="40" height="40"></svg></a></div>
<nav aria-label="Main menu" class="evershop-basic-menu__desktop"><ul class="evershop-basic-menu__items"><li class="relative evershop-basic-menu__item"><a href="/accessories">Accessories</a></li></ul></nav>
<div class="mini-cart-wrapper"><button type="button" aria-label="Shopping cart with {{COUNT}} items" class="mini-cart-icon">
<svg width="20" height="20"></svg></button></div></div>`
	const product = `<div data-evershop-area-id="productPageMiddleRight"><h1 class="product-single-name">Stainless Steel Thermos - Yellow</h1><form noValidate="" id="productForm"><fieldset><div data-evershop-area-id="productSinglePageForm"><div class="product__single__price"><span class="sale-price">$35.00</span></div><dl class="product__single__attributes"><div><dt>SKU</dt><dd>THERMO-005-YEL</dd></div><div><dt>Color</dt><dd>Yellow</dd></div></dl><div class="variant-container"><div><div class="mb-2 text-textSubdued uppercase"><span>Color</span></div><ul class="variant-option-list flex justify-start gap-2 flex-wrap"><li class="mr-2"><button type="button" tabindex="0" data-slot="button" aria-disabled="false" class="variant-option">White</button></li><li class="mr-2"><button type="button" tabindex="0" data-slot="button" aria-disabled="false" class="variant-option">Black</button></li><li class="mr-2"><button type="button" tabindex="0" data-slot="button" aria-disabled="false" class="variant-option">Yellow</button></li></ul></div><input type="hidden" name="variant_selected"/></div><div class="add-to-cart"><div role="group" data-slot="field" data-orientation="vertical" data-invalid="false"><label data-slot="field-label" for="field-qty">Quantity<span>*</span></label><div data-slot="input-group" role="group"><input id="field-qty" type="number" data-slot="input-group-control" placeholder="Quantity" min="1" step="any" aria-invalid="false" name="qty" value="1"/></div></div><p class="variant-error" hidden>Please select variant options</p><button type="button" tabindex="0" data-slot="button" class="mt-2 w-full">Add to cart</button></div></div></fieldset></form></div>
<script>
const chosen = document.querySelector('input[name=variant_selected]');
document.querySelectorAll('.variant-option').forEach(b => b.addEventListener('click', () => {
  document.querySelectorAll('.variant-option').forEach(o => o.classList.remove('selected', 'border-primary'));
  b.classList.add('selected', 'border-primary');
  chosen.value = '1';
}));
document.querySelector('.add-to-cart > button').addEventListener('click', () => {
  if (!chosen.value) { document.querySelector('.variant-error').hidden = false; return; }
  const f = document.createElement('form');
  f.method = 'post'; f.action = '/cart/add';
  document.body.appendChild(f); f.submit();
});
</script>`
	return &realShop{host: "evershop-colour.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		count := "0"
		if c, err := r.Cookie("cart"); err == nil && c.Value == "15" {
			count = "1"
		}
		page := func(title, body string) {
			shopPage(w, strings.ReplaceAll(header, "{{COUNT}}", count), title, body, "")
		}
		switch r.URL.Path {
		case "/":
			page("An Amazing EverShop Store", `<div class="grid grid-cols-2"><div class="product-item"><a href="/accessories/stainless-steel-thermos-yellow"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Stainless Steel Thermos - Yellow" width="120" height="120"><h3 class="product-name">Stainless Steel Thermos - Yellow</h3><div class="product-price-listing"><span class="sale-price">$35.00</span></div></a></div></div>`)
		case "/accessories/stainless-steel-thermos-yellow":
			page("Stainless Steel Thermos - Yellow", product)
		default:
			if !cartFlow(w, r, "15", "Stainless Steel Thermos - White", page) {
				http.NotFound(w, r)
			}
		}
	}}
}

// TestShoppersChooseEverShopsColourButtons: A, B and E click a colour
// (a plain button in a list item, under the text "Color") before "Add to
// cart", as EverShop asks, and reach checkout.
func TestShoppersChooseEverShopsColourButtons(t *testing.T) {
	wantEach(t, everShopShop(), CheckoutReached, Semantic, Accessibility, Mobile)
}
