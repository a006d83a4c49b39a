// Shopify/dawn assets/cart.js in outline: the cart's line items and the
// remove button.
class CartRemoveButton extends HTMLElement {
  constructor() {
    super();
    this.addEventListener('click', (event) => {
      event.preventDefault();
      const cartItems = this.closest('cart-items') || this.closest('cart-drawer-items');
      if (cartItems) cartItems.updateQuantity(this.dataset.index, 0);
    });
  }
}
customElements.define('cart-remove-button', CartRemoveButton);

class CartItems extends HTMLElement {
  updateQuantity(line, quantity) {
    const body = JSON.stringify({line, quantity, sections: [], sections_url: window.location.pathname});
    return fetch(`${routes.cart_change_url}`, {...fetchConfig(), ...{body}}).then(() => window.location.reload());
  }
}
customElements.define('cart-items', CartItems);
