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

// The key editor's preview (server/web/keys.ts): while a translation is typed, the server renders the preview
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

// Soft navigation of the key list: server/web/keys.ts marks its filter form and its page links `data-soft`.
// The next list is fetched as the very page a navigation would load, and its <main> replaces this one, so the
// browser does not tear a document down and build another for each filter (in Chromium that alone cost more than
// the list's data: bench/dashboard-keys.ts). The address, history and Back behave as for a navigation;
// anything else (an error, a redirect to sign-in, no <main>) falls back to a real navigation. The page's HTML is
// this origin's own, escaped by the server as for a navigation, and parsed inert: no script in it runs.
(() => {
  const load = (url, push) => {
    fetch(url, { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'text/html' } })
      .then((res) => {
        if (!res.ok || res.redirected) throw new Error(String(res.status));
        return res.text();
      })
      .then((text) => {
        const next = new DOMParser().parseFromString(text, 'text/html');
        const main = next.querySelector('main');
        const current = document.querySelector('main');
        if (!main || !current) throw new Error('no main');
        current.replaceWith(document.adoptNode(main));
        document.title = next.title;
        if (push) history.pushState({ soft: true }, '', url);
        document.dispatchEvent(new CustomEvent('glossa:navigated', { detail: { url } }));
        // As after a navigation, a screen reader starts from the new page's heading. At the next frame: focusing
        // now would lay the new list out at once, and the frame lays it out anyway.
        window.requestAnimationFrame(() => {
          const heading = main.querySelector('h1');
          if (!heading) return;
          heading.tabIndex = -1;
          heading.focus({ preventScroll: true });
        });
      })
      // A Back or Forward already stands on `url`'s history entry: the real navigation takes its place.
      .catch(() => (push ? location.assign(url) : location.replace(url)));
  };
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-soft') || form.method !== 'get') return;
    event.preventDefault();
    const url = new URL(form.action, location.href);
    url.search = new URLSearchParams(new FormData(form)).toString();
    load(url.href, true);
  });
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    const link = event.target instanceof Element ? event.target.closest('[data-soft] a[href]') : null;
    if (!(link instanceof HTMLAnchorElement) || link.origin !== location.origin || event.altKey) return;
    event.preventDefault();
    load(link.href, true);
  });
  // Back and Forward between the lists: the entries pushed here, and the one the first list was navigated to. A
  // change of the fragment alone (the skip link) is no new list.
  const withoutHash = (href) => href.split('#')[0];
  let shown = withoutHash(location.href);
  document.addEventListener('glossa:navigated', (event) => {
    shown = withoutHash(event.detail.url);
  });
  window.addEventListener('popstate', () => {
    if (withoutHash(location.href) !== shown && document.querySelector('[data-soft]')) load(location.href, false);
  });
})();

// Typed text outlives a session that ended (server/web/signin.ts, sessions.ts). A form post whose session is
// over is answered with the sign-in page, and the text it carried is gone. So, as a post that carries a textarea
// leaves, its textareas and selects (by id) are kept in this tab's sessionStorage. The sign-in page marks them as
// cut off and says they are kept; the page the sign-in returns to puts them back into the same form (same action,
// same ids) with a notice, for the person to check and send again. Any other page means the post arrived (saved, or
// refused with its text shown): the copy is dropped. Nothing leaves the browser.
(() => {
  const KEY = 'glossa:unsent-form';
  const KEEP_MS = 24 * 60 * 60 * 1000;
  const store = (value) => {
    try {
      if (value) window.sessionStorage.setItem(KEY, JSON.stringify(value));
      else window.sessionStorage.removeItem(KEY);
    } catch {
      // Storage switched off or full: the form still posts as without this script.
    }
  };
  const kept = () => {
    try {
      return JSON.parse(window.sessionStorage.getItem(KEY) || 'null');
    } catch {
      return null;
    }
  };
  const actionOf = (form) => new URL(form.action, location.href).pathname;
  const notice = (before, text) => {
    const p = document.createElement('p');
    p.className = 'notice';
    p.setAttribute('role', 'status');
    p.textContent = text;
    before.before(p);
  };

  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || form.method !== 'post' || !form.querySelector('textarea')) return;
    const fields = [...form.elements]
      .filter((e) => (e instanceof HTMLTextAreaElement || e instanceof HTMLSelectElement) && e.id)
      .map((e) => [e.id, e.value]);
    store({ action: actionOf(form), fields, at: Date.now(), cut: false });
  });

  const unsent = kept();
  if (!unsent || typeof unsent.action !== 'string' || !Array.isArray(unsent.fields)) return store(null);
  if (Date.now() - Number(unsent.at) > KEEP_MS) return store(null);
  if (location.pathname === '/signin') {
    store({ ...unsent, cut: true });
    const form = document.querySelector('form[action="/signin"]');
    if (form) notice(form, 'The text you were sending is kept in this tab: it comes back after you sign in.');
    return;
  }
  store(null);
  if (!unsent.cut) return;
  let restored;
  for (const [id, value] of unsent.fields) {
    const field = typeof id === 'string' ? document.getElementById(id) : null;
    if (!(field instanceof HTMLTextAreaElement || field instanceof HTMLSelectElement)) continue;
    if (!field.form || actionOf(field.form) !== unsent.action) continue;
    field.value = String(value);
    if (field instanceof HTMLTextAreaElement) {
      restored = field;
      // The preview follows, as when typed.
      field.dispatchEvent(new CustomEvent('input', { bubbles: true }));
    }
  }
  if (!restored) return;
  notice(restored.form, 'Your session had ended, so this was not saved. Your text is back: check it and send again.');
  restored.focus();
})();

