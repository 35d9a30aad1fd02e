// The people pages. `/users` (owners): the people who sign in to the dashboard with their roles, whether they are
// active and how many sessions they have open, a form that adds one (name, email, a first password, role), and a role
// change per person (the last active owner stays owner: 409 last_owner). `/users/{userId}` (owners): one person's
// password reset, ending their sessions, deactivating or reactivating them, and removing them (asked first on
// `/users/{userId}/remove`). `/account` (everyone signed in): changing one's own password. Data from the internal
// API only (spec/internal.yaml `internal…User…`, `internalChangeOwnPassword`); a reviewer's call of an owner's route
// is refused by the API (403). Posts answer 303 with a one-time flash (flash.ts; decision 0003). Names and emails
// are escaped like all user text.
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components, operations } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { apiFor, type Api } from './api.js';
import { apiMessage, csrfField, dataOf, ownersOnly, timeOf } from './forms.js';
import { flashHtml, redirectWithFlash, takeFlashes, type Flash } from './flash.js';
import { html, type Html } from './html.js';
import { appPage } from './layout.js';
import { openSession, readSession, type Session } from '../domain/users/sessions.js';
import { formOf, htmlReply, messagePage, redirect } from './web.js';
import { cookieNames, sessionOf, signedIn } from './auth.js';

type User = components['schemas']['User'];
type Role = User['role'];
type Reply = { status: number; body: string };

type Projects = operations['internalListProjects']['responses']['200']['content']['application/json']['projects'];

const ROLES: Array<{ role: Role; label: string }> = [
  { role: 'translator', label: 'translator: works only in the projects they are given, with a role in each' },
  { role: 'reviewer', label: 'reviewer: edit, review and approve translations and content' },
  { role: 'owner', label: 'owner: everything, including keys, webhooks, users and publishing' },
];
const isRole = (v: unknown): v is Role => v === 'owner' || v === 'reviewer' || v === 'translator';

/** The checkbox of one project language on a translator's page. */
const grantField = (projectId: string, lang: string) => `grant:${projectId}:${lang}`;
/** The role select of one project on a translator's page. */
const roleField = (projectId: string) => `role:${projectId}`;

type ProjectRole = NonNullable<NonNullable<User['grants']>[number]['role']>;
const PROJECT_ROLES: Array<{ role: ProjectRole; label: string }> = [
  { role: 'translator', label: 'translator of the languages checked' },
  { role: 'reviewer', label: 'reviewer of every language' },
  { role: 'owner', label: 'owner of the project' },
];

/**
 * A translator's projects: per project, the role they hold in it and a checkbox per target language, as granted
 * (TranslatorGrants). A project is theirs when they own or review it, or translate a language checked. Only for
 * the translator role.
 */
function grantsSection(s: Session, u: User, projects: Projects): Html {
  if (u.role !== 'translator') return html``;
  const grants = new Map((u.grants ?? []).map((g) => [g.projectId, g]));
  const granted = new Set((u.grants ?? []).flatMap((g) => (g.langs ?? []).map((l) => grantField(g.projectId, l))));
  return html`<section>
    <h2>Projects and roles</h2>
    <p>
      They see these projects only. In each, they translate the languages checked (saved as translated, never reviewed),
      or review or own the whole project. People, workspaces and new projects stay with owners.
    </p>
    <form method="post" action="${personPath(u.userId)}/grants">
      ${csrfField(s)}
      ${
        projects.length
          ? projects.map((p) => {
              const select = roleField(p.projectId);
              const current = grants.get(p.projectId)?.role ?? 'translator';
              return html`<fieldset>
                <legend dir="auto">${p.name}</legend>
                <p>
                  <label for="${select}">Role in this project</label>
                  <select id="${select}" name="${select}">
                    ${PROJECT_ROLES.map(
                      (r) =>
                        html`<option value="${r.role}" ${r.role === current ? html`selected` : ''}>${r.label}</option>`,
                    )}
                  </select>
                </p>
                ${p.languages
                  .filter((l) => l !== p.baseLang)
                  .map((l) => {
                    const name = grantField(p.projectId, l);
                    return html`<input
                        type="checkbox"
                        id="${name}"
                        name="${name}"
                        value="on"
                        ${granted.has(name) ? html`checked` : ''}
                      />
                      <label for="${name}">${l}</label>`;
                  })}
              </fieldset>`;
            })
          : html`<p>There is no project yet.</p>`
      }
      <p><button type="submit">Save projects and roles</button></p>
    </form>
  </section>`;
}

