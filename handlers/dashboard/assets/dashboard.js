// Progressive behaviour of the dashboard's pages. Every page works without it (forms post, links navigate);
// this file only adds conveniences. Served from /assets/ under the pages' CSP (script-src 'self').
'use strict';

document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const target = document.getElementById(button.getAttribute('data-copy') || '');
  if (!target) return;
  const text = target.textContent || '';
  navigator.clipboard.writeText(text).then(
    () => {
      button.textContent = 'Copied';
    },
    () => {
      button.textContent = 'Select and copy';
    },
  );
});

// The key editor's preview (handlers/dashboard/keys.ts): while a translation is typed, the server renders the preview
// of the new value (GET …/preview, the same code as the page) and it replaces the preview shown. Without this
// script the preview is the saved value's, and Check renders the verdicts.
(() => {
  const timers = new WeakMap();
  document.addEventListener('input', (event) => {
    const area = event.target;
    if (!(area instanceof HTMLTextAreaElement) || !area.dataset.preview) return;
    clearTimeout(timers.get(area));
    timers.set(
      area,
      setTimeout(() => {
        const target = document.getElementById(area.dataset.previewTarget || '');
        if (!target) return;
        const url = `${area.dataset.preview}&value=${encodeURIComponent(area.value.slice(0, 4000))}`;
        fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } })
          .then((res) => (res.ok ? res.text() : Promise.reject(new Error(String(res.status)))))
          .then((text) => {
            // The server escaped every value in this fragment (html.ts).
            target.innerHTML = text;
          })
          .catch(() => undefined);
      }, 200),
    );
  });
})();
