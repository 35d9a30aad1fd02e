// The approval page, `{app_url}/approve/<operation_id>`: a signed-in person sees what an agent's
// operation would do (its plan, server/domain/operations/decide.ts) and approves it, optionally lowering the budget, or
// denies it. The decision is recorded under the person's user id (`decidedBy`). Once the operation is decided or
// expired the page says so and offers nothing to click. Every value shown is escaped (html.ts): source strings,
// keys and names are the agent's and the team's input.
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { apiFor, type Api } from './api.js';
import { html, type Html } from './html.js';
import { appPage } from './layout.js';
import { notePendingOperations } from './nav.js';
import { languageDiff } from './publish.js';
import type { Session } from '../domain/users/sessions.js';
import { credits, formOf, htmlReply, messagePage, redirect } from './web.js';
import { sessionOf, signedIn } from './auth.js';

type Operation = components['schemas']['InternalOperation'];
type Plan = components['schemas']['OperationPlan'];

const OPERATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

const STATE_TEXT: Record<Operation['state'], string> = {
  pending_approval: 'pending approval',
  approved: 'approved',
  denied: 'denied',
  expired: 'expired',
  exhausted: 'exhausted',
  cancelled: 'cancelled by the agent that asked',
};

const when = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;

const yesNo = (v: boolean) => (v ? 'yes' : 'no');

/**
 * A ceiling and an estimate more than ten times apart: an agent that passed millicredits as credits asks for a
 * thousand times its work, and one that asks for much less than the estimate stops part-way.
 */
function estimateWarning(t: NonNullable<Plan['translate']>): Html {
  const e = t.estimate_mc;
  if (e === null) return html``;
  const ceiling = t.requested_mc;
  if (ceiling > 10 * Math.max(e, 1))
    return html`<p class="warn" role="alert">
      The ceiling (${credits(ceiling)} credits) is more than ten times the batches' estimate (${credits(e)} credits):
      check the amount before approving. An agent that passed millicredits as credits asks for a thousand times its
      work; lowering the budget below keeps it to what the batches need.
    </p>`;
  if (e > 10 * Math.max(ceiling, 1))
    return html`<p class="warn" role="alert">
      The batches' estimate (${credits(e)} credits) is more than ten times the ceiling (${credits(ceiling)} credits):
      the run will stop long before it is done.
    </p>`;
  return html``;
}

