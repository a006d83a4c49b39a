// The shopper's page helper. It runs in an isolated JavaScript world: it
// shares the DOM with the page but none of the page's JavaScript, so a page
// cannot redefine what it calls. It only reads the page and reports facts;
// every decision (what to click, what is forbidden) is made in Go.
(() => {
  const refs = [];
  const MAX_ITEMS = 800, MAX_TEXT = 160, MAX_ELEMENTS = 20000;

  const clip = (s, n) => {
    s = (s || '').replace(/\s+/g, ' ').trim();
    return s.length > (n || MAX_TEXT) ? s.slice(0, n || MAX_TEXT) : s;
  };

  // allElements walks the document and every open shadow root.
  function allElements(root, out, limit) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    let n = walker.currentNode;
    while (n && out.length < limit) {
      if (n.nodeType === 1) {
        out.push(n);
        if (n.shadowRoot) {
          if (globalThis.__svcMut) globalThis.__svcMut.observe(n.shadowRoot);
          allElements(n.shadowRoot, out, limit);
        }
      }
      n = walker.nextNode();
    }
    return out;
  }

  function inShadow(el) {
    return el.getRootNode && el.getRootNode() instanceof ShadowRoot;
  }

  // parentOf steps out of a shadow root to its host.
  function parentOf(el) {
    if (el.parentElement) return el.parentElement;
    const r = el.getRootNode && el.getRootNode();
    return r instanceof ShadowRoot ? r.host : null;
  }

  function closestDeep(el, pred) {
    for (let e = el; e; e = parentOf(e)) if (pred(e)) return e;
    return null;
  }

  // closestKnown is closestDeep for a test of an element alone (not of
  // where it is), named by kind: within a reading each element's answer
  // is found once (memo.closest[kind]), as every control of a card asks
  // the same chain of ancestors whether it is a dialog, a card or a
  // region.
  function closestKnown(kind, el, pred) {
    const known = memo && (memo.closest[kind] || (memo.closest[kind] = new Map()));
    if (!known) return closestDeep(el, pred);
    const chain = [];
    let out = null;
    for (let e = el; e; e = parentOf(e)) {
      const k = known.get(e);
      if (k !== undefined) { out = k; break; }
      if (pred(e)) { out = e; known.set(e, e); break; }
      chain.push(e);
    }
    for (const e of chain) known.set(e, out);
    return out;
  }

  // sight tells how a person sees an element: 'shown'; 'veiled', laid
  // out but transparent or visibility: hidden, as reveal-on-scroll themes
  // (AOS, WOW.js, Elementor's entrance animations) keep what is below the
  // fold until it is scrolled to, and as hover captions and closed menus
  // are; or 'hidden': no size, parked where no scrolling reaches (left:
  // -999em), clipped to a pixel (screen-reader text), or not displayed.
  function sight(el) {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return 'hidden';
    if (r.right + scrollX <= 0 || r.bottom + scrollY <= 0) return 'hidden';
    const s = styleOf(el);
    if (s.gone) return 'hidden';
    const p = parentOf(el);
    const a = p ? around(p) : 'shown';
    if (a === 'hidden') return 'hidden';
    return s.veiled || a === 'veiled' ? 'veiled' : 'shown';
  }

  // around is what e and its ancestors do to what lies inside e: 'hidden'
  // when one is not displayed or clips to a box of no size, 'veiled' when
  // one is transparent or visibility: hidden, else 'shown'. Within a
  // reading it is found once per element (memo.around): every control of
  // a page climbs the same few chains of boxes, and a product grid's
  // hundreds of controls asked each box of their chain again.
  function around(e) {
    const known = memo && memo.around;
    const chain = [];
    let out = 'shown';
    for (; e; e = parentOf(e)) {
      const k = known && known.get(e);
      if (k) { out = k; break; }
      chain.push(e);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const e = chain[i];
      if (out !== 'hidden') {
        const s = styleOf(e);
        if (s.gone) out = 'hidden';
        else if (s.clips && flat(e, s)) out = 'hidden';
        else if (s.veiled) out = 'veiled';
      }
      if (known) known.set(e, out);
    }
    return out;
  }

  // flat says whether e, which clips its content, has a box of no size.
  function flat(e, s) {
    if (s.flat === undefined) {
      const pr = e.getBoundingClientRect();
      s.flat = pr.width <= 1 || pr.height <= 1;
    }
    return s.flat;
  }

  // memo holds, for one reading of the page (reading: state, items), what
  // sight and hint found of each element, found once: the page cannot
  // change within a synchronous reading, and a reading asks the same of
  // an element's ancestors again and again (every control of a card
  // climbs the same chain of boxes). null outside a reading.
  let memo = null;

  function reading(f) {
    if (memo) return f();
    memo = {style: new Map(), hint: new Map(), around: new Map(), closest: {}, text: new Map(), forms: new Map(), els: null, labels: undefined};
    try {
      return f();
    } finally {
      memo = null;
    }
  }

  // elements is allElements of the document, walked once per reading.
  function elements() {
    if (!memo) return allElements(document.documentElement, [], MAX_ELEMENTS);
    return memo.els || (memo.els = allElements(document.documentElement, [], MAX_ELEMENTS));
  }

  // textOf is el.innerText, found once per element within a reading: a
  // control's name and its text are both its rendered text, and the
  // guest-checkout test reads it again.
  function textOf(el) {
    if (!memo) return el.innerText;
    let t = memo.text.get(el);
    if (t === undefined) memo.text.set(el, t = el.innerText);
    return t;
  }

  // firstLabel is el.labels[0], or null. el.labels searches the whole
  // document on every call; within a reading the labels of every control
  // come from one pass over the document's labels (each label's control,
  // in tree order, which is el.labels' order). A document past the walk's
  // limit keeps el.labels, which sees every label.
  function firstLabel(el) {
    if (memo && memo.labels === undefined) {
      const els = elements();
      memo.labels = els.length >= MAX_ELEMENTS ? null : new Map();
      if (memo.labels) for (const l of els) {
        if (l.localName !== 'label') continue;
        const c = l.control;
        if (c && !memo.labels.has(c)) memo.labels.set(c, l);
      }
    }
    if (memo && memo.labels) return memo.labels.get(el) || null;
    return el.labels && el.labels.length ? el.labels[0] : null;
  }

  // styleOf is what sight reads of an element's computed style: gone (not
  // displayed), veiled (visibility: hidden or transparent), clips (its
  // overflow is not visible; flat, filled in when asked, then says its
  // box has no size).
  function styleOf(e) {
    let f = memo && memo.style.get(e);
    if (f) return f;
    const s = getComputedStyle(e);
    f = {gone: s.display === 'none' || s.visibility === 'collapse', veiled: s.visibility === 'hidden' || +s.opacity === 0, clips: s.overflow !== 'visible'};
    if (memo) memo.style.set(e, f);
    return f;
  }

  // shown holds the veiled elements that appeared when reveal scrolled to
  // them: a person scrolling down saw them.
  const shown = new WeakSet();

  // visible reports an element a person could see on the page, scrolling
  // if need be.
  function visible(el) {
    const s = sight(el);
    return s === 'shown' || (s === 'veiled' && shown.has(el));
  }

  function ariaName(el) {
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      const root = el.getRootNode();
      const t = lb.split(/\s+/).map(id => { const x = root.getElementById ? root.getElementById(id) : document.getElementById(id); return x ? x.textContent : ''; }).join(' ');
      if (clip(t)) return clip(t);
    }
    return clip(el.getAttribute('aria-label'));
  }

  // nameOf approximates an accessible name from what a sighted reader
  // sees: aria, text, value, title, image alt, an SVG title.
  function nameOf(el, aria) {
    const a = aria === undefined ? ariaName(el) : aria;
    if (a) return a;
    const tag = el.tagName.toLowerCase();
    if (tag === 'input') {
      const t = (el.type || '').toLowerCase();
      if (t === 'submit' || t === 'button' || t === 'reset') return clip(el.value || (t === 'submit' ? 'Submit' : ''));
      if (t === 'image') return clip(el.alt || el.value);
      const l = firstLabel(el);
      return l ? clip(l.textContent) : '';
    }
    if (tag === 'select') {
      const l = firstLabel(el);
      return l ? clip(l.textContent) : clip(el.getAttribute('name'));
    }
    // A button named by a <label for> (a Radix radio's value: <button
    // role="radio" id="5"> beside <label for="5">13 inch</label>): HTML-AAM
    // names a button by its label before its content.
    const label = tag === 'button' && firstLabel(el);
    if (label) {
      const l = clip(label.textContent);
      if (l) return l;
    }
    let t = clip(textOf(el) || el.textContent);
    if (!t && el.shadowRoot) t = clip(el.shadowRoot.textContent);
    if (t) return t;
    if (el.title) return clip(el.title);
    const img = el.querySelector && el.querySelector('img[alt]');
    if (img && clip(img.alt)) return clip(img.alt);
    const st = el.querySelector && el.querySelector('svg title');
    if (st) return clip(st.textContent);
    return '';
  }

  const CARD = /(^|[^a-z])(card.?num|cardnumber|cc.?num|ccnum|credit.?card|card.?no|cvc|cvv|csc|cvn|security.?code|card.?code|expir|exp.?date|exp.?month|exp.?year|cc-exp)/i;

  function fieldKind(f) {
    const tag = f.tagName.toLowerCase();
    const t = (f.type || '').toLowerCase();
    const ac = (f.getAttribute('autocomplete') || '').toLowerCase();
    const key = [f.name, f.id, f.getAttribute('placeholder'), f.getAttribute('aria-label'), f.getAttribute('data-stripe')].join(' ');
    if (t === 'password' || ac.includes('current-password') || ac.includes('new-password')) return 'password';
    if (ac.startsWith('cc-') || / cc-/.test(' ' + ac) || CARD.test(key)) return 'card';
    if (t === 'email' || ac.includes('email') || /e-?mail/i.test(key)) return 'email';
    if (/address|postal|zip|city|shipping|street|country|region|province|state|phone|first.?name|last.?name/i.test(ac + ' ' + key)) return 'address';
    if (tag === 'select') return 'select';
    if (tag === 'textarea' || ['', 'text', 'search', 'tel', 'number', 'url'].includes(t)) return 'text';
    return t;
  }

  // formFacts is what the guard knows of a form; within a reading it is
  // found once per form (memo.forms), not once for each of its controls.
  function formFacts(form) {
    if (!form) return null;
    const known = memo && memo.forms;
    if (known && known.has(form)) return known.get(form);
    const f = readForm(form);
    if (known) known.set(form, f);
    return f;
  }

  function readForm(form) {
    const out = {action: '', method: (form.getAttribute('method') || 'get').toLowerCase(), card: 0, password: 0, email: 0, address: 0, text: 0, fields: 0, toolname: clip(form.getAttribute('toolname'), 80)};
    try { out.action = form.action ? new URL(form.action, location.href).href : location.href; } catch (e) {}
    for (const f of form.querySelectorAll('input, select, textarea')) {
      const t = (f.type || '').toLowerCase();
      if (['hidden', 'submit', 'button', 'image', 'reset'].includes(t)) continue;
      out.fields++;
      const k = fieldKind(f);
      if (k in out) out[k]++;
    }
    return out;
  }

  function captchaNear(el) {
    return !!closestKnown('captcha', el, e => {
      const c = ((e.className && e.className.baseVal !== undefined ? e.className.baseVal : e.className) || '') + ' ' + (e.id || '');
      return /g-recaptcha|h-captcha|cf-turnstile|captcha|challenge-form|px-captcha|geetest/i.test(c) || e.hasAttribute && e.hasAttribute('data-sitekey');
    });
  }

  function dialogOf(el) {
    return closestKnown('dialog', el, e => {
      if (e.tagName === 'DIALOG' && e.open) return true;
      const role = e.getAttribute && e.getAttribute('role');
      if (role === 'dialog' || role === 'alertdialog' || (e.getAttribute && e.getAttribute('aria-modal') === 'true')) return true;
      const s = getComputedStyle(e);
      if (s.position !== 'fixed' && s.position !== 'sticky') return false;
      if (+s.zIndex >= 10) return true;
      const c = ((e.className && e.className.baseVal !== undefined ? e.className.baseVal : e.className) || '') + ' ' + (e.id || '');
      return /cookie|consent|gdpr|privacy|modal|popup|pop-up|newsletter|overlay|banner|dialog/i.test(c);
    });
  }

  function region(el) {
    const r = closestKnown('region', el, e => /^(HEADER|NAV|MAIN|FOOTER|ASIDE)$/.test(e.tagName) ||
      /^(banner|navigation|main|contentinfo|complementary)$/.test((e.getAttribute && e.getAttribute('role')) || ''));
    if (!r) return '';
    const map = {banner: 'header', navigation: 'nav', main: 'main', contentinfo: 'footer', complementary: 'aside'};
    const role = r.getAttribute('role');
    return role && map[role] ? map[role] : r.tagName.toLowerCase();
  }

  function hint(el) {
    let h = memo && memo.hint.get(el);
    if (h !== undefined && h !== null) return h;
    const parts = [el.id];
    const c = el.className && el.className.baseVal !== undefined ? el.className.baseVal : el.className;
    parts.push(c);
    // Names first: an element's attributes as objects cost more than
    // its names, and most elements have no data- attribute.
    if (el.getAttributeNames) for (const n of el.getAttributeNames()) if (n.startsWith('data-') && n.length < 40) parts.push(n + '=' + el.getAttribute(n).slice(0, 40));
    h = clip(parts.join(' '), 200);
    if (memo) memo.hint.set(el, h);
    return h;
  }

  function cardElement(el) {
    return closestKnown('card', el, e => {
      const c = (e.className && e.className.baseVal !== undefined ? e.className.baseVal : e.className) || '';
      return /product|card|tile|item|grid__item/i.test(c + ' ' + (e.id || '')) || e.tagName === 'ARTICLE' || e.tagName === 'LI';
    });
  }

  // PRICE is an amount with its currency, as a product tile shows it
  // ("$45.00", "45,00 €", "USD 20", "kr 99"); flow.go's rePrice holds the
  // same pattern for the accessibility tree.
  const PRICE = /(?:[$€£¥₹₩₽]|\b(?:USD|EUR|GBP|CAD|AUD|NZD|JPY|CHF|SEK|NOK|DKK|PLN|CZK|INR|BRL|MXN|kr|Rs)\.?)\s?\d|\d(?:[.,]\d{2})?\s?(?:[€£₹₽]|kr\b|zł|Kč|\b(?:USD|EUR|GBP|CAD|AUD|NZD|CHF|SEK|NOK|DKK|PLN|CZK)\b)/;
  // priced caches, while snapshot reads the page, whether a card shows a
  // price: a product's tile does, a blog post's or an archive's list item
  // does not.
  let priced = null;
  function cardPriced(card) {
    if (!card) return false;
    if (priced && priced.has(card)) return priced.get(card);
    const t = (card.innerText || card.textContent || '').slice(0, 600);
    const p = PRICE.test(t);
    if (priced) priced.set(card, p);
    return p;
  }

  const ACTIONABLE = 'a[href], button, input[type=submit], input[type=button], input[type=image], input[type=radio], input[type=checkbox], select, summary, label, [role=button], [role=link], [role=menuitem], [role=radio], [role=option], [role=tab], [role=checkbox], [role=switch], [onclick], [tabindex]:not([tabindex^="-"])';

  function register(el) {
    let i = refs.indexOf(el);
    if (i < 0) { refs.push(el); i = refs.length - 1; }
    return i;
  }

  // optionGroup names the option whose value el is, when el is a plain
  // button among 2 to 30 sibling buttons of short words under a term that
  // names an option (a definition list's term, a fieldset's legend, the
  // box's own label, or a short label just before the box), as Next.js
  // Commerce draws them: <dl><dt>Size</dt><dd><button>S</button>…</dd>.
  const OPTION_NAME = /size|colou?r|variant|option|style|fit|length|width|material|flavou?r|scent|swatch/i;
  // groups caches optionGroup by box while snapshot reads the page: the
  // answer depends on the box alone, and every button in it asks.
  let groups = null;
  function optionGroup(el) {
    let box = el.parentElement;
    if (!box) return '';
    // Each button in a list item of its own (EverShop 2.2's
    // <ul><li><button>White</button></li>…</ul>): the list is the box.
    if (box.tagName === 'LI' && box.childElementCount === 1 && box.parentElement && /^(UL|OL)$/.test(box.parentElement.tagName)) box = box.parentElement;
    if (groups && groups.has(box)) return groups.get(box);
    const name = boxOption(box);
    if (groups) groups.set(box, name);
    return name;
  }
  function boxOption(box) {
    const buttons = [...box.children].map(c => c.tagName === 'LI' && c.childElementCount === 1 ? c.firstElementChild : c).filter(c => c.tagName === 'BUTTON');
    if (buttons.length < 2 || buttons.length > 30 || buttons.some(b => clip(textOf(b) || b.textContent).length > 24)) return '';
    let name = '';
    if (box.tagName === 'DD') {
      let p = box.previousElementSibling;
      while (p && p.tagName !== 'DT') p = p.previousElementSibling;
      name = p ? p.textContent : '';
    } else if (box.tagName === 'FIELDSET' && box.querySelector(':scope > legend')) {
      name = box.querySelector(':scope > legend').textContent;
    } else {
      name = ariaName(box) || textBefore(box);
    }
    name = clip(name, 80);
    return name && name.length <= 40 && OPTION_NAME.test(name) ? name : '';
  }

  // textBefore is the short label or heading just before box, which
  // names what the box holds to a sighted reader ("Size" above its
  // buttons, "screen size" above a radio group it is not tied to); ''
  // when there is none or it is longer than a label (40 characters), as
  // axTextBefore reads the accessibility tree.
  function textBefore(box) {
    const prev = box.previousElementSibling;
    const t = prev && prev.childElementCount <= 2 && /^(LABEL|DT|H[2-6]|P|SPAN|DIV|LEGEND)$/.test(prev.tagName) ? clip(prev.textContent, 80) : '';
    return t.length <= 40 ? t : '';
  }

  function item(el) {
    const tag = el.tagName.toLowerCase();
    const form = el.form || (el.closest && el.closest('form'));
    const aria = ariaName(el);
    const it = {
      ref: register(el), tag, role: el.getAttribute('role') || '', type: (el.getAttribute('type') || '').toLowerCase(),
      name: nameOf(el, aria), text: clip(textOf(el) || el.textContent, 120), aria, title: clip(el.title, 80),
      value: tag === 'input' ? clip(el.value, 80) : '', nameAttr: clip(el.getAttribute('name'), 80),
      id: clip(el.id, 80), hint: hint(el), href: '', disabled: !!(el.disabled || el.getAttribute('aria-disabled') === 'true'),
      visible: visible(el), dialog: false, dialogName: '', shadow: inShadow(el), region: region(el), card: false, priced: false,
      form: formFacts(form), captcha: captchaNear(el), checked: !!el.checked, group: '',
      field: ['input', 'select', 'textarea'].includes(tag) ? fieldKind(el) : '', editable: !!el.isContentEditable,
    };
    const card = cardElement(el);
    it.card = !!card;
    it.priced = cardPriced(card);
    const dlg = dialogOf(el);
    if (dlg) {
      it.dialog = true;
      it.dialogName = clip(ariaName(dlg) || hint(dlg), 120);
    }
    if (tag === 'a' && el.href) it.href = clip(String(el.href), 300);
    if (tag === 'input' && (it.type === 'radio' || it.type === 'checkbox')) it.group = clip(el.name, 80);
    // ARIA radios, toggle buttons and listbox options (swatches) in a
    // named group: Magento's swatches are role=option in a role=listbox
    // named by aria-labelledby.
    const ariaChecked = el.getAttribute('aria-checked'), ariaPressed = el.getAttribute('aria-pressed');
    const option = it.role === 'option' && !el.closest('select, datalist, [role=combobox]');
    if (tag !== 'input' && (it.role === 'radio' || option || (ariaPressed !== null && tag === 'button'))) {
      const g = closestDeep(parentOf(el) || el, e => e.getAttribute && (e.getAttribute('role') === 'radiogroup' || e.getAttribute('role') === 'group' ||
        e.getAttribute('role') === 'listbox' || e.tagName === 'FIELDSET' || /swatch|variant|option|size|colou?r/i.test(hint(e))));
      if (g) {
        const legend = g.querySelector && g.querySelector('legend');
        it.type = 'radio';
        it.group = clip(ariaName(g) || (legend && legend.textContent) || textBefore(g) || hint(g), 80);
        it.checked = ariaChecked === 'true' || ariaPressed === 'true' || (option && el.getAttribute('aria-selected') === 'true');
        // A swatch marked unavailable by attribute or class only.
        it.disabled = it.disabled || el.hasAttribute('disabled') || /(^|\s)(disabled|unavailable|sold-?out)(\s|$)/i.test(typeof el.className === 'string' ? el.className : '');
      }
    }
    // A button that opens what it controls (a phone's menu behind
    // "Menu" or a hamburger): aria-expanded="false".
    it.collapsed = el.getAttribute('aria-expanded') === 'false';
    // A control that opens a list of options drawn by script (Headless
    // UI's Listbox button, a custom combobox); not a text field.
    const haspopup = (el.getAttribute('aria-haspopup') || '').toLowerCase();
    if ((it.role === 'combobox' && tag !== 'input') || haspopup === 'listbox') {
      it.popup = true;
      it.expanded = el.getAttribute('aria-expanded') === 'true';
    }
    if (tag === 'button' && it.type !== 'radio' && !it.role && ariaPressed === null && !it.popup) {
      const g = optionGroup(el);
      if (g) { it.type = 'radio'; it.group = g; it.stateless = true; }
    }
    if (tag === 'label') {
      const c = el.control;
      if (c) { it.field = fieldKind(c); it.disabled = it.disabled || !!c.disabled; it.checked = !!c.checked; it.group = clip(c.name, 80); it.type = 'label-' + (c.type || c.tagName.toLowerCase()); }
    }
    if (tag === 'select') {
      it.options = [...el.options].slice(0, 50).map((o, i) => ({i, text: clip(o.text, 60), value: clip(o.value, 60), disabled: !!o.disabled, selected: o.selected}));
    }
    return it;
  }

  // clickableCard reports an element that acts as a link only through a
  // script's click handler, as a product card of a React storefront does
  // (a div with cursor: pointer and the handler on the app's root): the
  // outermost pointer element holding an image or a heading and no link
  // or button of its own.
  const CARD_TAGS = {DIV: 1, LI: 1, ARTICLE: 1, SECTION: 1, FIGURE: 1};
  function clickableCard(el) {
    if (!CARD_TAGS[el.tagName] || !el.firstElementChild) return false;
    if (getComputedStyle(el).cursor !== 'pointer') return false;
    const p = parentOf(el);
    if (p && p.nodeType === 1 && getComputedStyle(p).cursor === 'pointer') return false;
    if (!el.querySelector('img, picture, h2, h3, h4') || el.querySelector('a[href], button, [role=button], [role=link], input, select')) return false;
    const t = (textOf(el) || '').trim();
    return t.length > 0 && t.length <= 300;
  }

  function snapshot() {
    const els = elements();
    const out = [];
    groups = new Map();
    priced = new Map();
    try {
      for (const el of els) {
        if (out.length >= MAX_ITEMS) break;
        const actionable = el.matches && el.matches(ACTIONABLE);
        const card = !actionable && clickableCard(el);
        if (!card && !actionable) continue;
        if (el.tagName.toLowerCase() !== 'select' && !visible(el)) continue;
        const it = item(el);
        it.clickable = card;
        out.push(it);
      }
    } finally {
      groups = null;
      priced = null;
    }
    return out;
  }

  // cartCount reads the number on a cart badge or a cart link: "Cart (2)",
  // aria-label "Cart, 2 items", or a count element named like a cart badge.
  // Prices are not counts.
  // spaced is an element's text with a space between its elements' texts
  // ("1" and "1 item" in two spans read "1 1 item", not "11 item").
  function spaced(el) {
    const parts = [];
    const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n && parts.length < 50; n = w.nextNode()) parts.push(n.nodeValue);
    return parts.join(' ').replace(/\s+/g, ' ').trim();
  }

  function cartCount(els) {
    let best = null;
    const take = n => { if (n >= 0 && n < 1000 && (best === null || n > best)) best = n; };
    for (const el of els) {
      const h = hint(el).toLowerCase();
      if (/(cart|bag|basket|trolley)[-_]?(count|badge|qty|quantity|number|bubble|indicator)|(count|badge|bubble)[-_]?(cart|bag|basket)/.test(h)) {
        const t = spaced(el);
        const m = t.match(/^(\d{1,3})$/) || t.match(/(?:^|\s)(\d{1,3})\s+items?\b/i);
        if (m) take(+m[1]);
        continue;
      }
      const aria = (el.getAttribute('aria-label') || '').toLowerCase();
      const href = (el.getAttribute('href') || '').toLowerCase();
      if ((el.tagName === 'A' || el.tagName === 'BUTTON') && (/cart|bag|basket|trolley/.test(aria) || /\/(cart|bag|basket)(\/|$|\?)/.test(href) || /cart-(link|toggle|icon)/.test(h))) {
        const s = aria + ' ' + spaced(el).toLowerCase();
        const m = s.match(/(\d{1,3})\s+items?\b/) || s.match(/\((\d{1,3})\)/) || s.match(/(?:cart|bag|basket)[^\d$€£]{0,3}(\d{1,3})\b(?![.,]\d)/);
        if (m) take(+m[1]);
      }
    }
    return best;
  }

  function state() {
    const els = elements();
    const st = {url: location.href, title: clip(document.title, 120), ready: document.readyState, headings: [],
      password: 0, card: 0, address: 0, email: 0, captcha: false, cartCount: null, text: '', dialogs: 0, jsonld: [], lineItems: 0,
      overlayFrames: 0, guest: 0};
    for (const el of els) {
      const tag = el.tagName;
      if (/^H[12]$/.test(tag) && st.headings.length < 8 && visible(el)) st.headings.push(clip(el.innerText || el.textContent, 100));
      if ((tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') && !['hidden', 'submit', 'button', 'image'].includes((el.type || '').toLowerCase())) {
        if (!visible(el) && !closestDeep(el, e => e.tagName === 'IFRAME')) continue;
        const k = fieldKind(el);
        if (k === 'password' || k === 'card' || k === 'address' || k === 'email') st[k]++;
        const key = (el.name + ' ' + el.id + ' ' + (el.getAttribute('aria-label') || '')).toLowerCase();
        if (/qty|quantity|updates\[/.test(key)) st.lineItems++;
      }
      // (Rendered text holds a word only if the text does: the text,
      // cheap, is looked at first.)
      if ((tag === 'A' || tag === 'BUTTON' || (tag === 'INPUT' && /^(submit|button)$/i.test(el.type))) &&
          /guest/i.test((el.textContent || '') + ' ' + (el.value || ''))) {
        const t = textOf(el) || el.value || '';
        if (/\bguest\b/i.test(t) && /check\s?-?\s?out|continue|proceed/i.test(t) && visible(el)) st.guest++;
      }
      // A radio that chooses guest checkout (OpenCart's "Guest Checkout",
      // beside "Register Account", with a Continue button).
      if (tag === 'INPUT' && (el.type || '').toLowerCase() === 'radio' && /\bguest\b/i.test(nameOf(el) + ' ' + (el.value || '')) && visible(el)) st.guest++;
      if (tag === 'IFRAME') {
        if (overlayFrame(el)) st.overlayFrames++;
        const src = el.getAttribute('src') || '';
        if (/recaptcha|hcaptcha|challenges\.cloudflare|turnstile|captcha/i.test(src)) st.captcha = true;
        if (/card|payment|stripe|braintree|adyen/i.test(src + ' ' + (el.name || '') + ' ' + (el.title || ''))) st.card++;
      }
      if (!st.captcha && (el.hasAttribute('data-sitekey') || /g-recaptcha|h-captcha|cf-turnstile|captcha|challenge-form/i.test(hint(el)))) st.captcha = true;
      if (((el.getAttribute('role') === 'dialog' || el.getAttribute('aria-modal') === 'true') || (tag === 'DIALOG' && el.open)) && visible(el)) st.dialogs++;
      if (tag === 'SCRIPT' && (el.type || '').toLowerCase() === 'application/ld+json' && st.jsonld.length < 16) st.jsonld.push((el.textContent || '').slice(0, 200000));
      if (/remove|delete/i.test((el.getAttribute('aria-label') || '') + ' ' + (el.tagName === 'BUTTON' || el.tagName === 'A' ? el.textContent : '')) && /cart|line|item|remove/i.test(hint(el) + ' ' + (el.getAttribute('aria-label') || '') + ' ' + (el.getAttribute('href') || ''))) st.lineItems++;
    }
    st.cartCount = cartCount(els);
    let text = document.body ? document.body.innerText || '' : '';
    for (const el of els) if (el.shadowRoot && text.length < 20000) text += '\n' + (el.shadowRoot.textContent || '');
    // The first 20,000 characters with each run of white space made one
    // space, collapsed a chunk at a time: collapsing a page's whole text
    // at once held some 30 MB in the renderer on a 2 MiB page.
    let t = '';
    for (let i = 0; i < text.length && t.length < 20000; i += 65536) t = (t + text.slice(i, i + 65536)).replace(/\s+/g, ' ');
    st.text = t.slice(0, 20000);
    return st;
  }

  // settled waits (at most a second) for the animations and transitions
  // running on the element or around it to finish: a drawer sliding in
  // would move its button between reading its place and clicking there.
  async function settled(el) {
    const moving = document.getAnimations().filter(a => {
      const t = a.effect && a.effect.target;
      const timing = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
      return a.playState === 'running' && t && t.nodeType === 1 && (t === el || t.contains(el)) && timing && Number.isFinite(timing.endTime);
    });
    if (moving.length) await Promise.race([Promise.allSettled(moving.map(a => a.finished)), new Promise(r => setTimeout(r, 1000))]);
  }

  // overlayFrame reports an iframe drawn as an overlay (a consent manager's
  // dialog in a frame, as Sourcepoint and TrustArc draw theirs): visible,
  // and inside a dialog or fixed layer or covering much of the screen.
  function overlayFrame(el) {
    if (el.tagName !== 'IFRAME' || !visible(el)) return false;
    const r = el.getBoundingClientRect();
    const big = r.width * r.height >= 0.3 * innerWidth * innerHeight;
    return !!dialogOf(el) || big;
  }

  // framePoint maps a point of the document in the iframe el (its own
  // viewport's coordinates) to the visual viewport of this document, and
  // reports whether a click there lands on the iframe (not on something
  // drawn over it).
  function framePoint(el, fx, fy) {
    if (!el || !el.isConnected) return {ok: false, why: 'gone'};
    const r0 = el.getBoundingClientRect();
    if (r0.bottom < 0 || r0.top > innerHeight || r0.right < 0 || r0.left > innerWidth) el.scrollIntoView(jump);
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const x = r.left + el.clientLeft + parseFloat(cs.paddingLeft || '0') + fx;
    const y = r.top + el.clientTop + parseFloat(cs.paddingTop || '0') + fy;
    const hit = document.elementFromPoint(x, y);
    const vv = globalThis.visualViewport;
    const ox = vv ? vv.offsetLeft : 0, oy = vv ? vv.offsetTop : 0;
    return {ok: hit === el, why: hit === el ? '' : 'covered', x: x - ox, y: y - oy};
  }

  // frame waits for the next frame (a tab that draws none still moves
  // on after 50 ms).
  const frame = () => new Promise(r => { requestAnimationFrame(() => r()); setTimeout(r, 50); });

  // appearing reports a veiled element that is being shown: its own or
  // an ancestor's fade (an animation or transition) is running, or it is
  // shown already.
  function appearing(el) {
    if (sight(el) === 'shown') return true;
    return document.getAnimations().some(a => {
      const t = a.effect && a.effect.target;
      return a.playState === 'running' && t && t.nodeType === 1 && (t === el || t.contains(el));
    });
  }

  // swept holds the veiled controls reveal has scrolled to once: one that
  // did not appear (a hover caption, a closed menu) is not waited for
  // again in the same document.
  const swept = new WeakSet();

  // reveal scrolls down through the part of the page that holds veiled
  // controls below the fold, as a person looking for something does, and
  // remembers those that appear when scrolled to. Each stop lasts until
  // every veiled control in view is appearing, or 250 ms: AOS handles
  // scrolling at most every 99 ms, WOW.js every 50, an
  // IntersectionObserver at the next frame, and a fade starts a frame
  // after that. At most 12 stops and budget ms; then it scrolls back to
  // where it was. It reports how many controls were veiled and how many
  // appeared.
  //
  // A page with no veiled control is scrolled through once, quickly (two
  // frames a stop, within glance ms), when it is taller than the screen:
  // a section loaded when its place comes near the screen (an
  // IntersectionObserver, then a fetch) is there once the wait that
  // follows is over.
  //
  // A document beyond the 20,000 elements the shoppers read is left as it
  // is: scrolling through one (a page of 2 MiB of text) had the renderer
  // paint and keep some 40 MB more.
  async function reveal(budget, glance) {
    const veiled = [];
    const els = allElements(document.documentElement, [], MAX_ELEMENTS);
    if (els.length >= MAX_ELEMENTS) return {veiled: 0, shown: 0, glanced: false};
    for (const el of els) {
      if (veiled.length >= 400) break;
      if (!(el.matches && el.matches(ACTIONABLE)) || shown.has(el) || swept.has(el) || sight(el) !== 'veiled') continue;
      if (el.getBoundingClientRect().top >= innerHeight) veiled.push(el);
    }
    if (!veiled.length) return {veiled: 0, shown: 0, glanced: await glanceDown(glance)};
    const x0 = scrollX, y0 = scrollY, until = performance.now() + budget;
    const tops = veiled.map(el => el.getBoundingClientRect().top + scrollY);
    const last = Math.max(...tops);
    let count = 0;
    for (let y = Math.min(...tops) - innerHeight / 2, stops = 0; stops < 12 && performance.now() < until; y += innerHeight * 0.75, stops++) {
      scrollTo({left: x0, top: Math.max(0, y), behavior: 'instant'});
      const stop = performance.now() + 250;
      for (;;) {
        await frame();
        let waiting = false;
        for (const el of veiled) {
          if (shown.has(el)) continue;
          // A fade may start by moving the element (AOS's fade-up, an
          // animate.css fadeInUp), off the screen's edge: once it is
          // appearing, it counts wherever it is.
          if (appearing(el)) { shown.add(el); count++; continue; }
          const r = el.getBoundingClientRect();
          if (r.top >= innerHeight || r.bottom <= 0) continue;
          swept.add(el);
          waiting = true;
        }
        if (!waiting || performance.now() > stop || performance.now() > until) break;
      }
      if (y + innerHeight >= last + 1 || scrollY + innerHeight >= document.documentElement.scrollHeight) break;
    }
    scrollTo({left: x0, top: y0, behavior: 'instant'});
    return {veiled: veiled.length, shown: count};
  }

  // glanced records that glanceDown has run on this document.
  let glanced = false;

  // glanceDown scrolls once down a page taller than 1.5 screens and back,
  // three quarters of a screen a stop, two frames a stop, for at most ms.
  // It reports whether it scrolled.
  async function glanceDown(ms) {
    const h = document.documentElement.scrollHeight;
    if (glanced || ms <= 0 || h < innerHeight * 1.5) return false;
    glanced = true;
    const x0 = scrollX, y0 = scrollY, until = performance.now() + ms;
    for (let y = y0 + innerHeight * 0.75, stops = 0; stops < 12 && y < h && performance.now() < until; y += innerHeight * 0.75, stops++) {
      scrollTo({left: x0, top: y, behavior: 'instant'});
      await frame();
      await frame();
    }
    scrollTo({left: x0, top: y0, behavior: 'instant'});
    return true;
  }

  // unveiled waits, at most 250 ms, for an element just scrolled into
  // view to start appearing, if it is veiled (settled then waits for its
  // fade to end): a reveal-on-scroll theme starts showing it within a
  // frame or two, or 99 ms.
  async function unveiled(el) {
    const until = performance.now() + 250;
    while (!appearing(el) && performance.now() < until) await frame();
  }

  // jump scrolls an element to the middle of the screen at once. The
  // default ('auto') follows the page's CSS, and a page with
  // scroll-behavior: smooth (every Bootstrap 5 page) would glide there
  // over a few hundred milliseconds: the element's box read right after
  // is where it was, often off the screen.
  const jump = {block: 'center', inline: 'center', behavior: 'instant'};

  // point scrolls the element into view and reports its centre, and
  // whether a click there lands on it (not on an overlay above it). The
  // centre is given in the visual viewport's coordinates, where the
  // browser's input events land: on a phone a page wider than the screen
  // scrolls the visual viewport, not the layout viewport the element's
  // box is measured in.
  async function point(i) {
    const el = refs[i];
    if (!el || !el.isConnected) return {ok: false, why: 'gone'};
    el.scrollIntoView(jump);
    await unveiled(el);
    await settled(el);
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return {ok: false, why: 'invisible'};
    // The point goes out relative to the visual viewport, in CSS pixels,
    // as the protocol's input events take it: not scaled by the page's
    // scale (a page with no width=device-width viewport is drawn zoomed
    // out on a phone, at about 0.4, and a point scaled by it landed
    // above and left of its element).
    const vv = globalThis.visualViewport;
    const ox = vv ? vv.offsetLeft : 0, oy = vv ? vv.offsetTop : 0;
    const vw = vv ? vv.width : innerWidth, vh = vv ? vv.height : innerHeight;
    // The centre of the box, else of the element's own line boxes, largest
    // first: a link that wraps over two lines (or holds an image still
    // loading) has a box whose centre lies between them, on its parent.
    const spots = [[r.left + r.width / 2, r.top + r.height / 2]];
    const rects = [...el.getClientRects()].filter(q => q.width >= 1 && q.height >= 1);
    if (rects.length > 1) {
      rects.sort((a, b) => b.width * b.height - a.width * a.height);
      for (const q of rects.slice(0, 4)) spots.push([q.left + q.width / 2, q.top + q.height / 2]);
    }
    // A label's words may hold a link (to the terms it agrees to): its
    // start, where a styled box is drawn, is a second place to click.
    if (el.tagName === 'LABEL') spots.push([r.left + Math.min(8, r.width / 4), r.top + Math.min(10, r.height / 2)]);
    let seen = false;
    for (const [x, y] of spots) {
      if (x < ox || y < oy || x > ox + vw || y > oy + vh) continue;
      seen = true;
      let hit = document.elementFromPoint(x, y);
      while (hit && hit.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(x, y);
        if (!inner || inner === hit) break;
        hit = inner;
      }
      // A click on a link inside el follows the link, not el; a click on
      // the label of a box (drawn over it, the box itself transparent)
      // toggles the box.
      const link = hit && closestDeep(hit, e => e.tagName === 'A' && e.hasAttribute('href'));
      const inLink = !!link && link !== el && el.contains(link);
      const label = hit && closestDeep(hit, e => e.tagName === 'LABEL');
      const lands = !!hit && !inLink && (hit === el || el.contains(hit) || (hit.getRootNode && closestDeep(hit, e => e === el) !== null) ||
        (el.tagName === 'LABEL' && el.control === hit) || (!!label && label.control === el && !link));
      if (lands) return {ok: true, why: '', x: x - ox, y: y - oy};
    }
    if (!seen) return {ok: false, why: 'offscreen'};
    return {ok: false, why: 'covered', x: spots[0][0] - ox, y: spots[0][1] - oy};
  }

  function describe(i) {
    const el = refs[i];
    if (!el || !el.isConnected) return null;
    return item(el);
  }

  // aim is describe and point in one round trip, for a click: the element
  // as it is now, for the guard to judge, and where a click on it lands.
  async function aim(i) {
    const it = describe(i);
    return {item: it, point: it ? await point(i) : {ok: false, why: 'gone'}};
  }

  // aimNode is aim for an element found another way (the accessibility
  // tree), given a ref first.
  async function aimNode(el) {
    return aim(register(el));
  }

  function select(i, idx) {
    const el = refs[i];
    if (!el || el.tagName !== 'SELECT' || !el.options[idx] || el.options[idx].disabled) return false;
    el.selectedIndex = idx;
    el.dispatchEvent(new Event('input', {bubbles: true}));
    el.dispatchEvent(new Event('change', {bubbles: true}));
    return true;
  }

  // formOf is what the guard reads of a declarative WebMCP tool's form
  // (the browser names the form by its node).
  function formOf(el) {
    return el && el.tagName === 'FORM' ? formFacts(el) : null;
  }

  // submitForm submits a declarative tool's form the browser has filled,
  // as the person confirming the tool call would.
  function submitForm(f) {
    if (!f || f.tagName !== 'FORM' || !f.isConnected) return false;
    if (f.requestSubmit) f.requestSubmit(); else f.submit();
    return true;
  }

  // key names the document and its DOM as they are: it changes with any
  // mutation the browser's observer saw (see package browser) or a new
  // address. "" when there is no observer: never reuse a reading then.
  function key() {
    const m = globalThis.__svcMut;
    return m ? m.key() + ' ' + location.href : '';
  }

  // stateIf and snapshotIf read the page unless it is unchanged since the
  // reading with key k: then they say only {same: true}.
  function stateIf(k) {
    const cur = key();
    if (k && cur === k) return {same: true};
    const st = reading(state);
    st.key = cur;
    return st;
  }

  function snapshotIf(k) {
    const cur = key();
    if (k && cur === k) return {same: true};
    return {key: cur, items: reading(snapshot)};
  }

  // lookIf is stateIf and snapshotIf in one round trip: what a shopper
  // reads of a page before each decision.
  function lookIf(sk, ik) {
    return reading(() => ({state: stateIf(sk), snapshot: snapshotIf(ik)}));
  }

  // settleLook is lookIf('', ''), the reading made while a page settles,
  // less the items on a page that reads as a checkout page: a run ends
  // there (shop's judge, IsCheckoutPage), and reading the items of a
  // checkout's forms was most of the reading's time on those pages.
  // checkoutLike is IsCheckoutPage's test in brief; where the two differ,
  // the shopper's next look reads the items itself (one round trip).
  function settleLook() {
    return reading(() => {
      const st = stateIf('');
      return {state: st, snapshot: checkoutLike(st) ? null : snapshotIf('')};
    });
  }

  const CHECKOUT_HEADING = /\b(secure\s+)?check\s?-?out\b|\bshipping\s+(address|information|details|methods?)\b|\bcontact\s+information\b|\bdelivery\s+(address|details)\b|\bpayment\s+(method|details|information)\b/i;
  const CART_HEADING = /\b(shopping\s+)?(cart|bag|basket|trolley)\b/i;

  function checkoutLike(st) {
    // A login page or a challenge is not a checkout page: the run goes on.
    if (st.password > 0 || st.guest > 0 || st.captcha) return false;
    const hs = [st.title, ...st.headings];
    const heading = hs.some(h => CHECKOUT_HEADING.test(h));
    const cart = hs.some(h => CART_HEADING.test(h) && !CHECKOUT_HEADING.test(h));
    const fields = st.card > 0 || st.address >= 2;
    if (/^checkout\./i.test(location.hostname) || /checkout/i.test(location.pathname + ' ' + location.hash)) {
      return fields || (heading && !cart) || (st.email > 0 && !cart);
    }
    return heading && fields && !cart;
  }

  return {snapshot, state, describe, aim, aimNode, select, register, formOf, submitForm, refs, key, stateIf, snapshotIf, lookIf, settleLook, overlayFrame, framePoint, reveal};
})
