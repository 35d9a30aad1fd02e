// The webhooks pages (owners): `/projects/{projectId}/webhooks` lists the project's webhooks and creates one;
// `/projects/{projectId}/webhooks/{webhookId}` edits one (URL, events, enabled), rotates its secret, and shows its
// delivery log with status and last error, each delivery with a Resend button; `…/{webhookId}/delete` asks before
// deleting. Every post answers 303 to a page; a new signing secret is shown once there, from the post's one-time
// flash (flash.ts). Data from the internal API only (internal*Webhook*, the public webhook rules); a reviewer's call
// is refused by the API (403). URLs are the team's input: escaped.
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { apiFor, type Api } from './api.js';
import { flashHtml, redirectWithFlash, takeFlashes, type Flash } from './flash.js';
import { apiMessage, csrfField, dataOf, ownersOnly, timeOf } from './forms.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import type { Session } from '../domain/users/sessions.js';
import { formOf, htmlReply, messagePage } from './web.js';
import { sessionOf, signedIn } from './auth.js';

type Webhook = components['schemas']['Webhook'];
type Delivery = components['schemas']['WebhookDelivery'];
type EventType = components['schemas']['WebhookEventType'];

const EVENTS: Array<{ type: EventType; field: string; label: string }> = [
  { type: 'strings.published', field: 'event_strings', label: 'strings.published (every publish and restore)' },
  { type: 'content.published', field: 'event_content', label: 'content.published (content documents)' },
];
const section = 'webhooks';
/** What a reviewer may not do on these pages (the internal API's webhook routes are owners' only). */
const SEE = 'see and manage webhooks';
const hookPath = (projectId: string, webhookId: string, rest = '') =>
  projectPath(projectId, `${section}/${encodeURIComponent(webhookId)}${rest}`);

const stateOf = (w: Webhook) =>
  w.enabled
    ? 'enabled'
    : w.disabledReason === 'auto_failures'
      ? 'disabled: three deliveries in a row failed'
      : w.disabledReason === 'gone'
        ? 'disabled: the receiver answered 410 Gone'
        : 'disabled';

function eventBoxes(prefix: string, checked: readonly EventType[]): Html {
  return html`<fieldset>
    <legend>Events (at least one)</legend>
    ${EVENTS.map(
      (e) =>
        html`<div class="check">
          <input
            id="${prefix}-${e.field}"
            name="${e.field}"
            type="checkbox"
            value="on"
            ${checked.includes(e.type) ? html`checked` : ''}
          />
          <label for="${prefix}-${e.field}">${e.label}</label>
        </div>`,
    )}
  </fieldset>`;
}

const eventsOf = (form: Record<string, string>) => EVENTS.filter((e) => form[e.field] === 'on').map((e) => e.type);

interface Extra {
  error?: string;
  flashes?: Flash[];
  form?: Record<string, string>;
}

type PageAnswer = { status: number; body: string };

async function projectName(api: Api, s: Session, projectId: string): Promise<string | PageAnswer> {
  const project = await api.GET('/projects/{projectId}', { params: { path: { projectId } } });
  if (project.response.status === 404)
    return { status: 404, body: messagePage('Project not found', 'There is no project with this id.', s) };
  return dataOf(project, 'get project').name;
}

async function listPage(api: Api, s: Session, projectId: string, extra: Extra = {}): Promise<PageAnswer> {
  const name = await projectName(api, s, projectId);
  if (typeof name !== 'string') return name;
  const list = await api.GET('/projects/{projectId}/webhooks', { params: { path: { projectId } } });
  if (list.response.status === 403) return { status: 403, body: ownersOnly(s, 'see and manage webhooks') };
  const hooks = dataOf(list, 'list webhooks').webhooks;
  const table = hooks.length
    ? html`<table>
        <caption>
          Webhooks (at most five)
        </caption>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">State</th>
            <th scope="col">Secret ends</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          ${hooks.map(
            (w) =>
              html`<tr>
                <td class="mono">${w.url}</td>
                <td>${w.events.join(', ')}</td>
                <td>${stateOf(w)}</td>
                <td><code>…${w.secretHint ?? ''}</code></td>
                <td>
                  <a href="${hookPath(projectId, w.webhookId)}"
                    >Edit and deliveries<span class="visually-hidden"> of ${w.url}</span></a
                  >
                </td>
              </tr>`,
          )}
        </tbody>
      </table>`
    : html`<p>This project has no webhooks.</p>`;
  return {
    status: 200,
    body: appPage(
      s,
      `Webhooks · ${name}`,
      html`<section>
          <h1>Webhooks of ${name}</h1>
          ${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
          <p>Each delivery is signed with the webhook's secret (README, Webhooks).</p>
        </section>
        ${flashHtml(extra.flashes ?? [])}
        <section>
          <h2>Webhooks</h2>
          ${table}
        </section>
        <section>
          <h2>Create a webhook</h2>
          <form method="post" action="${projectPath(projectId, section)}">
            ${csrfField(s)}
            <label for="hook-url">URL (https)</label>
            <input
              id="hook-url"
              name="url"
              type="url"
              required
              maxlength="2048"
              size="60"
              value="${extra.form?.url ?? ''}"
            />
            ${eventBoxes('new', extra.form ? eventsOf(extra.form) : ['strings.published'])}
            <p><button type="submit">Create webhook</button></p>
          </form>
        </section>`,
      { projectId, section },
    ),
  };
}

