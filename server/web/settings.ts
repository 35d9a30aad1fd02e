// What only the API could do, on pages (owners): `/projects/new` creates a project (name, base language, target
// languages, workspace) and optionally its first API key, whose secret the API keys page then shows once (flash.ts);
// `/projects/{projectId}/settings` lists the languages with their fill modes, adds one (or revives a removed one),
// removes one (kept as removed: adding it again revives it with its translations), and adds or removes output formats.
// Data from the internal API only (internalCreateProject, internalCreateApiKey, internalGetProject,
// internalAddLanguage, internalRemoveLanguage, internalAddOutputFormat, internalRemoveOutputFormat); posts answer 303
// with a one-time flash (decision 0003). Names are escaped like all user text; language codes are shown with their `lang`.
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { FORMAT_IDS } from '../../packages/core/src/formats/index.js';
import type { FormatId } from '../../packages/core/src/catalog.js';
import { apiFor, type Api } from './api.js';
import { flashHtml, redirectWithFlash, takeFlashes, type Flash } from './flash.js';
import { apiMessage, csrfField, dataOf } from './forms.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import type { Session } from '../domain/users/sessions.js';
import { formOf, htmlReply } from './web.js';
import { sessionOf, signedIn } from './auth.js';

type Project = components['schemas']['Project'];
type Reply = { status: number; body: string };

const NEW = '/projects/new';
const section = 'settings';
const settingsPath = (projectId: string) => projectPath(projectId, section);

// The output formats a project may configure (spec `OutputFormatId`, the renderers of packages/core).
const FORMATS = FORMAT_IDS;
const isFormat = (v: unknown): v is FormatId => FORMATS.includes(v as FormatId);

/** Target languages as typed: codes separated by commas or spaces. */
const codesOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((c) => c.trim())
    .filter(Boolean);

const notices = (extra: { error?: string; flashes?: Flash[] }): Html =>
  html`${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}${flashHtml(extra.flashes ?? [])}`;

async function newProjectPage(
  api: Api,
  s: Session,
  extra: { error?: string; form?: Record<string, string> } = {},
): Promise<string> {
  const list = dataOf(await api.GET('/projects'), 'list projects');
  const workspaces = new Map(list.projects.map((p) => [p.workspaceId, p.workspaceName]));
  const f = extra.form ?? {};
  return appPage(
    s,
    'New project',
    html`<section>
      <h1>New project</h1>
      ${notices(extra)}
      <form method="post" action="${NEW}">
        ${csrfField(s)}
        <label for="project-name">Name</label>
        <input id="project-name" name="name" type="text" dir="auto" required maxlength="200" value="${f.name ?? ''}" />
        ${
          workspaces.size
            ? html`<label for="project-workspace">Workspace (whose credits it spends)</label>
                <select id="project-workspace" name="workspaceId">
                  ${[...workspaces].map(
                    ([id, name]) =>
                      html`<option value="${id}" ${f.workspaceId === id ? html`selected` : ''}>${name}</option>`,
                  )}
                </select>`
            : html`<label for="project-workspace"
                  >Workspace id (create one with <code>POST /internal/v1/workspaces</code>)</label
                >
                <input
                  id="project-workspace"
                  name="workspaceId"
                  type="text"
                  required
                  maxlength="40"
                  value="${f.workspaceId ?? ''}"
                />`
        }
        <label for="project-base">Base language (BCP 47, the language of the sources)</label>
        <input
          id="project-base"
          name="baseLang"
          type="text"
          required
          maxlength="35"
          autocomplete="off"
          spellcheck="false"
          value="${f.baseLang ?? 'en'}"
        />
        <label for="project-languages">Target languages (codes separated by commas or spaces, e.g. de, fr, ar)</label>
        <input
          id="project-languages"
          name="languages"
          type="text"
          maxlength="4000"
          autocomplete="off"
          spellcheck="false"
          value="${f.languages ?? ''}"
        />
        <div class="check">
          <input
            id="project-key"
            name="firstKey"
            type="checkbox"
            value="on"
            ${f.firstKey === 'on' || !extra.form ? html`checked` : ''}
          />
          <label for="project-key"
            >Create a first API key (scopes read and translate: pull, push and sync); its secret is shown once</label
          >
        </div>
        <p><button type="submit">Create the project</button></p>
      </form>
    </section>`,
    { section: 'projects' },
  );
}

