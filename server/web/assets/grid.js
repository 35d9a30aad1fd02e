// The key grid (server/web/grid.ts): each translation cell edited in place with the keyboard. The page works
// without this file (a key's name opens the editor). Served from /assets/ under the pages' CSP (script-src 'self'),
// on every page, since the key list is replaced in place by dashboard.js's soft navigation and a script inside
// the new page would not run. Every listener is delegated to the document, so a grid that arrives later works.
//
// Keys, on a cell: arrows move, Tab and Shift+Tab move along the row (leaving the grid at its ends), Enter or F2
// edits, a printable key edits starting with that character. In the field: Enter saves, Shift+Enter is a new line,
// Escape cancels, Tab saves and moves on, Ctrl+Enter saves and edits the next empty cell. A save posts the cell's
// version (data-base); a cell someone changed since answers 409 with their value, shown in the cell: nothing of
// either person is lost, and the person chooses (Enter saves theirs over, Escape keeps theirs).
'use strict';

(() => {
  const gridOf = (el) => (el instanceof Element ? el.closest('table[data-grid]') : null);
  const cellsOf = (grid) => [...grid.querySelectorAll('td.gc')];
  const isCell = (el) => el instanceof HTMLElement && el.matches('td.gc');

  // Enhance once per grid: it is an interactive grid only when this script runs.
  const enhance = () => {
    for (const grid of document.querySelectorAll('table[data-grid]:not([role])')) grid.setAttribute('role', 'grid');
    updateScope();
  };

  const focusCell = (cell) => {
    const grid = gridOf(cell);
    if (!grid) return;
    for (const c of cellsOf(grid)) if (c !== cell && c.tabIndex === 0) c.tabIndex = -1;
    cell.tabIndex = 0;
    cell.focus();
  };

  const neighbour = (cell, dx, dy) => {
    const row = cell.parentElement;
    if (dy) {
      const rows = [...row.parentElement.children];
      const next = rows[rows.indexOf(row) + dy];
      if (!next) return null;
      const own = [...row.querySelectorAll('td.gc')].indexOf(cell);
      const there = next.querySelectorAll('td.gc');
      return there[Math.min(own, there.length - 1)] || null;
    }
    const all = cellsOf(gridOf(cell));
    return all[all.indexOf(cell) + dx] || null;
  };

  const editing = new WeakMap();

  const statusBadge = (cell, status) => {
    const badge = cell.querySelector('.cell-status');
    if (badge) {
      badge.dataset.status = status;
      badge.textContent = status;
    }
  };

  const note = (cell, cls, text) => {
    let p = cell.querySelector('.gnote');
    if (!p) {
      p = document.createElement('p');
      p.setAttribute('role', 'alert');
      cell.append(p);
    }
    p.className = `gnote ${cls}`;
    p.textContent = text;
    return p;
  };

  const open = (cell, initial) => {
    // A language the signed-in translator does not translate (grid.ts data-readonly): read, never edited.
    if (cell.dataset.readonly === 'yes') return undefined;
    if (editing.has(cell)) return editing.get(cell).field.focus();
    const shown = cell.querySelector('.gv');
    const before = shown ? shown.textContent : '';
    const field = document.createElement('textarea');
    field.className = 'gedit';
    field.rows = Math.min(6, Math.max(1, before.split('\n').length));
    field.lang = cell.lang;
    field.dir = cell.dir;
    const head = gridOf(cell).querySelectorAll('thead th')[cell.cellIndex];
    field.setAttribute('aria-label', `${cell.dataset.name} in ${head ? head.textContent.trim() : cell.dataset.lang}`);
    field.value = initial === undefined ? before : initial;
    editing.set(cell, { field, before });
    cell.classList.add('editing');
    cell.tabIndex = -1;
    cell.append(field);
    field.focus();
    field.setSelectionRange(field.value.length, field.value.length);
  };

  const close = (cell, value) => {
    const state = editing.get(cell);
    if (!state) return;
    editing.delete(cell);
    state.field.remove();
    for (const n of cell.querySelectorAll('.gnote')) n.remove();
    cell.classList.remove('editing', 'conflict');
    if (value !== undefined) {
      cell.querySelector('.gv').textContent = value;
      cell.dataset.empty = value ? 'no' : 'yes';
      const empty = cell.querySelector('.gv + .visually-hidden');
      if (empty && value) empty.remove();
    }
    focusCell(cell);
  };

  /** Saves the cell's field; true once what it holds is stored (or nothing changed), false otherwise. */
  const save = async (cell) => {
    const state = editing.get(cell);
    if (!state || state.saving) return false;
    const grid = gridOf(cell);
    const value = state.field.value;
    if (value === state.before && !cell.classList.contains('conflict')) {
      close(cell);
      return true;
    }
    if (!value.trim()) {
      note(cell, 'error', 'A translation cannot be empty; nothing was saved.');
      return false;
    }
    state.saving = true;
    cell.setAttribute('aria-busy', 'true');
    const body = new URLSearchParams({
      csrf: grid.dataset.csrf,
      key: cell.dataset.key,
      lang: cell.dataset.lang,
      value,
      base: cell.dataset.base || '',
    });
    let answer;
    let status = 0;
    try {
      const res = await fetch(grid.dataset.save, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
      });
      status = res.status;
      answer = res.headers.get('content-type')?.startsWith('application/json') ? await res.json() : null;
    } catch {
      answer = null;
    } finally {
      state.saving = false;
      cell.removeAttribute('aria-busy');
    }
    if (answer && answer.saved) {
      cell.dataset.base = answer.saved.updatedAt || '';
      statusBadge(cell, answer.saved.status);
      close(cell, answer.saved.value);
      return true;
    }
    if (answer && answer.conflict) {
      // Theirs is now the base: saving again replaces exactly what is shown; Escape keeps it.
      const theirs = answer.conflict;
      cell.dataset.base = theirs.updatedAt || '';
      state.before = theirs.value || '';
      state.theirs = theirs;
      cell.classList.add('conflict');
      note(
        cell,
        'error',
        `Changed by ${theirs.byName || theirs.by || 'someone'} since you opened it: “${theirs.value || ''}”. ` +
          'Nothing was saved. Enter saves yours over it; Escape keeps theirs.',
      );
      state.field.focus();
      return false;
    }
    note(
      cell,
      'error',
      answer && answer.error
        ? answer.error
        : status === 401
          ? 'Your session has ended: sign in again in another tab, then save again.'
          : 'Not saved: the server did not answer. Try again.',
    );
    state.field.focus();
    return false;
  };

  const cancel = (cell) => {
    const state = editing.get(cell);
    if (!state) return;
    if (state.theirs) {
      statusBadge(cell, state.theirs.status);
      return close(cell, state.theirs.value || '');
    }
    close(cell);
  };

  const nextEmpty = (cell) => {
    const all = cellsOf(gridOf(cell));
    return (
      all
        .slice(all.indexOf(cell) + 1)
        .find((c) => c.dataset.empty === 'yes' && c.dataset.readonly !== 'yes' && !editing.has(c)) || null
    );
  };

  document.addEventListener('keydown', (event) => {
    const target = event.target;
    if (target instanceof HTMLTextAreaElement && target.classList.contains('gedit')) {
      const cell = target.closest('td.gc');
      if (!cell) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        cancel(cell);
      } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        save(cell).then((ok) => {
          if (!ok) return;
          const next = nextEmpty(cell);
          if (next) {
            focusCell(next);
            open(next);
          }
        });
      } else if (event.key === 'Enter' && !event.shiftKey && !event.altKey) {
        event.preventDefault();
        save(cell);
      } else if (event.key === 'Tab') {
        event.preventDefault();
        save(cell).then((ok) => {
          const next = ok && neighbour(cell, event.shiftKey ? -1 : 1, 0);
          if (next) focusCell(next);
        });
      }
      return;
    }
    if (!isCell(target) || event.altKey) return;
    const moves = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };
    if (Object.hasOwn(moves, event.key) && !event.ctrlKey && !event.metaKey) {
      const next = neighbour(target, ...moves[event.key]);
      event.preventDefault();
      if (next) focusCell(next);
    } else if (event.key === 'Tab' && !event.ctrlKey) {
      // Along the row and on to the next; at the grid's ends Tab leaves it as usual.
      const next = neighbour(target, event.shiftKey ? -1 : 1, 0);
      if (next) {
        event.preventDefault();
        focusCell(next);
      }
    } else if ((event.key === 'Enter' || event.key === 'F2') && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      open(target);
    } else if (event.key.length === 1 && event.key !== ' ' && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      open(target, event.key);
    }
  });

  // A click on a cell edits it; a click elsewhere leaves an open field as it is.
  document.addEventListener('click', (event) => {
    const cell = event.target instanceof Element ? event.target.closest('td.gc') : null;
    if (!cell || editing.has(cell) || event.target instanceof HTMLAnchorElement) return;
    focusCell(cell);
    open(cell);
  });

  // The bulk form says how many rows it acts on: the selected ones, or with none selected the whole filter.
  const updateScope = () => {
    const form = document.getElementById('grid-bulk');
    const scope = form && form.querySelector('.bulk-scope');
    if (!scope) return;
    const n = document.querySelectorAll('input[form="grid-bulk"]:checked').length;
    scope.textContent = n
      ? `the ${n} selected ${n === 1 ? 'key' : 'keys'}`
      : `the ${form.dataset.total} matching keys (select rows to act on them alone)`;
  };
  document.addEventListener('change', (event) => {
    if (event.target instanceof HTMLInputElement && event.target.getAttribute('form') === 'grid-bulk') updateScope();
  });

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', enhance);
  else enhance();
  document.addEventListener('glossa:navigated', enhance);
})();
