// The key list (`/projects/{projectId}/keys`), the editor (`/projects/{projectId}/keys/{key}`) and the captured keys
// (`/projects/{projectId}/captured`). Every value comes from the internal API (internalListKeys,
// internalGetKey, internalCheckTranslation…) called in-process as the signed-in person, who the API holds to their
// role. The filter is a GET form, so a filtered list is a link; bulk actions post the same filter and first show
// how many keys they would touch. The editor checks a value with the publish gates before it is saved (a refused
// value is not saved, its reasons shown), previews it with sample values for each plural category of the language
// (server-rendered; dashboard.js refreshes it while typing), and lists the history with a diff of each value
// against the one before it, each with a button to save that value again. Key names, sources and translations are
// hostile: every one is escaped (html.ts).
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { apiFor, type Api } from './api.js';
import { html, type Html } from './html.js';
import { appPage, keyHref, projectPath } from './layout.js';
import { previewMessage } from './preview.js';
import { redirectWithFlash, takeFlashes, type Flash } from './flash.js';
import type { Session } from '../domain/users/sessions.js';
import { credits, formOf, htmlReply, messagePage } from './web.js';
import { sessionOf, signedIn } from './auth.js';
import { sourceTerms } from './terms.js';
import { allSpans, CHECK_IDS, checkResults, highlighted } from './checks.js';
import { colsOfForm, gridForm, gridQuery, gridSort, gridTable, gridViewOf, type GridView } from './grid.js';
import { langAttrs } from './direction.js';
import { diffHtml } from './diff.js';
import { commentRoutes, commentsOf, commentsSection, type CommentDraft, type KeyComment } from './comments.js';
import { screenshotRoutes, screenshotsOf, screenshotsSection, type KeyScreenshot } from './screenshots.js';
import { suggestPanel, suggestRoutes, type Asked } from './suggest.js';
import {
  branchFields,
  branchingOf,
  messageOf as branchMessage,
  postedBranches,
  valueBranches,
} from './plural-fields.js';
import { roleOf } from './project-role.js';

type Filter = components['schemas']['KeyFilter'];
type Cell = components['schemas']['KeyCell'];
/** A key as the editor shows it: with its source's terms marked (terms.ts), when it uses any. */
type Detail = components['schemas']['KeyDetail'] & {
  sourceTerms?: Html;
  suggestions?: Map<string, Suggestion[]>;
  comments?: KeyComment[];
  screenshots?: KeyScreenshot[];
};
type Suggestion = components['schemas']['MemoryMatch'];
type DetailCell = Detail['cells'][number];
type Verdict = components['schemas']['GateVerdict'];
type CellNow = components['schemas']['CellNow'];

// The list's status filter (spec KeyStatusFilter): `outdated` holds for a value of any status whose source changed.
const STATUSES = ['missing', 'pending', 'failed', 'translated', 'reviewed', 'approved', 'outdated'] as const;
const ORIGINS = { ai: 'AI', memory: 'memory', import: 'imported', edit: 'person' } as const;
const REVIEW_STATES = ['translated', 'reviewed', 'approved'] as const;
const LIMITS = [25, 50, 100, 200];
/** The key list's AI score thresholds (internalListKeys `aiScoreBelow`). */
const AI_SCORES = ['0.5', '0.7', '0.9'];
const FLAG_FIELDS = ['disabled', 'captured', 'conflicts', 'refusals', 'warnings'] as const;
/** How a flag reads in a filter's description: when it is asked for, and when its absence is. */
const FLAG_TEXT: Record<(typeof FLAG_FIELDS)[number], [string, string]> = {
  disabled: ['disabled', 'enabled'],
  captured: ['captured', 'not captured'],
  conflicts: ['with sync conflicts', 'without sync conflicts'],
  refusals: ['refused by a gate', 'passing the gates'],
  warnings: ['with format warnings', 'without format warnings'],
};
const BULK: Record<string, { label: string; owner: boolean; done: string }> = {
  approve: { label: 'Approve', owner: false, done: 'cells approved' },
  review: { label: 'Mark reviewed', owner: false, done: 'cells marked reviewed' },
  disable: { label: 'Disable keys', owner: true, done: 'keys disabled' },
  enable: { label: 'Enable keys', owner: true, done: 'keys enabled' },
  retry: { label: 'Retry failed fills', owner: true, done: 'failed pairs queued again' },
  retranslate: { label: 'Re-translate outdated', owner: true, done: 'outdated cells queued again' },
  translate: { label: 'Translate untranslated cells', owner: true, done: 'cells queued for translation' },
};
/** The bulk actions that ask the engine, estimated (a dry run) before the person confirms. */
const PAID = new Set(['retry', 'retranslate', 'translate']);
type PaidAction = 'retry' | 'retranslate' | 'translate';
const VERSION = /^[0-9]{4}\.[0-9]{2}\.[0-9]{2}\.[0-9]{1,6}$/;
/** The spec's `CheckId`: a check of the catalogue, or a project's own (`custom:<id>`). */
const CHECK_ID = /^(custom:)?[a-z0-9][a-z0-9-]{0,39}$/;
const CHECK_SEVERITIES = ['error', 'warning', 'info'] as const;
/** The spec's `Namespace` (spec/openapi.yaml). */
const NAMESPACE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
/**
 * The form's spelling of the default namespace (`namespace: ''` in the filter): an empty field means any namespace,
 * and no namespace can start with `~`.
 */
const DEFAULT_NS = '~default';

/** An internal API error's message. */
const messageOf = (error: unknown) =>
  error && typeof error === 'object' && 'message' in error ? String(error.message) : '';

// ---------------------------------------------------------------------------------------------------------------
// The filter: read from a query or a form, written back as hidden fields and as a query string.

