// The API keys page, `/projects/{projectId}/api-keys` (owners): the project's keys with their scopes, the agent
// flag, creation and last use; a form that creates a key (scopes as checkboxes, the agent flag) whose secret is
// shown once in the answer to that post, never stored for a later page; revoke. Data from the internal API only
// (internalListApiKeys, internalCreateApiKey, internalRevokeApiKey); a reviewer's call is refused by the API (403).
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../platform/app.js';
import { apiFor, type Api } from './api.js';
import { apiMessage, csrfField, dataOf, ourForm, ownersOnly, secretOnce, timeOf } from './forms.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import type { Session } from './sessions.js';
import { htmlReply, messagePage, redirect, sessionOf, signinUrl } from './web.js';

type ApiKey = components['schemas']['ApiKeyInfo'];
type Scope = ApiKey['scopes'][number];

const SCOPES: Array<{ scope: Scope; hint: string }> = [
  { scope: 'read', hint: 'read strings and files' },
  { scope: 'write', hint: 'push and sync without translating' },
  { scope: 'capture', hint: 'report strings seen at run time' },
  { scope: 'translate', hint: 'spend credits on translation' },
  { scope: 'publish', hint: 'publish, restore, webhooks' },
  { scope: 'admin', hint: 'every scope' },
];

const section = 'api-keys';