function translatePlan(t: NonNullable<Plan['translate']>, balanceMc: number): Html {
  const over = t.requested_mc > balanceMc;
  return html`<h2>Translate</h2>
    <dl>
      <dt>Languages</dt>
      <dd>${t.langs.length ? t.langs.join(', ') : 'none'}</dd>
      <dt>Units</dt>
      <dd>${t.unit_count}</dd>
      <dt>Batches</dt>
      <dd>${t.batch_count}</dd>
      <dt>Manifest hash</dt>
      <dd><code>${t.payload_sha256}</code></dd>
      <dt>Credit ceiling the agent asked for</dt>
      <dd>${credits(t.requested_mc)} credits</dd>
      <dt>The batches' estimate</dt>
      <dd>
        ${
          t.estimate_mc === null
            ? 'not known: no dry run of these batches is stored'
            : html`${credits(t.estimate_mc)}
              credits${
                t.estimated_batches < t.batch_count ? ` (${t.estimated_batches} of ${t.batch_count} batches)` : ''
              }`
        }
      </dd>
      <dt>Workspace balance</dt>
      <dd>${credits(balanceMc)} credits available</dd>
    </dl>
    ${over ? html`<p class="warn">The ceiling is above the balance available now: the run stops when the credits run out.</p>` : ''}
    ${estimateWarning(t)}
    <h2>Batches</h2>
    <table>
      <thead>
        <tr>
          <th>#</th>
          <th>Units</th>
          <th>Hash</th>
          <th>Source strings (sample)</th>
        </tr>
      </thead>
      <tbody>
        ${t.batches.map(
          (b) =>
            html`<tr>
              <td>${b.index}</td>
              <td>${b.unit_count}</td>
              <td><code>${b.sha256}</code></td>
              <td>
                ${
                  b.sample
                    ? html`<ul>
                        ${b.sample.map((s) => html`<li class="source">${s}</li>`)}
                      </ul>`
                    : html`<em>No preview of this batch is stored.</em>`
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

function publishPlan(p: NonNullable<Plan['publish']>): Html {
  const changes = p.keys_changed + p.cells_changed;
  return html`<h2>Publish</h2>
    <dl>
      <dt>Approved cells only</dt>
      <dd>${yesNo(p.approved_only)}</dd>
      <dt>Require complete</dt>
      <dd>${yesNo(p.require_complete)}</dd>
      <dt>Missing values</dt>
      <dd>${p.incomplete_mode ?? "the project's default"}</dd>
      <dt>Expected pending</dt>
      <dd>${p.expected_pending ?? 'not stated'}</dd>
      <dt>Current version</dt>
      <dd>${p.current_version ?? 'none (this would be the first)'}</dd>
      <dt>Keys</dt>
      <dd>
        ${p.keys_total} would be published; ${p.keys_changed} added, changed or removed against the current version
      </dd>
      <dt>Translations</dt>
      <dd>${p.cells_changed} added, changed or removed against the current version</dd>
    </dl>
    <p>
      ${
        p.identical
          ? html`<strong>Identical to the current version</strong>: the publish would change nothing.`
          : html`<strong>${changes} changes</strong> would reach production, as the publish page computes them now:`
      }
    </p>
    ${p.identical ? '' : html`<div class="scroll">${p.languages.map((d) => languageDiff(d))}</div>`}`;
}

function rollbackPlan(r: NonNullable<Plan['rollback']>): Html {
  const keys = (n: number | null | undefined) => (n == null ? 'unknown' : `${n} keys`);
  return html`<h2>Roll back</h2>
    <dl>
      <dt>From version</dt>
      <dd><code>${r.from_version}</code> (${keys(r.from_key_count)})</dd>
      <dt>To version</dt>
      <dd><code>${r.to_version}</code> (${keys(r.to_key_count)})</dd>
    </dl>
    ${
      r.from_is_current
        ? ''
        : html`<p class="warn">Another version was published since: the rollback would be refused.</p>`
    }`;
}

function planOf(plan: Plan | undefined): Html {
  if (plan?.translate) return translatePlan(plan.translate, plan.balance_mc);
  if (plan?.publish) return publishPlan(plan.publish);
  if (plan?.rollback) return rollbackPlan(plan.rollback);
  return html`<p>No plan is available.</p>`;
}

async function deciderName(app: App, decidedBy: string | null): Promise<string | null> {
  if (!decidedBy) return null;
  const u = await app
    .db('dashboard_users')
    .where({ id: decidedBy })
    .first<{ name: string; email: string } | undefined>('name', 'email');
  return u ? `${u.name} <${u.email}>` : decidedBy;
}

async function approvalPage(app: App, s: Session, op: Operation, error?: string): Promise<string> {
  const pending = op.state === 'pending_approval';
  const requested = Math.floor(op.requested_mc / 1000);
  const decider = await deciderName(app, op.decided_by);
  const refused = wouldBeRefused(op);
  const decision = !pending
    ? null
    : s.user.role !== 'owner'
      ? html`<p>Only an owner can approve or deny an operation.</p>`
      : html`<form method="post" action="/approve/${op.operation_id}">
          <input type="hidden" name="csrf" value="${s.csrf}" />
          ${
            op.action === 'translate'
              ? html`<label for="credits">Budget in whole credits (at most the ${requested} requested)</label>
                  <input
                    id="credits"
                    name="credits"
                    type="number"
                    min="0"
                    max="${requested}"
                    step="1"
                    value="${requested}"
                    required
                  />`
              : ''
          }
          ${refused ? html`<p>${refused} It can only be denied; the agent must ask again.</p>` : ''}
          <p>
            ${refused ? '' : html`<button type="submit" name="decision" value="approve">Approve</button>`}
            <button type="submit" name="decision" value="deny">Deny</button>
          </p>
        </form>`;
  const outcome =
    decision ??
    html`<p>
      This operation is <strong>${STATE_TEXT[op.state]}</strong>${
        op.state === 'expired' ? html` (it expired at ${when(op.expires_at)}); the agent must ask again` : ''
      }.
      There is nothing to decide.
    </p>`;
  return appPage(
    s,
    `Operation ${op.operation_id}`,
    html`<section>
        <h1>Operation <code>${op.operation_id}</code></h1>
        ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
        <dl>
          <dt>Action</dt>
          <dd>${op.action}</dd>
          <dt>State</dt>
          <dd><span class="state" data-state="${op.state}">${STATE_TEXT[op.state]}</span></dd>
          <dt>Project</dt>
          <dd><code>${op.project_id}</code></dd>
          <dt>Asked by</dt>
          <dd>
            ${
              op.plan
                ? html`API key ${op.plan.api_key_name ?? html`<em>unnamed</em>`} (<code>${op.plan.api_key_id}</code>)`
                : 'an API key'
            }
          </dd>
          <dt>Asked at</dt>
          <dd>${when(op.created_at)}</dd>
          <dt>${pending ? 'Expires at' : 'Expiry'}</dt>
          <dd>${when(op.expires_at)}</dd>
          ${
            decider
              ? html`<dt>Decided by</dt>
                  <dd>${decider}${op.decided_at ? html`, ${when(op.decided_at)}` : ''}</dd>`
              : ''
          }
          ${
            op.action === 'translate'
              ? html`<dt>Budget</dt>
                  <dd>
                    ${credits(op.requested_mc)} requested, ${credits(op.authorized_mc)} authorized,
                    ${credits(op.charged_mc)} charged, ${credits(op.reserved_mc)} reserved
                  </dd>`
              : ''
          }
        </dl>
      </section>
      <section>${planOf(op.plan)}</section>
      <section>
        <h2>Decision</h2>
        ${outcome}
      </section>`,
    { projectId: op.project_id, section: 'operations' },
  );
}

/** The operation with its plan, or undefined when there is none of that id. */
async function load(api: Api, id: string): Promise<Operation | undefined> {
  if (!OPERATION_ID.test(id)) return undefined;
  const r = await api.GET('/operations/{operationId}', { params: { path: { operationId: id } } });
  if (r.response.status === 404) return undefined;
  if (!r.data) throw new Error(`internal API: ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

/** Why approving would be pointless (the page says the use would be refused), or undefined. */
const wouldBeRefused = (op: Operation) =>
  op.plan?.rollback && !op.plan.rollback.from_is_current
    ? 'Another version was published since the agent asked: the rollback would be refused.'
    : undefined;

const notFoundPage = (s: Session) => messagePage('Operation not found', 'There is no operation with this id.', s);

export function approvalRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const here = (r: Request) => `/approve/${encodeURIComponent(String(r.params.operationId))}`;
  const getApproval = async (request: Request, h: ResponseToolkit) => {
    const id = String(request.params.operationId);
    const session = sessionOf(request);
    const op = await load(apiFor(server, session), id);
    if (!op) return htmlReply(h, 404, notFoundPage(session));
    await notePendingOperations(server, session, op.project_id);
    return htmlReply(h, 200, await approvalPage(app, session, op));
  };

  const postApproval = async (request: Request, h: ResponseToolkit) => {
    const id = String(request.params.operationId);
    const here = `/approve/${encodeURIComponent(id)}`;
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const op = await load(api, id);
    if (!op) return htmlReply(h, 404, notFoundPage(session));
    const again = async (status: number, error: string) =>
      htmlReply(h, status, await approvalPage(app, session, (await load(api, id))!, error));
    const path = { operationId: id };
    let answer: { response: Response };
    const refused = wouldBeRefused(op);
    if (form.decision === 'approve' && refused) return again(409, `${refused} Nothing changed.`);
    if (form.decision === 'approve') {
      let authorizedCredits: number | undefined;
      if (op.action === 'translate' && form.credits !== undefined && form.credits !== '') {
        if (!/^\d{1,13}$/.test(form.credits) || Number(form.credits) * 1000 > op.requested_mc)
          return again(
            400,
            `The budget must be a whole number of credits from 0 to ${Math.floor(op.requested_mc / 1000)}; nothing changed.`,
          );
        authorizedCredits = Number(form.credits);
      }
      answer = await api.POST('/operations/{operationId}/approve', { params: { path }, body: { authorizedCredits } });
    } else if (form.decision === 'deny') {
      answer = await api.POST('/operations/{operationId}/deny', { params: { path }, body: {} });
    } else {
      return again(400, 'Choose Approve or Deny; nothing changed.');
    }
    const status = answer.response.status;
    if (status === 409) return again(409, 'The operation is no longer pending approval; nothing changed.');
    if (status === 403) return again(403, 'Only an owner can approve or deny an operation; nothing changed.');
    if (status !== 200) throw new Error(`internal API: ${status}`);
    return redirect(h, here);
  };

  return [
    { method: 'GET', path: '/approve/{operationId}', options: signedIn(here), handler: getApproval },
    { method: 'POST', path: '/approve/{operationId}', options: signedIn(here), handler: postApproval },
  ];
}
