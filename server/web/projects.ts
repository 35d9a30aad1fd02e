// The projects list (the dashboard's home, `/`) and a project's overview (`/projects/{projectId}`): languages with
// their completeness, fill modes, the workspace's credits, the current version, the delivery URL and Content. Both
// read the internal API only (internalListProjects, internalGetProjectOverview). Names are the team's input and are
// escaped like everything else (html.ts).
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { apiFor } from './api.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import type { Session } from '../domain/users/sessions.js';
import { htmlReply, messagePage } from './web.js';
import { sessionOf, signedIn } from './auth.js';

type Overview = components['schemas']['ProjectOverview'];

/** An internal API answer's data, or an error naming the call (a 500 page): for answers a page does not expect. */
export function dataOf<T>(r: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (r.data === undefined) throw new Error(`internal API ${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

/** The message of an internal API error answer (`{error, message}`), for a page to show. */
export const messageOf = (error: unknown): string =>
  error && typeof error === 'object' && 'message' in error ? String(error.message) : '';

export const projectNotFound = (s: Session) => messagePage('Project not found', 'There is no project with this id.', s);

/** Millicredits as credits, with the decimals there are (1500 → "1.5"). */
export const credits = (mc: number) => (mc / 1000).toLocaleString('en-US', { maximumFractionDigits: 3 });

export const when = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;

/** A string query parameter (a repeated one counts as absent). */
export const queryText = (request: Request, name: string): string | undefined => {
  const v = (request.query as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : undefined;
};

function listBody(
  projects: Array<{
    projectId: string;
    name: string;
    baseLang: string;
    languages: string[];
    workspaceName: string;
    currentVersion: string | null;
    contentEnabled: boolean;
  }>,
  truncated: boolean,
  owner: boolean,
): Html {
  return html`<section>
    <h1>Projects</h1>
    ${owner ? html`<p><a class="button" href="/projects/new">New project</a></p>` : ''}
    ${
      projects.length === 0
        ? html`<p>There are no projects yet.${owner ? '' : ' An owner creates them.'}</p>`
        : html`<table>
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col">Workspace</th>
                <th scope="col">Base language</th>
                <th scope="col">Target languages</th>
                <th scope="col">Current version</th>
                <th scope="col">Content</th>
              </tr>
            </thead>
            <tbody>
              ${projects.map(
                (p) =>
                  html`<tr>
                    <td><a href="${projectPath(p.projectId)}">${p.name}</a></td>
                    <td>${p.workspaceName}</td>
                    <td>${p.baseLang}</td>
                    <td>${p.languages.length ? p.languages.join(', ') : 'none'}</td>
                    <td>${p.currentVersion ? html`<code>${p.currentVersion}</code>` : 'not published'}</td>
                    <td>${p.contentEnabled ? 'on' : 'off'}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${truncated ? html`<p>Only the first 500 projects by name are listed.</p>` : ''}
  </section>`;
}

/** Keys a catalog sync switched off because its file no longer carried them, and the ways back. */
function syncDisabledSection(o: Overview): Html {
  const d = o.syncDisabled;
  if (!d.total) return html``;
  const keysHref = (key: string) => `${projectPath(o.projectId, 'keys')}/${encodeURIComponent(key)}`;
  return html`<section id="sync-disabled" aria-labelledby="sync-disabled-h">
    <h2 id="sync-disabled-h">Keys a sync disabled</h2>
    <p class="warn" role="status">
      ${d.total} ${d.total === 1 ? 'key is' : 'keys are'} disabled because a synced catalog file no longer carried
      ${d.total === 1 ? 'it' : 'them'} (a sync's file is the project's whole catalog). Disabled keys are left out of
      published versions and AI fills, and their queued fills fail.
    </p>
    <p>
      To bring one back, add it to the catalog file and sync again, or, as an owner, enable it:
      <a href="${projectPath(o.projectId, 'keys')}?disabled=yes">the disabled keys</a>, bulk action “Enable keys”.
      Pushing its source through <code>/translate</code> does not enable it.
    </p>
    <table class="sync-disabled">
      <caption>
        ${d.total > d.keys.length ? `The ${d.keys.length} most recent of ${d.total}` : 'Disabled by a sync'}, newest
        first
      </caption>
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Disabled</th>
          <th scope="col">By the sync of</th>
        </tr>
      </thead>
      <tbody>
        ${d.keys.map(
          (k) =>
            html`<tr>
              <th scope="row"><a href="${keysHref(k.key)}">${k.key}</a></th>
              <td>${when(k.disabledAt)}</td>
              <td><code>${k.bySync}</code></td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

const percent = (n: number, of: number) => (of === 0 ? '100%' : `${Math.floor((n * 100) / of)}%`);

function overviewBody(o: Overview): Html {
  const w = o.workspace;
  const v = o.currentVersion;
  return html`<section>
      <h1>${o.name}</h1>
      <dl>
        <dt>Project id</dt>
        <dd><code>${o.projectId}</code></dd>
        <dt>Keys</dt>
        <dd>
          ${o.keyCount}
          enabled${
            o.syncDisabled.total ? html`; <a href="#sync-disabled">${o.syncDisabled.total} disabled by a sync</a>` : ''
          }
        </dd>
        <dt>Kind</dt>
        <dd>${o.mode === 'a' ? 'file-based (TMS) project' : 'runtime (SDK) project'}</dd>
        <dt>Current version</dt>
        <dd>
          ${
            v
              ? html`<a href="${projectPath(o.projectId, 'versions')}"><code>${v.versionId}</code></a>
                  ${v.label ? html`“${v.label}”` : ''} (${v.keyCount} keys, ${when(v.snapshotAt)})`
              : 'not published yet'
          }
        </dd>
        <dt>Delivery URL</dt>
        <dd><code>${o.deliveryUrl}</code></dd>
        <dt>Output formats</dt>
        <dd>${o.outputFormats.length ? o.outputFormats.join(', ') : 'none'}</dd>
        <dt>Content documents</dt>
        <dd>${o.contentEnabled ? 'on' : 'off'}</dd>
      </dl>
    </section>
    ${syncDisabledSection(o)}
    <section>
      <h2>Languages</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Language</th>
            <th scope="col">Fill mode</th>
            <th scope="col">Complete</th>
            <th scope="col">Missing</th>
            <th scope="col">Pending</th>
            <th scope="col">Failed</th>
            <th scope="col">Translated</th>
            <th scope="col">Reviewed</th>
            <th scope="col">Approved</th>
            <th scope="col">Outdated</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">${o.baseLang} (base)</th>
            <td colspan="9">The source language: ${o.keyCount} keys.</td>
          </tr>
          ${o.languages.map(
            (l) =>
              html`<tr data-lang="${l.code}">
                <th scope="row">${l.code}</th>
                <td>${l.fillMode === 'ai' ? 'AI fill' : 'manual'}</td>
                <td>${percent(l.translated + l.reviewed + l.approved, o.keyCount)}</td>
                <td>${l.missing}</td>
                <td>${l.pending}</td>
                <td>${l.failed ? html`<span class="error">${l.failed}</span>` : 0}</td>
                <td>${l.translated}</td>
                <td>${l.reviewed}</td>
                <td>${l.approved}</td>
                <td>
                  ${
                    l.outdated
                      ? html`<a
                          href="${projectPath(o.projectId, 'keys')}?status=outdated&amp;lang=${encodeURIComponent(l.code)}"
                          >${l.outdated}</a
                        >`
                      : 0
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>
    <section>
      <h2>Credits of the workspace ${w.name}</h2>
      <dl>
        <dt>Balance</dt>
        <dd>${credits(w.balanceMc)} credits</dd>
        <dt>Held by queued fills</dt>
        <dd>${credits(w.heldMc)} credits (${credits(w.balanceMc - w.heldMc)} available)</dd>
        <dt>Spent this month</dt>
        <dd>${credits(w.spentThisMonthMc)} credits</dd>
        <dt>Monthly spending cap</dt>
        <dd>${w.spendingCapMc === null ? 'none' : html`${credits(w.spendingCapMc)} credits`}</dd>
        <dt>Approval required to publish</dt>
        <dd>${w.requireApproval ? 'yes: only approved translations are published' : 'no'}</dd>
      </dl>
    </section>`;
}

export function projectRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const getProjects = async (request: Request, h: ResponseToolkit) => {
    const session = sessionOf(request);
    const list = dataOf(await apiFor(server, session).GET('/projects'), 'GET /projects');
    return htmlReply(
      h,
      200,
      appPage(session, 'Projects', listBody(list.projects, list.truncated, session.user.role === 'owner'), {
        section: 'projects',
      }),
    );
  };

  const getOverview = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = sessionOf(request);
    const r = await apiFor(server, session).GET('/projects/{projectId}/overview', {
      params: { path: { projectId } },
    });
    if (r.response.status === 404 || r.response.status === 400) return htmlReply(h, 404, projectNotFound(session));
    const o = dataOf(r, 'GET overview');
    return htmlReply(h, 200, appPage(session, o.name, overviewBody(o), { projectId, section: '' }));
  };

  return [
    { method: 'GET', path: '/', options: signedIn(() => '/'), handler: getProjects },
    {
      method: 'GET',
      path: '/projects/{projectId}',
      options: signedIn((r) => projectPath(String(r.params.projectId))),
      handler: getOverview,
    },
  ];
}
