// The quality checks in the dashboard (docs/guides/checks.md): the results shown beside a cell or a source with the
// offending part of the text marked (their spans), and the project's check settings page
// (`/projects/{projectId}/checks`): a severity per check, for the project or for one language, the expansion factor,
// the project's own regular-expression checks and whether a publish leaves out the cells with errors. Every field is
// a native control, so the page is used with the keyboard as with a mouse. Data from the internal API only
// (internalGetCheckSettings, internalPutCheckSettings, internalListKeys' totals); a reviewer reads, an owner saves
// (the API refuses a reviewer's save: 403).
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import { CATALOGUE } from '../../packages/core/src/checks/index.js';
import type { App } from '../infra/app.js';
import type { Session } from '../domain/users/sessions.js';
import { apiFor, type Api } from './api.js';
import { sessionOf, signedIn } from './auth.js';
import { redirectWithFlash, takeFlashes } from './flash.js';
import { apiMessage, csrfField, dataOf } from './forms.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import { formOf, htmlReply, messagePage } from './web.js';
import { roleOf } from './project-role.js';

type Result = components['schemas']['CheckResult'];
type Settings = components['schemas']['CheckSettings'];
type Custom = components['schemas']['CustomCheck'];
type Severity = components['schemas']['CheckSeverity'];

const SEVERITIES: Severity[] = ['error', 'warning', 'info'];

// ---------------------------------------------------------------------------------------------------------------
// Results beside a cell.

/** `text` with the `spans` marked (`<mark>`), overlapping spans merged; out-of-range offsets are clamped. */
export function highlighted(text: string, spans: Array<{ start: number; end: number }>): Html {
  const ranges = spans
    .map((s) => [Math.max(0, Math.min(s.start, text.length)), Math.max(0, Math.min(s.end, text.length))] as const)
    .filter(([a, b]) => b > a)
    .sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [a, b] of ranges) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  const out: Html[] = [];
  let at = 0;
  for (const [a, b] of merged) {
    out.push(html`${text.slice(at, a)}<mark>${text.slice(a, b)}</mark>`);
    at = b;
  }
  out.push(html`${text.slice(at)}`);
  return html`${out}`;
}

/**
 * A cell's (or a source's) results: each with its severity, its check and message, and, when it points at characters,
 * the text it is about with them marked. `texts`: the text of each field a result may be about.
 */
export function checkResults(results: Result[] | undefined, texts: Partial<Record<Result['field'], string>>): Html {
  if (!results?.length) return html``;
  return html`<ul class="checks">
    ${results.map((r) => {
      const text = texts[r.field];
      return html`<li data-severity="${r.severity}" data-check="${r.check}">
        <span class="severity" data-severity="${r.severity}">${r.severity}</span>
        <code>${r.check}</code>: ${r.message}
        ${text !== undefined && r.spans?.length ? html`<div class="excerpt">${highlighted(text, r.spans)}</div>` : ''}
      </li>`;
    })}
  </ul>`;
}

/** A check's description as the catalogue writes it, its `code` spans as code. */
function described(text: string): Html {
  return html`${text.split('`').map((part, i) => (i % 2 ? html`<code>${part}</code>` : part))}`;
}

/** Every span of a cell's results, for the value shown once with all of them marked. */
export const allSpans = (results: Result[] | undefined, field: Result['field']) =>
  (results ?? []).filter((r) => r.field === field).flatMap((r) => r.spans ?? []);

/** The catalogue's ids, for the key list's check filter. */
export const CHECK_IDS = CATALOGUE.map((d) => d.id);

// ---------------------------------------------------------------------------------------------------------------
// The settings page.

const here = (projectId: string) => projectPath(projectId, 'checks');

/** What a severity select says for a check in a scope: '' (as the scope above), a severity, or `off`. */
function choiceOf(s: { severity?: Record<string, Severity>; disabled?: string[] } | undefined, id: string): string {
  if (s?.disabled?.includes(id)) return 'off';
  return s?.severity?.[id] ?? '';
}

