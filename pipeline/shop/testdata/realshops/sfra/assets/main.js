// SFRA's client scripts in outline (cartridges/app_storefront_base/
// cartridge/client/default/js/product/base.js, components/miniCart.js):
// choosing a size asks Product-Variation for the variant and enables
// "Add to Cart"; the add posts to Cart-AddProduct and updates the
// mini-cart's quantity and the message.
(function () {
  const size = document.querySelector('select.select-size');
  const add = document.querySelector('button.add-to-cart');
  if (size && add) {
    size.addEventListener('change', () => {
      if (size.value === 'null') { add.disabled = true; return; }
      fetch(size.value + '&format=ajax').then((r) => r.json()).then((res) => {
        add.dataset.pid = res.product.id;
        add.disabled = !res.product.readyToOrder;
        document.querySelector('.availability-msg').innerHTML = '<div>In Stock</div>';
      });
    });
    add.addEventListener('click', () => {
      const url = document.querySelector('.add-to-cart-url').value;
      const body = new URLSearchParams({pid: add.dataset.pid, quantity: document.querySelector('.quantity-select').value, options: '[]'});
      fetch(url, {method: 'POST', body}).then((r) => r.json()).then((data) => {
        for (const q of document.querySelectorAll('.minicart-quantity')) q.textContent = data.quantityTotal;
        for (const l of document.querySelectorAll('.minicart-link')) { l.setAttribute('title', 'Cart ' + data.quantityTotal + ' Items'); l.setAttribute('aria-label', 'Cart ' + data.quantityTotal + ' Items'); }
        const box = document.querySelector('.add-to-cart-messages');
        box.innerHTML = '<div class="alert ' + (data.error ? 'alert-danger' : 'alert-success') + ' add-to-basket-alert text-center" role="alert">' + data.message + '</div>';
        setTimeout(() => { box.innerHTML = ''; }, 5000);
      });
    });
  }
})();
