// The versions page, `/projects/{projectId}/versions`: every version with its label, key count and languages, a
// form that picks two versions and shows what changed between them per language (internalDiffVersions), and for
// owners a Restore link per version. Restore is confirmed on its own page, `…/versions/{versionId}/restore`, which
// shows what production would serve after it (the diff from the current version) before the post that restores
// (internalRestoreVersion: a new version with the old one's content; the API refuses anyone else, 403). A form
// downloads a version's file in any format (internalExportVersion, `…/versions/export`). What a publish or restore
// did is told from its flash (flash.ts). Labels, keys and texts are hostile input: escaped (html.ts).
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { operations } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { FORMAT_IDS } from '../../packages/core/src/formats/index.js';
import type { FormatId } from '../../packages/core/src/catalog.js';
import { apiFor } from './api.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import { dataOf, messageOf, projectNotFound, queryText, when } from './projects.js';
import { languageDiff } from './publish.js';
import { flashHtml, redirectWithFlash, takeFlashes, type Flash } from './flash.js';
import type { Session } from '../domain/users/sessions.js';
import { formOf, htmlReply, messagePage } from './web.js';
import { sessionOf, signedIn } from './auth.js';
import { roleOf } from './project-role.js';

type Versions = operations['internalListVersions']['responses']['200']['content']['application/json'];
type Diff = operations['internalDiffVersions']['responses']['200']['content']['application/json'];

const VERSION_REF = /^(\d{4}\.\d{2}\.\d{2}\.\d{1,9}|current|previous)$/;

function versionOptions(list: Versions, selected: string | undefined): Html[] {
  return list.versions.map(
    (v) =>
      html`<option value="${v.versionId}" ${selected === v.versionId ? html`selected` : ''}>
        ${v.versionId}${v.label ? ` (${v.label})` : ''}${v.current ? ' [current]' : ''}
      </option>`,
  );
}

const restorePath = (projectId: string, versionId: string) =>
  projectPath(projectId, `versions/${encodeURIComponent(versionId)}/restore`);

