// Sourcepoint's wrapper in outline: it asks its endpoint whether a message
// is due, then draws the message in an iframe of its own host over the
// page, and removes it when the frame posts the choice.
(function () {
  const cfg = (window._sp_ && window._sp_.config) || {};
  if (/(^|; )consentUUID=/.test(document.cookie)) return;
  fetch(cfg.baseEndpoint + '/wrapper/v2/messages?env=prod&accountId=' + cfg.accountId, {method: 'GET'})
    .then((r) => r.json())
    .then((res) => {
      if (!res.messageId) return;
      const id = res.messageId;
      const container = document.createElement('div');
      container.id = 'sp_message_container_' + id;
      container.className = 'sp_message_container';
      container.style.cssText = 'position: fixed; inset: 0px; z-index: 2147483647; display: block; background: rgba(0, 0, 0, 0.5);';
      const frame = document.createElement('iframe');
      frame.id = 'sp_message_iframe_' + id;
      frame.title = 'SP Consent Message';
      frame.src = cfg.baseEndpoint + '/index.html?message_id=' + id + '&consentUUID=hx&preload_message=true&version=v1';
      frame.style.cssText = 'width: 100%; height: 100%; border: 0; display: block;';
      container.appendChild(frame);
      document.documentElement.classList.add('sp-message-open');
      document.body.appendChild(container);
      window.addEventListener('message', (e) => {
        if (!e.data || e.data.name !== 'sp.hideMessage' || String(e.data.message_id) !== String(id)) return;
        document.cookie = 'consentUUID=hx-' + e.data.choice + '; path=/; secure';
        container.remove();
        document.documentElement.classList.remove('sp-message-open');
      });
    });
})();
