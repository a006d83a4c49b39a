// The storefront's client app in outline: a router over history.pushState,
// views rendered from the commerce API's JSON, and one delegated click
// listener on the root, as React attaches its handlers.
(function () {
  const root = document.getElementById('__next');
  let products = [];
  let cart = {items: []};
  const money = (p) => '$' + p;
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));

  function header() {
    const n = cart.items.length;
    return `<div class="announcement-bar"><div class="marquee">Free shipping on orders over $75 · Free returns within 30 days · New linen in stock now · Members get early access to the summer sale</div></div>
<header class="site-header"><a href="/" class="logo" data-link>Headless Held-out</a>
<nav aria-label="Main"><a href="/collections/new" data-link>New arrivals</a><a href="/collections/women" data-link>Women</a><a href="/collections/men" data-link>Men</a><a href="/pages/about" data-link>About</a></nav>
<button type="button" class="bag-button" data-action="open-bag" aria-label="Open bag, ${n} item${n === 1 ? '' : 's'}"><svg width="24" height="24" viewBox="0 0 24 24" aria-hidden="true"><path d="M6 7h12l1 13H5z" fill="none" stroke="currentColor"/></svg>${n ? '<span class="bag-count">' + n + '</span>' : ''}</button></header>`;
  }

  function bag() {
    const items = cart.items.map((it) => `<li class="bag-line"><span>${esc(it.name)}</span> <span>${money(it.price)}</span> <button type="button" data-action="remove" data-id="${it.id}" aria-label="Remove ${esc(it.name)}">Remove</button></li>`).join('');
    return `<div class="scrim" data-action="close-bag"></div><aside class="bag" role="dialog" aria-modal="true" aria-label="Shopping bag">
<div class="bag-header"><h2>Your bag (${cart.items.length})</h2><button type="button" data-action="close-bag" aria-label="Close">×</button></div>
${cart.items.length ? '<ul class="bag-lines">' + items + '</ul><p>Subtotal ' + money(cart.subtotal) + '</p><button type="button" class="btn" data-action="checkout">Checkout</button>' : '<p>Your bag is empty.</p>'}
</aside>`;
  }

  function card(p) {
    return `<div class="group cursor-pointer" data-testid="product-card" data-handle="${p.handle}">
<img src="/_next/image?url=${encodeURIComponent('/' + p.handle + '.svg')}&w=640" alt="" width="400" height="400" loading="lazy">
<h3 class="mt-2 text-sm">${esc(p.name)}</h3><p class="text-sm text-neutral-500">${money(p.price)}</p></div>`;
  }

  const views = {
    home() {
      document.title = 'Headless Held-out';
      return `<section class="hero"><h1>Made for warm days</h1><p>Linen, canvas and wool, in small runs.</p></section>
<section aria-label="Best sellers"><h2 style="padding:0 24px">Best sellers</h2><div class="grid">${products.map(card).join('')}</div></section>`;
    },
    collection(handle) {
      // The product list page's tiles: the title is a button that routes
      // to the product (router.push in its onClick), not a link.
      document.title = 'New arrivals – Headless Held-out';
      return `<h1 style="padding:0 24px">New arrivals</h1><div class="grid">${products.map((p) => `<article class="product-tile">
<img src="/_next/image?url=${encodeURIComponent('/' + p.handle + '.svg')}&w=640" alt="" width="400" height="400" loading="lazy">
<h3><button type="button" class="tile-title" data-action="open-product" data-handle="${p.handle}">${esc(p.name)}</button></h3><p>${money(p.price)}</p></article>`).join('')}</div>`;
    },
    product(handle) {
      const p = products.find((x) => x.handle === handle);
      if (!p) return views.notFound();
      document.title = p.name + ' – Headless Held-out';
      return `<div class="product"><img src="/_next/image?url=${encodeURIComponent('/' + p.handle + '.svg')}&w=1080" alt="${esc(p.name)}" width="600" height="600">
<div><h1>${esc(p.name)}</h1><p>${money(p.price)}</p>
<fieldset><legend>Size</legend>${['XS', 'S', 'M', 'L'].map((s) => `<button type="button" class="pill" aria-pressed="false" data-action="size" data-size="${s}"${s === 'XS' ? ' disabled aria-disabled="true"' : ''}>${s}</button>`).join('')}</fieldset>
<button type="button" class="btn" data-action="add" data-id="${p.id}" disabled>Add to bag</button>
<p class="status" role="status"></p></div></div>
<script type="application/ld+json">${JSON.stringify({'@context': 'https://schema.org', '@type': 'Product', name: p.name, sku: p.id, offers: {'@type': 'Offer', price: p.price, priceCurrency: 'USD', availability: 'https://schema.org/InStock'}})}</script>`;
    },
    checkout() {
      if (!cart.items.length) { navigate('/', true); return ''; }
      document.title = 'Checkout – Headless Held-out';
      return `<main class="checkout"><h1>Checkout</h1>
<section aria-label="Contact"><h2>Contact</h2><input type="email" name="email" autocomplete="email" placeholder="Email"></section>
<section aria-label="Shipping address"><h2>Shipping address</h2>
<input name="firstName" autocomplete="shipping given-name" placeholder="First name"><input name="lastName" autocomplete="shipping family-name" placeholder="Last name">
<input name="address1" autocomplete="shipping address-line1" placeholder="Address"><input name="city" autocomplete="shipping address-level2" placeholder="City">
<input name="postalCode" autocomplete="shipping postal-code" placeholder="ZIP code"></section>
<section aria-label="Payment"><h2>Payment</h2><iframe name="__privateStripeFrame1" title="Secure card payment input frame" src="https://js.stripe.test/v3/elements-inner-card.html" allow="payment *"></iframe></section>
<button type="button" class="btn" data-action="place-order">Place order</button></main>`;
    },
    notFound() { document.title = 'Not found – Headless Held-out'; return '<h1 style="padding:24px">This page could not be found.</h1>'; },
  };

  function route(path) {
    let m;
    if (path === '/') return views.home();
    if ((m = path.match(/^\/collections\/([\w-]+)$/))) return views.collection(m[1]);
    if ((m = path.match(/^\/products\/([\w-]+)$/))) return views.product(m[1]);
    if (path === '/checkout') return views.checkout();
    return views.notFound();
  }

  function render() {
    const main = route(location.pathname);
    root.innerHTML = header() + '<main id="main">' + main + '</main><footer><a href="/pages/privacy" data-link>Privacy</a> <a href="/account/login">Sign in</a></footer>' + bag();
    for (const s of root.querySelectorAll('main script[type="application/ld+json"]')) { const c = document.createElement('script'); c.type = s.type; c.textContent = s.textContent; s.replaceWith(c); }
  }

  function navigate(path, replace) {
    history[replace ? 'replaceState' : 'pushState']({}, '', path);
    window.scrollTo(0, 0);
    render();
  }

  function openBag(open) {
    root.querySelector('.bag').classList.toggle('open', open);
    root.querySelector('.scrim').classList.toggle('open', open);
  }

  root.addEventListener('click', (e) => {
    const link = e.target.closest('a[data-link]');
    if (link) { e.preventDefault(); navigate(new URL(link.href).pathname); return; }
    const cardEl = e.target.closest('[data-testid="product-card"]');
    if (cardEl) { navigate('/products/' + cardEl.dataset.handle); return; }
    const act = e.target.closest('[data-action]');
    if (!act) return;
    switch (act.dataset.action) {
      case 'size':
        for (const b of root.querySelectorAll('[data-action="size"]')) b.setAttribute('aria-pressed', String(b === act));
        root.querySelector('[data-action="add"]').disabled = false;
        root.querySelector('[data-action="add"]').dataset.size = act.dataset.size;
        break;
      case 'add':
        act.disabled = true;
        fetch('/api/cart/lines', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({merchandiseId: act.dataset.id, size: act.dataset.size, quantity: 1})})
          .then((r) => r.json()).then((c) => {
            cart = c;
            render();
            setTimeout(() => openBag(true), 30);
          });
        break;
      case 'open-product': navigate('/products/' + act.dataset.handle); break;
      case 'open-bag': openBag(true); break;
      case 'close-bag': openBag(false); break;
      case 'checkout': navigate('/checkout'); break;
      case 'place-order': fetch('/api/checkout/complete', {method: 'POST'}); break;
      case 'remove': fetch('/api/cart/lines/' + act.dataset.id, {method: 'DELETE'}).then((r) => r.json()).then((c) => { cart = c; render(); }); break;
    }
  });
  window.addEventListener('popstate', render);

  Promise.all([fetch('/api/products').then((r) => r.json()), fetch('/api/cart').then((r) => r.json())]).then(([ps, c]) => {
    products = ps.products;
    cart = c;
    render();
  });
})();
