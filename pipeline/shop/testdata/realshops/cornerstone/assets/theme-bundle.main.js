// Cornerstone's theme bundle in outline (assets/js/theme/product.js,
// common/product-details.js, global/cart-preview.js, Foundation reveal):
// the product options are shown once the script runs, the add form is
// submitted by the storefront API, and the preview modal opens.
(function () {
  const optionsBlock = document.querySelector('[data-product-option-change]');
  if (optionsBlock) optionsBlock.style.display = '';

  let background;
  function openModal(modal, html) {
    modal.querySelector('.modal-content').innerHTML = html;
    if (!background) {
      background = document.createElement('div');
      background.className = 'modal-background';
      document.body.appendChild(background);
      background.addEventListener('click', () => closeModal(modal));
    }
    background.style.display = 'block';
    modal.classList.add('open');
    modal.setAttribute('aria-hidden', 'false');
    modal.style.display = 'block';
  }
  function closeModal(modal) {
    modal.classList.remove('open');
    modal.style.display = 'none';
    modal.setAttribute('aria-hidden', 'true');
    if (background) background.style.display = 'none';
  }
  document.addEventListener('click', (e) => {
    const close = e.target.closest('.modal-close, [data-reveal-close]');
    if (close) { e.preventDefault(); closeModal(close.closest('.modal')); }
  });

  const form = document.querySelector('form[data-cart-item-add]');
  if (!form) return;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const button = form.querySelector('#form-action-addToCart');
    const message = form.querySelector('.productAttributes-message');
    for (const sel of form.querySelectorAll('select[required]')) {
      if (!sel.value) {
        message.style.display = '';
        message.querySelector('.alertBox-message').textContent = 'Please select ' + sel.closest('.form-field').querySelector('label').childNodes[0].textContent.replace(':', '').trim().toLowerCase() + '.';
        return;
      }
    }
    const wait = button.dataset.waitMessage;
    const original = button.value;
    button.value = wait;
    button.disabled = true;
    fetch('/remote/v1/cart/add', {method: 'POST', body: new FormData(form), headers: {'X-Requested-With': 'stencil-utils', 'stencil-config': '{}'}})
      .then((r) => r.json())
      .then((res) => {
        button.value = original;
        button.disabled = false;
        if (res.data && res.data.error) {
          message.style.display = '';
          message.querySelector('.alertBox-message').textContent = res.data.error;
          return;
        }
        const qty = res.data.cart_quantity;
        for (const pill of document.querySelectorAll('.cart-quantity')) { pill.textContent = qty; pill.classList.toggle('countPill--positive', qty > 0); }
        for (const link of document.querySelectorAll('[data-cart-preview]')) link.setAttribute('aria-label', 'Cart with ' + qty + ' items');
        return fetch('/cart.php?action=preview&suggest=' + encodeURIComponent(res.data.cart_item.id), {headers: {'stencil-options': '{"template":"cart/preview"}'}})
          .then((r) => r.text())
          .then((html) => openModal(document.getElementById('previewModal'), html));
      });
  });
})();