function filterOf(input: Record<string, unknown>): Filter {
  const f: Filter = {};
  const str = (k: string) => {
    const v = input[k];
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  const q = str('q');
  if (q) f.q = q.slice(0, 200);
  const lang = str('lang');
  if (lang && lang.length <= 35) f.lang = lang;
  const status = str('status');
  if (status && (STATUSES as readonly string[]).includes(status)) f.status = status as Filter['status'];
  const origin = str('origin');
  if (origin && Object.hasOwn(ORIGINS, origin)) f.origin = origin as Filter['origin'];
  const since = str('changedSince');
  if (since && VERSION.test(since)) f.changedSince = since;
  const check = str('check');
  if (check && CHECK_ID.test(check)) f.check = check;
  const severity = str('severity');
  if (severity && (CHECK_SEVERITIES as readonly string[]).includes(severity))
    f.severity = severity as Filter['severity'];
  const below = Number(str('aiScoreBelow'));
  if (str('aiScoreBelow') && below >= 0 && below <= 1) f.aiScoreBelow = below;
  const ns = str('namespace');
  if (ns === DEFAULT_NS) f.namespace = '';
  else if (ns && NAMESPACE.test(ns)) f.namespace = ns;
  for (const k of FLAG_FIELDS) {
    const v = str(k);
    if (v === 'yes') f[k] = true;
    else if (v === 'no') f[k] = false;
  }
  return f;
}

/** A filter field as the form and the query spell it (filterOf reads it back). */
const formValue = (k: string, v: unknown) =>
  typeof v === 'boolean' ? (v ? 'yes' : 'no') : k === 'namespace' && v === '' ? DEFAULT_NS : String(v);

/** The filter's fields a URL or a form carries: the grid's selected rows (`tokens`) travel as `sel-N` fields. */
const shownFields = (f: Filter) => Object.entries(f).filter(([k, v]) => k !== 'tokens' && v !== undefined);

function filterQuery(f: Filter, extra: Record<string, string | number> = {}): string {
  const u = new URLSearchParams();
  for (const [k, v] of shownFields(f)) u.set(k, formValue(k, v));
  for (const [k, v] of Object.entries(extra)) u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}

const filterFields = (f: Filter): Html[] =>
  shownFields(f).map(([k, v]) => html`<input type="hidden" name="${k}" value="${formValue(k, v)}" />`);

function describeFilter(f: Filter): string {
  const parts: string[] = [];
  if (f.q) parts.push(`matching “${f.q}”`);
  if (f.namespace !== undefined) parts.push(f.namespace ? `in namespace ${f.namespace}` : 'in the default namespace');
  if (f.status) parts.push(`status ${f.status}${f.lang ? ` in ${f.lang}` : ''}`);
  else if (f.lang) parts.push(`language ${f.lang}`);
  if (f.origin) parts.push(`origin ${ORIGINS[f.origin]}`);
  if (f.changedSince) parts.push(`changed since ${f.changedSince}`);
  if (f.check || f.severity)
    parts.push(`with ${f.severity ? `a check ${f.severity}` : 'a check result'}${f.check ? ` of ${f.check}` : ''}`);
  if (f.aiScoreBelow !== undefined) parts.push(`AI values scored below ${f.aiScoreBelow}`);
  for (const k of FLAG_FIELDS) if (f[k] !== undefined) parts.push(FLAG_TEXT[k][f[k] ? 0 : 1]);
  return parts.length ? parts.join(', ') : 'all keys';
}

/** A listed key's page: by name, or by token for a named namespace's key (a name may be in several namespaces). */
const listedHref = (projectId: string, k: { key: string; token: string; namespace?: string }) =>
  keyHref(projectId, k.namespace ? k.token : k.key);

async function listKeys(
  api: Api,
  projectId: string,
  f: Filter,
  offset = 0,
  limit = 50,
  order: ReturnType<typeof gridSort> = {},
) {
  return api.GET('/projects/{projectId}/keys', {
    params: { path: { projectId }, query: { ...f, ...order, offset, limit } },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The key list.

function select(name: string, label: string, options: Array<[string, string]>, value: string | undefined): Html {
  return html`<label for="f-${name}">${label}</label>
    <select id="f-${name}" name="${name}">
      ${options.map(([v, text]) => html`<option value="${v}" ${v === (value ?? '') ? html`selected` : ''}>${text}</option>`)}
    </select>`;
}

const tri = (f: Filter, k: (typeof FLAG_FIELDS)[number]) => (f[k] === undefined ? '' : f[k] ? 'yes' : 'no');

function filterForm(
  projectId: string,
  f: Filter,
  langs: string[],
  limit: number,
  namespaces: string[] = [],
  grid?: GridView,
): Html {
  const triOptions = (yes: string, no: string): Array<[string, string]> => [
    ['', 'any'],
    ['yes', yes],
    ['no', no],
  ];
  return html`<form method="get" action="${projectPath(projectId, 'keys')}" class="filters" role="search" data-soft>
    ${Object.entries(gridQuery(grid)).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
    <p>
      <label for="f-q">Search key names, sources and translations</label>
      <input id="f-q" name="q" type="search" value="${f.q ?? ''}" maxlength="200" />
    </p>
    <div class="filter-grid">
      <p>
        ${select(
          'lang',
          'Language',
          [['', 'any target language'], ...langs.map((l): [string, string] => [l, l])],
          f.lang,
        )}
      </p>
      ${
        namespaces.length
          ? html`<p>
              ${select(
                'namespace',
                'Namespace',
                [
                  ['', 'any namespace'],
                  [DEFAULT_NS, 'the default namespace'],
                  ...namespaces.map((n): [string, string] => [n, n]),
                ],
                f.namespace === '' ? DEFAULT_NS : f.namespace,
              )}
            </p>`
          : ''
      }
      <p>${select('status', 'Status', [['', 'any'], ...STATUSES.map((s): [string, string] => [s, s])], f.status)}</p>
      <p>
        ${select(
          'origin',
          'Origin',
          [['', 'any'], ...Object.entries(ORIGINS).map(([v, t]): [string, string] => [v, t])],
          f.origin,
        )}
      </p>
      <p>
        <label for="f-changedSince">Changed since version</label>
        <input
          id="f-changedSince"
          name="changedSince"
          value="${f.changedSince ?? ''}"
          placeholder="YYYY.MM.DD.N"
          pattern="[0-9]{4}\\.[0-9]{2}\\.[0-9]{2}\\.[0-9]{1,6}"
        />
      </p>
      <p>
        ${select(
          'check',
          'Check',
          [['', 'any'], ...CHECK_IDS.map((id): [string, string] => [id, id])],
          f.check && !CHECK_IDS.includes(f.check) ? undefined : f.check,
        )}
      </p>
      <p>
        ${select(
          'severity',
          'Check severity',
          [['', 'any'], ...CHECK_SEVERITIES.map((v): [string, string] => [v, v])],
          f.severity,
        )}
      </p>
      <p>
        ${select(
          'aiScoreBelow',
          'AI score',
          [['', 'any'], ...AI_SCORES.map((v): [string, string] => [v, `AI values scored below ${v}`])],
          f.aiScoreBelow === undefined ? undefined : String(f.aiScoreBelow),
        )}
      </p>
      <p>${select('disabled', 'Disabled', triOptions('disabled only', 'enabled only'), tri(f, 'disabled'))}</p>
      <p>${select('captured', 'Captured', triOptions('captured only', 'not captured'), tri(f, 'captured'))}</p>
      <p>${select('conflicts', 'Sync conflicts', triOptions('with conflicts', 'without'), tri(f, 'conflicts'))}</p>
      <p>
        ${select('refusals', 'Gate refusals', triOptions('refused by a gate', 'passing the gates'), tri(f, 'refusals'))}
      </p>
      <p>
        ${select(
          'warnings',
          'Format warnings',
          triOptions('written in a fallback', 'without warnings'),
          tri(f, 'warnings'),
        )}
      </p>
      <p>
        ${select(
          'limit',
          'Per page',
          LIMITS.map((n): [string, string] => [String(n), String(n)]),
          String(limit),
        )}
      </p>
    </div>
    <p><button type="submit">Filter</button> <a href="${projectPath(projectId, 'keys')}">Clear</a></p>
  </form>`;
}

function cellBadge(c: Cell): Html {
  return html`<span class="cell-status" data-status="${c.status}">${c.status}</span>${
      c.outdated ? html` <span class="cell-status" data-status="outdated">outdated</span>` : ''
    }`;
}

/** The score the AI fill gave its value (docs/guides/translation.md, "The score"), with what it rests on. */
function aiScore(c: Cell): Html {
  if (c.aiScore === undefined) return html``;
  return html`<span class="ai-score" data-low="${c.aiScore < 0.7 ? 'yes' : 'no'}"
    >AI score ${c.aiScore.toFixed(2)}${c.aiReason ? html` (${c.aiReason})` : ''}</span
  >`;
}

function cellsOf(cells: Cell[], lang: string | undefined): Html {
  const shown = lang ? cells.filter((c) => c.lang === lang) : cells;
  return html`<ul class="plain cells">
    ${shown.map(
      (c) =>
        html`<li>
          <span class="lang">${c.lang}</span>
          ${cellBadge(c)}${c.conflict ? html` <span class="warn">conflict</span>` : ''}
          ${c.value != null ? html`<span class="value">${highlighted(c.value, allSpans(c.checks, 'target'))}</span>` : ''}
          ${c.failed ? html`<span class="error">${c.failed}</span>` : ''} ${aiScore(c)} ${checkResults(c.checks, {})}
        </li>`,
    )}
  </ul>`;
}

/** A listed key's source, the characters its checks point at marked (the text keeps its own spaces: no template's). */
function sourceCell(k: { source: string; ctx: string | null; sourceChecks?: Cell['checks'] }): Html {
  const source = highlighted(k.source, allSpans(k.sourceChecks, 'source'));
  const ctx = k.ctx ? html`<small class="ctx">${k.ctx}</small>` : '';
  return html`<div class="source">${source}${ctx}</div>
    ${checkResults(k.sourceChecks, {})}`;
}

function bulkForm(s: Session, projectId: string, f: Filter, total: number, langs: string[], grid?: GridView): Html {
  // A translator has no bulk action (spec x-roles): their work is one cell at a time.
  if (!total || roleOf(s) === 'translator') return html``;
  const actions = Object.entries(BULK).filter(([, a]) => !a.owner || roleOf(s) === 'owner');
  // In the grid, the rows' checkboxes post with this form (form="grid-bulk"): the selected rows, else the filter.
  return html`<form
    method="post"
    action="${projectPath(projectId, 'key-actions')}"
    class="inline bulk"
    ${grid ? html`id="grid-bulk" data-total="${total}"` : ''}
  >
    <input type="hidden" name="csrf" value="${s.csrf}" />
    ${filterFields(f)}
    ${Object.entries(gridQuery(grid)).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
    <label for="bulk-action"
      >${
        grid
          ? html`Bulk action on the
              <span class="bulk-scope">selected keys, or with none selected the ${total} matching keys</span>`
          : html`Bulk action on the ${total} matching keys`
      }</label
    >
    <select id="bulk-action" name="action">
      ${actions.map(([v, a]) => html`<option value="${v}">${a.label}</option>`)}
    </select>
    <label for="bulk-lang">in</label>
    <select id="bulk-lang" name="bulkLang">
      <option value="">${f.lang ?? 'every target language'}</option>
      ${langs.filter((l) => l !== f.lang).map((l) => html`<option value="${l}">${l}</option>`)}
    </select>
    <button type="submit">Review and apply…</button>
  </form>`;
}

async function keysPage(app: App, server: Hapi.Server, request: Request, h: ResponseToolkit) {
  const projectId = String(request.params.projectId);
  const session = sessionOf(request);
  const api = apiFor(server, session);
  const query = colsOfForm(request.query);
  const f = filterOf(query);
  const grid = gridViewOf(query);
  const limit = LIMITS.includes(Number(query.limit)) ? Number(query.limit) : 50;
  const offset = typeof query.offset === 'string' && /^\d{1,9}$/.test(query.offset) ? Number(query.offset) : 0;
  const [r, project] = await Promise.all([
    listKeys(api, projectId, f, offset, limit, gridSort(grid)),
    grid ? api.GET('/projects/{projectId}', { params: { path: { projectId } } }) : undefined,
  ]);
  if (r.response.status === 404)
    return htmlReply(h, 404, messagePage('Not found', messageOf(r.error) || 'No such project.', session));
  let notice: Html | string = '';
  let data = r.data;
  if (r.response.status === 400) {
    notice = html`<p class="error" role="alert">${messageOf(r.error)}</p>`;
    data = undefined;
  } else if (!data) throw new Error(`internal API: ${r.response.status}`);
  // What a bulk action did comes from its flash, never from the URL (flash.ts).
  for (const f of await takeFlashes(app, session, projectPath(projectId, 'keys')))
    if (f.notice) notice = html`<p class="notice" role="status">${f.notice}</p>`;
  const langs = data?.langs ?? [];
  const total = data?.total ?? 0;
  const pageLink = (o: number, label: string, rel: string) =>
    html`<a
      rel="${rel}"
      href="${projectPath(projectId, 'keys')}${filterQuery(f, { ...gridQuery(grid), offset: o, limit })}"
      >${label}</a
    >`;
  const limitField = limit !== 50 ? [html`<input type="hidden" name="limit" value="${limit}" />`] : [];
  const body = html`<h1>Keys</h1>
    ${notice} ${filterForm(projectId, f, langs, limit, data?.namespaces, grid)}
    ${gridForm(projectId, langs, grid, [...filterFields(f), ...limitField])}
    <p id="key-count" role="status">
      ${total} ${total === 1 ? 'key matches' : 'keys match'}
      (${describeFilter(f)})${total ? html`; showing ${offset + 1}–${Math.min(offset + limit, total)}` : ''}.
    </p>
    ${bulkForm(session, projectId, f, total, langs, grid)}
    ${
      data && data.keys.length && grid
        ? gridTable(
            session,
            projectId,
            data,
            grid,
            project?.data?.baseLang ?? 'en',
            (k) => listedHref(projectId, k),
            `Keys, ${describeFilter(f)}`,
          )
        : data && data.keys.length
          ? html`<table class="keys">
              <caption>
                Keys, ${describeFilter(f)}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Source</th>
                  <th scope="col">${f.lang ? `Translation (${f.lang})` : 'Translations'}</th>
                </tr>
              </thead>
              <tbody>
                ${data.keys.map(
                  (k) =>
                    html`<tr ${k.enabled ? '' : html`class="disabled"`}>
                      <th scope="row">
                        <a href="${listedHref(projectId, k)}">${k.key}</a>
                        ${k.namespace ? html`<span class="tag">${k.namespace}</span>` : ''}
                        ${k.enabled ? '' : html`<span class="tag">disabled</span>`}
                        ${k.captured ? html`<span class="tag">captured</span>` : ''}
                      </th>
                      <td>${sourceCell(k)}</td>
                      <td>${cellsOf(k.cells, f.lang)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>No keys match.</p>`
    }
    <nav class="pages" aria-label="Pages" data-soft>
      ${offset > 0 ? pageLink(Math.max(0, offset - limit), 'Previous page', 'prev') : ''}
      ${offset + limit < total ? pageLink(offset + limit, 'Next page', 'next') : ''}
    </nav>`;
  return htmlReply(h, 200, appPage(session, 'Keys', body, { projectId, section: 'keys' }));
}

async function bulkPost(app: App, server: Hapi.Server, request: Request, h: ResponseToolkit) {
  const projectId = String(request.params.projectId);
  const list = projectPath(projectId, 'keys');
  const session = sessionOf(request);
  const form = formOf(request);
  const f = filterOf(form);
  const grid = gridViewOf(form);
  // The grid's selected rows (their checkboxes `sel-N`, or the confirmation's hidden fields): the action applies to
  // them alone, under the filter.
  const tokens = Object.entries(form)
    .filter(([k, v]) => /^sel-\d{1,3}$/.test(k) && v.length > 0 && v.length <= 255)
    .map(([, v]) => v)
    .slice(0, 200);
  if (tokens.length) f.tokens = tokens;
  // The editor's "Ask the engine" comes back to its key (a path of this project's keys only: never elsewhere).
  const editorBack =
    typeof form.back === 'string' && form.back.startsWith(`${list}/`) && !/[?#]|\/\/|\.\./.test(form.back)
      ? form.back
      : undefined;
  const back = editorBack ?? `${list}${filterQuery({ ...f, tokens: undefined }, gridQuery(grid))}`;
  const action = form.action;
  if (!Object.hasOwn(BULK, action))
    return htmlReply(h, 400, messagePage('Nothing done', 'Choose a bulk action; nothing changed.', session));
  const bulkLang = form.bulkLang && form.bulkLang.length <= 35 ? form.bulkLang : undefined;
  const api = apiFor(server, session);
  const path = { projectId };
  if (form.confirm !== 'yes') {
    // Confirmation first: how many keys the filter matches now and, for the engine's work, what it would cost.
    const r = await listKeys(api, projectId, f, 0, 1);
    if (!r.data) return htmlReply(h, r.response.status, messagePage('Nothing done', messageOf(r.error), session));
    let estimate: Html | string = '';
    if (PAID.has(action)) {
      const dry = await api.POST('/projects/{projectId}/keys/bulk', {
        params: { path },
        body: { filter: f, action: action as PaidAction, lang: bulkLang, dryRun: true },
      });
      if (!dry.data)
        return htmlReply(
          h,
          dry.response.status,
          messagePage('Nothing done', `${messageOf(dry.error)} Nothing changed.`, session),
        );
      estimate = html`<p id="bulk-estimate">
        ${
          dry.data.affected === 0
            ? 'No cell would be queued: nothing matches that the engine could take now.'
            : html`<strong>${dry.data.affected}</strong> ${dry.data.affected === 1 ? 'cell' : 'cells'}${
                  dry.data.fromMemory ? html` (${dry.data.fromMemory} from the translation memory at no charge)` : ''
                },
                estimated at <strong>${credits(dry.data.estimatedCredits ?? 0)} credits</strong>, held until the fill
                ends; ${credits(dry.data.balance ?? 0)} credits would remain available.`
        }
      </p>`;
    }
    const body = html`<h1>${BULK[action].label}?</h1>
      <p id="bulk-summary">
        ${BULK[action].label} for <strong>${r.data.total}</strong> ${r.data.total === 1 ? 'key' : 'keys'}
        (${tokens.length ? `the ${tokens.length} selected, ` : ''}${describeFilter({ ...f, tokens: undefined })})${
          action === 'approve' || action === 'review' || PAID.has(action)
            ? html`, in ${bulkLang ?? f.lang ?? 'every target language'}`
            : ''
        }.
      </p>
      ${estimate}
      <form method="post" action="${projectPath(projectId, 'key-actions')}">
        <input type="hidden" name="csrf" value="${session.csrf}" />
        ${filterFields({ ...f, tokens: undefined })}
        ${tokens.map((t, i) => html`<input type="hidden" name="sel-${i}" value="${t}" />`)}
        ${Object.entries(gridQuery(grid)).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
        <input type="hidden" name="action" value="${action}" />
        ${bulkLang ? html`<input type="hidden" name="bulkLang" value="${bulkLang}" />` : ''}
        ${editorBack ? html`<input type="hidden" name="back" value="${editorBack}" />` : ''}
        <input type="hidden" name="confirm" value="yes" />
        <button type="submit">Confirm: ${BULK[action].label}</button>
        <a href="${back}">Cancel</a>
      </form>`;
    return htmlReply(h, 200, appPage(session, 'Confirm bulk action', body, { projectId, section: 'keys' }));
  }
  const r =
    action === 'approve' || action === 'review'
      ? await api.POST('/projects/{projectId}/keys/bulk-review', {
          params: { path },
          body: { filter: f, action, lang: bulkLang },
        })
      : await api.POST('/projects/{projectId}/keys/bulk', {
          params: { path },
          body: { filter: f, action: action as 'disable' | 'enable' | PaidAction, lang: bulkLang },
        });
  const status = r.response.status;
  if (status === 403)
    return htmlReply(
      h,
      403,
      messagePage(
        'Refused',
        action === 'retranslate' || action === 'translate'
          ? 'Only an owner can send keys to the engine; nothing changed.'
          : 'Only an owner can disable, enable or retry keys; nothing changed.',
        session,
      ),
    );
  if (!r.data)
    return htmlReply(h, status, messagePage('Nothing done', `${messageOf(r.error)} Nothing changed.`, session));
  return redirectWithFlash(app, h, session, back, {
    notice: `${r.data.affected} ${BULK[action].done}.`,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The editor.

function verdictList(gate: Verdict, warnings: string[]): Html {
  const items = [
    gate.icu ? html`<li class="error">ICU: ${gate.icu}</li>` : '',
    gate.markup ? html`<li class="error">Markup: ${gate.markup}</li>` : '',
    ...warnings.map((w) => html`<li class="warn">Format warning: ${w}</li>`),
  ];
  if (!gate.icu && !gate.markup && !warnings.length) return html`<p class="ok">The gates accept this value.</p>`;
  return html`<ul class="verdicts">
    ${items}
  </ul>`;
}

function previewHtml(value: string, lang: string): Html {
  const p = previewMessage(value, lang);
  if ('error' in p) return html`<p class="error">${p.error}</p>`;
  return html`<dl class="preview-lines">
    ${p.lines.map(
      (l) =>
        html`<dt>${l.label || 'Text'}</dt>
          <dd>${l.text}</dd>`,
    )}
  </dl>`;
}

interface Draft {
  lang: string;
  value: string;
  status: string;
  /** The cell's `updatedAt` the edit started from ('' for a cell with no row), kept across Check. */
  base?: string;
  gate?: Verdict;
  warnings?: string[];
  /** The quality checks' results on the draft (internalCheckTranslation). */
  checks?: components['schemas']['CheckResult'][];
  error?: string;
  /** The cell as another save left it since `base`: the save was refused, the person chooses. */
  theirs?: CellNow;
}

/** The version an edit is based on, as the form carries it: '' is a cell that had no row. */
const baseField = (c: DetailCell) => c.updatedAt ?? '';

/**
 * Another save changed the cell since the person opened it: both values side by side, and the choice. Keeping
 * theirs reloads the editor; saving mine again is based on their version, so it replaces exactly what is shown.
 */
function conflictPanel(s: Session, action: string, draft: Draft, theirs: CellNow): Html {
  const who = theirs.byName ?? theirs.by ?? 'someone';
  return html`<div class="conflict" role="alert">
    <p class="error">
      This translation changed since you opened it (${who},
      ${
        theirs.updatedAt
          ? html`<time datetime="${theirs.updatedAt}">${theirs.updatedAt.slice(0, 19).replace('T', ' ')} UTC</time>`
          : 'just now'
      });
      nothing was saved.
    </p>
    <dl class="conflict-values">
      <dt>Theirs (${theirs.status})</dt>
      <dd class="theirs">${theirs.value ?? ''}</dd>
      <dt>Yours (${draft.status})</dt>
      <dd class="yours">${draft.value}</dd>
    </dl>
    <form method="post" action="${action}" class="inline">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <input type="hidden" name="lang" value="${draft.lang}" />
      <input type="hidden" name="value" value="${draft.value}" />
      <input type="hidden" name="status" value="${draft.status}" />
      <input type="hidden" name="base" value="${theirs.updatedAt ?? ''}" />
      <button type="submit" name="do" value="save">Overwrite with mine</button>
      <button type="submit" name="do" value="keep">Keep theirs</button>
    </form>
  </div>`;
}

/**
 * The source changed after this value was written (server/domain/catalog/outdated.ts): the source it was written for
 * beside the current one, with what changed. Saving or approving the value confirms it for the new source.
 */
function outdatedPanel(d: Detail, c: DetailCell): Html {
  return html`<div class="outdated" role="note">
    <p class="warn">
      Outdated: the source changed after this translation was written. It is still served, and counts as not done until
      you save or approve it for the new source, or re-translate it (Keys, status outdated).
    </p>
    <dl class="outdated-sources">
      <dt>Source then</dt>
      <dd class="source-then">${c.outdatedSource ?? '(not recorded)'}</dd>
      <dt>Source now</dt>
      <dd class="source-now">${d.source}</dd>
      ${
        c.outdatedSource != null
          ? html`<dt>What changed</dt>
              <dd class="diff">${diffHtml(c.outdatedSource, d.source)}</dd>`
          : ''
      }
    </dl>
  </div>`;
}

/**
 * The value a re-translation took out of the cell (its history row of status `outdated`, the newest one), offered
 * while the cell holds something else: a person may judge it still fits the new source and use it again.
 */
function retiredCandidate(s: Session, action: string, d: Detail, c: DetailCell): Html {
  const retired = d.history.find((h) => h.lang === c.lang && h.status === 'outdated');
  if (!retired?.value || retired.value === c.value) return html``;
  return html`<div class="candidate" role="note">
    <p>Translation before the source changed (candidate): <q class="retired">${retired.value}</q></p>
    <form method="post" action="${action}" class="inline">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <input type="hidden" name="lang" value="${c.lang}" />
      <input type="hidden" name="value" value="${retired.value}" />
      <input type="hidden" name="status" value="translated" />
      <input type="hidden" name="base" value="${baseField(c)}" />
      <button type="submit" name="do" value="save">Use the earlier ${c.lang} translation</button>
    </form>
  </div>`;
}

/** Matches shown beside each cell, and the keys (Alt+1 … Alt+5 in its field) that use one. */
const SUGGESTIONS = 5;

/**
 * The translation memory's matches for the cell (internalMemorySuggestions): score, source, target, origin and
 * status, project. "Use" puts the match in the field without saving: with dashboard.js at once (or Alt+1 … in the
 * field), without it as a Check of that value, which shows the page again with it in the field. The person saves.
 */
function suggestionsOf(s: Session, projectId: string, d: Detail, c: DetailCell, draft: Draft | undefined): Html {
  const matches = d.suggestions?.get(c.lang) ?? [];
  if (!matches.length) return html``;
  const id = `cell-${c.lang}`;
  const status = draft?.status || ((REVIEW_STATES as readonly string[]).includes(c.status) ? c.status : 'translated');
  return html`<section class="suggestions" aria-labelledby="${id}-tm-h">
    <h3 id="${id}-tm-h">Memory suggestions</h3>
    <p class="hint">
      Use puts a match in the field (in the field, Alt+1 uses the first); nothing is saved until you save.
    </p>
    <table>
      <caption class="visually-hidden">
        Translation memory matches for ${c.lang}, best first
      </caption>
      <thead>
        <tr>
          <th scope="col">Score</th>
          <th scope="col">Source</th>
          <th scope="col">Translation</th>
          <th scope="col">Origin</th>
          <th scope="col">Project</th>
          <th scope="col">Use</th>
        </tr>
      </thead>
      <tbody>
        ${matches.map(
          (m, i) =>
            html`<tr>
              <td>${m.score}%</td>
              <td class="tm-source">${m.source}${m.ctx ? html` <small>(${m.ctx})</small>` : ''}</td>
              <td class="tm-target" id="${id}-tm-${i}" lang="${c.lang}">${m.target}</td>
              <td>${ORIGINS[m.origin] ?? m.origin}, ${m.status}</td>
              <td>
                ${m.project === projectId ? 'this project' : (m.project ?? 'workspace')}${m.key ? html` <code>${m.key}</code>` : ''}
              </td>
              <td>
                <form method="post" action="${keyHref(projectId, d.key)}">
                  <input type="hidden" name="csrf" value="${s.csrf}" />
                  <input type="hidden" name="lang" value="${c.lang}" />
                  <input type="hidden" name="base" value="${draft?.base ?? baseField(c)}" />
                  <input type="hidden" name="status" value="${status}" />
                  <input type="hidden" name="value" value="${m.target}" />
                  <button
                    type="submit"
                    name="do"
                    value="check"
                    data-use="${id}-value"
                    data-use-index="${i + 1}"
                    aria-label="Use match ${i + 1} (${m.score}%) for ${c.lang}"
                  >
                    Use
                  </button>
                </form>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

/**
 * An owner's way to send a cell without a value to the engine: the bulk action `translate` on this key and language,
 * which shows its estimate before anything is held, and comes back here.
 */
function askEngine(s: Session, projectId: string, d: Detail, c: DetailCell): Html {
  if (roleOf(s) !== 'owner' || c.value != null || !d.enabled) return html``;
  return html`<form method="post" action="${projectPath(projectId, 'key-actions')}" class="inline">
    <input type="hidden" name="csrf" value="${s.csrf}" />
    <input type="hidden" name="action" value="translate" />
    <input type="hidden" name="sel-0" value="${d.token}" />
    <input type="hidden" name="bulkLang" value="${c.lang}" />
    <input type="hidden" name="back" value="${keyHref(projectId, d.namespace ? d.token : d.key)}" />
    <button type="submit">Ask the engine for ${c.lang}…</button>
  </form>`;
}

function cellSection(
  s: Session,
  projectId: string,
  d: Detail,
  c: DetailCell,
  draft: Draft | undefined,
  asked?: Asked,
): Html {
  const id = `cell-${c.lang}`;
  const value = draft?.value ?? c.value ?? '';
  const status = d.translatorLangs
    ? 'translated'
    : draft?.status || ((REVIEW_STATES as readonly string[]).includes(c.status) ? c.status : 'translated');
  const action = keyHref(projectId, d.key);
  const gate = draft?.gate ?? (c.value != null ? c.gate : undefined);
  const warnings = draft?.warnings ?? c.formatWarnings;
  const branching = branchingOf(d.source, c.lang, value);
  // A translator saves only in their languages, and only as translated (spec internalPutTranslation).
  if (d.translatorLangs && !d.translatorLangs.includes(c.lang))
    return html`<section class="cell" id="${id}" aria-labelledby="${id}-h">
      <h2 id="${id}-h">${c.lang} ${cellBadge(c)}</h2>
      <p class="hint">You do not translate ${c.lang} in this project: shown for reference.</p>
      <p class="read-only" ${langAttrs(c.lang)}>${c.value ?? html`<em lang="en" dir="ltr">No value yet.</em>`}</p>
    </section>`;
  const states = d.translatorLangs ? (['translated'] as const) : REVIEW_STATES;
  return html`<section class="cell" id="${id}" aria-labelledby="${id}-h">
    <h2 id="${id}-h">${c.lang} ${cellBadge(c)}</h2>
    ${c.failed ? html`<p class="error">The last fill failed: ${c.failed}</p>` : ''} ${askEngine(s, projectId, d, c)}
    ${c.conflictValue != null ? html`<p class="warn">A sync kept this file value out: <q>${c.conflictValue}</q></p>` : ''}
    ${c.outdated ? outdatedPanel(d, c) : retiredCandidate(s, action, d, c)}
    ${draft?.error ? html`<p class="error" role="alert">${draft.error}</p>` : ''}
    ${draft?.theirs ? conflictPanel(s, action, draft, draft.theirs) : ''}
    <form method="post" action="${action}" class="editor">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <input type="hidden" name="lang" value="${c.lang}" />
      <input type="hidden" name="base" value="${draft?.base ?? baseField(c)}" />
      ${
        branching
          ? html`<input type="hidden" name="shown" value="${value}" />
              ${branchFields(id, c.lang, d.baseLang, branching, value)}`
          : ''
      }
      <p>
        <label for="${id}-value">Translation (${c.lang})</label>${
          branching
            ? html` <small class="hint" id="${id}-raw-hint"
                >raw ICU: the fields above write it, and what you type here is what is saved</small
              >`
            : ''
        }
        <textarea
          id="${id}-value"
          name="value"
          ${langAttrs(c.lang)}
          rows="4"
          data-preview="${action}/preview?lang=${encodeURIComponent(c.lang)}"
          data-preview-target="${id}-preview"
        >
${value}</textarea>
      </p>
      <p>
        <label for="${id}-status">Status</label>
        <select id="${id}-status" name="status">
          ${states.map((st) => html`<option value="${st}" ${st === status ? html`selected` : ''}>${st}</option>`)}
        </select>
        <button type="submit" name="do" value="check">Check</button>
        <button type="submit" name="do" value="save">Save</button>
      </p>
      <div class="verdict" aria-live="polite">
        ${
          gate
            ? html`<h3>Gate verdicts</h3>
                ${verdictList(gate, warnings)}`
            : ''
        }
      </div>
    </form>
    ${
      (draft ? draft.checks : c.checks)?.length
        ? html`<h3>Checks</h3>
            ${checkResults(draft ? draft.checks : c.checks, { target: value, source: d.source, key: d.key })}`
        : ''
    }
    ${d.enabled ? suggestPanel(s, projectId, d.namespace ? d.token : d.key, { lang: c.lang, status, base: draft?.base ?? baseField(c) }, asked) : ''}
    ${suggestionsOf(s, projectId, d, c, draft)}
    <h3 id="${id}-preview-h">Preview</h3>
    <div id="${id}-preview" class="preview" aria-labelledby="${id}-preview-h" aria-live="polite">
      ${value ? previewHtml(value, c.lang) : html`<p>No value yet.</p>`}
    </div>
  </section>`;
}

function historySection(s: Session, projectId: string, d: Detail): Html {
  if (!d.history.length)
    return html`<h2>History</h2>
      <p>No changes recorded yet.</p>`;
  // Each row's diff is against the previous value of the same language (rows are newest first).
  const previous = new Map<number, string | null>();
  const last = new Map<string, number>();
  for (let i = d.history.length - 1; i >= 0; i--) {
    const h = d.history[i];
    const before = last.get(h.lang);
    previous.set(i, before === undefined ? null : d.history[before].value);
    last.set(h.lang, i);
  }
  const action = keyHref(projectId, d.key);
  return html`<h2>History</h2>
    <table class="history">
      <caption>
        Every value and status change, newest first
      </caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Language</th>
          <th scope="col">Who</th>
          <th scope="col">Status</th>
          <th scope="col">Change</th>
          <th scope="col">Revert</th>
        </tr>
      </thead>
      <tbody>
        ${d.history.map((h, i) => {
          const cell = d.cells.find((c) => c.lang === h.lang);
          const current = cell?.value;
          return html`<tr>
            <td><time datetime="${h.at}">${h.at.slice(0, 19).replace('T', ' ')} UTC</time></td>
            <td>${h.lang}</td>
            <td>${h.byName ?? h.by}</td>
            <td>${h.status}</td>
            <td class="diff">${diffHtml(previous.get(i) ?? null, h.value)}</td>
            <td>
              ${
                h.value != null && h.value !== current
                  ? html`<form method="post" action="${action}">
                      <input type="hidden" name="csrf" value="${s.csrf}" />
                      <input type="hidden" name="lang" value="${h.lang}" />
                      <input type="hidden" name="value" value="${h.value}" />
                      <input type="hidden" name="status" value="translated" />
                      ${cell ? html`<input type="hidden" name="base" value="${baseField(cell)}" />` : ''}
                      <button type="submit" name="do" value="save" aria-label="Revert ${h.lang} to this value">
                        Revert
                      </button>
                    </form>`
                  : ''
              }
            </td>
          </tr>`;
        })}
      </tbody>
    </table>`;
}

/** A source edit the person typed, shown again when it was refused (nothing typed is lost). */
interface SourceDraft {
  value: string;
  copyEdit: boolean;
  error: string;
  /** The source another edit left since the page was opened: saving again replaces it knowingly. */
  current?: string;
}

/**
 * The owner's source tools: mark the source verified, and edit it (internalUpdateKey `source`). A plural key's
 * sources come from pushes and syncs, so it gets no edit form.
 */
function sourceTools(s: Session, projectId: string, d: Detail, sd?: SourceDraft): Html {
  if (roleOf(s) !== 'owner') return html``;
  const action = `${keyHref(projectId, d.namespace ? d.token : d.key)}/source`;
  const verify = d.sourceVerified
    ? ''
    : html`<form method="post" action="${action}" class="inline">
        <input type="hidden" name="csrf" value="${s.csrf}" />
        <button type="submit" name="do" value="verify">Mark the source verified</button>
      </form>`;
  if (d.forms) return html`${verify}`;
  return html`${verify}
    <details class="source-edit" ${sd ? 'open' : ''}>
      <summary>Edit the source</summary>
      ${sd ? html`<p class="error" role="alert">${sd.error}</p>` : ''}
      ${
        sd?.current !== undefined
          ? html`<dl class="conflict-values">
              <dt>The source now</dt>
              <dd class="theirs">${sd.current}</dd>
            </dl>`
          : ''
      }
      <form method="post" action="${action}">
        <input type="hidden" name="csrf" value="${s.csrf}" />
        <input type="hidden" name="base" value="${sd?.current ?? d.source}" />
        <label for="source-text">Source (${d.baseLang})</label>
        <textarea id="source-text" name="source" rows="3" maxlength="5000" required ${langAttrs(d.baseLang)}>
${sd?.value ?? d.source}</textarea>
        <p>
          <input type="checkbox" id="source-copy-edit" name="copyEdit" value="on" ${sd?.copyEdit ? 'checked' : ''} />
          <label for="source-copy-edit">Copy edit: a typo or style fix, the translations still fit</label>
        </p>
        <p class="hint">
          Otherwise every translation of the key is marked outdated: still served, but not done until someone confirms
          it or it is translated again.
        </p>
        <button type="submit" name="do" value="edit">Save the source</button>
      </form>
    </details>`;
}

function editorPage(
  s: Session,
  projectId: string,
  d: Detail,
  draft?: Draft,
  flashes: Flash[] = [],
  sourceDraft?: SourceDraft,
  /** A refused comment or screenshot upload, shown in its section. */
  aside: { comment?: CommentDraft; screenshotError?: string; asked?: Asked } = {},
): string {
  const keyRef = d.namespace ? d.token : d.key;
  // A suggestion the engine made (from the post's flash), or one being estimated, shown in its cell.
  const made = flashes.find((f) => f.suggestion)?.suggestion;
  const askedOf = (lang: string): Asked | undefined =>
    aside.asked?.answer.lang === lang
      ? aside.asked
      : made?.lang === lang
        ? { kind: 'result', answer: made }
        : undefined;
  const body = html`<p><a href="${projectPath(projectId, 'keys')}">All keys</a></p>
    <h1>
      Key <code>${d.key}</code>${d.namespace ? html` <small>in namespace <code>${d.namespace}</code></small>` : ''}
    </h1>
    <dl>
      <dt>Source (${d.baseLang})</dt>
      ${d.sourceTerms ?? html`<dd class="source">${d.source}</dd>`}
      ${
        d.sourceChecks?.length
          ? html`<dt>Source checks</dt>
              <dd class="source-checks">${checkResults(d.sourceChecks, { source: d.source, key: d.key })}</dd>`
          : ''
      }
      ${
        d.ctx
          ? html`<dt>Context</dt>
              <dd class="ctx">${d.ctx}</dd>`
          : ''
      }
      ${
        d.comment
          ? html`<dt>Note to translators</dt>
              <dd class="key-comment">${d.comment}</dd>`
          : ''
      }
      ${
        d.maxLength
          ? html`<dt>Character limit</dt>
              <dd class="char-limit">
                ${d.maxLength} characters as the reader sees them (a placeholder counts as one; each plural form must
                fit)
              </dd>`
          : ''
      }
      <dt>State</dt>
      <dd>
        ${d.enabled ? 'enabled' : 'disabled'}; source
        ${d.sourceVerified ? 'verified' : 'not verified'}${d.captured ? '; captured, awaiting review' : ''}
      </dd>
    </dl>
    ${sourceTools(s, projectId, d, sourceDraft)}
    ${flashes.map((f) => (f.notice ? html`<p class="notice" role="status">${f.notice}</p>` : ''))}
    ${d.cells.map((c) => cellSection(s, projectId, d, c, draft?.lang === c.lang ? draft : undefined, askedOf(c.lang)))}
    ${screenshotsSection(s, projectId, keyRef, d.screenshots ?? [], aside.screenshotError)}
    ${historySection(s, projectId, d)} ${commentsSection(s, projectId, keyRef, d.comments ?? [], aside.comment)}`;
  return appPage(s, `Key ${d.key}`, body, { projectId, section: 'keys' });
}

async function loadKey(api: Api, projectId: string, key: string): Promise<Detail | undefined> {
  const r = await api.GET('/projects/{projectId}/keys/{key}', { params: { path: { projectId, key } } });
  if (r.response.status === 404) return undefined;
  if (!r.data) throw new Error(`internal API: ${r.response.status}`);
  const d = r.data;
  const [terms, suggestions, comments, screenshots] = await Promise.all([
    sourceTerms(api, projectId, d.source),
    memoryMatches(api, projectId, d),
    commentsOf(api, projectId, key),
    screenshotsOf(api, projectId, key),
  ]);
  return { ...d, sourceTerms: terms, suggestions, comments, screenshots };
}

/**
 * The memory's matches of the key's source in each of its languages, but the cell's own entry (the value it
 * holds). A source the route does not take (over 5,000 characters) or a refusal shows none: the editor works
 * without them.
 */
async function memoryMatches(api: Api, projectId: string, d: components['schemas']['KeyDetail']) {
  const out = new Map<string, Suggestion[]>();
  if (!d.source || d.source.length > 5000) return out;
  await Promise.all(
    d.cells.map(async (c) => {
      const r = await api.GET('/projects/{projectId}/memory', {
        params: {
          path: { projectId },
          query: {
            lang: c.lang,
            source: d.source,
            key: d.key,
            limit: SUGGESTIONS + 1,
            ...(d.ctx ? { ctx: d.ctx } : {}),
          },
        },
      });
      const own = (m: Suggestion) => m.project === projectId && m.key === d.key;
      if (r.data) out.set(c.lang, r.data.matches.filter((m) => !own(m)).slice(0, SUGGESTIONS));
    }),
  );
  return out;
}

async function editorGet(app: App, server: Hapi.Server, request: Request, h: ResponseToolkit) {
  const projectId = String(request.params.projectId);
  const key = String(request.params.key);
  const session = sessionOf(request);
  const d = await loadKey(apiFor(server, session), projectId, key);
  if (!d) return htmlReply(h, 404, messagePage('Key not found', 'There is no key of this name.', session));
  // What a save or a settled conflict did comes from the session's flash, never from the URL.
  const flashes = await takeFlashes(app, session, keyHref(projectId, key));
  return htmlReply(h, 200, editorPage(session, projectId, d, undefined, flashes));
}

/** The owner's source tools: `do=verify` marks the source verified, `do=edit` saves a new source. */
async function sourcePost(app: App, server: Hapi.Server, request: Request, h: ResponseToolkit) {
  const projectId = String(request.params.projectId);
  const ref = String(request.params.key);
  const session = sessionOf(request);
  const form = formOf(request);
  const api = apiFor(server, session);
  const d = await loadKey(api, projectId, ref);
  if (!d) return htmlReply(h, 404, messagePage('Key not found', 'There is no key of this name.', session));
  const path = { projectId, key: ref };
  if (form.do === 'verify') {
    const r = await api.PATCH('/projects/{projectId}/keys/{key}', { params: { path }, body: { sourceVerified: true } });
    if (!r.data)
      return htmlReply(
        h,
        r.response.status,
        messagePage('Nothing done', `${messageOf(r.error)} Nothing changed.`, session),
      );
    return redirectWithFlash(app, h, session, keyHref(projectId, ref), { notice: 'The source is marked verified.' });
  }
  const source = typeof form.source === 'string' ? form.source.replace(/\r\n?/g, '\n') : '';
  const sd: SourceDraft = { value: source, copyEdit: form.copyEdit === 'on', error: '' };
  const again = (code: number, error: string, current?: string) =>
    htmlReply(h, code, editorPage(session, projectId, d, undefined, [], { ...sd, error, current }));
  if (form.do !== 'edit' || typeof form.base !== 'string')
    return htmlReply(h, 400, messagePage('Nothing saved', 'The form was incomplete; nothing changed.', session));
  if (!source.trim()) return again(400, 'A source cannot be empty; nothing was saved.');
  const r = await api.PATCH('/projects/{projectId}/keys/{key}', {
    params: { path },
    body: { source, copyEdit: sd.copyEdit, sourceBase: form.base },
  });
  if (r.response.status === 409 && r.error && 'currentSource' in r.error && typeof r.error.currentSource === 'string')
    return again(
      409,
      'The source changed since you opened the page (it now says what is shown below); yours was not saved. Save again to replace it.',
      r.error.currentSource,
    );
  if (!r.data) return again(r.response.status, `${messageOf(r.error)}`);
  const queued =
    r.data.queued === false
      ? ' The engine could not be asked again now (credits); those cells wait for the next fill.'
      : '';
  const notice =
    sd.copyEdit || !r.data.outdated
      ? 'The source is saved; the translations still fit.'
      : `The source is saved; ${r.data.outdated} ${r.data.outdated === 1 ? 'translation is' : 'translations are'} marked outdated.${queued}`;
  return redirectWithFlash(app, h, session, keyHref(projectId, d.namespace ? r.data.token! : d.key), { notice });
}

async function editorPost(app: App, server: Hapi.Server, request: Request, h: ResponseToolkit) {
  const projectId = String(request.params.projectId);
  const key = String(request.params.key);
  const here = keyHref(projectId, key);
  const session = sessionOf(request);
  const form = formOf(request);
  const api = apiFor(server, session);
  const d = await loadKey(api, projectId, key);
  if (!d) return htmlReply(h, 404, messagePage('Key not found', 'There is no key of this name.', session));
  const cell = d.cells.find((c) => c.lang === form.lang);
  // Keep theirs, after a conflict: nothing to write, only the editor again with what it shows now.
  if (form.do === 'keep' && cell)
    return redirectWithFlash(app, h, session, `${here}#cell-${encodeURIComponent(cell.lang)}`, {
      notice: 'Kept the current value; yours was not saved.',
    });
  const status = (REVIEW_STATES as readonly string[]).includes(form.status) ? form.status : undefined;
  if (!cell || !status || typeof form.value !== 'string')
    return htmlReply(h, 400, messagePage('Nothing saved', 'The form was incomplete; nothing changed.', session));
  const value = valueOfForm(d.source, cell.lang, form);
  // The version the page showed; a form without one (an older page) saves as before, over whatever is there.
  const base = typeof form.base === 'string' ? form.base : undefined;
  if (base !== undefined && base !== '' && Number.isNaN(Date.parse(base)))
    return htmlReply(h, 400, messagePage('Nothing saved', 'The form was incomplete; nothing changed.', session));
  const draft: Draft = { lang: cell.lang, value, status, base };
  const again = (code: number) => htmlReply(h, code, editorPage(session, projectId, d, draft));
  if (!value) {
    draft.error = 'A translation cannot be empty; nothing was saved.';
    return again(400);
  }
  const checked = await api.POST('/projects/{projectId}/keys/{key}/check', {
    params: { path: { projectId, key } },
    body: { lang: cell.lang, value },
  });
  if (!checked.data) {
    draft.error = `${messageOf(checked.error)} Nothing was saved.`;
    return again(checked.response.status);
  }
  draft.gate = checked.data.gate;
  draft.warnings = checked.data.formatWarnings;
  draft.checks = checked.data.checks;
  if (form.do === 'check') return again(200);
  if (form.do !== 'save') {
    draft.error = 'Choose Check or Save; nothing changed.';
    return again(400);
  }
  if (!checked.data.ok) {
    draft.error = 'The gates refuse this value (reasons below); nothing was saved.';
    return again(400);
  }
  const baseUpdatedAt = base === undefined ? {} : { baseUpdatedAt: base === '' ? null : base };
  const body =
    value === cell.value
      ? { status: status as 'translated' | 'reviewed' | 'approved', ...baseUpdatedAt }
      : { value, status: status as 'translated' | 'reviewed' | 'approved', ...baseUpdatedAt };
  const put = await api.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId, key, lang: cell.lang } },
    body,
  });
  if (put.response.status === 403) {
    draft.error = 'Only an owner can change this translation; nothing changed.';
    return again(403);
  }
  if (put.response.status === 409 && put.error && 'current' in put.error) {
    draft.theirs = put.error.current;
    return again(409);
  }
  if (!put.data) {
    draft.error = `${messageOf(put.error)} Nothing was saved.`;
    return again(put.response.status);
  }
  return redirectWithFlash(app, h, session, `${here}#cell-${encodeURIComponent(cell.lang)}`, {
    notice: `Saved (${cell.lang}).`,
  });
}

/**
 * The value a save or a check posted: the raw field, or, when the page showed fields per branch and the raw field
 * is as shown while the fields changed (a browser without script), the message the fields make.
 */
function valueOfForm(source: string, lang: string, form: Record<string, string>): string {
  const raw = form.value.replace(/\r\n/g, '\n');
  if (typeof form.shown !== 'string') return raw;
  const shown = form.shown.replace(/\r\n/g, '\n');
  const b = branchingOf(source, lang, shown);
  if (!b || raw !== shown) return raw;
  const posted = postedBranches(b, form);
  const before = valueBranches(b, shown) ?? {};
  const same = b.keys.every((k) => (posted[k] ?? '') === (before[k] ?? ''));
  return same ? raw : branchMessage(b, posted);
}

/** The preview alone, for dashboard.js to refresh while the person types (same-origin GET, session required). */
function previewGet(request: Request, h: ResponseToolkit) {
  const q = request.query as Record<string, unknown>;
  const lang = typeof q.lang === 'string' && q.lang.length <= 35 ? q.lang : '';
  const value = typeof q.value === 'string' ? q.value.slice(0, 20_000) : '';
  if (!lang) return htmlReply(h, 400, '');
  return htmlReply(h, 200, (value ? previewHtml(value, lang) : html`<p>No value yet.</p>`).text);
}

// ---------------------------------------------------------------------------------------------------------------
// Captured keys.

async function capturedGet(app: App, server: Hapi.Server, request: Request, h: ResponseToolkit) {
  const projectId = String(request.params.projectId);
  const here = projectPath(projectId, 'captured');
  const session = sessionOf(request);
  const query = request.query as Record<string, unknown>;
  const offset = typeof query.offset === 'string' && /^\d{1,9}$/.test(query.offset) ? Number(query.offset) : 0;
  const r = await listKeys(apiFor(server, session), projectId, { captured: true, disabled: false }, offset, 100);
  if (r.response.status === 404) return htmlReply(h, 404, messagePage('Not found', 'No such project.', session));
  if (!r.data) throw new Error(`internal API: ${r.response.status}`);
  const notice = (await takeFlashes(app, session, here)).map((f) =>
    f.notice ? html`<p class="notice" role="status">${f.notice}</p>` : '',
  );
  const keys = r.data.keys;
  const body = html`<h1>Captured keys</h1>
    <p>
      Strings a runtime SDK showed untranslated. Accept one to make it a normal key (published, translated by the next
      push or a retry), or dismiss it (it is switched off and not captured again).
    </p>
    ${notice}
    <p role="status">${r.data.total} captured ${r.data.total === 1 ? 'key awaits' : 'keys await'} review.</p>
    ${
      keys.length
        ? html`<form method="post" action="${here}">
            <input type="hidden" name="csrf" value="${session.csrf}" />
            <table class="captured">
              <caption>
                Captured keys awaiting review
              </caption>
              <thead>
                <tr>
                  <th scope="col">Select</th>
                  <th scope="col">Key</th>
                  <th scope="col">Source</th>
                  <th scope="col">Context</th>
                </tr>
              </thead>
              <tbody>
                ${keys.map(
                  (k, i) =>
                    html`<tr>
                      <td>
                        <input type="checkbox" id="cap-${i}" name="key-${i}" value="${k.key}" />
                        <label for="cap-${i}" class="visually-hidden">Select ${k.key}</label>
                      </td>
                      <th scope="row"><a href="${listedHref(projectId, k)}">${k.key}</a></th>
                      <td class="source">${k.source}</td>
                      <td>${k.ctx ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
            <p>
              <button type="submit" name="action" value="accept">Accept selected</button>
              <button type="submit" name="action" value="dismiss">Dismiss selected</button>
            </p>
          </form>`
        : html`<p>Nothing to review.</p>`
    }
    ${
      offset + 100 < r.data.total
        ? html`<nav class="pages" aria-label="Pages">
            <a rel="next" href="${here}?offset=${offset + 100}">Next page</a>
          </nav>`
        : ''
    }`;
  return htmlReply(h, 200, appPage(session, 'Captured keys', body, { projectId, section: 'captured' }));
}

async function capturedPost(app: App, server: Hapi.Server, request: Request, h: ResponseToolkit) {
  const projectId = String(request.params.projectId);
  const here = projectPath(projectId, 'captured');
  const session = sessionOf(request);
  const form = formOf(request);
  const action = form.action;
  const keys = Object.entries(form)
    .filter(([k, v]) => /^key-\d{1,3}$/.test(k) && v.length > 0 && v.length <= 255)
    .map(([, v]) => v)
    .slice(0, 200);
  if ((action !== 'accept' && action !== 'dismiss') || !keys.length)
    return htmlReply(h, 400, messagePage('Nothing done', 'Select keys and choose Accept or Dismiss.', session));
  const r = await apiFor(server, session).POST('/projects/{projectId}/captured', {
    params: { path: { projectId } },
    body: { action, keys },
  });
  if (r.response.status === 403)
    return htmlReply(
      h,
      403,
      messagePage('Refused', 'Only an owner can review captured keys; nothing changed.', session),
    );
  if (!r.data) return htmlReply(h, r.response.status, messagePage('Nothing done', messageOf(r.error), session));
  return redirectWithFlash(app, h, session, here, {
    notice: `${r.data.affected} ${action === 'accept' ? 'accepted' : 'dismissed'}.`,
  });
}

export function keyRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const pid = (r: Request) => String(r.params.projectId);
  const editor = (r: Request) => keyHref(pid(r), String(r.params.key));
  const captured = (r: Request) => projectPath(pid(r), 'captured');
  const commentsAgain = async (session: Session, projectId: string, key: string, draft: CommentDraft) => {
    const d = await loadKey(apiFor(server, session), projectId, key);
    return d && editorPage(session, projectId, d, undefined, [], undefined, { comment: draft });
  };
  const screenshotsAgain = async (session: Session, projectId: string, key: string, screenshotError: string) => {
    const d = await loadKey(apiFor(server, session), projectId, key);
    return d && editorPage(session, projectId, d, undefined, [], undefined, { screenshotError });
  };
  const suggestAgain = async (session: Session, projectId: string, key: string, asked: Asked) => {
    const d = await loadKey(apiFor(server, session), projectId, key);
    return d && editorPage(session, projectId, d, undefined, [], undefined, { asked });
  };
  return [
    ...commentRoutes(app, server, commentsAgain),
    ...screenshotRoutes(app, server, screenshotsAgain),
    ...suggestRoutes(app, server, suggestAgain),
    {
      method: 'GET',
      path: '/projects/{projectId}/keys',
      options: signedIn((r) => projectPath(pid(r), 'keys') + (r.url.search ?? '')),
      handler: (r, h) => keysPage(app, server, r, h),
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/key-actions',
      options: signedIn((r) => projectPath(pid(r), 'keys')),
      handler: (r, h) => bulkPost(app, server, r, h),
    },
    {
      method: 'GET',
      path: '/projects/{projectId}/keys/{key}',
      options: signedIn(editor),
      handler: (r, h) => editorGet(app, server, r, h),
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/keys/{key}',
      options: signedIn(editor),
      handler: (r, h) => editorPost(app, server, r, h),
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/keys/{key}/source',
      options: signedIn(editor, { owners: 'edit or verify sources; nothing changed' }),
      handler: (r, h) => sourcePost(app, server, r, h),
    },
    {
      method: 'GET',
      path: '/projects/{projectId}/keys/{key}/preview',
      options: signedIn(false),
      handler: (r, h) => previewGet(r, h),
    },
    {
      method: 'GET',
      path: '/projects/{projectId}/captured',
      options: signedIn(captured),
      handler: (r, h) => capturedGet(app, server, r, h),
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/captured',
      options: signedIn(captured),
      handler: (r, h) => capturedPost(app, server, r, h),
    },
  ];
}
