// The Usercentrics CMP v2 loader in outline: it renders its banner into
// #usercentrics-root through an open shadow root. data-testid names after
// duckduckgo/autoconsent rules/autoconsent/usercentrics-api.json.
(function () {
  if (localStorage.getItem('uc_user_interaction') === 'true') return;
  setTimeout(() => {
    const host = document.createElement('div');
    host.id = 'usercentrics-root';
    host.dataset.createdAt = String(Date.now());
    document.body.appendChild(host);
    const root = host.attachShadow({mode: 'open'});
    root.innerHTML = '<style>.uc{position:fixed;left:0;right:0;bottom:0;z-index:2147483647;background:#fff;box-shadow:0 -4px 20px rgba(0,0,0,.25);padding:20px;font:14px sans-serif}' +
      '.buttons{display:flex;gap:8px;margin-top:12px;flex-wrap:wrap}.buttons button{flex:1;padding:12px;border:0;background:#eee}.buttons [data-testid=uc-accept-all-button]{background:#0045a5;color:#fff}</style>' +
      '<div class="uc" data-testid="uc-container" role="dialog" aria-modal="true" aria-labelledby="uc-heading-title" aria-describedby="uc-message-text">' +
      '<h2 id="uc-heading-title">Privacy Settings</h2><div id="uc-message-text" data-testid="uc-message-container">This site uses third-party website tracking technologies to provide and continually improve our services, and to display advertisements according to users\' interests.</div>' +
      '<div class="buttons" data-testid="uc-buttons-container"><button role="button" data-testid="uc-more-button">More Information</button><button role="button" data-testid="uc-deny-all-button">Deny</button><button role="button" data-testid="uc-accept-all-button">Accept All</button></div></div>';
    const done = () => { localStorage.setItem('uc_user_interaction', 'true'); host.remove(); };
    root.querySelector('[data-testid=uc-accept-all-button]').addEventListener('click', done);
    root.querySelector('[data-testid=uc-deny-all-button]').addEventListener('click', done);
  }, 350);
})();
