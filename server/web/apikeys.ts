// The API keys page, `/projects/{projectId}/api-keys` (owners): the project's keys with their scopes, the agent
// flag, creation and last use; a form that creates a key (scopes as checkboxes, the agent flag) and redirects to the
// list, which shows the secret once from the post's one-time flash (flash.ts: sealed for the session, taken by the
// first read); revoke, asked first on `…/api-keys/{keyId}/revoke` with what stops working. Data from the internal
// API only (internalListApiKeys, internalCreateApiKey, internalRevokeApiKey); a reviewer's call is refused by the
// API (403). Below the form, what each scope opens, from the route table the server enforces.
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import { routes } from '../../generated/routes.js';
import { hasScope } from '../http/apikeys.js';
import type { App } from '../infra/app.js';
import { apiFor, type Api } from './api.js';
import { flashHtml, redirectWithFlash, takeFlashes, type Flash } from './flash.js';
import { apiMessage, csrfField, dataOf, ownersOnly, timeOf } from './forms.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import type { Session } from '../domain/users/sessions.js';
import { formOf, htmlReply, messagePage } from './web.js';
import { sessionOf, signedIn } from './auth.js';

type ApiKey = components['schemas']['ApiKeyInfo'];
type Scope = ApiKey['scopes'][number];

// What each scope opens, as the server enforces it: the hints say it in words, and the page lists the calls from
// the generated route table (spec/openapi.yaml `x-scopes`, checked by server/http/apikeys.ts `hasScope`), so the
// list cannot drift from the server. Pushing and syncing need `translate` (they translate), not `write`.
const SCOPES: Array<{ scope: Scope; hint: string }> = [
  {
    scope: 'read',
    hint: 'pull translations; read versions, status, check results, the memory, the termbase and content documents',
  },
  {
    scope: 'write',
    hint: 'add languages and output formats, import translated files, push content documents, change terms and import memory; not push or sync (those need translate)',
  },
  { scope: 'capture', hint: 'report strings the app shows untranslated' },
  {
    scope: 'translate',
    hint: 'push and sync (which translate and spend credits), translate outdated cells again, start content runs, pull translations, ask for translate operations',
  },
  {
    scope: 'publish',
    hint: 'publish and restore versions, manage webhooks, read versions and status, ask for publish and rollback operations',
  },
  { scope: 'admin', hint: 'every call of every scope' },
];

/** The public API's keyed calls (not the delivery origin's, not the public ones). */
const keyedRoutes = routes.filter((r) => r.origin === 'main' && !r.public);
const callOf = (r: (typeof routes)[number]) => `${r.method} /v1${r.path}`;

/** The calls a key holding only `scope` may make beyond those of any key. */
const callsOf = (scope: Scope): string[] =>
  keyedRoutes.filter((r) => !r.scopes.includes('*') && hasScope([scope], r.scopes)).map(callOf);

function scopeTable(): Html {
  return html`<section aria-labelledby="scopes-title">
    <h2 id="scopes-title">What each scope opens</h2>
    <p>
      A key may make a call when it holds one of the call's scopes; any key of the project may also make
      ${keyedRoutes
        .filter((r) => r.scopes.includes('*'))
        .map((r, i) => html`${i ? ', ' : ''}<code>${callOf(r)}</code>`)}.
      Any other call answers <code>403</code>.
    </p>
    <dl class="scopes">
      ${SCOPES.map(
        ({ scope, hint }) =>
          html`<dt><code>${scope}</code></dt>
            <dd>
              ${hint}.
              <details>
                <summary>The calls <code>${scope}</code> allows</summary>
                <ul>
                  ${callsOf(scope).map((c) => html`<li><code>${c}</code></li>`)}
                </ul>
              </details>
            </dd>`,
      )}
    </dl>
  </section>`;
}

const section = 'api-keys';
/** What a reviewer may not do on these pages (the internal API's routes of API keys are owners' only). */
const SEE = 'see and manage API keys';
const revokePath = (projectId: string, keyId: string) =>
  projectPath(projectId, `${section}/${encodeURIComponent(keyId)}/revoke`);

