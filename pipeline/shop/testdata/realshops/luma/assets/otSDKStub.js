// OneTrust's otSDKStub.js in outline: it loads the banner SDK, which reads
// the domain's configuration and then injects the banner.
(function () {
  const stub = document.currentScript;
  const domain = stub && stub.getAttribute('data-domain-script');
  window.OneTrustStub = {domain};
  if (/(^|; )OptanonAlertBoxClosed=/.test(document.cookie)) return;
  const s = document.createElement('script');
  s.src = 'https://cdn.cookielaw.test/scripttemplates/202401.1.0/otBannerSdk.js';
  s.async = true;
  document.head.appendChild(s);
})();
