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
