// TrustArc's consent notice in outline: for visitors who must choose, it
// puts its preference manager in an iframe of its own host, over an
// overlay, and takes it away when the frame reports the choice.
(function () {
  if (/(^|; )notice_preferences=/.test(document.cookie)) return;
  setTimeout(() => {
    const overlay = document.createElement('div');
    overlay.className = 'truste_overlay';
    overlay.style.cssText = 'position: fixed; top: 0; left: 0; width: 100%; height: 100%; opacity: 0.5; background-color: rgb(0, 0, 0); z-index: 2147483646;';
    const box = document.createElement('div');
    box.className = 'truste_box_overlay';
    box.style.cssText = 'position: fixed; top: 10%; left: 50%; transform: translateX(-50%); width: 600px; max-width: 94%; height: 420px; z-index: 2147483647; background: #fff;';
    box.innerHTML = '<div class="truste_box_overlay_inner" style="height:100%"><iframe class="truste_popframe" src="https://consent-pref.trustarc.test/?type=sfra_hx&amp;site=sfra-hx.test&amp;action=notice&amp;country=us&amp;locale=en&amp;behavior=expressed" title="TrustArc Cookie Consent Manager" style="width:100%;height:100%;border:0"></iframe></div>';
    document.body.appendChild(overlay);
    document.body.appendChild(box);
    window.addEventListener('message', (e) => {
      let m;
      try { m = typeof e.data === 'string' ? JSON.parse(e.data) : e.data; } catch (err) { return; }
      if (!m || m.source !== 'preference_manager') return;
      if (m.message === 'submit_preferences') document.cookie = 'notice_preferences=' + (m.data === 'accept' ? '2:' : '0:') + '; path=/; secure';
      if (m.message === 'submit_preferences' || m.message === 'remove_iframe') { overlay.remove(); box.remove(); }
    });
  }, 300);
})();
