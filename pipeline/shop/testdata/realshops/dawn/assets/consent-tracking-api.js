// Shopify's customer privacy banner in outline: the consent API loads
// after the page and then injects the banner at the end of the body.
// Ids after duckduckgo/autoconsent rules/autoconsent/shopify.json.
(function () {
  if (/(^|; )_tracking_consent=/.test(document.cookie)) return;
  setTimeout(function () {
    const banner = document.createElement('section');
    banner.id = 'shopify-pc__banner';
    banner.className = 'shopify-pc__banner__dialog';
    banner.setAttribute('role', 'alertdialog');
    banner.setAttribute('aria-labelledby', 'shopify-pc__banner__title');
    banner.innerHTML = '<div class="shopify-pc__banner__wrapper"><div class="shopify-pc__banner__body">' +
      '<h2 id="shopify-pc__banner__title">Cookie preferences</h2>' +
      '<p>We use cookies and similar technologies to provide the best experience on our website. Refer to our <a href="/policies/privacy-policy">Privacy Policy</a> for more information.</p></div>' +
      '<div class="shopify-pc__banner__btns">' +
      '<button type="button" class="shopify-pc__banner__btn-manage-prefs" id="shopify-pc__banner__btn-manage-prefs">Manage preferences</button>' +
      '<button type="button" class="shopify-pc__banner__btn-decline" id="shopify-pc__banner__btn-decline">Decline</button>' +
      '<button type="button" class="shopify-pc__banner__btn-accept" id="shopify-pc__banner__btn-accept">Accept</button></div></div>';
    const close = (value) => () => {
      document.cookie = '_tracking_consent=' + value + '; path=/; secure';
      banner.remove();
    };
    banner.querySelector('#shopify-pc__banner__btn-accept').addEventListener('click', close('accepted'));
    banner.querySelector('#shopify-pc__banner__btn-decline').addEventListener('click', close('declined'));
    document.body.appendChild(banner);
  }, 700);
})();
