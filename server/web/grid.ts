// The key list as a grid to translate in (`/projects/{projectId}/keys?cols=de,ar`): keys as rows, the source and
// one or two chosen languages as columns, a checkbox per row for the bulk actions, sorted and paged by the server
// (internalListKeys `sort`, `offset`, `limit`) under the list's own filter. Everything the grid is (the columns,
// the sort, the density) is in the URL. The page is plain HTML: without script a key's name opens the editor
// (keys.ts), whose forms work as before. grid.js makes each cell editable in place and saves a cell through
// POST /projects/{projectId}/grid-save below, which checks the value with the publish gates and then saves it
// with the internal edit route (internalPutTranslation) based on the version the cell showed, so a cell someone
// changed since is never overwritten unseen: the answer carries their value, and the person chooses.
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components, paths } from '../../generated/internal.js';
import { apiFor } from './api.js';
import { html, PAGE_HEADERS, type Html } from './html.js';
import { projectPath } from './layout.js';
import { langAttrs } from './direction.js';
import { signedIn, sessionOf } from './auth.js';
import { formOf } from './web.js';
import type { Session } from '../domain/users/sessions.js';

type KeyPage = paths['/projects/{projectId}/keys']['get']['responses'][200]['content']['application/json'];
type Listed = KeyPage['keys'][number];
type Cell = components['schemas']['KeyCell'];

/** The orders the grid offers (internalListKeys `sort`); `updated` reads the first column's cells. */
const SORTS = {
  created: 'creation order',
  name: 'key name, A to Z',
  '-name': 'key name, Z to A',
  '-updated': 'recently updated first',
  updated: 'least recently updated first',
} as const;
export type Sort = keyof typeof SORTS;

export interface GridView {
  /** One or two target languages, shown beside the source. */
  cols: string[];
  sort: Sort;
  compact: boolean;
}

const LANG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/;

/** The grid's settings from the query; no `cols` (or none of the project's languages) is the plain list. */
export function gridViewOf(query: Record<string, unknown>): GridView | undefined {
  const raw = Array.isArray(query.cols) ? query.cols.join(',') : query.cols;
  if (typeof raw !== 'string') return undefined;
  const cols = [...new Set(raw.split(',').map((c) => c.trim()))].filter((c) => LANG.test(c)).slice(0, 2);
  if (!cols.length) return undefined;
  const sort = typeof query.sort === 'string' && Object.hasOwn(SORTS, query.sort) ? (query.sort as Sort) : 'created';
  return { cols, sort, compact: query.density === 'compact' };
}

/** The grid's part of a URL's query (the list's filter adds its own). */
export function gridQuery(v: GridView | undefined): Record<string, string> {
  if (!v) return {};
  return {
    cols: v.cols.join(','),
    ...(v.sort !== 'created' ? { sort: v.sort } : {}),
    ...(v.compact ? { density: 'compact' } : {}),
  };
}

/** The list API's order for the grid. */
export function gridSort(v: GridView | undefined): { sort?: Sort; sortLang?: string } {
  if (!v || v.sort === 'created') return {};
  return { sort: v.sort, ...(v.sort.endsWith('updated') ? { sortLang: v.cols[0] } : {}) };
}

function langSelect(id: string, name: string, label: string, langs: string[], value: string | undefined, none = '') {
  return html`<label for="${id}">${label}</label>
    <select id="${id}" name="${name}">
      ${none ? html`<option value="">${none}</option>` : ''}
      ${langs.map((l) => html`<option value="${l}" ${l === value ? html`selected` : ''}>${l}</option>`)}
    </select>`;
}

/**
 * The GET form that opens the grid or changes its columns, order and density: its fields are the URL's, the
 * filter's carried as hidden fields. Without script the two language selects post as `col1`/`col2`, which the
 * page reads into `cols`.
 */
