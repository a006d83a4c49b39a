// Cookiebot's uc.js in outline: it loads the domain group's configuration,
// then injects its dialog (#CybotCookiebotDialog, role dialog, aria-modal)
// and the underlay at the end of the body. Ids after duckduckgo/autoconsent
// lib/cmps/cookiebot.ts; the rest is minimal.
(function () {
  if (/(^|; )CookieConsent=/.test(document.cookie)) return;
  const cbid = (document.currentScript && document.currentScript.dataset.cbid) || '';
  fetch('https://consentcdn.cookiebot.test/consentconfig/' + encodeURIComponent(cbid) + '/settings.json')
    .then((r) => r.json())
    .then((cfg) => setTimeout(() => show(cfg), cfg.delay || 0));
  function show(cfg) {
    const under = document.createElement('div');
    under.id = 'CybotCookiebotDialogBodyUnderlay';
    const d = document.createElement('div');
    d.id = 'CybotCookiebotDialog';
    d.setAttribute('name', 'CybotCookiebotDialog');
    d.setAttribute('role', 'dialog');
    d.setAttribute('aria-modal', 'true');
    d.setAttribute('aria-labelledby', 'CybotCookiebotDialogBodyContentTitle');
    d.setAttribute('tabindex', '-1');
    d.className = 'CybotCookiebotDialogActive CybotEdge';
    d.dataset.template = 'popup';
    d.innerHTML = '<div class="CybotCookiebotDialogContentWrapper">' +
      '<div id="CybotCookiebotDialogHeader"><div id="CybotCookiebotDialogPoweredbyCybot"><a href="https://www.cookiebot.com/en/what-is-behind-powered-by-cookiebot/" target="_blank" rel="noopener nofollow" aria-label="Cookiebot - opens in a new window">Cookiebot</a></div></div>' +
      '<div id="CybotCookiebotDialogNav" role="tablist"><ul class="CybotCookiebotDialogNavItems">' +
      '<li><a id="CybotCookiebotDialogNavDeclaration" href="#" class="CybotCookiebotDialogNavItemLink CybotCookiebotDialogActive" role="tab" aria-selected="true">Consent</a></li>' +
      '<li><a id="CybotCookiebotDialogNavDetails" href="#" class="CybotCookiebotDialogNavItemLink" role="tab" aria-selected="false">Details</a></li>' +
      '<li><a id="CybotCookiebotDialogNavAbout" href="#" class="CybotCookiebotDialogNavItemLink" role="tab" aria-selected="false">About</a></li></ul></div>' +
      '<div id="CybotCookiebotDialogTabContent"><div id="CybotCookiebotDialogBody"><h2 id="CybotCookiebotDialogBodyContentTitle">This website uses cookies</h2>' +
      '<div id="CybotCookiebotDialogBodyContentText">We use cookies to personalise content and ads, to provide social media features and to analyse our traffic.</div></div></div>' +
      '<div id="CybotCookiebotDialogFooter"><div id="CybotCookiebotDialogBodyButtonsWrapper">' +
      '<button id="CybotCookiebotDialogBodyButtonDecline" class="CybotCookiebotDialogBodyButton">Deny</button>' +
      '<button id="CybotCookiebotDialogBodyLevelButtonCustomize" class="CybotCookiebotDialogBodyButton">Customize</button>' +
      '<button id="CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll" class="CybotCookiebotDialogBodyButton">Allow all</button>' +
      '</div></div></div>';
    const done = (v) => () => { document.cookie = 'CookieConsent=' + v + '; path=/; secure'; d.remove(); under.remove(); };
    d.querySelector('#CybotCookiebotDialogBodyButtonDecline').addEventListener('click', done('-1'));
    d.querySelector('#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll').addEventListener('click', done('{stamp:%27hx%27%2Cnecessary:true%2Cpreferences:true%2Cstatistics:true%2Cmarketing:true}'));
    document.body.appendChild(under);
    document.body.appendChild(d);
  }
})();
