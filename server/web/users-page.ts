// The users page, `/users` (owners): the people who sign in to the dashboard with their roles, a form that adds one
// (name, email, a first password, role), and a role change per person (the last owner stays owner: 409
// last_owner). Data from the internal API only (internalListUsers, internalCreateUser, internalUpdateUser); a
// reviewer's call is refused by the API (403). Names and emails are escaped like all user text.
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { apiFor, type Api } from './api.js';
import { apiMessage, csrfField, dataOf, ownersOnly, timeOf } from './forms.js';
import { html, type Html } from './html.js';
import { appPage } from './layout.js';
import type { Session } from '../domain/users/sessions.js';
import { formOf, htmlReply, redirect } from './web.js';
import { sessionOf, signedIn } from './auth.js';

type User = components['schemas']['User'];
type Role = User['role'];

const ROLES: Array<{ role: Role; label: string }> = [
  { role: 'reviewer', label: 'reviewer: edit, review and approve translations and content' },
  { role: 'owner', label: 'owner: everything, including keys, webhooks, users and publishing' },
];
const isRole = (v: unknown): v is Role => v === 'owner' || v === 'reviewer';

function roleSelect(id: string, selected: Role): Html {
  return html`<select id="${id}" name="role">
    ${ROLES.map((r) => html`<option value="${r.role}" ${r.role === selected ? html`selected` : ''}>${r.role}</option>`)}
  </select>`;
}

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
        <th scope="col">Since</th>
        <th scope="col">Change role</th>
      </tr>
    </thead>
    <tbody>
      ${users.map(
        (u) =>
          html`<tr>
            <td>${u.name}${u.userId === s.user.id ? ' (you)' : ''}</td>
            <td>${u.email}</td>
            <td>${u.role}</td>
            <td>${timeOf(u.createdAt)}</td>
            <td>
              <form method="post" action="/users/${encodeURIComponent(u.userId)}/role" class="inline">
                ${csrfField(s)}
                <label for="role-${u.userId}" class="visually-hidden">Role of ${u.name}</label>
                ${roleSelect(`role-${u.userId}`, u.role)}
                <button type="submit" aria-label="Change the role of ${u.name}">Change</button>
              </form>
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

async function usersPage(
  api: Api,
  s: Session,
  extra: { error?: string; notice?: string; form?: Record<string, string> } = {},
): Promise<{ status: number; body: string }> {
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
          ${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
          ${extra.notice ? html`<p class="ok" role="status">${extra.notice}</p>` : ''}
          <ul>
            ${ROLES.map((r) => html`<li>${r.label}</li>`)}
          </ul>
        </section>
        <section>${usersTable(s, users)}</section>
        <section>
          <h2>Add a person</h2>
          <form method="post" action="/users">
            ${csrfField(s)}
            <label for="user-name">Name</label>
            <input id="user-name" name="name" type="text" required maxlength="200" value="${f.name ?? ''}" />
            <label for="user-email">Email</label>
            <input id="user-email" name="email" type="email" required maxlength="254" value="${f.email ?? ''}" />
            <label for="user-password">First password (at least 12 characters; they sign in with it)</label>
            <input
              id="user-password"
              name="password"
              type="password"
              required
              minlength="12"
              maxlength="256"
              autocomplete="new-password"
            />
            <label for="user-role">Role</label>
            ${roleSelect('user-role', isRole(f.role) ? f.role : 'reviewer')}
            <p><button type="submit">Add user</button></p>
          </form>
        </section>`,
      { section: 'users' },
    ),
  };
}

export function userRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const reply = (h: ResponseToolkit, r: { status: number; body: string }, status = r.status) =>
    htmlReply(h, r.status === 200 ? status : r.status, r.body);

  const page = async (request: Request, h: ResponseToolkit) => {
    const session = sessionOf(request);
    return reply(h, await usersPage(apiFor(server, session), session));
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
    return redirect(h, '/users');
  };

  const setRole = async (request: Request, h: ResponseToolkit) => {
    const userId = String(request.params.userId);
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    if (!isRole(form.role))
      return reply(h, await usersPage(api, session, { error: 'Choose owner or reviewer; nothing changed.' }), 400);
    const r = await api.PATCH('/users/{userId}', { params: { path: { userId } }, body: { role: form.role } });
    if (r.response.status === 403) return htmlReply(h, 403, ownersOnly(session, 'change roles; nothing changed'));
    if (!r.data)
      return reply(
        h,
        await usersPage(api, session, { error: `${apiMessage(r.error)} Nothing changed.` }),
        r.response.status,
      );
    return redirect(h, '/users');
  };

  const users = () => '/users';
  return [
    { method: 'GET', path: '/users', options: signedIn(users, { owners: 'see and manage users' }), handler: page },
    {
      method: 'POST',
      path: '/users',
      options: signedIn(users, { owners: 'add users; nothing changed' }),
      handler: create,
    },
    {
      method: 'POST',
      path: '/users/{userId}/role',
      options: signedIn(users, { owners: 'change roles; nothing changed' }),
      handler: setRole,
    },
  ];
}