function table(s: Session, projectId: string, list: Versions): Html {
  const owner = roleOf(s) === 'owner';
  return html`<table>
    <thead>
      <tr>
        <th scope="col">Version</th>
        <th scope="col">Label</th>
        <th scope="col">Published</th>
        <th scope="col">Keys</th>
        <th scope="col">Languages</th>
        <th scope="col">Formats</th>
        <th scope="col">Restored from</th>
        ${owner ? html`<th scope="col">Restore</th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${list.versions.map(
        (v) =>
          html`<tr data-version="${v.versionId}">
            <th scope="row">
              <code>${v.versionId}</code>${v.current ? html` <span class="state">current</span>` : ''}
            </th>
            <td class="source">${v.label ?? ''}</td>
            <td>${when(v.snapshotAt)}</td>
            <td>${v.keyCount}</td>
            <td>${v.languages.join(', ')}</td>
            <td>${v.formats.join(', ') || 'bundles only'}</td>
            <td>${v.restoredFrom ? html`<code>${v.restoredFrom}</code>` : ''}</td>
            ${
              owner
                ? html`<td>
                    ${
                      v.current
                        ? ''
                        : html`<a
                            class="button"
                            href="${restorePath(projectId, v.versionId)}"
                            aria-label="Restore ${v.versionId}"
                            >Restore…</a
                          >`
                    }
                  </td>`
                : ''
            }
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The formats a version's file can be exported in: every renderer (spec `OutputFormatId`). */
const EXPORT_FORMATS = FORMAT_IDS;
const isExportFormat = (v: unknown): v is FormatId => EXPORT_FORMATS.includes(v as FormatId);

/**
 * Downloads a version's file in any format (internalExportVersion): one language's, or every language's in a zip
 * (one file for the formats that hold every language). The newest version's formats are listed first.
 */
function exportForm(projectId: string, list: Versions): Html {
  const langs = [...new Set(list.versions.flatMap((v) => v.languages))];
  const first = list.versions[0].formats;
  const formats = [...first, ...EXPORT_FORMATS.filter((f) => !first.includes(f))];
  return html`<section aria-labelledby="export">
    <h2 id="export">Export a file</h2>
    <form method="get" action="${projectPath(projectId, 'versions/export')}" class="filters">
      <div>
        <label for="export-version">Version</label>
        <select id="export-version" name="version">
          ${versionOptions(list, list.versions[0].versionId)}
        </select>
      </div>
      <div>
        <label for="export-format">Format</label>
        <select id="export-format" name="format">
          ${formats.map((f) => html`<option value="${f}">${f}</option>`)}
        </select>
      </div>
      <div>
        <label for="export-lang">Language</label>
        <select id="export-lang" name="lang">
          <option value="">every language</option>
          ${langs.map((l) => html`<option value="${l}">${l}</option>`)}
        </select>
      </div>
      <div><button type="submit">Download</button></div>
    </form>
  </section>`;
}

function versionsPage(
  s: Session,
  projectId: string,
  list: Versions,
  opts: { from?: string; to?: string; diff?: Diff; flashes?: Flash[]; error?: string },
): string {
  const defaultFrom = opts.from ?? list.versions[1]?.versionId;
  const defaultTo = opts.to ?? list.versions[0]?.versionId;
  return appPage(
    s,
    'Versions',
    html`<section>
        <h1>Versions</h1>
        ${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''} ${flashHtml(opts.flashes ?? [])}
        ${
          list.versions.length === 0
            ? html`<p>Nothing is published yet.</p>`
            : html`${table(s, projectId, list)}
              ${list.truncated ? html`<p>Only the newest 200 versions are listed.</p>` : ''}
              ${roleOf(s) === 'owner' ? '' : html`<p>Only an owner can restore a version.</p>`}`
        }
      </section>
      ${list.versions.length ? exportForm(projectId, list) : ''}
      ${
        list.versions.length
          ? html`<section aria-labelledby="compare">
              <h2 id="compare">Compare two versions</h2>
              <form method="get" action="${projectPath(projectId, 'versions')}" class="filters">
                <div>
                  <label for="from">From</label>
                  <select id="from" name="from">
                    ${versionOptions(list, defaultFrom)}
                  </select>
                </div>
                <div>
                  <label for="to">To</label>
                  <select id="to" name="to">
                    ${versionOptions(list, defaultTo)}
                  </select>
                </div>
                <div><button type="submit">Compare</button></div>
              </form>
              ${
                opts.diff
                  ? html`<p>Changes from <code>${opts.diff.from}</code> to <code>${opts.diff.to}</code>:</p>
                      ${opts.diff.languages.map((d) => languageDiff(d))}`
                  : ''
              }
            </section>`
          : ''
      }`,
    { projectId, section: 'versions' },
  );
}

/**
 * The restore's confirmation: what production would serve after it, as the diff from the current version to the
 * restored one (the version diff the publish page's changes are drawn with), the key counts before and after, and
 * the button. The form carries the current version it was drawn against, so a restore after another publish shows
 * the new differences first instead of doing what nobody saw.
 */
function restorePage(
  s: Session,
  projectId: string,
  list: Versions,
  versionId: string,
  diff: Diff,
  error?: string,
): string {
  const current = list.versions.find((v) => v.current);
  const target = list.versions.find((v) => v.versionId === versionId);
  const total = (k: 'addedTotal' | 'changedTotal' | 'removedTotal') => diff.languages.reduce((n, d) => n + d[k], 0);
  const keys = (n: number | undefined) => (n === undefined ? 'an unknown number of' : String(n));
  const fewer = current && target && target.keyCount < current.keyCount;
  return appPage(
    s,
    `Restore ${versionId}?`,
    html`<section aria-labelledby="restore-title">
        <h1 id="restore-title">Restore version <code>${versionId}</code>?</h1>
        ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
        <p>
          Restoring publishes a new version with the content of
          <code>${versionId}</code>${target?.label ? ` (${target.label})` : ''}: apps and the delivery origin serve it
          at once. Nothing is deleted; the current version <code>${diff.from}</code> stays in the list and can be
          restored in turn.
        </p>
        <dl>
          <dt>Keys now</dt>
          <dd>${keys(current?.keyCount)} in <code>${diff.from}</code></dd>
          <dt>Keys after</dt>
          <dd>
            ${keys(target?.keyCount)}${
              fewer
                ? html` <strong class="warn"
                    >(${current.keyCount - target.keyCount} fewer than production serves now)</strong
                  >`
                : ''
            }
          </dd>
          <dt>Changes</dt>
          <dd>${total('addedTotal')} added, ${total('changedTotal')} changed, ${total('removedTotal')} removed</dd>
        </dl>
        ${
          roleOf(s) === 'owner'
            ? html`<form method="post" action="${restorePath(projectId, versionId)}" class="confirm-actions">
                <input type="hidden" name="csrf" value="${s.csrf}" />
                <input type="hidden" name="current" value="${diff.from}" />
                <button type="submit" class="danger">Restore ${versionId}</button>
                <a href="${projectPath(projectId, 'versions')}">Cancel</a>
              </form>`
            : html`<p>Only an owner can restore a version.</p>`
        }
      </section>
      <section aria-labelledby="restore-changes">
        <h2 id="restore-changes">What would change, by language</h2>
        <div class="scroll">${diff.languages.map((d) => languageDiff(d))}</div>
      </section>`,
    { projectId, section: 'versions' },
  );
}

type Api = ReturnType<typeof apiFor>;

const listOf = (api: Api, projectId: string) =>
  api.GET('/projects/{projectId}/versions', { params: { path: { projectId } } });

export function versionRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const getVersions = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = sessionOf(request);
    const api = apiFor(server, session);
    const r = await listOf(api, projectId);
    if (r.response.status === 404 || r.response.status === 400) return htmlReply(h, 404, projectNotFound(session));
    const list = dataOf(r, 'GET versions');
    const from = queryText(request, 'from');
    const to = queryText(request, 'to');
    // What a publish or restore did comes from its flash, never from the URL (flash.ts).
    const flashes = await takeFlashes(app, session, projectPath(projectId, 'versions'));
    if (from === undefined || to === undefined)
      return htmlReply(h, 200, versionsPage(session, projectId, list, { flashes }));
    if (!VERSION_REF.test(from) || !VERSION_REF.test(to))
      return htmlReply(
        h,
        400,
        versionsPage(session, projectId, list, { from, to, error: 'Pick two versions of this project.' }),
      );
    const d = await api.GET('/projects/{projectId}/versions/diff', {
      params: { path: { projectId }, query: { from, to } },
    });
    if (d.response.status === 404)
      return htmlReply(
        h,
        404,
        versionsPage(session, projectId, list, { from, to, error: `No such version: ${messageOf(d.error)}` }),
      );
    return htmlReply(h, 200, versionsPage(session, projectId, list, { from, to, diff: dataOf(d, 'GET diff') }));
  };

  /** The confirmation page of restoring `versionId`, or the answer that replaces it (signed out, unknown). */
  const confirmation = async (session: Session, projectId: string, versionId: string, error?: string) => {
    const api = apiFor(server, session);
    const l = await listOf(api, projectId);
    if (l.response.status === 404 || l.response.status === 400) return { status: 404, body: projectNotFound(session) };
    const list = dataOf(l, 'GET versions');
    if (!VERSION_REF.test(versionId) || versionId === 'current')
      return { status: 404, body: messagePage('Version not found', 'This project has no such version.', session) };
    const d = await api.GET('/projects/{projectId}/versions/diff', {
      params: { path: { projectId }, query: { from: 'current', to: versionId } },
    });
    if (d.response.status === 404)
      return { status: 404, body: messagePage('Version not found', `${messageOf(d.error)}`, session) };
    return { status: 200, body: restorePage(session, projectId, list, versionId, dataOf(d, 'GET diff'), error) };
  };

  const getRestore = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const versionId = String(request.params.versionId);
    const session = sessionOf(request);
    const c = await confirmation(session, projectId, versionId);
    return htmlReply(h, c.status, c.body);
  };

  const postRestore = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const versionId = String(request.params.versionId);
    const here = projectPath(projectId, 'versions');
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const again = async (status: number, error: string) => {
      const c = await confirmation(session, projectId, versionId, error);
      return htmlReply(h, c.status === 200 ? status : c.status, c.body);
    };
    // Only a restore confirmed against the version production serves now: the page showed that diff. (Anyone but
    // an owner is refused by the API itself, whatever the form holds.)
    const l = await listOf(api, projectId);
    if (l.response.status === 404 || l.response.status === 400) return htmlReply(h, 404, projectNotFound(session));
    const current = dataOf(l, 'GET versions').versions.find((v) => v.current)?.versionId;
    if (roleOf(session) === 'owner' && (!form.current || form.current !== current))
      return again(
        409,
        'Another version was published since this page was drawn (or the restore was not confirmed): review what would change now; nothing changed.',
      );
    const r = await api.POST('/projects/{projectId}/versions/{versionId}/restore', {
      params: { path: { projectId, versionId } },
    });
    const status = r.response.status;
    if (status === 201)
      return redirectWithFlash(app, h, session, here, {
        notice: `Restored ${versionId} as version ${dataOf(r, 'POST restore').versionId}.`,
      });
    return again(
      status,
      status === 403
        ? 'Only an owner can restore a version; nothing changed.'
        : `The restore was refused: ${messageOf(r.error)} Nothing changed.`,
    );
  };

  /** The export's download: the internal API's file and its headers, or the versions page with the refusal. */
  const getExport = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = sessionOf(request);
    const api = apiFor(server, session);
    const version = queryText(request, 'version') ?? '';
    const format = queryText(request, 'format');
    const lang = queryText(request, 'lang') || undefined;
    const refused = async (status: number, error: string) => {
      const l = await listOf(api, projectId);
      if (l.response.status === 404 || l.response.status === 400) return htmlReply(h, 404, projectNotFound(session));
      return htmlReply(h, status, versionsPage(session, projectId, dataOf(l, 'GET versions'), { error }));
    };
    if (!VERSION_REF.test(version) || version === 'previous' || !isExportFormat(format))
      return refused(400, 'Pick a version and a format; nothing was exported.');
    const r = await api.GET('/projects/{projectId}/versions/{versionId}/file', {
      params: { path: { projectId, versionId: version }, query: { format, ...(lang ? { lang } : {}) } },
      parseAs: 'arrayBuffer',
    });
    if (!r.response.ok) return refused(r.response.status, `${messageOf(r.error)} Nothing was exported.`);
    const reply = h.response(Buffer.from(r.data as ArrayBuffer)).code(200);
    for (const name of ['content-type', 'content-disposition', 'glossa-format-warnings']) {
      const value = r.response.headers.get(name);
      if (value) reply.header(name, value);
    }
    return reply.header('cache-control', 'private, no-store');
  };

  const restore = (r: Request) => restorePath(String(r.params.projectId), String(r.params.versionId));
  return [
    {
      method: 'GET',
      path: '/projects/{projectId}/versions',
      options: signedIn((r) => projectPath(String(r.params.projectId), 'versions')),
      handler: getVersions,
    },
    {
      method: 'GET',
      path: '/projects/{projectId}/versions/export',
      options: signedIn((r) => projectPath(String(r.params.projectId), 'versions')),
      handler: getExport,
    },
    {
      method: 'GET',
      path: '/projects/{projectId}/versions/{versionId}/restore',
      options: signedIn(restore),
      handler: getRestore,
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/versions/{versionId}/restore',
      options: signedIn(restore),
      handler: postRestore,
    },
  ];
}
