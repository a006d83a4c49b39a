// OneTrust's banner SDK in outline: the centred banner over a dark filter.
// Ids after duckduckgo/autoconsent lib/cmps/onetrust.ts; the banner is a
// region named "Cookie banner", as OneTrust renders it.
(function () {
  fetch('https://cdn.cookielaw.test/consent/' + encodeURIComponent(window.OneTrustStub.domain) + '/' + encodeURIComponent(window.OneTrustStub.domain) + '.json')
    .then((r) => r.json())
    .then((cfg) => setTimeout(render, cfg.delayMs || 0));
  function render() {
    const sdk = document.createElement('div');
    sdk.id = 'onetrust-consent-sdk';
    sdk.setAttribute('data-nosnippet', 'true');
    sdk.innerHTML = '<div class="onetrust-pc-dark-filter ot-fade-in"></div>' +
      '<div id="onetrust-banner-sdk" class="otCenterRounded default vertical-align-content ot-fade-in" tabindex="0" role="region" aria-label="Cookie banner">' +
      '<div class="ot-sdk-container"><div class="ot-sdk-row"><div id="onetrust-group-container" class="ot-sdk-eight ot-sdk-columns">' +
      '<div id="onetrust-policy"><h2 id="onetrust-policy-title">We value your privacy</h2><div id="onetrust-policy-text">We use cookies to improve your experience, to show you relevant offers and to analyse our traffic. <a class="ot-cookie-policy-link" href="/privacy-policy-cookie-restriction-mode/" aria-label="More information about your privacy, opens in a new tab" rel="noopener" target="_blank">Privacy Policy</a></div></div></div>' +
      '<div id="onetrust-button-group-parent" class="ot-sdk-three ot-sdk-columns"><div id="onetrust-button-group">' +
      '<button id="onetrust-pc-btn-handler">Cookies Settings</button><button id="onetrust-reject-all-handler">Reject All</button><button id="onetrust-accept-btn-handler">Accept All Cookies</button>' +
      '</div></div></div></div></div>';
    const close = () => {
      document.cookie = 'OptanonAlertBoxClosed=' + new Date().toISOString() + '; path=/; secure';
      sdk.querySelector('.onetrust-pc-dark-filter').remove();
      sdk.querySelector('#onetrust-banner-sdk').style.display = 'none';
    };
    sdk.querySelector('#onetrust-accept-btn-handler').addEventListener('click', close);
    sdk.querySelector('#onetrust-reject-all-handler').addEventListener('click', close);
    document.body.appendChild(sdk);
  }
})();
