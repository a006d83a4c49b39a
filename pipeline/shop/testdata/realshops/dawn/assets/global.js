// Shopify/dawn assets/global.js in outline: fetchConfig, focus trapping
// stubs, the quantity input and the details disclosure used by the header.
function fetchConfig(type = 'json') {
  return {method: 'POST', headers: {'Content-Type': 'application/json', Accept: `application/${type}`}};
}
function trapFocus(container, elementToFocus = container) { if (elementToFocus && elementToFocus.focus) elementToFocus.focus({preventScroll: true}); }
function removeTrapFocus(elementToFocus = null) { if (elementToFocus && elementToFocus.focus) elementToFocus.focus({preventScroll: true}); }
function onKeyUpEscape(event) { if (event.code && event.code.toUpperCase() === 'ESCAPE') event.target.closest('details')?.removeAttribute('open'); }

class QuantityInput extends HTMLElement {
  constructor() {
    super();
    this.input = this.querySelector('input');
    this.querySelectorAll('button').forEach((button) => button.addEventListener('click', (event) => {
      event.preventDefault();
      const previous = this.input.value;
      event.currentTarget.name === 'plus' ? this.input.stepUp() : this.input.stepDown();
      if (previous !== this.input.value) this.input.dispatchEvent(new Event('change', {bubbles: true}));
    }));
  }
}
customElements.define('quantity-input', QuantityInput);

class HeaderDrawer extends HTMLElement {
  constructor() {
    super();
    this.mainDetailsToggle = this.querySelector('details');
    this.addEventListener('keyup', onKeyUpEscape);
  }
}
customElements.define('header-drawer', HeaderDrawer);

const CartPerformance = {
  createStartingMarker(name) { return performance.now(); },
  measureFromMarker(name, marker) {},
  measure(name, fn) { fn(); },
  measureFromEvent(name, evt) {},
};