export function gridForm(projectId: string, langs: string[], v: GridView | undefined, filterFields: Html[]): Html {
  if (!langs.length) return html``;
  return html`<form method="get" action="${projectPath(projectId, 'keys')}" class="grid-form" data-soft>
    ${filterFields}
    <fieldset>
      <legend>Translate in a grid</legend>
      <p>${langSelect('g-col1', 'col1', 'Translate into', langs, v?.cols[0] ?? langs[0])}</p>
      <p>${langSelect('g-col2', 'col2', 'Second column', langs, v?.cols[1], 'none')}</p>
      <p>
        <label for="g-sort">Sort by</label>
        <select id="g-sort" name="sort">
          ${Object.entries(SORTS).map(
            ([k, label]) =>
              html`<option value="${k}" ${k === (v?.sort ?? 'created') ? html`selected` : ''}>${label}</option>`,
          )}
        </select>
      </p>
      <p>
        <input type="checkbox" id="g-density" name="density" value="compact" ${v?.compact ? html`checked` : ''} />
        <label for="g-density">Compact rows</label>
      </p>
      <p>
        <button type="submit">${v ? 'Update grid' : 'Open grid'}</button>
        ${v ? html`<a href="${projectPath(projectId, 'keys')}">Back to the list</a>` : ''}
      </p>
    </fieldset>
  </form>`;
}

/** `col1` and `col2` of the grid form, read as `cols`. */
export function colsOfForm(query: Record<string, unknown>): Record<string, unknown> {
  if (query.cols !== undefined || typeof query.col1 !== 'string') return query;
  const cols = [query.col1, query.col2].filter((c): c is string => typeof c === 'string' && c !== '');
  return { ...query, cols: cols.join(',') };
}

function gridCell(k: Listed, c: Cell | undefined, lang: string, first: boolean, href: string, readonly: boolean) {
  const value = c?.value ?? null;
  const status = c?.status ?? 'missing';
  return html`<td
    class="gc"
    data-key="${k.token}"
    data-name="${k.key}"
    data-lang="${lang}"
    data-label="${lang}"
    data-base="${c?.updatedAt ?? ''}"
    data-empty="${value == null ? 'yes' : 'no'}"
    data-edit="${href}#cell-${lang}"
    ${readonly ? html`data-readonly="yes"` : ''}
    ${langAttrs(lang)}
    tabindex="${first ? '0' : '-1'}"
  >
    <span class="gv">${value ?? ''}</span>${value == null ? html`<span class="visually-hidden">(empty)</span>` : ''}${
      readonly ? html`<span class="visually-hidden">(read only)</span>` : ''
    } <span class="cell-status" data-status="${status}" lang="en" dir="ltr">${status}</span>${
      c?.outdated ? html` <span class="cell-status" data-status="outdated" lang="en" dir="ltr">outdated</span>` : ''
    }
  </td>`;
}