interface PageState {
  settings: Settings;
  checking: boolean;
  langs: string[];
  baseLang: string;
  /** The scope shown: '' for the project, else a language. */
  lang: string;
  error?: string;
  notice?: string;
  totals: Record<Severity, number>;
  owner: boolean;
}

function settingsPage(s: Session, projectId: string, st: PageState): string {
  const scope = st.lang ? st.settings.languages?.[st.lang] : st.settings;
  const keysWith = (severity: Severity) =>
    html`<a href="${projectPath(projectId, 'keys')}?severity=${severity}"
      >${st.totals[severity]} with ${severity === 'info' ? 'infos' : `${severity}s`}</a
    >`;
  const inherit = st.lang ? 'as the project' : 'default';
  const custom = st.settings.custom ?? [];
  const body = html`<h1>Quality checks</h1>
    ${st.notice ? html`<p class="notice" role="status">${st.notice}</p>` : ''}
    ${st.error ? html`<p class="error" role="alert">${st.error}</p>` : ''}
    ${
      st.checking
        ? html`<p class="warn" id="checking" role="status">
            A re-check of the project after the last change of these settings is under way: some results still follow
            the earlier settings.
          </p>`
        : ''
    }
    <p id="check-totals">Keys: ${keysWith('error')}, ${keysWith('warning')}, ${keysWith('info')}.</p>
    <form method="get" action="${here(projectId)}" class="inline" data-soft>
      <label for="scope">Settings for</label>
      <select id="scope" name="lang">
        <option value="" ${st.lang ? '' : html`selected`}>the project</option>
        ${[st.baseLang, ...st.langs].map(
          (l) =>
            html`<option value="${l}" ${l === st.lang ? html`selected` : ''}>
              ${l === st.baseLang ? `${l} (sources and key names)` : l}
            </option>`,
        )}
      </select>
      <button type="submit">Show</button>
    </form>
    <form method="post" action="${here(projectId)}">
      ${csrfField(s)}
      <input type="hidden" name="scope" value="${st.lang}" />
      <table class="check-settings">
        <caption>
          ${st.lang ? `Severities in ${st.lang} (over the project's)` : 'Severities in every language'}
        </caption>
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">What it holds a text to</th>
            <th scope="col">Default</th>
            <th scope="col">Severity</th>
          </tr>
        </thead>
        <tbody>
          ${CATALOGUE.map((d) => {
            const choice = choiceOf(scope, d.id);
            const options: Array<[string, string]> = [
              ['', inherit],
              ...SEVERITIES.map((v): [string, string] => [v, v]),
              ['off', 'off (not run)'],
            ];
            return html`<tr data-check="${d.id}">
              <th scope="row"><label for="sev-${d.id}">${d.id}</label></th>
              <td>${described(d.description)}</td>
              <td>${d.severity}</td>
              <td>
                <select id="sev-${d.id}" name="sev-${d.id}" ${st.owner ? '' : html`disabled`}>
                  ${options.map(
                    ([v, text]) => html`<option value="${v}" ${v === choice ? html`selected` : ''}>${text}</option>`,
                  )}
                </select>
              </td>
            </tr>`;
          })}
        </tbody>
      </table>
      <p>
        <label for="expansion">Expansion factor (how much longer than its source a translation may be)</label>
        <input
          id="expansion"
          name="expansionFactor"
          type="number"
          min="1"
          max="20"
          step="0.1"
          value="${scope?.expansionFactor ?? ''}"
          placeholder="${st.lang ? inherit : '2.5'}"
          ${st.owner ? '' : html`disabled`}
        />
      </p>
      ${
        st.lang
          ? ''
          : html`<div class="check">
              <input
                id="block-errors"
                name="blockPublishOnErrors"
                type="checkbox"
                value="on"
                ${st.settings.blockPublishOnErrors ? html`checked` : ''}
                ${st.owner ? '' : html`disabled`}
              />
              <label for="block-errors">Publishing leaves out the cells a check reports an error for</label>
            </div>`
      }
      ${st.lang ? '' : customSection(custom, st.owner)}
      ${st.owner ? html`<p><button type="submit">Save settings</button></p>` : html`<p>Only an owner can change these settings.</p>`}
    </form>`;
  return appPage(s, 'Quality checks', body, { projectId, section: 'checks' });
}

function customSection(custom: Custom[], owner: boolean): Html {
  return html`<fieldset>
    <legend>The project's own checks (regular expressions, RE2 syntax)</legend>
    ${
      custom.length
        ? html`<ul class="plain custom-checks">
            ${custom.map(
              (c, i) =>
                html`<li>
                  <code>custom:${c.id}</code> ${c.name}: <code>${c.pattern}</code> (${c.mode}, ${c.severity}, on
                  ${c.on ?? 'target'}${c.languages?.length ? `, ${c.languages.join(', ')}` : ''})
                  <input type="checkbox" id="drop-${i}" name="drop-${i}" value="on" ${owner ? '' : html`disabled`} />
                  <label for="drop-${i}">Remove</label>
                </li>`,
            )}
          </ul>`
        : html`<p>None yet.</p>`
    }
    ${
      owner
        ? html`<div class="filter-grid">
            <p><label for="c-id">New check id</label><input id="c-id" name="c-id" maxlength="40" /></p>
            <p><label for="c-name">Name</label><input id="c-name" name="c-name" maxlength="200" /></p>
            <p><label for="c-pattern">Pattern</label><input id="c-pattern" name="c-pattern" maxlength="1000" /></p>
            <p>
              <label for="c-mode">The text</label>
              <select id="c-mode" name="c-mode">
                <option value="must-not-match">must not match</option>
                <option value="must-match">must match</option>
              </select>
            </p>
            <p>
              <label for="c-severity">Severity</label>
              <select id="c-severity" name="c-severity">
                ${SEVERITIES.map((v) => html`<option value="${v}">${v}</option>`)}
              </select>
            </p>
            <p>
              <label for="c-on">On</label>
              <select id="c-on" name="c-on">
                <option value="target">translations</option>
                <option value="source">sources</option>
              </select>
            </p>
            <p>
              <label for="c-langs">Languages (comma-separated; none: all)</label><input id="c-langs" name="c-langs" />
            </p>
          </div>`
        : ''
    }
  </fieldset>`;
}

/** The settings the form says, over `current` (the scope it does not show is kept as it is). */
function settingsOf(form: Record<string, string>, current: Settings): Settings {
  const lang = form.scope ?? '';
  const severity: Record<string, Severity> = {};
  const disabled: string[] = [];
  for (const d of CATALOGUE) {
    const v = form[`sev-${d.id}`];
    if (v === 'off') disabled.push(d.id);
    else if ((SEVERITIES as string[]).includes(v)) severity[d.id] = v as Severity;
  }
  const factor = form.expansionFactor?.trim() ? Number(form.expansionFactor) : undefined;
  const scope = {
    ...(Object.keys(severity).length ? { severity } : {}),
    ...(disabled.length ? { disabled } : {}),
    ...(factor !== undefined ? { expansionFactor: factor } : {}),
  };
  if (lang) {
    const languages = { ...current.languages, [lang]: scope };
    return { ...current, languages };
  }
  const custom = (current.custom ?? []).filter((_, i) => form[`drop-${i}`] !== 'on');
  if (form['c-id']?.trim() || form['c-pattern']?.trim())
    custom.push({
      id: form['c-id']?.trim() ?? '',
      name: form['c-name']?.trim() || form['c-id']?.trim() || '',
      pattern: form['c-pattern'] ?? '',
      mode: form['c-mode'] === 'must-match' ? 'must-match' : 'must-not-match',
      severity: (SEVERITIES as string[]).includes(form['c-severity']) ? (form['c-severity'] as Severity) : 'warning',
      ...(form['c-on'] === 'source' ? { on: 'source' as const } : {}),
      ...(form['c-langs']?.trim()
        ? {
            languages: form['c-langs']
              .split(',')
              .map((l) => l.trim())
              .filter(Boolean),
          }
        : {}),
    });
  const { severity: _s, disabled: _d, expansionFactor: _e, custom: _c, blockPublishOnErrors: _b, ...rest } = current;
  return {
    ...rest,
    ...scope,
    ...(custom.length ? { custom } : {}),
    ...(form.blockPublishOnErrors === 'on' ? { blockPublishOnErrors: true } : {}),
  };
}

async function pageState(api: Api, s: Session, projectId: string, lang: string) {
  const project = await api.GET('/projects/{projectId}', { params: { path: { projectId } } });
  if (project.response.status === 404) return null;
  const p = dataOf(project, 'get project');
  const settings = dataOf(
    await api.GET('/projects/{projectId}/checks/settings', { params: { path: { projectId } } }),
    'check settings',
  );
  const langs = p.languages.filter((l) => !l.isBase && !l.removed).map((l) => l.code);
  const count = async (severity: Severity) =>
    dataOf(
      await api.GET('/projects/{projectId}/keys', {
        params: { path: { projectId }, query: { severity, limit: 1 } },
      }),
      'list keys',
    ).total;
  return {
    settings: settings.settings,
    checking: settings.checking,
    langs,
    baseLang: p.baseLang,
    lang: [p.baseLang, ...langs].includes(lang) ? lang : '',
    totals: { error: await count('error'), warning: await count('warning'), info: await count('info') },
    owner: roleOf(s) === 'owner',
  };
}

async function settingsGet(app: App, server: Hapi.Server, request: Request, h: ResponseToolkit) {
  const projectId = String(request.params.projectId);
  const session = sessionOf(request);
  const lang = typeof request.query.lang === 'string' ? request.query.lang : '';
  const st = await pageState(apiFor(server, session), session, projectId, lang);
  if (!st) return htmlReply(h, 404, messagePage('Project not found', 'There is no project with this id.', session));
  const notice = (await takeFlashes(app, session, here(projectId))).find((f) => f.notice)?.notice;
  return htmlReply(h, 200, settingsPage(session, projectId, { ...st, notice }));
}

async function settingsPost(app: App, server: Hapi.Server, request: Request, h: ResponseToolkit) {
  const projectId = String(request.params.projectId);
  const session = sessionOf(request);
  const form = formOf(request);
  const api = apiFor(server, session);
  const st = await pageState(api, session, projectId, form.scope ?? '');
  if (!st) return htmlReply(h, 404, messagePage('Project not found', 'There is no project with this id.', session));
  const r = await api.PUT('/projects/{projectId}/checks/settings', {
    params: { path: { projectId } },
    body: settingsOf(form, st.settings),
  });
  if (r.response.status === 403)
    return htmlReply(
      h,
      403,
      messagePage('Refused', 'Only an owner can change the check settings; nothing changed.', session),
    );
  if (!r.data)
    return htmlReply(
      h,
      r.response.status,
      settingsPage(session, projectId, { ...st, error: `${apiMessage(r.error)} Nothing was saved.` }),
    );
  // The flash is kept for the page's path, whatever its query.
  return redirectWithFlash(
    app,
    h,
    session,
    `${here(projectId)}${st.lang ? `?lang=${encodeURIComponent(st.lang)}` : ''}`,
    {
      notice: 'Saved. The project is checked again in the background.',
    },
  );
}

export function checkRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const page = (r: Request) => here(String(r.params.projectId));
  return [
    {
      method: 'GET',
      path: '/projects/{projectId}/checks',
      options: signedIn((r) => page(r) + (r.url.search ?? '')),
      handler: (r, h) => settingsGet(app, server, r, h),
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/checks',
      options: signedIn(page),
      handler: (r, h) => settingsPost(app, server, r, h),
    },
  ];
}
