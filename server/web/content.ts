// The Content pages. `/projects/{projectId}/content`: every document with its served version and, per language,
// its review stage and how many units are stale, missing or given up; documents are selected with checkboxes and
// published together (owners), after a page that says which languages would be served the source instead.
// `/projects/{projectId}/content/{docId}?lang=xx`: the document's blocks beside their translation into one language,
// each unit's translation editable (reviewers and owners; what was typed survives a refusal), stale blocks marked
// with the previous translation as the candidate, the source's change since it was translated, and a button that
// keeps the candidate for the new source; blocks given up on marked; the language's
// review stage (reviewers and owners); a run, estimated first (owners); the versions with rollback (owners). A project
// without Content shows "Content is not enabled". Data from the internal API only; document text is hostile input
// and escaped like everything else.
import { randomUUID } from 'node:crypto';
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { apiFor, type Api } from './api.js';
import { apiMessage, csrfField, dataOf, timeOf } from './forms.js';
import { langAttrs } from './direction.js';
import { diffHtml } from './diff.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import { flashHtml, redirectWithFlash, takeFlashes, type Flash } from './flash.js';
import type { Session } from '../domain/users/sessions.js';
import { credits, formOf, htmlReply, messagePage } from './web.js';
import { sessionOf, signedIn } from './auth.js';
import { roleOf } from './project-role.js';

type Overview = components['schemas']['ContentOverview'];
type OverviewDoc = Overview['documents'][number];
type Working = components['schemas']['ContentWorkingDocument'];
type PublishResult = components['schemas']['ContentPublishResult'];
type Stage = 'translated' | 'reviewed' | 'approved';

const section = 'content';
const DOC_ID = /^[A-Za-z0-9_-]{1,64}$/;
const STAGES: Stage[] = ['translated', 'reviewed', 'approved'];
const docPath = (projectId: string, docId: string, rest = '') =>
  projectPath(projectId, `${section}/${encodeURIComponent(docId)}${rest}`);
const rollbackPath = (projectId: string, docId: string, versionId: string) =>
  `${docPath(projectId, docId, '/rollback')}?versionId=${encodeURIComponent(versionId)}`;
const VERSION_ID = /^[0-9]{4}\.[0-9]{2}\.[0-9]{2}\.[0-9]{1,6}$/;
const isOwner = (s: Session) => roleOf(s) === 'owner';

type PageAnswer = { status: number; body: string };

/** The project's name when Content is on; else the page to answer (not found, or Content is not enabled). */
async function contentProject(api: Api, s: Session, projectId: string): Promise<string | PageAnswer> {
  const project = await api.GET('/projects/{projectId}', { params: { path: { projectId } } });
  if (project.response.status === 404)
    return { status: 404, body: messagePage('Project not found', 'There is no project with this id.', s) };
  const p = dataOf(project, 'get project');
  if (!p.contentEnabled)
    return {
      status: 200,
      body: appPage(
        s,
        `Content · ${p.name}`,
        html`<section>
          <h1>Content</h1>
          <p>Content is not enabled for ${p.name}.</p>
        </section>`,
        { projectId, section },
      ),
    };
  return p.name;
}

function langSummary(l: OverviewDoc['langs'][number]): Html {
  const parts = [
    l.stale ? `${l.stale} stale` : '',
    l.missing ? `${l.missing} missing` : '',
    l.gaveUp ? `${l.gaveUp} given up` : '',
    l.running ? 'run going' : '',
  ].filter(Boolean);
  return html`<li>
    <strong>${l.code}</strong>:
    ${l.stage ?? 'not translated'}${parts.length ? html` · <span class="warn">${parts.join(', ')}</span>` : ''}
  </li>`;
}