/** The grid's table: a row per listed key, its checkbox posting with the bulk form (`form="grid-bulk"`). */
export function gridTable(
  s: Session,
  projectId: string,
  page: KeyPage,
  v: GridView,
  baseLang: string,
  hrefOf: (k: Listed) => string,
  caption: string,
): Html {
  const cols = v.cols.filter((c) => page.langs.includes(c));
  let first = true;
  return html`<p class="hint" id="grid-help">
      In the grid: arrow keys or Tab move between cells, Enter or typing edits a cell, Enter saves, Shift+Enter starts a
      new line, Escape cancels, Ctrl+Enter saves and goes to the next empty cell. A key's name opens its editor.
    </p>
    <div class="grid-wrap">
      <table
        class="grid${v.compact ? ' compact' : ''}"
        id="grid"
        data-grid
        data-save="${projectPath(projectId, 'grid-save')}"
        data-csrf="${s.csrf}"
        aria-describedby="grid-help"
      >
        <caption>
          ${caption}
        </caption>
        <thead>
          <tr>
            <th scope="col" class="sel"><span class="visually-hidden">Select</span></th>
            <th scope="col">Key</th>
            <th scope="col">Source (${baseLang})</th>
            ${cols.map((c) => html`<th scope="col">${c}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${page.keys.map((k, i) => {
            const href = hrefOf(k);
            return html`<tr ${k.enabled ? '' : html`class="disabled"`}>
              <td class="sel">
                <input type="checkbox" id="sel-${i}" name="sel-${i}" value="${k.token}" form="grid-bulk" />
                <label for="sel-${i}" class="visually-hidden">Select ${k.key}</label>
              </td>
              <th scope="row">
                <a href="${href}">${k.key}</a>
                ${k.namespace ? html`<span class="tag">${k.namespace}</span>` : ''}
                ${k.enabled ? '' : html`<span class="tag">disabled</span>`}
              </th>
              <td class="source" data-label="Source" ${langAttrs(baseLang)}>${k.source}</td>
              ${cols.map((lang) => {
                const cell = gridCell(
                  k,
                  k.cells.find((c) => c.lang === lang),
                  lang,
                  first,
                  href,
                  // A translator edits only their languages (spec translatorLangs); the others are read.
                  page.translatorLangs !== undefined && !page.translatorLangs.includes(lang),
                );
                first = false;
                return cell;
              })}
            </tr>`;
          })}
        </tbody>
      </table>
    </div>`;
}

// ---------------------------------------------------------------------------------------------------------------
// A cell's save, for grid.js: answered in JSON (the page's script reads it), never a page.

type CellNow = components['schemas']['CellNow'];

/** What grid.js reads: the saved cell, the conflict with what is there now, or why nothing was saved. */
type SaveAnswer =
  | { saved: { value: string; status: string; updatedAt: string | null } }
  | { conflict: CellNow; message: string }
  | { error: string; gate?: components['schemas']['GateVerdict'] };

function json(h: ResponseToolkit, status: number, body: SaveAnswer) {
  const r = h.response(body).code(status).type('application/json; charset=utf-8');
  for (const [k, v] of Object.entries(PAGE_HEADERS)) r.header(k, v);
  return r;
}

const messageOf = (error: unknown) =>
  error && typeof error === 'object' && 'message' in error ? String(error.message) : '';

async function gridSave(server: Hapi.Server, request: Request, h: ResponseToolkit) {
  const projectId = String(request.params.projectId);
  const session = sessionOf(request);
  const form = formOf(request);
  const { key, lang } = form;
  const value = typeof form.value === 'string' ? form.value.replace(/\r\n/g, '\n') : '';
  const base = form.base;
  if (!key || key.length > 255 || !lang || lang.length > 35 || typeof base !== 'string')
    return json(h, 400, { error: 'The save was incomplete; nothing changed.' });
  if (base !== '' && Number.isNaN(Date.parse(base)))
    return json(h, 400, { error: 'The save was incomplete; nothing changed.' });
  if (!value.trim()) return json(h, 400, { error: 'A translation cannot be empty; nothing was saved.' });
  const api = apiFor(server, session);
  const path = { projectId, key };
  // The gates' verdict comes first, as in the editor: a value they refuse is not saved.
  const checked = await api.POST('/projects/{projectId}/keys/{key}/check', {
    params: { path },
    body: { lang, value },
  });
  if (!checked.data)
    return json(h, checked.response.status, { error: `${messageOf(checked.error)} Nothing was saved.` });
  if (!checked.data.ok) {
    const gate = checked.data.gate;
    const why = [gate.icu && `ICU: ${gate.icu}`, gate.markup && `Markup: ${gate.markup}`].filter(Boolean).join('; ');
    return json(h, 400, { error: `The gates refuse this value (${why}); nothing was saved.`, gate });
  }
  const put = await api.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { ...path, lang } },
    body: { value, baseUpdatedAt: base === '' ? null : base },
  });
  if (put.response.status === 409 && put.error && 'current' in put.error)
    return json(h, 409, { conflict: put.error.current, message: messageOf(put.error) });
  if (!put.data) return json(h, put.response.status, { error: `${messageOf(put.error)} Nothing was saved.` });
  return json(h, 200, {
    saved: { value: put.data.value, status: put.data.status, updatedAt: put.data.updatedAt ?? null },
  });
}

export function gridRoutes(server: Hapi.Server): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/projects/{projectId}/grid-save',
      options: signedIn(false),
      handler: (r, h) => gridSave(server, r, h),
    },
  ];
}
