// The operations page, `/projects/{projectId}/operations`: the project's operations waiting for a person first, then
// the recent ones (internalListOperations, newest first), each linking to its approval page `/approve/{id}`.
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { apiFor } from './api.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import { credits, dataOf, projectNotFound, when } from './projects.js';
import type { Session } from '../domain/users/sessions.js';
import { htmlReply } from './web.js';
import { sessionOf, signedIn } from './auth.js';

type Operation = components['schemas']['InternalOperation'];

const STATE_TEXT: Record<Operation['state'], string> = {
  pending_approval: 'pending approval',
  approved: 'approved',
  denied: 'denied',
  expired: 'expired',
  exhausted: 'exhausted',
  cancelled: 'cancelled by the agent that asked',
};

function operationsTable(ops: Operation[], caption: string): Html {
  return html`<table>
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">Operation</th>
        <th scope="col">Action</th>
        <th scope="col">State</th>
        <th scope="col">Budget</th>
        <th scope="col">Asked at</th>
        <th scope="col">Expires or expired at</th>
      </tr>
    </thead>
    <tbody>
      ${ops.map(
        (op) =>
          html`<tr data-operation="${op.operation_id}">
            <th scope="row"><a href="/approve/${encodeURIComponent(op.operation_id)}">${op.operation_id}</a></th>
            <td>${op.action}</td>
            <td><span class="state" data-state="${op.state}">${STATE_TEXT[op.state]}</span></td>
            <td>${op.action === 'translate' ? html`${credits(op.requested_mc)} credits asked` : ''}</td>
            <td>${when(op.created_at)}</td>
            <td>${when(op.expires_at)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** Operations of the recent list per page. */
const PAGE = 50;

function operationsPage(
  s: Session,
  projectId: string,
  pending: Operation[],
  recent: { operations: Operation[]; more: boolean; offset: number },
): string {
  const here = projectPath(projectId, 'operations');
  const pageLink = (offset: number, label: string, rel: string) =>
    html`<a rel="${rel}" href="${here}${offset ? `?offset=${offset}` : ''}#recent">${label}</a>`;
  return appPage(
    s,
    'Operations',
    html`<section aria-labelledby="pending">
        <h1 id="pending">Operations waiting for approval</h1>
        <p>
          An agent key asks a person before it spends credits, publishes or rolls back. Open an operation to see what it
          would do${s.user.role === 'owner' ? ' and approve or deny it' : ''}.
        </p>
        ${pending.length ? operationsTable(pending, 'Pending approval') : html`<p>Nothing is waiting.</p>`}
      </section>
      <section aria-labelledby="recent">
        <h2 id="recent">All operations, newest first</h2>
        ${
          recent.operations.length
            ? operationsTable(
                recent.operations,
                `Operations ${recent.offset + 1} to ${recent.offset + recent.operations.length}`,
              )
            : html`<p>None${recent.offset ? ' here' : ' yet'}.</p>`
        }
        <nav class="pages" aria-label="Pages of operations">
          ${recent.offset > 0 ? pageLink(Math.max(0, recent.offset - PAGE), 'Newer operations', 'prev') : ''}
          ${recent.more ? pageLink(recent.offset + PAGE, 'Older operations', 'next') : ''}
        </nav>
      </section>`,
    { projectId, section: 'operations' },
  );
}

export function operationRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const getOperations = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = sessionOf(request);
    const api = apiFor(server, session);
    const query = request.query as Record<string, unknown>;
    const offset = typeof query.offset === 'string' && /^\d{1,7}$/.test(query.offset) ? Number(query.offset) : 0;
    const path = { projectId };
    // Every operation still waiting (they expire, so they are few), then a page of all of them.
    const pending = await api.GET('/projects/{projectId}/operations', {
      params: { path, query: { state: 'pending_approval' } },
    });
    if (pending.response.status === 404 || pending.response.status === 400)
      return htmlReply(h, 404, projectNotFound(session));
    const recent = await api.GET('/projects/{projectId}/operations', {
      params: { path, query: { offset, limit: PAGE } },
    });
    const page = dataOf(recent, 'GET operations');
    return htmlReply(
      h,
      200,
      operationsPage(session, projectId, dataOf(pending, 'GET pending operations').operations, { ...page, offset }),
    );
  };
  return [
    {
      method: 'GET',
      path: '/projects/{projectId}/operations',
      options: signedIn((r) => projectPath(String(r.params.projectId), 'operations')),
      handler: getOperations,
    },
  ];
}