function resultTable(r: PublishResult): Html {
  return html`<section>
    <h2>Publish ${r.versionId ? html`<code>${r.versionId}</code>` : ''}</h2>
    <p role="status">
      ${r.summary.docsPublished} published, ${r.summary.docsUnchanged} unchanged, ${r.summary.docsHeld} held,
      ${r.summary.docsSkipped} skipped.
    </p>
    <table>
      <thead>
        <tr>
          <th scope="col">Document</th>
          <th scope="col">Action</th>
          <th scope="col">Version</th>
          <th scope="col">Why</th>
        </tr>
      </thead>
      <tbody>
        ${r.documents.map(
          (d) =>
            html`<tr>
              <td><code>${d.docId}</code></td>
              <td>${d.action}</td>
              <td>${d.versionId ?? '—'}</td>
              <td>${d.reason ?? ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

/**
 * What a publish of `docIds` would serve, asked before it: a language whose units are not all translated from the
 * current source is served the source instead (server/domain/content/versions.ts `snapshotOf`), and the person
 * sees which, and why, before confirming. Null when none of the documents is listed any more.
 */
async function publishConfirmation(
  api: Api,
  s: Session,
  projectId: string,
  docIds: string[],
): Promise<PageAnswer | null> {
  const o = dataOf(await api.GET('/projects/{projectId}/content', { params: { path: { projectId } } }), 'list content');
  const docs = o.documents.filter((d) => docIds.includes(d.docId));
  if (!docs.length) return null;
  const why = (l: OverviewDoc['langs'][number]) =>
    [l.stale ? `${l.stale} stale` : '', l.missing ? `${l.missing} missing` : '', l.gaveUp ? `${l.gaveUp} given up` : '']
      .filter(Boolean)
      .join(', ');
  const items = docs.map((d) => {
    const fallback = d.langs.filter((l) => why(l));
    return html`<li>
      <strong>${d.title}</strong> (<code>${d.docId}</code>):
      ${
        fallback.length
          ? html`<span class="warn"
              >readers of ${fallback.map((l) => l.code).join(', ')} would get the source text instead of a translation
              (${fallback.map((l, i) => `${i ? '; ' : ''}${l.code}: ${why(l)}`)})</span
            >`
          : 'every language is served translated'
      }
    </li>`;
  });
  const fallbacks = docs.some((d) => d.langs.some((l) => why(l)));
  return {
    status: 200,
    body: appPage(
      s,
      'Publish content?',
      html`<h1>Publish ${docs.length === 1 ? 'this document' : `these ${docs.length} documents`}?</h1>
        <ul id="publish-preview">
          ${items}
        </ul>
        ${fallbacks ? html`<p>Run the engine or translate those parts first to serve a translation.</p>` : ''}
        <form method="post" action="${projectPath(projectId, `${section}/publish`)}">
          ${csrfField(s)} ${docs.map((d) => html`<input type="hidden" name="doc:${d.docId}" value="on" />`)}
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit">Publish</button>
          <a href="${projectPath(projectId, section)}">Cancel</a>
        </form>`,
      { projectId, section },
    ),
  };
}

async function listPage(
  api: Api,
  s: Session,
  projectId: string,
  extra: { error?: string; flashes?: Flash[] } = {},
): Promise<PageAnswer> {
  const name = await contentProject(api, s, projectId);
  if (typeof name !== 'string') return name;
  const o = dataOf(await api.GET('/projects/{projectId}/content', { params: { path: { projectId } } }), 'list content');
  const rows = o.documents.map(
    (d) =>
      html`<tr>
        ${
          isOwner(s)
            ? html`<td>
                <input type="checkbox" id="pick-${d.docId}" name="doc:${d.docId}" value="on" />
                <label for="pick-${d.docId}" class="visually-hidden">Select ${d.title}</label>
              </td>`
            : ''
        }
        <td><a href="${docPath(projectId, d.docId)}">${d.title}</a><br /><code>${d.docId}</code></td>
        <td>${d.versionId ? html`<code>${d.versionId}</code>` : 'not published'}</td>
        <td>
          ${d.pending ? html`<span class="warn">changes not published</span>` : 'published as is'}${d.health ? html`<br /><span class="error">${d.health}</span>` : ''}
        </td>
        <td>
          <ul class="plain">
            ${d.langs.map(langSummary)}
          </ul>
        </td>
      </tr>`,
  );
  const table = o.documents.length
    ? html`<table>
        <caption>
          Documents${o.truncated ? ' (the first 200)' : ''}
        </caption>
        <thead>
          <tr>
            ${isOwner(s) ? html`<th scope="col">Select</th>` : ''}
            <th scope="col">Document</th>
            <th scope="col">Served version</th>
            <th scope="col">State</th>
            <th scope="col">Languages</th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>`
    : html`<p>No documents yet: push one with <code>PUT /v1/projects/{projectId}/content/{docId}</code>.</p>`;
  return {
    status: 200,
    body: appPage(
      s,
      `Content · ${name}`,
      html`<section>
          <h1>Content of ${name}</h1>
          ${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
        </section>
        ${flashHtml(extra.flashes ?? [])}
        ${(extra.flashes ?? []).map((f) => (f.contentPublish ? resultTable(f.contentPublish) : ''))}
        <section>
          ${
            isOwner(s) && o.documents.length
              ? html`<form method="post" action="${projectPath(projectId, `${section}/publish`)}">
                  ${csrfField(s)} ${table}
                  <p><button type="submit">Publish selected</button></p>
                </form>`
              : table
          }
        </section>`,
      { projectId, section },
    ),
  };
}

/** What a person typed for one unit and why it was not saved: shown again in that unit's form, nothing lost. */
interface UnitDraft {
  unit: string;
  text: string;
}

/** The form that saves a unit's translation, or keeps a stale unit's candidate (internalEditContentUnit). */
function unitForms(
  s: Session,
  action: string,
  lang: string,
  u: Working['langs'][number]['units'][number],
  draft: UnitDraft | undefined,
): Html {
  const base = html`${csrfField(s)}<input type="hidden" name="unit" value="${u.id}" />
    <input type="hidden" name="sourceHash" value="${u.sourceHash}" />
    <input type="hidden" name="base" value="${u.updatedAt ?? ''}" />`;
  const field = `edit-${u.id}`;
  const typed = draft?.unit === u.id ? draft.text : (u.text ?? u.candidate ?? '');
  return html`${
      u.state === 'stale' && u.candidate !== undefined
        ? html`<form method="post" action="${action}" class="inline">
            ${base}<input type="hidden" name="keep" value="yes" />
            <button type="submit" aria-label="Keep the previous translation of ${u.id}">
              Keep the previous translation
            </button>
          </form>`
        : ''
    }
    <details ${draft?.unit === u.id ? html`open` : ''}>
      <summary>Edit ${lang}</summary>
      <form method="post" action="${action}">
        ${base}
        <label for="${field}">Translation of ${u.id} (${lang})</label>
        <textarea id="${field}" name="text" rows="3" maxlength="8000" required ${langAttrs(lang)}>${typed}</textarea>
        <button type="submit">Save translation</button>
      </form>
    </details>`;
}

function blocksTable(
  s: Session,
  projectId: string,
  doc: Working,
  lang: Working['langs'][number],
  draft: UnitDraft | undefined,
): Html {
  const source = new Map<string, string>(doc.blocks.map((b) => [b.id, b.text]));
  source.set('@title', doc.title);
  for (const [k, v] of Object.entries(doc.fields)) source.set(`@field:${k}`, v);
  const action = docPath(projectId, doc.docId, `/langs/${encodeURIComponent(lang.code)}/units`);
  const STATE: Record<string, string> = {
    translated: 'translated',
    stale: 'stale: the source changed',
    missing: 'missing',
    gave_up: 'given up: the engine broke its markup',
  };
  return html`<table class="side-by-side">
    <caption>
      ${doc.baseLang} source beside ${lang.code}
    </caption>
    <thead>
      <tr>
        <th scope="col">Unit</th>
        <th scope="col">Source (${doc.baseLang})</th>
        <th scope="col">Translation (${lang.code})</th>
        <th scope="col">State</th>
      </tr>
    </thead>
    <tbody>
      ${lang.units.map(
        (u) =>
          html`<tr class="unit-${u.state}" id="unit-${u.id}">
            <td><code>${u.id}</code></td>
            <td class="source" ${langAttrs(doc.baseLang)}>
              ${source.get(u.id) ?? ''}
              ${
                u.previousSource !== undefined
                  ? html`<p class="source-diff">
                      <span class="candidate-label">Changed since it was translated:</span>
                      ${diffHtml(u.previousSource, source.get(u.id) ?? '')}
                    </p>`
                  : ''
              }
            </td>
            <td class="source">
              ${
                u.state === 'translated'
                  ? html`<span ${langAttrs(lang.code)}>${u.text ?? ''}</span>`
                  : u.candidate !== undefined
                    ? html`<span class="candidate-label">Previous translation (candidate):</span>
                        <span class="candidate" ${langAttrs(lang.code)}>${u.candidate}</span>`
                    : html`<em>none</em>`
              }
              ${lang.running ? '' : unitForms(s, action, lang.code, u, draft)}
            </td>
            <td><span class="state" data-state="${u.state}">${STATE[u.state]}</span></td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** A run the person asked to estimate: what it covers, and the estimate to confirm (the dry run's). */
interface RunDraft {
  lang: string;
  overwrite: boolean;
  estimatedMc: number;
  /** Sent as the run's Idempotency-Key: a second click of the same confirmation starts nothing more. */
  key: string;
}

/**
 * The owner's run (internalRunContentDocument): estimated first (a dry run), then confirmed. The confirmation carries
 * an idempotency key, so sending it twice starts one run.
 */
function runSection(
  s: Session,
  projectId: string,
  docId: string,
  langs: Array<{ code: string }>,
  draft?: RunDraft,
): Html {
  const action = docPath(projectId, docId, '/run');
  const langName = (code: string) => (code ? code : 'every language');
  return html`<section aria-labelledby="run-h">
    <h2 id="run-h">Translate with the engine</h2>
    ${
      draft
        ? html`<p id="run-estimate">
              ${langName(draft.lang)}${draft.overwrite ? ', everything again' : ', what is missing or stale'}: estimated
              at <strong>${credits(draft.estimatedMc)} credits</strong> (a run reserves about twice this and gives back
              what it does not use).
            </p>
            <form method="post" action="${action}" class="inline">
              ${csrfField(s)}
              <input type="hidden" name="lang" value="${draft.lang}" />
              ${draft.overwrite ? html`<input type="hidden" name="overwrite" value="on" />` : ''}
              <input type="hidden" name="confirm" value="yes" />
              <input type="hidden" name="key" value="${draft.key}" />
              <button type="submit">Start the run</button>
              <a href="${docPath(projectId, docId)}">Cancel</a>
            </form>`
        : html`<form method="post" action="${action}">
            ${csrfField(s)}
            <label for="run-lang">Language</label>
            <select id="run-lang" name="lang">
              <option value="">every language</option>
              ${langs.map((l) => html`<option value="${l.code}">${l.code}</option>`)}
            </select>
            <p>
              <input type="checkbox" id="run-overwrite" name="overwrite" value="on" />
              <label for="run-overwrite">Translate everything again, approved translations too</label>
            </p>
            <button type="submit">Estimate…</button>
          </form>`
    }
  </section>`;
}

async function docPage(
  api: Api,
  s: Session,
  projectId: string,
  docId: string,
  wanted: string | undefined,
  extra: { error?: string; flashes?: Flash[]; run?: RunDraft; unit?: UnitDraft } = {},
): Promise<PageAnswer> {
  const name = await contentProject(api, s, projectId);
  if (typeof name !== 'string') return name;
  const notFound = { status: 404, body: messagePage('Document not found', 'This project has no such document.', s) };
  if (!DOC_ID.test(docId)) return notFound;
  const w = await api.GET('/projects/{projectId}/content/{docId}', { params: { path: { projectId, docId } } });
  if (w.response.status === 404) return notFound;
  const doc = dataOf(w, 'get document');
  const versions = dataOf(
    await api.GET('/projects/{projectId}/content/{docId}/versions', { params: { path: { projectId, docId } } }),
    'list versions',
  );
  const lang = doc.langs.find((l) => l.code === wanted) ?? doc.langs[0];
  const langNav = html`<nav aria-label="Languages">
    <ul class="plain inline-list">
      ${doc.langs.map(
        (l) =>
          html`<li>
            <a
              href="${docPath(projectId, docId)}?lang=${encodeURIComponent(l.code)}"
              ${l === lang ? html`aria-current="page"` : ''}
              >${l.code}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
  const stageForm = lang
    ? html`<form method="post" action="${docPath(projectId, docId, `/langs/${encodeURIComponent(lang.code)}/stage`)}">
        ${csrfField(s)}
        <label for="stage">Review stage of ${lang.code}</label>
        <select id="stage" name="stage">
          ${STAGES.map((st) => html`<option value="${st}" ${lang.stage === st ? html`selected` : ''}>${st}</option>`)}
        </select>
        <button type="submit">Set stage</button>
        <p class="hint">Only a language translated in full can be reviewed or approved.</p>
      </form>`
    : '';
  const versionRows = versions.versions.map(
    (v) =>
      html`<tr>
        <td><code>${v.versionId}</code>${v.versionId === versions.servedVersionId ? ' (served)' : ''}</td>
        <td>${timeOf(v.createdAt)}</td>
        <td>${v.title}</td>
        <td>
          ${v.langs.map((l) => `${l.code}: ${l.source === 'translated' ? (l.stage ?? 'translated') : 'base language'}`).join(', ')}
        </td>
        <td>
          ${
            isOwner(s) && v.versionId !== versions.servedVersionId
              ? html`<a
                  class="button"
                  href="${rollbackPath(projectId, docId, v.versionId)}"
                  aria-label="Roll back to ${v.versionId}"
                  >Roll back…</a
                >`
              : ''
          }
        </td>
      </tr>`,
  );
  return {
    status: 200,
    body: appPage(
      s,
      `${doc.title} · Content · ${name}`,
      html`<section>
          <h1>${doc.title}</h1>
          ${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''} ${flashHtml(extra.flashes ?? [])}
          <dl>
            <dt>Document</dt>
            <dd><code>${doc.docId}</code> (${doc.format}, ${doc.baseLang})</dd>
            <dt>Served version</dt>
            <dd>${doc.versionId ? html`<code>${doc.versionId}</code>` : 'not published'}</dd>
            ${
              doc.health
                ? html`<dt>Checks</dt>
                    <dd class="error">${doc.health}</dd>`
                : ''
            }
          </dl>
          <p><a href="${projectPath(projectId, section)}">All documents</a></p>
        </section>
        <section>
          <h2>Translation</h2>
          ${
            lang
              ? html`${langNav}
                  <p>
                    ${lang.code}: stage
                    <strong>${lang.stage ?? 'not translated'}</strong>${lang.running ? ', a run is going' : ''}
                  </p>
                  ${stageForm} ${blocksTable(s, projectId, doc, lang, extra.unit)}`
              : html`<p>The project has no target language.</p>`
          }
        </section>
        ${isOwner(s) && doc.langs.length ? runSection(s, projectId, docId, doc.langs, extra.run) : ''}
        <section>
          <h2>Versions</h2>
          ${
            versions.versions.length
              ? html`<table>
                  <thead>
                    <tr>
                      <th scope="col">Version</th>
                      <th scope="col">Published</th>
                      <th scope="col">Title</th>
                      <th scope="col">Languages</th>
                      <th scope="col">Rollback</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${versionRows}
                  </tbody>
                </table>`
              : html`<p>Never published.</p>`
          }
        </section>`,
      { projectId, section },
    ),
  };
}

/**
 * A rollback, asked first: what readers are served now beside what they would be served after it (title, and per
 * language whether it is translated or the base language, at which review stage), the changes marked.
 */
async function rollbackPage(
  api: Api,
  s: Session,
  projectId: string,
  docId: string,
  versionId: string,
  error?: string,
): Promise<PageAnswer> {
  const name = await contentProject(api, s, projectId);
  if (typeof name !== 'string') return name;
  const notFound = { status: 404, body: messagePage('Version not found', 'This document has no such version.', s) };
  if (!DOC_ID.test(docId) || !VERSION_ID.test(versionId)) return notFound;
  const r = await api.GET('/projects/{projectId}/content/{docId}/versions', { params: { path: { projectId, docId } } });
  if (r.response.status === 404) return notFound;
  const versions = dataOf(r, 'list versions');
  const target = versions.versions.find((v) => v.versionId === versionId);
  if (!target) return notFound;
  const served = versions.versions.find((v) => v.versionId === versions.servedVersionId);
  type Lang = (typeof target.langs)[number];
  const shown = (l: Lang | undefined) =>
    !l ? 'not served' : l.source === 'translated' ? `translated (${l.stage ?? 'translated'})` : 'base language';
  const codes = [...new Set([...(served?.langs ?? []), ...target.langs].map((l) => l.code))].sort();
  const rows = codes.map((code) => {
    const before = shown(served?.langs.find((l) => l.code === code));
    const after = shown(target.langs.find((l) => l.code === code));
    return html`<tr class="${before === after ? '' : 'changed'}">
      <th scope="row">${code}</th>
      <td>${before}</td>
      <td>${after}</td>
    </tr>`;
  });
  return {
    status: 200,
    body: appPage(
      s,
      `Roll back ${docId}?`,
      html`<section aria-labelledby="rollback-title">
        <h1 id="rollback-title">Roll <code>${docId}</code> back to <code>${versionId}</code>?</h1>
        ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
        <p>
          Readers are served the texts of <code>${versionId}</code> (${timeOf(target.createdAt)}) at once, under a new
          version; ${served ? html`<code>${served.versionId}</code>, served now,` : 'every version'} stays in the
          history and can be served again.
        </p>
        <div class="scroll">
          <table>
            <caption>
              What readers are served now and after the rollback
            </caption>
            <thead>
              <tr>
                <th scope="col">Language</th>
                <th scope="col">Now${served ? html` (<code>${served.versionId}</code>)` : ''}</th>
                <th scope="col">After (<code>${versionId}</code>)</th>
              </tr>
            </thead>
            <tbody>
              <tr class="${served?.title === target.title ? '' : 'changed'}">
                <th scope="row">Title</th>
                <td class="source">${served?.title ?? ''}</td>
                <td class="source">${target.title}</td>
              </tr>
              ${rows}
            </tbody>
          </table>
        </div>
        ${
          isOwner(s)
            ? html`<form method="post" action="${docPath(projectId, docId, '/rollback')}" class="confirm-actions">
                ${csrfField(s)}
                <input type="hidden" name="versionId" value="${versionId}" />
                <input type="hidden" name="served" value="${versions.servedVersionId ?? ''}" />
                <button type="submit" class="danger">Roll back to ${versionId}</button>
                <a href="${docPath(projectId, docId)}">Cancel</a>
              </form>`
            : html`<p>Only an owner can roll back content.</p>`
        }
      </section>`,
      { projectId, section },
    ),
  };
}

export function contentRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const reply = (h: ResponseToolkit, r: PageAnswer, status = r.status) =>
    htmlReply(h, r.status === 200 ? status : r.status, r.body);
  const langOf = (request: Request) => {
    const v = (request.query as Record<string, unknown>).lang;
    return typeof v === 'string' ? v : undefined;
  };

  const list = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = sessionOf(request);
    const flashes = await takeFlashes(app, session, projectPath(projectId, section));
    return reply(h, await listPage(apiFor(server, session), session, projectId, { flashes }));
  };

  const one = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const docId = String(request.params.docId);
    const session = sessionOf(request);
    const lang = langOf(request);
    const flashes = await takeFlashes(app, session, docPath(projectId, docId));
    return reply(h, await docPage(apiFor(server, session), session, projectId, docId, lang, { flashes }));
  };

  const publish = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const docIds = Object.keys(form)
      .filter((k) => k.startsWith('doc:') && form[k] === 'on')
      .map((k) => k.slice(4))
      .filter((d) => DOC_ID.test(d));
    if (!docIds.length)
      return reply(
        h,
        await listPage(api, session, projectId, { error: 'Select at least one document; nothing was published.' }),
        400,
      );
    if (form.confirm !== 'yes' && isOwner(session)) {
      const page = await publishConfirmation(api, session, projectId, docIds);
      if (page) return reply(h, page);
    }
    const r = await api.POST('/projects/{projectId}/content/publish', {
      params: { path: { projectId } },
      body: { docIds },
    });
    if (r.response.status === 403)
      return reply(
        h,
        await listPage(api, session, projectId, { error: 'Only an owner can publish content; nothing was published.' }),
        403,
      );
    if (!r.data)
      return reply(
        h,
        await listPage(api, session, projectId, { error: `${apiMessage(r.error)} Nothing was published.` }),
        r.response.status,
      );
    // The outcome is shown by the list the redirect opens (flash.ts): a reload publishes nothing again.
    return redirectWithFlash(app, h, session, projectPath(projectId, section), { contentPublish: r.data });
  };

  const stage = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const docId = String(request.params.docId);
    const lang = String(request.params.lang);
    const back = `${docPath(projectId, docId)}?lang=${encodeURIComponent(lang)}`;
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const again = async (status: number, error: string) =>
      reply(h, await docPage(api, session, projectId, docId, lang, { error }), status);
    const wanted = form.stage as Stage;
    if (!STAGES.includes(wanted)) return again(400, 'Choose a stage; nothing changed.');
    const r = await api.PUT('/projects/{projectId}/content/{docId}/langs/{lang}/stage', {
      params: { path: { projectId, docId, lang } },
      body: { stage: wanted },
    });
    if (r.response.status === 403) return again(403, 'Your role may not set stages; nothing changed.');
    if (!r.data) return again(r.response.status, `${apiMessage(r.error)} Nothing changed.`);
    return redirectWithFlash(app, h, session, back, { notice: `The review stage of ${lang} is ${wanted}.` });
  };

  const unit = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const docId = String(request.params.docId);
    const lang = String(request.params.lang);
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const unitId = form.unit ?? '';
    const keep = form.keep === 'yes';
    const text = form.text ?? '';
    // Refused: the page again with what was typed in the unit's open form.
    const again = async (status: number, error: string) =>
      reply(
        h,
        await docPage(api, session, projectId, docId, lang, { error, unit: keep ? undefined : { unit: unitId, text } }),
        status,
      );
    if (!unitId || !form.sourceHash) return again(400, 'No such unit; nothing was saved.');
    if (!keep && !text.trim()) return again(400, 'Type a translation; nothing was saved.');
    const r = await api.PUT('/projects/{projectId}/content/{docId}/langs/{lang}/units/{unitId}', {
      params: { path: { projectId, docId, lang, unitId } },
      body: {
        ...(keep ? { keep: true as const } : { text }),
        sourceHash: form.sourceHash,
        baseUpdatedAt: form.base ? form.base : null,
      },
    });
    if (r.response.status === 403) return again(403, 'Your role may not edit translations; nothing was saved.');
    if (!r.data) {
      const error = r.error as { error?: string; currentSource?: string };
      const why =
        error.error === 'edit_conflict'
          ? error.currentSource !== undefined
            ? 'The source of this unit changed since you opened the page. It now reads as shown; your text is below.'
            : 'Someone changed this translation since you opened the page. It now reads as shown; your text is below.'
          : apiMessage(r.error);
      return again(r.response.status, `${why} Nothing was saved.`);
    }
    return redirectWithFlash(app, h, session, `${docPath(projectId, docId)}?lang=${encodeURIComponent(lang)}`, {
      notice: keep
        ? `The previous ${lang} translation of ${unitId} is kept for the new source.`
        : `The ${lang} translation of ${unitId} is saved.`,
    });
  };

  const run = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const docId = String(request.params.docId);
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const lang = /^[A-Za-z0-9_-]{1,35}$/.test(form.lang ?? '') ? form.lang : '';
    const overwrite = form.overwrite === 'on';
    const again = async (status: number, error: string) =>
      reply(h, await docPage(api, session, projectId, docId, undefined, { error }), status);
    const body = { ...(lang ? { lang } : {}), ...(overwrite ? { mode: 'overwrite' as const } : {}) };
    const path = { projectId, docId };
    if (form.confirm !== 'yes') {
      const dry = await api.POST('/projects/{projectId}/content/{docId}/run', {
        params: { path },
        body: { ...body, dryRun: true },
      });
      if (!dry.data) return again(dry.response.status, `${apiMessage(dry.error)} Nothing was started.`);
      const draft = { lang, overwrite, estimatedMc: dry.data.estimatedMc ?? 0, key: randomUUID() };
      return reply(h, await docPage(api, session, projectId, docId, lang || undefined, { run: draft }));
    }
    const key = /^[0-9a-f-]{36}$/.test(form.key ?? '') ? form.key : undefined;
    const r = await api.POST('/projects/{projectId}/content/{docId}/run', {
      params: { path, header: key ? { 'Idempotency-Key': key } : {} },
      // The person saw the estimate: a cost warning is what they confirmed.
      body: { ...body, confirm: true },
    });
    if (r.response.status === 403) return again(403, 'Only an owner can start a run; nothing was started.');
    if (!r.data) return again(r.response.status, `${apiMessage(r.error)} Nothing was started.`);
    const started = (r.data.jobs ?? []).map((j) => j.lang);
    return redirectWithFlash(app, h, session, docPath(projectId, docId), {
      notice: started.length
        ? `A run started for ${started.join(', ')}.`
        : `Nothing to run: ${(r.data.skipped ?? []).map((k) => `${k.lang} ${k.reason.replace(/_/g, ' ')}`).join(', ')}.`,
    });
  };

  const confirmRollback = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const docId = String(request.params.docId);
    const versionId = typeof request.query.versionId === 'string' ? request.query.versionId : '';
    const session = sessionOf(request);
    return reply(h, await rollbackPage(apiFor(server, session), session, projectId, docId, versionId));
  };

  const rollback = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const docId = String(request.params.docId);
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const versionId = form.versionId ?? '';
    const again = async (status: number, error: string) =>
      reply(h, await rollbackPage(api, session, projectId, docId, versionId, error), status);
    if (!VERSION_ID.test(versionId)) return again(400, 'No such version; nothing changed.');
    // Only a rollback confirmed against the version readers are served now: the page compared with that one.
    const served = await api.GET('/projects/{projectId}/content/{docId}/versions', {
      params: { path: { projectId, docId } },
    });
    if (served.data && (form.served ?? '') !== (served.data.servedVersionId ?? ''))
      return again(
        409,
        'Another version was published since this page was drawn: review the change again; nothing changed.',
      );
    const r = await api.POST('/projects/{projectId}/content/{docId}/rollback', {
      params: { path: { projectId, docId } },
      body: { versionId },
    });
    if (r.response.status === 403) return again(403, 'Only an owner can roll back content; nothing changed.');
    if (!r.data) return again(r.response.status, `${apiMessage(r.error)} Nothing changed.`);
    return redirectWithFlash(app, h, session, docPath(projectId, docId), {
      notice: `Rolled back to ${r.data.rolledBackTo}: now served as ${r.data.versionId}.`,
    });
  };

  const P = '/projects/{projectId}/content';
  const listPath = (r: Request) => projectPath(String(r.params.projectId), section);
  const doc = (r: Request) => docPath(String(r.params.projectId), String(r.params.docId));
  const docWithLang = (lang: (r: Request) => string | undefined) => (r: Request) => {
    const l = lang(r);
    return doc(r) + (l ? `?lang=${encodeURIComponent(l)}` : '');
  };
  const rollbackOf = (r: Request) =>
    rollbackPath(
      String(r.params.projectId),
      String(r.params.docId),
      typeof r.query.versionId === 'string' ? r.query.versionId : '',
    );
  return [
    { method: 'GET', path: P, options: signedIn(listPath), handler: list },
    { method: 'POST', path: `${P}/publish`, options: signedIn(listPath), handler: publish },
    { method: 'GET', path: `${P}/{docId}`, options: signedIn(docWithLang(langOf)), handler: one },
    {
      method: 'POST',
      path: `${P}/{docId}/langs/{lang}/stage`,
      options: signedIn(docWithLang((r) => String(r.params.lang))),
      handler: stage,
    },
    {
      method: 'POST',
      path: `${P}/{docId}/langs/{lang}/units`,
      options: signedIn(docWithLang((r) => String(r.params.lang))),
      handler: unit,
    },
    { method: 'POST', path: `${P}/{docId}/run`, options: signedIn(doc), handler: run },
    { method: 'GET', path: `${P}/{docId}/rollback`, options: signedIn(rollbackOf), handler: confirmRollback },
    { method: 'POST', path: `${P}/{docId}/rollback`, options: signedIn(doc), handler: rollback },
  ];
}