// The editor's memory suggestions (server/web/keys.ts): Use puts the match in its cell's field at once (the person
// still checks and saves), and Alt+1 … Alt+5 in the field use the first to fifth match. Without this script, Use
// posts a Check of the match, which shows the page again with it in the field.
(() => {
  const use = (button) => {
    const area = document.getElementById(button.getAttribute('data-use') || '');
    const value = button.form ? button.form.elements.namedItem('value') : null;
    if (!(area instanceof HTMLTextAreaElement) || !(value instanceof HTMLInputElement)) return false;
    area.value = value.value;
    // The preview follows, as when typed.
    area.dispatchEvent(new CustomEvent('input', { bubbles: true }));
    area.focus();
    return true;
  };
  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-use]') : null;
    if (button && use(button)) event.preventDefault();
  });
  document.addEventListener('keydown', (event) => {
    const area = event.target;
    if (!(area instanceof HTMLTextAreaElement) || !event.altKey || !/^Digit[1-9]$/.test(event.code)) return;
    const n = event.code.slice(5);
    const button = [...document.querySelectorAll('button[data-use]')].find(
      (b) => b.getAttribute('data-use') === area.id && b.getAttribute('data-use-index') === n,
    );
    if (button && use(button)) event.preventDefault();
  });
})();

// The editor's fields per plural category or select option (server/web/plural-fields.ts): typing in a field
// writes the raw ICU field from all of them (and so the preview follows), and typing raw ICU fills the fields
// again when it is still one plural (or select) of the same argument. Without this script the server reads the
// fields when the raw field was left as shown.
(() => {
  const ORDER = ['zero', 'one', 'two', 'few', 'many', 'other'];
  // The order formsToIcu prints (packages/core/src/icu.ts): exact numbers first, then the CLDR categories.
  const rank = (k) => {
    const i = ORDER.indexOf(k);
    if (i >= 0) return 1e9 + i;
    const n = Number(k.replace(/^=\s*/, ''));
    return Number.isFinite(n) ? n : 2e9;
  };
  const fieldsOf = (set) => [...set.querySelectorAll('textarea[data-branch]')];
  const build = (set) => {
    const parts = fieldsOf(set)
      .filter((f) => f.value !== '')
      .map((f) => [f.dataset.branch, f.value]);
    if (!parts.length) return '';
    if (set.dataset.kind === 'plural') parts.sort((a, b) => rank(a[0]) - rank(b[0]));
    return `{${set.dataset.arg}, ${set.dataset.kind}, ${parts.map(([k, v]) => `${k} {${v}}`).join(' ')}}`;
  };
  // `{arg, kind, key {…} …}` cut into branches by its braces; null for anything else, and for ICU quoting
  // (an apostrophe before a brace, # or another apostrophe), which only the server's parser reads right.
  const parse = (text, arg, kind) => {
    const head = /^\{\s*([^\s,{}]+)\s*,\s*(plural|select)\s*,/.exec(text);
    if (!head || head[1] !== arg || head[2] !== kind || /'[{}#']/.test(text)) return null;
    const out = {};
    let i = head[0].length;
    for (;;) {
      while (/\s/.test(text[i] || '')) i++;
      if (text[i] === '}') return i === text.length - 1 ? out : null;
      const key = /^[^\s{}]+/.exec(text.slice(i));
      if (!key) return null;
      i += key[0].length;
      while (/\s/.test(text[i] || '')) i++;
      if (text[i] !== '{') return null;
      let depth = 0;
      let j = i;
      for (; j < text.length; j++) {
        if (text[j] === '{') depth++;
        else if (text[j] === '}' && --depth === 0) break;
      }
      if (depth) return null;
      out[key[0]] = text.slice(i + 1, j);
      i = j + 1;
    }
  };
  document.addEventListener('input', (event) => {
    const el = event.target;
    if (!(el instanceof HTMLTextAreaElement)) return;
    const set = el.closest('fieldset[data-branches]');
    if (set && el.dataset.branch !== undefined) {
      const raw = document.getElementById(set.dataset.branches || '');
      if (!(raw instanceof HTMLTextAreaElement)) return;
      raw.value = build(set);
      raw.dispatchEvent(new CustomEvent('input', { bubbles: true, detail: 'branches' }));
      return;
    }
    if (event instanceof CustomEvent && event.detail === 'branches') return;
    const fields = [...document.querySelectorAll('fieldset[data-branches]')].find((f) => f.dataset.branches === el.id);
    if (!fields) return;
    const parsed = el.value === '' ? {} : parse(el.value, fields.dataset.arg, fields.dataset.kind);
    fields.classList.toggle('stale', !parsed);
    if (!parsed) return;
    for (const f of fieldsOf(fields)) f.value = Object.hasOwn(parsed, f.dataset.branch) ? parsed[f.dataset.branch] : '';
  });
})();