function keysTable(projectId: string, keys: ApiKey[]): Html {
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
                  : html`<a
                      class="button"
                      href="${revokePath(projectId, k.keyId)}"
                      aria-label="Revoke ${k.name ?? k.keyId}"
                      >Revoke…</a
                    >`
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

/** Revoking a key, asked first: which key, what it may do, when it was last used, and what stops working. */
function revokePage(s: Session, projectId: string, k: ApiKey): string {
  const name = k.name ?? k.keyId;
  return appPage(
    s,
    `Revoke ${name}?`,
    html`<section aria-labelledby="revoke-title">
      <h1 id="revoke-title">Revoke the API key ${k.name ?? html`<em>unnamed</em>`}?</h1>
      ${
        k.revokedAt
          ? html`<p>This key was revoked ${timeOf(k.revokedAt)}; there is nothing to do.</p>`
          : html`<dl>
                <dt>Key id</dt>
                <dd><code>${k.keyId}</code></dd>
                <dt>Scopes</dt>
                <dd>${k.scopes.join(', ')}</dd>
                <dt>Agent</dt>
                <dd>${k.requiresOperationApproval ? 'yes' : 'no'}</dd>
                <dt>Last used</dt>
                <dd>${timeOf(k.lastUsedAt)}</dd>
              </dl>
              <p class="warn">
                What stops working: every request with this key is refused (401) from the moment you revoke it:
                ${scopeEffects(k.scopes)}. A revoked key cannot be brought back; whoever uses it needs a new key.
              </p>
              <form method="post" action="${revokePath(projectId, k.keyId)}" class="confirm-actions">
                ${csrfField(s)}
                <button type="submit" class="danger">Revoke ${name}</button>
                <a href="${projectPath(projectId, section)}">Cancel</a>
              </form>`
      }
    </section>`,
    { projectId, section },
  );
}

const EFFECTS: Record<Scope, string> = {
  read: 'pulls of strings and files (CI, builds)',
  write: 'adding languages and output formats, file imports, content and term changes',
  capture: "apps' capture of missing strings",
  translate: 'pushes, syncs and translation requests',
  publish: 'publishes, restores and webhook changes',
  admin: 'everything the key could do',
};

const scopeEffects = (scopes: Scope[]) => scopes.map((x) => EFFECTS[x]).join('; ');

async function keysPage(
  api: Api,
  s: Session,
  projectId: string,
  extra: { error?: string; flashes?: Flash[] } = {},
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
        ${flashHtml(extra.flashes ?? [])}
        <section>
          <h2>Keys</h2>
          ${keysTable(projectId, keys)}
        </section>
        <section>
          <h2>Create a key</h2>
          ${createForm(s, projectId)}
        </section>
        ${scopeTable()}`,
      { projectId, section },
    ),
  };
}

export function apiKeyRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const page = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = sessionOf(request);
    const flashes = await takeFlashes(app, session, projectPath(projectId, section));
    const r = await keysPage(apiFor(server, session), session, projectId, { flashes });
    return htmlReply(h, r.status, r.body);
  };

  const create = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const again = async (status: number, error: string) => {
      const r = await keysPage(api, session, projectId, { error });
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
    // The secret is shown by the page the redirect opens, from a one-time flash sealed for this session (flash.ts):
    // never in a URL, and a reload of that page neither shows it again nor creates another key.
    return redirectWithFlash(app, h, session, projectPath(projectId, section), {
      secret: { label: `New key ${name || made.data.keyId}`, value: made.data.apiKey },
    });
  };

  /** The key `keyId` of the project, or the page to answer instead. */
  const findKey = async (
    api: Api,
    session: Session,
    projectId: string,
    keyId: string,
  ): Promise<{ page: { status: number; body: string } } | { key: ApiKey }> => {
    const list = await api.GET('/projects/{projectId}/api-keys', { params: { path: { projectId } } });
    if (list.response.status === 403)
      return { page: { status: 403, body: ownersOnly(session, 'see and manage API keys') } };
    if (list.response.status === 404 || list.response.status === 400)
      return {
        page: { status: 404, body: messagePage('Project not found', 'There is no project with this id.', session) },
      };
    const key = dataOf(list, 'list API keys').apiKeys.find((k) => k.keyId === keyId);
    if (!key)
      return {
        page: { status: 404, body: messagePage('Key not found', 'This project has no such API key.', session) },
      };
    return { key };
  };

  const confirmRevoke = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const keyId = String(request.params.keyId);
    const session = sessionOf(request);
    const found = await findKey(apiFor(server, session), session, projectId, keyId);
    if ('page' in found) return htmlReply(h, found.page.status, found.page.body);
    return htmlReply(h, 200, revokePage(session, projectId, found.key));
  };

  const revoke = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const keyId = String(request.params.keyId);
    const session = sessionOf(request);
    const api = apiFor(server, session);
    const found = await findKey(api, session, projectId, keyId);
    if ('page' in found) return htmlReply(h, found.page.status, found.page.body);
    const r = await api.DELETE('/projects/{projectId}/api-keys/{keyId}', {
      params: { path: { projectId, keyId } },
    });
    if (r.response.status === 403) return htmlReply(h, 403, ownersOnly(session, 'revoke API keys; nothing changed'));
    if (r.response.status !== 204) {
      const page = await keysPage(api, session, projectId, {
        error: `${apiMessage(r.error) || 'The key could not be revoked.'} Nothing changed.`,
      });
      return htmlReply(h, r.response.status, page.body);
    }
    return redirectWithFlash(app, h, session, projectPath(projectId, section), {
      notice: `Revoked ${found.key.name ?? found.key.keyId}: requests with it are refused from now on.`,
    });
  };

  const list = (r: Request) => projectPath(String(r.params.projectId), section);
  const one = (r: Request) => revokePath(String(r.params.projectId), String(r.params.keyId));
  return [
    { method: 'GET', path: '/projects/{projectId}/api-keys', options: signedIn(list, { owners: SEE }), handler: page },
    {
      method: 'POST',
      path: '/projects/{projectId}/api-keys',
      options: signedIn(list, { owners: 'create API keys; nothing was created' }),
      handler: create,
    },
    {
      method: 'GET',
      path: '/projects/{projectId}/api-keys/{keyId}/revoke',
      options: signedIn(one, { owners: SEE }),
      handler: confirmRevoke,
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/api-keys/{keyId}/revoke',
      options: signedIn(one, { owners: SEE }),
      handler: revoke,
    },
  ];
}
