// The Luma page scripts in outline (the real ones are RequireJS modules on
// jQuery): mage/dataPost, the swatch renderer, catalog-add-to-cart, the
// customer-data sections that refresh the minicart, and the minicart's
// dropdown dialog.
(function () {
  // mage/dataPost: a click on [data-post] posts its data with a form.
  document.addEventListener('click', (e) => {
    const el = e.target.closest('[data-post]');
    if (!el) return;
    e.preventDefault();
    const params = JSON.parse(el.getAttribute('data-post'));
    const form = document.createElement('form');
    form.action = params.action;
    form.method = 'post';
    form.style.display = 'none';
    for (const [k, v] of Object.entries(Object.assign({form_key: 'hxFormKey'}, params.data || {}))) {
      const i = document.createElement('input');
      i.type = 'hidden'; i.name = k; i.value = v;
      form.appendChild(i);
    }
    document.body.appendChild(form);
    form.submit();
  });

  // Magento_Swatches swatch-renderer: one .swatch-attribute per attribute,
  // a listbox of role=option swatches and the text input the form
  // validates.
  const opt = document.querySelector('.swatch-opt');
  if (opt) {
    const cfg = JSON.parse(opt.dataset.jsonConfig);
    for (const item of Object.values(cfg.attributes)) {
      const labelId = 'option-label-' + item.code + '-' + item.id;
      let options = '';
      item.options.forEach((o, index) => {
        const empty = o.products.length === 0;
        const attr = ' id="' + labelId + '-item-' + o.id + '" index="' + index + '" aria-checked="false" aria-describedby="' + labelId + '" tabindex="0" data-option-type="' + (o.color ? 1 : 0) +
          '" data-option-id="' + o.id + '" data-option-label="' + o.label + '" aria-label="' + o.label + '" role="option"' + (empty ? ' data-option-empty="true" disabled' : '');
        options += o.color
          ? '<div class="swatch-option color' + (empty ? ' disabled' : '') + '"' + attr + ' style="background: ' + o.color + ' no-repeat center; background-size: initial;"></div>'
          : '<div class="swatch-option text' + (empty ? ' disabled' : '') + '"' + attr + '>' + o.label + '</div>';
      });
      opt.insertAdjacentHTML('beforeend', '<div class="swatch-attribute ' + item.code + '" data-attribute-code="' + item.code + '" data-attribute-id="' + item.id + '">' +
        '<span id="' + labelId + '" class="swatch-attribute-label">' + item.label + '</span><span class="swatch-attribute-selected-option"></span>' +
        '<div aria-activedescendant="" tabindex="0" aria-invalid="false" aria-required="true" role="listbox" aria-labelledby="' + labelId + '" class="swatch-attribute-options clearfix">' + options + '</div>' +
        '<input class="swatch-input super-attribute-select" name="super_attribute[' + item.id + ']" type="text" value="" data-selector="super_attribute[' + item.id + ']" data-validate="{required: true}" aria-required="true" aria-invalid="false" form="product_addtocart_form"></div>');
    }
    opt.addEventListener('click', (e) => {
      const sw = e.target.closest('.swatch-option');
      if (!sw || sw.classList.contains('disabled')) return;
      const parent = sw.closest('.swatch-attribute');
      for (const o of parent.querySelectorAll('.swatch-option')) { o.classList.remove('selected'); o.setAttribute('aria-checked', 'false'); }
      sw.classList.add('selected');
      sw.setAttribute('aria-checked', 'true');
      parent.setAttribute('data-option-selected', sw.dataset.optionId);
      parent.querySelector('.swatch-attribute-selected-option').textContent = sw.dataset.optionLabel;
      parent.querySelector('.swatch-input').value = sw.dataset.optionId;
      parent.querySelector('.mage-error')?.remove();
    });
  }

  // catalog-add-to-cart: the form's submit is validated and posted by ajax.
  const form = document.getElementById('product_addtocart_form');
  if (form) {
    const button = document.getElementById('product-addtocart-button');
    button.disabled = false;
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      let valid = true;
      for (const input of form.querySelectorAll('.super-attribute-select')) {
        const parent = input.closest('.swatch-attribute');
        if (!input.value) {
          valid = false;
          if (!parent.querySelector('.mage-error')) parent.insertAdjacentHTML('beforeend', '<div generated="true" class="mage-error" id="' + input.name + '-error">This is a required field.</div>');
        }
      }
      if (!valid) return;
      button.classList.add('disabled');
      button.querySelector('span').textContent = 'Adding...';
      fetch(form.action, {method: 'POST', body: new FormData(form), headers: {'X-Requested-With': 'XMLHttpRequest'}})
        .then((r) => r.json())
        .then((res) => {
          if (res.backUrl) { window.location.href = res.backUrl; return; }
          button.querySelector('span').textContent = 'Added';
          return reloadSections().then(() => {
            button.classList.remove('disabled');
            button.querySelector('span').textContent = 'Add to Cart';
          });
        });
    });
  }

  // customer-data: the cart and messages sections, and the minicart.
  function reloadSections() {
    return fetch('/customer/section/load/?sections=cart%2Cmessages&force_new_section_timestamp=true', {headers: {'X-Requested-With': 'XMLHttpRequest'}})
      .then((r) => r.json())
      .then((data) => {
        const count = data.cart.summary_count;
        const counter = document.querySelector('.minicart-wrapper .counter');
        counter.classList.toggle('empty', !count);
        counter.querySelector('.counter-number').textContent = count || '';
        counter.querySelector('.counter-label').innerHTML = count ? count + '<span>items</span>' : '';
        document.getElementById('minicart-content-wrapper').innerHTML = data.cart.html;
        const box = document.querySelector('.page.messages .messages');
        box.innerHTML = (data.messages.messages || []).map((m) => '<div class="message-' + m.type + ' ' + m.type + ' message" data-ui-id="message-' + m.type + '"><div>' + m.text + '</div></div>').join('');
      });
  }

  // The minicart: a jQuery UI dropdown dialog opened by the showcart link.
  const wrapper = document.querySelector('[data-block=minicart]');
  if (wrapper) {
    const dialog = wrapper.querySelector('.mage-dropdown-dialog');
    wrapper.querySelector('.showcart').addEventListener('click', (e) => {
      e.preventDefault();
      const open = dialog.style.display !== 'none';
      dialog.style.display = open ? 'none' : 'block';
      wrapper.classList.toggle('active', !open);
      wrapper.querySelector('.showcart').classList.toggle('active', !open);
    });
    wrapper.addEventListener('click', (e) => {
      if (e.target.closest('#top-cart-btn-checkout')) location.href = '/checkout/';
      if (e.target.closest('#btn-minicart-close')) { dialog.style.display = 'none'; wrapper.classList.remove('active'); }
    });
  }
})();