function settingsBody(s: Session, p: Project, extra: { error?: string; flashes?: Flash[] }): Html {
  const live = p.languages.filter((l) => !l.removed && !l.isBase);
  const removed = p.languages.filter((l) => l.removed);
  const base = settingsPath(p.projectId);
  return html`<section>
      <h1>Settings of ${p.name}</h1>
      ${notices(extra)}
      <dl>
        <dt>Base language</dt>
        <dd><code lang="${p.baseLang}">${p.baseLang}</code></dd>
        <dt>Project id</dt>
        <dd><code>${p.projectId}</code></dd>
      </dl>
    </section>
    <section>
      <h2>Target languages</h2>
      ${
        live.length
          ? html`<table>
              <caption>
                Languages translated into
              </caption>
              <thead>
                <tr>
                  <th scope="col">Language</th>
                  <th scope="col">Fill</th>
                  <th scope="col">Remove</th>
                </tr>
              </thead>
              <tbody>
                ${live.map(
                  (l) =>
                    html`<tr>
                      <td><code lang="${l.code}">${l.code}</code></td>
                      <td>${l.fillMode === 'ai' ? 'AI fills missing translations' : 'manual: people translate'}</td>
                      <td>
                        <form
                          method="post"
                          action="${base}/languages/${encodeURIComponent(l.code)}/remove"
                          class="inline"
                        >
                          ${csrfField(s)}
                          <button type="submit" aria-label="Remove ${l.code}">Remove</button>
                        </form>
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>No target languages yet.</p>`
      }
      ${
        removed.length
          ? html`<p>
              Removed (their translations are kept; adding one again brings it back):
              ${removed.map((l, i) => html`${i ? ', ' : ''}<code lang="${l.code}">${l.code}</code>`)}
            </p>`
          : ''
      }
      <h3>Add a language</h3>
      <form method="post" action="${base}/languages">
        ${csrfField(s)}
        <label for="lang-code">Language code (BCP 47: de, pt-BR, zh-Hant)</label>
        <input id="lang-code" name="code" type="text" required maxlength="35" autocomplete="off" spellcheck="false" />
        <label for="lang-fill">Fill</label>
        <select id="lang-fill" name="fillMode">
          <option value="ai">AI fills missing translations</option>
          <option value="manual">manual: people translate</option>
        </select>
        <p><button type="submit">Add the language</button></p>
      </form>
    </section>
    <section>
      <h2>Output formats</h2>
      <p>
        The files a publish renders:
        ${p.outputFormats.length ? p.outputFormats.map((f, i) => html`${i ? ', ' : ''}<code>${f}</code>`) : 'none configured yet (the published versions’ formats apply)'}.
        At most two: to change one, add the new one, then remove the old one. Versions already published keep their
        files.
      </p>
      ${
        p.outputFormats.length > 1
          ? html`<ul class="formats">
              ${p.outputFormats.map(
                (f) =>
                  html`<li>
                    <code>${f}</code>
                    <form method="post" action="${base}/output-formats/${encodeURIComponent(f)}/remove" class="inline">
                      ${csrfField(s)}
                      <button type="submit" aria-label="Stop rendering ${f}">Remove</button>
                    </form>
                  </li>`,
              )}
            </ul>`
          : ''
      }
      <form method="post" action="${base}/output-formats">
        ${csrfField(s)}
        <label for="format">Add a format</label>
        <select id="format" name="format">
          ${FORMATS.filter((f) => !p.outputFormats.includes(f)).map((f) => html`<option value="${f}">${f}</option>`)}
        </select>
        <p><button type="submit">Add the format</button></p>
      </form>
    </section>`;
}

async function settingsPage(
  api: Api,
  s: Session,
  projectId: string,
  extra: { error?: string; flashes?: Flash[] } = {},
): Promise<Reply> {
  const r = await api.GET('/projects/{projectId}', { params: { path: { projectId } } });
  if (r.response.status === 404 || r.response.status === 400)
    return {
      status: 404,
      body: appPage(
        s,
        'Project not found',
        html`<h1>Project not found</h1>
          <p>There is no project with this id.</p>`,
      ),
    };
  const p = dataOf(r, 'get project');
  return { status: 200, body: appPage(s, `Settings · ${p.name}`, settingsBody(s, p, extra), { projectId, section }) };
}

export function settingsRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const getNew = async (request: Request, h: ResponseToolkit) => {
    const session = sessionOf(request);
    return htmlReply(h, 200, await newProjectPage(apiFor(server, session), session));
  };

  const postNew = async (request: Request, h: ResponseToolkit) => {
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const again = async (status: number, error: string) =>
      htmlReply(h, status, await newProjectPage(api, session, { error: `${error} Nothing was created.`, form }));
    const languages = codesOf(form.languages ?? '');
    if (languages.length > 500) return again(400, 'At most 500 target languages.');
    const made = await api.POST('/projects', {
      body: {
        name: (form.name ?? '').trim(),
        workspaceId: (form.workspaceId ?? '').trim(),
        baseLang: (form.baseLang ?? '').trim(),
        languages: languages.map((code) => ({ code })),
      },
    });
    if (!made.data) return again(made.response.status, apiMessage(made.error) || 'The project could not be created.');
    const projectId = made.data.projectId;
    if (form.firstKey !== 'on')
      return redirectWithFlash(app, h, session, settingsPath(projectId), { notice: 'The project is created.' });
    const key = await api.POST('/projects/{projectId}/api-keys', {
      params: { path: { projectId } },
      body: { scopes: ['read', 'translate'], name: 'first key' },
    });
    if (!key.data)
      return redirectWithFlash(app, h, session, settingsPath(projectId), {
        notice: `The project is created; its first API key was not: ${apiMessage(key.error)}`,
      });
    // The secret is shown once by the API keys page, from a flash sealed for this session: never in a URL.
    return redirectWithFlash(app, h, session, projectPath(projectId, 'api-keys'), {
      notice: 'The project is created with its first API key (read, translate).',
      secret: { label: 'The first key of the project', value: key.data.apiKey },
    });
  };

  const getSettings = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = sessionOf(request);
    const flashes = await takeFlashes(app, session, settingsPath(projectId));
    const r = await settingsPage(apiFor(server, session), session, projectId, { flashes });
    return htmlReply(h, r.status, r.body);
  };

  /** Answers a settings post: the flash on success, else the page with the API's refusal. */
  const settingsChange =
    (
      call: (
        api: Api,
        projectId: string,
        request: Request,
      ) => Promise<{ ok: boolean; status: number; error?: unknown; notice: string }>,
    ) =>
    async (request: Request, h: ResponseToolkit) => {
      const projectId = String(request.params.projectId);
      const session = sessionOf(request);
      const api = apiFor(server, session);
      const r = await call(api, projectId, request);
      if (!r.ok) {
        const page = await settingsPage(api, session, projectId, {
          error: `${apiMessage(r.error) || 'That did not work.'} Nothing changed.`,
        });
        return htmlReply(h, page.status === 200 ? r.status : page.status, page.body);
      }
      return redirectWithFlash(app, h, session, settingsPath(projectId), { notice: r.notice });
    };

  const addLanguage = settingsChange(async (api, projectId, request) => {
    const form = formOf(request);
    const fillMode = form.fillMode === 'manual' ? 'manual' : 'ai';
    const r = await api.POST('/projects/{projectId}/languages', {
      params: { path: { projectId } },
      body: { code: (form.code ?? '').trim(), fillMode },
    });
    return {
      ok: r.response.ok,
      status: r.response.status,
      error: r.error,
      notice: r.data ? `Added ${r.data.code} (${r.data.fillMode === 'ai' ? 'AI fills it' : 'manual'}).` : '',
    };
  });

  const removeLanguage = settingsChange(async (api, projectId, request) => {
    const code = String(request.params.code);
    const r = await api.DELETE('/projects/{projectId}/languages/{code}', { params: { path: { projectId, code } } });
    return {
      ok: r.response.ok,
      status: r.response.status,
      error: r.error,
      notice: `Removed ${code}: it is no longer filled or published; adding it again brings it back with its translations.`,
    };
  });

  const addFormat = settingsChange(async (api, projectId, request) => {
    const form = formOf(request);
    if (!isFormat(form.format))
      return { ok: false, status: 400, error: { message: 'Choose one of the listed formats.' }, notice: '' };
    const r = await api.POST('/projects/{projectId}/output-formats', {
      params: { path: { projectId } },
      body: { format: form.format },
    });
    return {
      ok: r.response.ok,
      status: r.response.status,
      error: r.error,
      notice: r.data ? `Output formats: ${r.data.formats.join(', ')}.` : '',
    };
  });

  const removeFormat = settingsChange(async (api, projectId, request) => {
    const format = String(request.params.format);
    if (!isFormat(format))
      return { ok: false, status: 400, error: { message: 'Choose one of the listed formats.' }, notice: '' };
    const r = await api.DELETE('/projects/{projectId}/output-formats/{format}', {
      params: { path: { projectId, format } },
    });
    return {
      ok: r.response.ok,
      status: r.response.status,
      error: r.error,
      notice: r.data
        ? `Output formats: ${r.data.formats.join(', ')}. Versions already published keep their files.`
        : '',
    };
  });

  const owners = (what: string, next: (r: Request) => string) => signedIn(next, { owners: what });
  const here = (r: Request) => settingsPath(String(r.params.projectId));
  return [
    { method: 'GET', path: NEW, options: owners('create projects', () => NEW), handler: getNew },
    { method: 'POST', path: NEW, options: owners('create projects; nothing was created', () => NEW), handler: postNew },
    {
      method: 'GET',
      path: '/projects/{projectId}/settings',
      options: owners('change project settings', here),
      handler: getSettings,
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/settings/languages',
      options: owners('add languages; nothing changed', here),
      handler: addLanguage,
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/settings/languages/{code}/remove',
      options: owners('remove languages; nothing changed', here),
      handler: removeLanguage,
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/settings/output-formats',
      options: owners('configure output formats; nothing changed', here),
      handler: addFormat,
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/settings/output-formats/{format}/remove',
      options: owners('configure output formats; nothing changed', here),
      handler: removeFormat,
    },
  ];
}