/** The body a delivery sends, indented for reading (the signed bytes are the stored text, unindented). */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function deliveryTable(s: Session, projectId: string, webhookId: string, deliveries: Delivery[]): Html {
  if (!deliveries.length) return html`<p>Nothing was delivered to this webhook yet.</p>`;
  return html`<table>
    <caption>
      The last 50 deliveries, newest first
    </caption>
    <thead>
      <tr>
        <th scope="col">Event</th>
        <th scope="col">Version or publish</th>
        <th scope="col">Status</th>
        <th scope="col">Attempts</th>
        <th scope="col">Last answer</th>
        <th scope="col">Last error</th>
        <th scope="col">Next attempt</th>
        <th scope="col">Resend</th>
      </tr>
    </thead>
    <tbody>
      ${deliveries.map(
        (d) =>
          html`<tr>
            <td>
              ${d.eventType}<br /><code>${d.eventId}</code>
              ${
                d.payload
                  ? html`<details>
                      <summary>Body sent<span class="visually-hidden"> of ${d.deliveryId}</span></summary>
                      <pre class="mono">${prettyJson(d.payload)}</pre>
                    </details>`
                  : ''
              }
            </td>
            <td>${d.publishId ? html`<code>${d.publishId}</code>` : '—'}</td>
            <td><span class="state" data-state="${d.status}">${d.status}</span></td>
            <td>${d.attempts}</td>
            <td>${d.lastStatusCode ?? '—'}</td>
            <td class="source">${d.lastError ?? '—'}</td>
            <td>${timeOf(d.nextAttemptAt, '—')}</td>
            <td>
              ${
                d.status === 'delivering'
                  ? 'in flight'
                  : html`<form
                      method="post"
                      action="${hookPath(projectId, webhookId, `/deliveries/${encodeURIComponent(d.deliveryId)}/resend`)}"
                    >
                      ${csrfField(s)}
                      <button type="submit" aria-label="Resend delivery ${d.deliveryId}">Resend</button>
                    </form>`
              }
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The project's name and its webhook `webhookId`, or the page that says why there is none to show. */
async function pageHook(
  api: Api,
  s: Session,
  projectId: string,
  webhookId: string,
): Promise<PageAnswer | { name: string; w: Webhook }> {
  const name = await projectName(api, s, projectId);
  if (typeof name !== 'string') return name;
  const list = await api.GET('/projects/{projectId}/webhooks', { params: { path: { projectId } } });
  if (list.response.status === 403) return { status: 403, body: ownersOnly(s, 'see and manage webhooks') };
  const w = dataOf(list, 'list webhooks').webhooks.find((x) => x.webhookId === webhookId);
  if (!w) return { status: 404, body: messagePage('Webhook not found', 'This project has no such webhook.', s) };
  return { name, w };
}

async function hookPage(
  api: Api,
  s: Session,
  projectId: string,
  webhookId: string,
  extra: Extra = {},
): Promise<PageAnswer> {
  const found = await pageHook(api, s, projectId, webhookId);
  if ('status' in found) return found;
  const { name, w } = found;
  const log = await api.GET('/projects/{projectId}/webhooks/{webhookId}/deliveries', {
    params: { path: { projectId, webhookId } },
  });
  const deliveries = dataOf(log, 'list deliveries').deliveries;
  const here = hookPath(projectId, webhookId);
  return {
    status: 200,
    body: appPage(
      s,
      `Webhook · ${name}`,
      html`<section>
          <h1>Webhook <span class="mono">${w.url}</span></h1>
          ${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
          <dl>
            <dt>State</dt>
            <dd>${stateOf(w)}</dd>
            <dt>Events</dt>
            <dd>${w.events.join(', ')}</dd>
            <dt>Secret ends</dt>
            <dd><code>…${w.secretHint ?? ''}</code></dd>
          </dl>
          <p><a href="${projectPath(projectId, section)}">All webhooks</a></p>
        </section>
        ${flashHtml(extra.flashes ?? [])}
        <section>
          <h2>Edit</h2>
          <form method="post" action="${here}">
            ${csrfField(s)}
            <label for="edit-url">URL (https)</label>
            <input
              id="edit-url"
              name="url"
              type="url"
              required
              maxlength="2048"
              size="60"
              value="${extra.form?.url ?? w.url}"
            />
            ${eventBoxes('edit', extra.form ? eventsOf(extra.form) : w.events)}
            <div class="check">
              <input id="edit-enabled" name="enabled" type="checkbox" value="on" ${w.enabled ? html`checked` : ''} />
              <label for="edit-enabled">Enabled (enabling clears the failure count)</label>
            </div>
            <p><button type="submit">Save webhook</button></p>
          </form>
        </section>
        <section>
          <h2>Secret</h2>
          <p>A new secret is shown once; the old one keeps signing beside it for 24 hours.</p>
          <form method="post" action="${hookPath(projectId, webhookId, '/rotate-secret')}">
            ${csrfField(s)}
            <button type="submit">Rotate secret</button>
          </form>
        </section>
        <section>
          <h2>Deliveries</h2>
          <form method="post" action="${hookPath(projectId, webhookId, '/test')}">
            ${csrfField(s)}
            <p>
              <button type="submit">Send a test event</button> A <code>webhook.test</code> event to this webhook only,
              signed and retried like any delivery; its body shows in the log below.
            </p>
          </form>
          ${deliveryTable(s, projectId, webhookId, deliveries)}
        </section>
        <section>
          <h2>Delete</h2>
          <p><a class="button" href="${hookPath(projectId, webhookId, '/delete')}">Delete webhook…</a></p>
        </section>`,
      { projectId, section },
    ),
  };
}

/** The webhook `webhookId` of the project, when there is one (the list holds at most five). */
async function webhookOf(api: Api, projectId: string, webhookId: string): Promise<Webhook | undefined> {
  const list = await api.GET('/projects/{projectId}/webhooks', { params: { path: { projectId } } });
  return list.data?.webhooks.find((w) => w.webhookId === webhookId);
}

/** Deleting a webhook, asked first: which one, its events and state, and what stops. */
async function deletePage(api: Api, s: Session, projectId: string, webhookId: string): Promise<PageAnswer> {
  const found = await pageHook(api, s, projectId, webhookId);
  if ('status' in found) return found;
  const { name, w } = found;
  return {
    status: 200,
    body: appPage(
      s,
      `Delete webhook · ${name}`,
      html`<section aria-labelledby="delete-title">
        <h1 id="delete-title">Delete the webhook <span class="mono">${w.url}</span>?</h1>
        <dl>
          <dt>Events</dt>
          <dd>${w.events.join(', ')}</dd>
          <dt>State</dt>
          <dd>${stateOf(w)}</dd>
        </dl>
        <p class="warn">
          What stops: ${w.url} receives no more ${w.events.join(' or ')} events, deliveries still waiting for a retry
          are not sent, and its delivery log and secret go with it. This cannot be undone; a new webhook gets a new
          secret the receiver must be given.
        </p>
        <form method="post" action="${hookPath(projectId, webhookId, '/delete')}" class="confirm-actions">
          ${csrfField(s)}
          <button type="submit" class="danger">Delete webhook</button>
          <a href="${hookPath(projectId, webhookId)}">Cancel</a>
        </form>
      </section>`,
      { projectId, section },
    ),
  };
}

export function webhookRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const ids = (request: Request) => ({
    projectId: String(request.params.projectId),
    webhookId: typeof request.params.webhookId === 'string' ? request.params.webhookId : '',
  });
  const reply = (h: ResponseToolkit, r: PageAnswer, status = r.status) =>
    htmlReply(h, r.status === 200 ? status : r.status, r.body);

  const list = async (request: Request, h: ResponseToolkit) => {
    const { projectId } = ids(request);
    const session = sessionOf(request);
    const flashes = await takeFlashes(app, session, projectPath(projectId, section));
    return reply(h, await listPage(apiFor(server, session), session, projectId, { flashes }));
  };

  const one = async (request: Request, h: ResponseToolkit) => {
    const { projectId, webhookId } = ids(request);
    const session = sessionOf(request);
    const flashes = await takeFlashes(app, session, hookPath(projectId, webhookId));
    return reply(h, await hookPage(apiFor(server, session), session, projectId, webhookId, { flashes }));
  };

  const create = async (request: Request, h: ResponseToolkit) => {
    const { projectId } = ids(request);
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const events = eventsOf(form);
    const url = (form.url ?? '').trim();
    if (!events.length)
      return reply(
        h,
        await listPage(api, session, projectId, { error: 'Choose at least one event; nothing was created.', form }),
        400,
      );
    if (!url.startsWith('https://'))
      return reply(
        h,
        await listPage(api, session, projectId, {
          error: 'The URL must start with https://; nothing was created.',
          form,
        }),
        400,
      );
    const made = await api.POST('/projects/{projectId}/webhooks', {
      params: { path: { projectId } },
      body: { url, events },
    });
    if (made.response.status === 403)
      return htmlReply(h, 403, ownersOnly(session, 'create webhooks; nothing was created'));
    if (!made.data)
      return reply(
        h,
        await listPage(api, session, projectId, { error: `${apiMessage(made.error)} Nothing was created.`, form }),
        made.response.status,
      );
    // Shown once by the page the redirect opens, from a one-time flash (flash.ts): a reload creates nothing.
    return redirectWithFlash(app, h, session, projectPath(projectId, section), {
      secret: { label: `Signing secret of ${made.data.url}`, value: made.data.secret },
    });
  };

  const update = async (request: Request, h: ResponseToolkit) => {
    const { projectId, webhookId } = ids(request);
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const events = eventsOf(form);
    const url = (form.url ?? '').trim();
    const again = async (status: number, error: string) =>
      reply(h, await hookPage(api, session, projectId, webhookId, { error, form }), status);
    if (!events.length) return again(400, 'Choose at least one event; nothing changed.');
    if (!url.startsWith('https://')) return again(400, 'The URL must start with https://; nothing changed.');
    const r = await api.PATCH('/projects/{projectId}/webhooks/{webhookId}', {
      params: { path: { projectId, webhookId } },
      body: { url, events, enabled: form.enabled === 'on' },
    });
    if (r.response.status === 403) return htmlReply(h, 403, ownersOnly(session, 'change webhooks; nothing changed'));
    if (!r.data) return again(r.response.status, `${apiMessage(r.error)} Nothing changed.`);
    return redirectWithFlash(app, h, session, hookPath(projectId, webhookId), { notice: 'Saved.' });
  };

  const rotate = async (request: Request, h: ResponseToolkit) => {
    const { projectId, webhookId } = ids(request);
    const session = sessionOf(request);
    const api = apiFor(server, session);
    const r = await api.POST('/projects/{projectId}/webhooks/{webhookId}/rotate-secret', {
      params: { path: { projectId, webhookId } },
    });
    if (r.response.status === 403) return htmlReply(h, 403, ownersOnly(session, 'rotate secrets; nothing changed'));
    if (!r.data) return reply(h, await hookPage(api, session, projectId, webhookId), r.response.status);
    return redirectWithFlash(app, h, session, hookPath(projectId, webhookId), {
      notice: `The previous secret keeps signing until ${r.data.previousSecretExpiresAt.slice(0, 16).replace('T', ' ')} UTC.`,
      secret: { label: 'New signing secret', value: r.data.secret },
    });
  };

  const confirmRemove = async (request: Request, h: ResponseToolkit) => {
    const { projectId, webhookId } = ids(request);
    const session = sessionOf(request);
    return reply(h, await deletePage(apiFor(server, session), session, projectId, webhookId));
  };

  const remove = async (request: Request, h: ResponseToolkit) => {
    const { projectId, webhookId } = ids(request);
    const session = sessionOf(request);
    const api = apiFor(server, session);
    const hook = await webhookOf(api, projectId, webhookId);
    const r = await api.DELETE('/projects/{projectId}/webhooks/{webhookId}', {
      params: { path: { projectId, webhookId } },
    });
    if (r.response.status === 403) return htmlReply(h, 403, ownersOnly(session, 'delete webhooks; nothing changed'));
    if (r.response.status !== 204)
      return reply(
        h,
        await listPage(api, session, projectId, { error: `${apiMessage(r.error)} Nothing changed.` }),
        r.response.status,
      );
    return redirectWithFlash(app, h, session, projectPath(projectId, section), {
      notice: `Deleted the webhook ${hook?.url ?? webhookId}: nothing more is delivered to it.`,
    });
  };

  const resend = async (request: Request, h: ResponseToolkit) => {
    const { projectId, webhookId } = ids(request);
    const deliveryId = String(request.params.deliveryId);
    const session = sessionOf(request);
    const api = apiFor(server, session);
    const r = await api.POST('/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', {
      params: { path: { projectId, webhookId, deliveryId } },
    });
    if (r.response.status === 403) return htmlReply(h, 403, ownersOnly(session, 'resend deliveries; nothing changed'));
    if (!r.data)
      return reply(
        h,
        await hookPage(api, session, projectId, webhookId, { error: `${apiMessage(r.error)} Nothing changed.` }),
        r.response.status,
      );
    return redirectWithFlash(app, h, session, hookPath(projectId, webhookId), {
      notice: `Delivery ${deliveryId} is queued again.`,
    });
  };

  const sendTest = async (request: Request, h: ResponseToolkit) => {
    const { projectId, webhookId } = ids(request);
    const session = sessionOf(request);
    const api = apiFor(server, session);
    const r = await api.POST('/projects/{projectId}/webhooks/{webhookId}/test', {
      params: { path: { projectId, webhookId } },
    });
    if (r.response.status === 403) return htmlReply(h, 403, ownersOnly(session, 'test webhooks; nothing was sent'));
    if (!r.data)
      return reply(
        h,
        await hookPage(api, session, projectId, webhookId, { error: `${apiMessage(r.error)} Nothing was sent.` }),
        r.response.status,
      );
    return redirectWithFlash(app, h, session, hookPath(projectId, webhookId), {
      notice: `A test event is queued (delivery ${r.data.deliveryId}); reload to see its answer.`,
    });
  };

  const P = '/projects/{projectId}/webhooks';
  const listPath = (r: Request) => projectPath(ids(r).projectId, section);
  const hook = (r: Request) => hookPath(ids(r).projectId, ids(r).webhookId);
  const hookDelete = (r: Request) => hookPath(ids(r).projectId, ids(r).webhookId, '/delete');
  return [
    { method: 'GET', path: P, options: signedIn(listPath, { owners: SEE }), handler: list },
    {
      method: 'POST',
      path: P,
      options: signedIn(listPath, { owners: 'create webhooks; nothing was created' }),
      handler: create,
    },
    { method: 'GET', path: `${P}/{webhookId}`, options: signedIn(hook, { owners: SEE }), handler: one },
    {
      method: 'POST',
      path: `${P}/{webhookId}`,
      options: signedIn(hook, { owners: 'change webhooks; nothing changed' }),
      handler: update,
    },
    {
      method: 'POST',
      path: `${P}/{webhookId}/rotate-secret`,
      options: signedIn(hook, { owners: 'rotate secrets; nothing changed' }),
      handler: rotate,
    },
    {
      method: 'GET',
      path: `${P}/{webhookId}/delete`,
      options: signedIn(hookDelete, { owners: SEE }),
      handler: confirmRemove,
    },
    {
      method: 'POST',
      path: `${P}/{webhookId}/delete`,
      options: signedIn(hookDelete, { owners: 'delete webhooks; nothing changed' }),
      handler: remove,
    },
    {
      method: 'POST',
      path: `${P}/{webhookId}/deliveries/{deliveryId}/resend`,
      options: signedIn(hook, { owners: 'resend deliveries; nothing changed' }),
      handler: resend,
    },
    {
      method: 'POST',
      path: `${P}/{webhookId}/test`,
      options: signedIn(hook, { owners: 'test webhooks; nothing was sent' }),
      handler: sendTest,
    },
  ];
}