const USERS = '/users';
const personPath = (userId: string) => `/users/${encodeURIComponent(userId)}`;
const ACCOUNT = '/account';

function roleSelect(id: string, selected: Role): Html {
  return html`<select id="${id}" name="role">
    ${ROLES.map((r) => html`<option value="${r.role}" ${r.role === selected ? html`selected` : ''}>${r.role}</option>`)}
  </select>`;
}

const statusOf = (u: User): Html | string =>
  u.deactivatedAt ? html`deactivated ${timeOf(u.deactivatedAt)}` : 'active';

/** The new-password field pair of the reset and change forms (the rules: spec/internal.yaml NewPassword). */
const newPasswordField = (id: string, label: string): Html =>
  html`<label for="${id}">${label}</label>
    <input
      id="${id}"
      name="password"
      type="password"
      required
      minlength="12"
      maxlength="256"
      autocomplete="new-password"
    />`;

function usersTable(s: Session, users: User[]): Html {
  return html`<table>
    <caption>
      People who can sign in
    </caption>
    <thead>
      <tr>
        <th scope="col">Name</th>
        <th scope="col">Email</th>
        <th scope="col">Role</th>
        <th scope="col">Status</th>
        <th scope="col">Sessions</th>
        <th scope="col">Since</th>
        <th scope="col">Change role</th>
        <th scope="col">Manage</th>
      </tr>
    </thead>
    <tbody>
      ${users.map(
        (u) =>
          html`<tr>
            <td dir="auto">${u.name}${u.userId === s.user.id ? ' (you)' : ''}</td>
            <td>${u.email}</td>
            <td>${u.role}</td>
            <td>${statusOf(u)}</td>
            <td>${u.sessions}</td>
            <td>${timeOf(u.createdAt)}</td>
            <td>
              <form method="post" action="${personPath(u.userId)}/role" class="inline">
                ${csrfField(s)}
                <label for="role-${u.userId}" class="visually-hidden">Role of ${u.name}</label>
                ${roleSelect(`role-${u.userId}`, u.role)}
                <button type="submit" aria-label="Change the role of ${u.name}">Change</button>
              </form>
            </td>
            <td><a href="${personPath(u.userId)}" aria-label="Manage ${u.name}">Manage…</a></td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

const notices = (extra: { error?: string; flashes?: Flash[] }): Html =>
  html`${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}${flashHtml(extra.flashes ?? [])}`;

async function usersPage(
  api: Api,
  s: Session,
  extra: { error?: string; flashes?: Flash[]; form?: Record<string, string> } = {},
): Promise<Reply> {
  const list = await api.GET('/users');
  if (list.response.status === 403) return { status: 403, body: ownersOnly(s, 'see and manage users') };
  const users = dataOf(list, 'list users').users;
  const f = extra.form ?? {};
  return {
    status: 200,
    body: appPage(
      s,
      'Users',
      html`<section>
          <h1>Users</h1>
          ${notices(extra)}
          <ul>
            ${ROLES.map((r) => html`<li>${r.label}</li>`)}
          </ul>
        </section>
        <section>${usersTable(s, users)}</section>
        <section>
          <h2>Add a person</h2>
          <p>They sign in at this dashboard's address with their email and the first password you give them.</p>
          <form method="post" action="${USERS}">
            ${csrfField(s)}
            <label for="user-name">Name</label>
            <input id="user-name" name="name" type="text" dir="auto" required maxlength="200" value="${f.name ?? ''}" />
            <label for="user-email">Email</label>
            <input id="user-email" name="email" type="email" required maxlength="254" value="${f.email ?? ''}" />
            ${newPasswordField('user-password', 'First password (at least 12 characters; they sign in with it)')}
            <label for="user-role">Role</label>
            ${roleSelect('user-role', isRole(f.role) ? f.role : 'reviewer')}
            <p><button type="submit">Add user</button></p>
          </form>
        </section>`,
      { section: 'users' },
    ),
  };
}

/** The projects a translator's page offers (none for other roles, whose page has no grants). */
async function projectsFor(api: Api, u: User): Promise<Projects> {
  if (u.role !== 'translator') return [];
  return (await api.GET('/projects')).data?.projects ?? [];
}

/** The person `userId`, or the page to answer instead. */
async function findUser(api: Api, s: Session, userId: string): Promise<{ page: Reply } | { user: User }> {
  const list = await api.GET('/users');
  if (list.response.status === 403) return { page: { status: 403, body: ownersOnly(s, 'see and manage users') } };
  const user = dataOf(list, 'list users').users.find((u) => u.userId === userId);
  if (!user) return { page: { status: 404, body: messagePage('User not found', 'There is no such person.', s) } };
  return { user };
}

function personPage(
  s: Session,
  u: User,
  extra: { error?: string; flashes?: Flash[]; projects?: Projects } = {},
): string {
  const you = u.userId === s.user.id;
  const p = personPath(u.userId);
  return appPage(
    s,
    `${u.name} · Users`,
    html`<section>
        <h1 dir="auto">${u.name}${you ? ' (you)' : ''}</h1>
        ${notices(extra)}
        <dl>
          <dt>Email</dt>
          <dd>${u.email}</dd>
          <dt>Role</dt>
          <dd>${u.role}</dd>
          <dt>Status</dt>
          <dd>${statusOf(u)}</dd>
          <dt>Open sessions</dt>
          <dd>${u.sessions}</dd>
          <dt>Since</dt>
          <dd>${timeOf(u.createdAt)}</dd>
        </dl>
        <p><a href="${USERS}">All users</a></p>
      </section>
      ${grantsSection(s, u, extra.projects ?? [])}
      <section>
        <h2>Reset the password</h2>
        <p>Sets a new password and ends their sessions: they sign in again with it. Hand it over yourself.</p>
        <form method="post" action="${p}/password">
          ${csrfField(s)} ${newPasswordField('reset-password', 'New password (at least 12 characters)')}
          <p><button type="submit">Reset the password</button></p>
        </form>
      </section>
      <section>
        <h2>Sessions</h2>
        <p>Signs them out in every browser (a lost laptop). Their password still signs them in.</p>
        <form method="post" action="${p}/sessions/end">
          ${csrfField(s)}
          <button type="submit">End ${u.sessions} session${u.sessions === 1 ? '' : 's'}</button>
        </form>
      </section>
      <section>
        <h2>Access</h2>
        ${
          u.deactivatedAt
            ? html`<p>Deactivated: they cannot sign in. Reactivating lets their password sign them in again.</p>
                <form method="post" action="${p}/active">
                  ${csrfField(s)}<input type="hidden" name="active" value="true" />
                  <button type="submit">Reactivate</button>
                </form>`
            : html`<p>
                  Deactivating ends their sessions and refuses their sign-in until an owner reactivates them; their
                  account and the decisions recorded under it stay. The last active owner cannot be deactivated.
                </p>
                <form method="post" action="${p}/active">
                  ${csrfField(s)}<input type="hidden" name="active" value="false" />
                  <button type="submit" class="danger">Deactivate</button>
                </form>`
        }
        <p><a class="button" href="${p}/remove">Remove…</a></p>
      </section>`,
    { section: 'users' },
  );
}

function removePage(s: Session, u: User): string {
  return appPage(
    s,
    `Remove ${u.name}?`,
    html`<section aria-labelledby="remove-title">
      <h1 id="remove-title" dir="auto">Remove ${u.name}?</h1>
      <p class="warn">
        Their account (${u.email}), its ${u.sessions} open session${u.sessions === 1 ? '' : 's'} and its known browsers
        are deleted; this cannot be undone. Decisions recorded under them keep their id. To keep the account for later,
        deactivate it instead.
      </p>
      <form method="post" action="${personPath(u.userId)}/remove" class="confirm-actions">
        ${csrfField(s)}
        <button type="submit" class="danger">Remove ${u.name}</button>
        <a href="${personPath(u.userId)}">Cancel</a>
      </form>
    </section>`,
    { section: 'users' },
  );
}

function accountPage(s: Session, extra: { error?: string; flashes?: Flash[] } = {}): string {
  return appPage(
    s,
    'Your account',
    html`<section>
        <h1>Your account</h1>
        ${notices(extra)}
        <dl>
          <dt>Name</dt>
          <dd dir="auto">${s.user.name}</dd>
          <dt>Email</dt>
          <dd>${s.user.email}</dd>
          <dt>Role</dt>
          <dd>${s.user.role}</dd>
        </dl>
      </section>
      <section>
        <h2>Change your password</h2>
        <p>Every other browser signed in as you is signed out; this one stays signed in.</p>
        <form method="post" action="${ACCOUNT}/password">
          ${csrfField(s)}
          <label for="current-password">Current password</label>
          <input
            id="current-password"
            name="currentPassword"
            type="password"
            required
            maxlength="256"
            autocomplete="current-password"
          />
          ${newPasswordField('new-password', 'New password (at least 12 characters)')}
          <p><button type="submit">Change the password</button></p>
        </form>
      </section>`,
    { section: 'account' },
  );
}

export function userRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const reply = (h: ResponseToolkit, r: Reply, status = r.status) =>
    htmlReply(h, r.status === 200 ? status : r.status, r.body);

  const page = async (request: Request, h: ResponseToolkit) => {
    const session = sessionOf(request);
    const flashes = await takeFlashes(app, session, USERS);
    return reply(h, await usersPage(apiFor(server, session), session, { flashes }));
  };

  const create = async (request: Request, h: ResponseToolkit) => {
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const { password, ...kept } = form;
    const body = {
      name: (form.name ?? '').trim(),
      email: (form.email ?? '').trim(),
      password: password ?? '',
      role: isRole(form.role) ? form.role : undefined,
    };
    const r = await api.POST('/users', { body });
    if (r.response.status === 403) return htmlReply(h, 403, ownersOnly(session, 'add users; nothing changed'));
    if (!r.data)
      return reply(
        h,
        await usersPage(api, session, { error: `${apiMessage(r.error)} Nothing changed.`, form: kept }),
        r.response.status,
      );
    // A translator sees nothing until given projects: their page, where that is done, comes next.
    if (r.data.role === 'translator')
      return redirectWithFlash(app, h, session, personPath(r.data.userId), {
        notice: `Added ${r.data.name} (${r.data.email}) as translator: choose their projects and roles below.`,
      });
    return redirectWithFlash(app, h, session, USERS, {
      notice: `Added ${r.data.name} (${r.data.email}) as ${r.data.role}: they sign in with the password you gave.`,
    });
  };

  /** Runs an owner's change of the person `userId` and answers: the flash on success, else the person's page. */
  const change =
    (
      what: string,
      call: (
        api: Api,
        userId: string,
        form: Record<string, string>,
      ) => Promise<{ ok: boolean; error?: unknown; status: number }>,
      done: (u: User, form: Record<string, string>) => { to: string; notice: string },
    ) =>
    async (request: Request, h: ResponseToolkit) => {
      const userId = String(request.params.userId);
      const session = sessionOf(request);
      const form = formOf(request);
      const api = apiFor(server, session);
      const found = await findUser(api, session, userId);
      if ('page' in found) return reply(h, found.page);
      const r = await call(api, userId, form);
      if (r.status === 403) return htmlReply(h, 403, ownersOnly(session, `${what}; nothing changed`));
      if (!r.ok) {
        const error = `${apiMessage(r.error) || 'That did not work.'} Nothing changed.`;
        const projects = await projectsFor(api, found.user);
        return htmlReply(h, r.status, personPage(session, found.user, { error, projects }));
      }
      const { to, notice } = done(found.user, form);
      return redirectWithFlash(app, h, session, to, { notice });
    };

  const answer = (r: { response: Response; error?: unknown }) => ({
    ok: r.response.ok,
    error: r.error,
    status: r.response.status,
  });
  const bad = (message: string) => Promise.resolve({ ok: false, status: 400, error: { message } });

  const setRole = change(
    'change roles',
    async (api, userId, form) =>
      isRole(form.role)
        ? answer(await api.PATCH('/users/{userId}', { params: { path: { userId } }, body: { role: form.role } }))
        : bad('Choose owner, reviewer or translator.'),
    (u, form) => ({ to: USERS, notice: `${u.name} is now ${form.role}.` }),
  );

  const setGrants = change(
    'choose translators’ projects and roles',
    async (api, userId, form) => {
      const langs = new Map<string, string[]>();
      const roles = new Map<string, ProjectRole>();
      for (const [k, v] of Object.entries(form)) {
        const m = /^grant:([^:]{1,64}):([A-Za-z0-9_-]{1,35})$/.exec(k);
        if (m && v === 'on') langs.set(m[1], [...(langs.get(m[1]) ?? []), m[2]]);
        const r = /^role:([^:]{1,64})$/.exec(k);
        if (r && (v === 'owner' || v === 'reviewer')) roles.set(r[1], v);
      }
      // An owner or reviewer of a project works in all its languages; a translator in those checked, if any.
      const grants = [
        ...[...roles].map(([projectId, role]) => ({ projectId, role })),
        ...[...langs].filter(([projectId]) => !roles.has(projectId)).map(([projectId, l]) => ({ projectId, langs: l })),
      ];
      return answer(await api.PATCH('/users/{userId}', { params: { path: { userId } }, body: { grants } }));
    },
    (u) => ({ to: personPath(u.userId), notice: `The projects and roles of ${u.name} are saved.` }),
  );

  const setActive = change(
    'deactivate and reactivate people',
    async (api, userId, form) =>
      form.active === 'true' || form.active === 'false'
        ? answer(
            await api.PATCH('/users/{userId}', {
              params: { path: { userId } },
              body: { active: form.active === 'true' },
            }),
          )
        : bad('Choose deactivate or reactivate.'),
    (u, form) => ({
      to: personPath(u.userId),
      notice:
        form.active === 'true'
          ? `${u.name} is active again and can sign in.`
          : `${u.name} is deactivated: their sessions ended and they cannot sign in.`,
    }),
  );

  const resetPassword = change(
    'reset passwords',
    async (api, userId, form) =>
      answer(
        await api.PUT('/users/{userId}/password', {
          params: { path: { userId } },
          body: { password: form.password ?? '' },
        }),
      ),
    (u) => ({
      to: personPath(u.userId),
      notice: `The password of ${u.name} is reset and their sessions ended; hand them the new password.`,
    }),
  );

  const endSessions = change(
    'end sessions',
    async (api, userId) => answer(await api.DELETE('/users/{userId}/sessions', { params: { path: { userId } } })),
    (u) => ({ to: personPath(u.userId), notice: `Every session of ${u.name} ended.` }),
  );

  const remove = change(
    'remove people',
    async (api, userId) => answer(await api.DELETE('/users/{userId}', { params: { path: { userId } } })),
    (u) => ({ to: USERS, notice: `Removed ${u.name} (${u.email}).` }),
  );

  const person = async (request: Request, h: ResponseToolkit) => {
    const session = sessionOf(request);
    const userId = String(request.params.userId);
    const found = await findUser(apiFor(server, session), session, userId);
    if ('page' in found) return reply(h, found.page);
    const flashes = await takeFlashes(app, session, personPath(userId));
    const projects = await projectsFor(apiFor(server, session), found.user);
    return htmlReply(h, 200, personPage(session, found.user, { flashes, projects }));
  };

  const confirmRemove = async (request: Request, h: ResponseToolkit) => {
    const session = sessionOf(request);
    const found = await findUser(apiFor(server, session), session, String(request.params.userId));
    if ('page' in found) return reply(h, found.page);
    return htmlReply(h, 200, removePage(session, found.user));
  };

  const account = async (request: Request, h: ResponseToolkit) => {
    const session = sessionOf(request);
    const flashes = await takeFlashes(app, session, ACCOUNT);
    return htmlReply(h, 200, accountPage(session, { flashes }));
  };

  const names = cookieNames(app);
  const changePassword = async (request: Request, h: ResponseToolkit) => {
    const session = sessionOf(request);
    const form = formOf(request);
    const r = await apiFor(server, session).POST('/me/password', {
      body: { currentPassword: form.currentPassword ?? '', password: form.password ?? '' },
    });
    if (!r.response.ok) {
      const error = `${apiMessage(r.error) || 'The password could not be changed.'} Nothing changed.`;
      return htmlReply(h, r.response.status, accountPage(session, { error }));
    }
    // The API ended every session of this person, this one included: this browser gets a fresh one, so only the
    // others are signed out.
    const fresh = await openSession(app.db, session.user.id);
    h.state(names.session, fresh.token);
    const next = await readSession(app.db, fresh.token);
    if (!next) return redirect(h, ACCOUNT);
    return redirectWithFlash(app, h, next, ACCOUNT, {
      notice: 'Your password is changed; every other browser signed in as you is signed out.',
    });
  };

  const owners = (what: string, next: (r: Request) => string) => signedIn(next, { owners: what });
  const users = () => USERS;
  const one = (r: Request) => personPath(String(r.params.userId));
  const SEE = 'see and manage users';
  return [
    { method: 'GET', path: USERS, options: owners(SEE, users), handler: page },
    { method: 'POST', path: USERS, options: owners('add users; nothing changed', users), handler: create },
    { method: 'GET', path: '/users/{userId}', options: owners(SEE, one), handler: person },
    {
      method: 'POST',
      path: '/users/{userId}/role',
      options: owners('change roles; nothing changed', users),
      handler: setRole,
    },
    {
      method: 'POST',
      path: '/users/{userId}/grants',
      options: owners('choose translators’ projects; nothing changed', one),
      handler: setGrants,
    },
    {
      method: 'POST',
      path: '/users/{userId}/active',
      options: owners('deactivate people; nothing changed', one),
      handler: setActive,
    },
    {
      method: 'POST',
      path: '/users/{userId}/password',
      options: owners('reset passwords; nothing changed', one),
      handler: resetPassword,
    },
    {
      method: 'POST',
      path: '/users/{userId}/sessions/end',
      options: owners('end sessions; nothing changed', one),
      handler: endSessions,
    },
    { method: 'GET', path: '/users/{userId}/remove', options: owners(SEE, one), handler: confirmRemove },
    {
      method: 'POST',
      path: '/users/{userId}/remove',
      options: owners('remove people; nothing changed', one),
      handler: remove,
    },
    { method: 'GET', path: ACCOUNT, options: signedIn(() => ACCOUNT), handler: account },
    { method: 'POST', path: `${ACCOUNT}/password`, options: signedIn(() => ACCOUNT), handler: changePassword },
  ];
}