function keysTable(s: Session, projectId: string, keys: ApiKey[]): Html {
  if (!keys.length) return html`<p>This project has no API keys.</p>`;
  return html`<table>
    <caption>
      API keys, newest first
    </caption>
    <thead>
      <tr>
        <th scope="col">Name</th>
        <th scope="col">Key id</th>
        <th scope="col">Scopes</th>
        <th scope="col">Agent</th>
        <th scope="col">Created</th>
        <th scope="col">Last used</th>
        <th scope="col">Status</th>
      </tr>
    </thead>
    <tbody>
      ${keys.map(
        (k) =>
          html`<tr>
            <td>${k.name ?? html`<em>unnamed</em>`}</td>
            <td><code>${k.keyId}</code></td>
            <td>${k.scopes.join(', ')}</td>
            <td>${k.requiresOperationApproval ? 'yes: needs approved operations' : 'no'}</td>
            <td>${timeOf(k.createdAt)}</td>
            <td>${timeOf(k.lastUsedAt)}</td>
            <td>
              ${
                k.revokedAt
                  ? html`revoked ${timeOf(k.revokedAt)}`
                  : html`<form method="post" action="${projectPath(projectId, `${section}/${k.keyId}/revoke`)}">
                      ${csrfField(s)}
                      <button type="submit" aria-label="Revoke ${k.name ?? k.keyId}">Revoke</button>
                    </form>`
              }
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function createForm(s: Session, projectId: string): Html {
  return html`<form method="post" action="${projectPath(projectId, section)}">
    ${csrfField(s)}
    <label for="key-name">Name</label>
    <input id="key-name" name="name" type="text" maxlength="100" autocomplete="off" />
    <fieldset>
      <legend>Scopes (at least one)</legend>
      ${SCOPES.map(
        ({ scope, hint }) =>
          html`<div class="check">
            <input id="scope-${scope}" name="scope_${scope}" type="checkbox" value="on" />
            <label for="scope-${scope}">${scope} <span class="hint">(${hint})</span></label>
          </div>`,
      )}
    </fieldset>
    <div class="check">
      <input id="key-agent" name="agent" type="checkbox" value="on" />
      <label for="key-agent">Agent key: paid work, publishing and restoring need an operation a person approves</label>
    </div>
    <p><button type="submit">Create key</button></p>
  </form>`;
}

async function keysPage(
  api: Api,
  s: Session,
  projectId: string,
  extra: { error?: string; secret?: Html } = {},
): Promise<{ status: number; body: string }> {
  const project = await api.GET('/projects/{projectId}', { params: { path: { projectId } } });
  if (project.response.status === 404)
    return { status: 404, body: messagePage('Project not found', 'There is no project with this id.', s) };
  const name = dataOf(project, 'get project').name;
  const list = await api.GET('/projects/{projectId}/api-keys', { params: { path: { projectId } } });
  if (list.response.status === 403) return { status: 403, body: ownersOnly(s, 'see and manage API keys') };
  const keys = dataOf(list, 'list API keys').apiKeys;
  return {
    status: 200,
    body: appPage(
      s,
      `API keys · ${name}`,
      html`<section>
          <h1>API keys of ${name}</h1>
          ${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
          <p>Secrets are stored only as hashes: a key's secret is shown once, when it is created.</p>
        </section>
        ${extra.secret ?? ''}
        <section>
          <h2>Keys</h2>
          ${keysTable(s, projectId, keys)}
        </section>
        <section>
          <h2>Create a key</h2>
          ${createForm(s, projectId)}
        </section>`,
      { projectId, section },
    ),
  };
}

export function apiKeyRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const page = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = await sessionOf(app, request);
    if (!session) return redirect(h, signinUrl(projectPath(projectId, section)));
    const r = await keysPage(apiFor(server, session), session, projectId);
    return htmlReply(h, r.status, r.body);
  };

  const create = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const post = await ourForm(app, request, h, projectPath(projectId, section));
    if ('reply' in post) return post.reply;
    const { session, form } = post;
    const api = apiFor(server, session);
    const again = async (status: number, error: string, secret?: Html) => {
      const r = await keysPage(api, session, projectId, { error, secret });
      return htmlReply(h, r.status === 200 ? status : r.status, r.body);
    };
    const scopes = SCOPES.map((x) => x.scope).filter((x) => form[`scope_${x}`] === 'on');
    if (!scopes.length) return again(400, 'Choose at least one scope; nothing was created.');
    const name = (form.name ?? '').trim();
    if (name.length > 100) return again(400, 'The name has at most 100 characters; nothing was created.');
    const made = await api.POST('/projects/{projectId}/api-keys', {
      params: { path: { projectId } },
      body: { scopes, requiresOperationApproval: form.agent === 'on', ...(name ? { name } : {}) },
    });
    if (made.response.status === 403)
      return htmlReply(h, 403, ownersOnly(session, 'create API keys; nothing was created'));
    if (made.response.status === 404) return again(404, 'There is no project with this id.');
    if (!made.data) return again(made.response.status, `${apiMessage(made.error)} Nothing was created.`);
    // The secret goes into this answer only: not stored, not in a URL, and the page is no-store (html.ts).
    const r = await keysPage(api, session, projectId, {
      secret: secretOnce(`New key ${name || made.data.keyId}`, made.data.apiKey),
    });
    return htmlReply(h, r.status === 200 ? 201 : r.status, r.body);
  };

  const revoke = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const keyId = String(request.params.keyId);
    const post = await ourForm(app, request, h, projectPath(projectId, section));
    if ('reply' in post) return post.reply;
    const api = apiFor(server, post.session);
    const r = await api.DELETE('/projects/{projectId}/api-keys/{keyId}', {
      params: { path: { projectId, keyId } },
    });
    if (r.response.status === 403)
      return htmlReply(h, 403, ownersOnly(post.session, 'revoke API keys; nothing changed'));
    if (r.response.status !== 204) {
      const page = await keysPage(api, post.session, projectId, {
        error: `${apiMessage(r.error) || 'The key could not be revoked.'} Nothing changed.`,
      });
      return htmlReply(h, r.response.status, page.body);
    }
    return redirect(h, projectPath(projectId, section));
  };

  return [
    { method: 'GET', path: '/projects/{projectId}/api-keys', handler: page },
    { method: 'POST', path: '/projects/{projectId}/api-keys', handler: create },
    { method: 'POST', path: '/projects/{projectId}/api-keys/{keyId}/revoke', handler: revoke },
  ];
}
