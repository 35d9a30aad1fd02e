// The versions page, `/projects/{projectId}/versions`: every version with its label, key count and languages, a
// form that picks two versions and shows what changed between them per language (internalDiffVersions), and for
// owners a Restore button per version (internalRestoreVersion: a new version with the old one's content; the API
// refuses anyone else, 403). Labels, keys and texts are hostile input: escaped (html.ts).
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { operations } from '../../generated/internal.js';
import type { App } from '../platform/app.js';
import { apiFor } from './api.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import { dataOf, messageOf, projectNotFound, queryText, when } from './projects.js';
import { languageDiff } from './publish.js';
import type { Session } from './sessions.js';
import { formIsOurs, formOf, htmlReply, messagePage, redirect, sessionOf, signinUrl } from './web.js';

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

function table(s: Session, projectId: string, list: Versions): Html {
  const owner = s.user.role === 'owner';
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
                        : html`<form
                            method="post"
                            action="${projectPath(projectId, `versions/${encodeURIComponent(v.versionId)}/restore`)}"
                          >
                            <input type="hidden" name="csrf" value="${s.csrf}" />
                            <button type="submit" aria-label="Restore ${v.versionId}">Restore</button>
                          </form>`
                    }
                  </td>`
                : ''
            }
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function versionsPage(
  s: Session,
  projectId: string,
  list: Versions,
  opts: { from?: string; to?: string; diff?: Diff; notice?: string; error?: string },
): string {
  const defaultFrom = opts.from ?? list.versions[1]?.versionId;
  const defaultTo = opts.to ?? list.versions[0]?.versionId;
  return appPage(
    s,
    'Versions',
    html`<section>
        <h1>Versions</h1>
        ${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
        ${opts.notice ? html`<p class="ok" role="status">${opts.notice}</p>` : ''}
        ${
          list.versions.length === 0
            ? html`<p>Nothing is published yet.</p>`
            : html`${table(s, projectId, list)}
              ${list.truncated ? html`<p>Only the newest 200 versions are listed.</p>` : ''}
              ${s.user.role === 'owner' ? '' : html`<p>Only an owner can restore a version.</p>`}`
        }
      </section>
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

type Api = ReturnType<typeof apiFor>;

const listOf = (api: Api, projectId: string) =>
  api.GET('/projects/{projectId}/versions', { params: { path: { projectId } } });

export function versionRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const getVersions = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = await sessionOf(app, request);
    if (!session) return redirect(h, signinUrl(projectPath(projectId, 'versions')));
    const api = apiFor(server, session);
    const r = await listOf(api, projectId);
    if (r.response.status === 404 || r.response.status === 400) return htmlReply(h, 404, projectNotFound(session));
    const list = dataOf(r, 'GET versions');
    const from = queryText(request, 'from');
    const to = queryText(request, 'to');
    const published = queryText(request, 'published');
    const unchanged = queryText(request, 'unchanged');
    const restored = queryText(request, 'restored');
    const notice = published
      ? `Published version ${published}.`
      : unchanged
        ? `Nothing was published: the content is identical to version ${unchanged}.`
        : restored
          ? `Restored as version ${restored}.`
          : undefined;
    if (from === undefined || to === undefined)
      return htmlReply(h, 200, versionsPage(session, projectId, list, { notice }));
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

  const postRestore = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const versionId = String(request.params.versionId);
    const here = projectPath(projectId, 'versions');
    const session = await sessionOf(app, request);
    if (!session) return redirect(h, signinUrl(here));
    const form = formOf(request);
    if (!formIsOurs(app, request, form, session.csrf))
      return htmlReply(
        h,
        403,
        messagePage('Refused', 'This form was not sent by this site; nothing changed.', session),
      );
    const api = apiFor(server, session);
    const r = await api.POST('/projects/{projectId}/versions/{versionId}/restore', {
      params: { path: { projectId, versionId } },
    });
    const status = r.response.status;
    if (status === 201)
      return redirect(h, `${here}?restored=${encodeURIComponent(dataOf(r, 'POST restore').versionId)}`);
    const l = await listOf(api, projectId);
    if (l.response.status === 404) return htmlReply(h, 404, projectNotFound(session));
    const error =
      status === 403
        ? 'Only an owner can restore a version; nothing changed.'
        : `The restore was refused: ${messageOf(r.error)} Nothing changed.`;
    return htmlReply(h, status, versionsPage(session, projectId, dataOf(l, 'GET versions'), { error }));
  };

  return [
    { method: 'GET', path: '/projects/{projectId}/versions', handler: getVersions },
    { method: 'POST', path: '/projects/{projectId}/versions/{versionId}/restore', handler: postRestore },
  ];
}
