// Managing people (SQLite and MySQL): through the internal API, deactivating ends a person's sessions and refuses
// their sign-in until reactivated, removing deletes them with their sessions, an owner's password reset and ending
// sessions sign them out everywhere, and a person changes their own password only with the current one; the last
// active owner can neither be demoted, deactivated nor removed (409 last_owner), and refused input writes nothing.
// Through the dashboard's forms over real HTTP: the owner's posts answer 303 with a flash, a deactivated reviewer's
// browser is sent to sign in, and changing one's own password keeps this browser signed in and signs out the others.
import test from 'ava';
import { verifyPassword } from '../../server/domain/users/users.js';
import { asPerson } from '../helpers/actor.js';
import { FormBrowser } from '../helpers/form-browser.js';
import { ADMIN_TOKEN, startTestService, TEST_SCRYPT_N, type TestService } from '../helpers/service.js';

let svc: TestService;
let origin: string;
test.before(async () => {
  svc = await startTestService();
  origin = svc.internalUrl.replace('/internal/v1', '');
});
test.after.always(() => svc?.stop());

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a different long password';
const HOSTILE = `<img src=x onerror="window.pwned=1">'"`;

class Browser extends FormBrowser {
  constructor() {
    super(origin);
  }
}

let seq = 0;
async function person(role: 'owner' | 'reviewer', name = `Person ${++seq}`) {
  const email = `people${++seq}-${Date.now()}@example.test`;
  const r = await svc.admin.POST('/users', { body: { name, email, password: PASSWORD, role } });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
}
const userRow = (id: string) =>
  svc.service.app
    .db('dashboard_users')
    .where({ id })
    .first<{ password_hash: string; deactivated_at: unknown } | undefined>();
const sessionsOf = async (id: string) =>
  Number((await svc.service.app.db('dashboard_sessions').where({ user_id: id }).count({ n: '*' }))[0].n);
const usersNow = async () => (await svc.admin.GET('/users')).data!.users;

test.serial('the last active owner can neither become a reviewer, be deactivated nor be removed', async (t) => {
  for (const u of await usersNow())
    await svc.admin.DELETE('/users/{userId}', { params: { path: { userId: u.userId } } });
  const only = await person('owner');
  t.is((await usersNow()).length, 1);
  const path = { params: { path: { userId: only.userId } } };
  for (const r of [
    await svc.admin.PATCH('/users/{userId}', { ...path, body: { role: 'reviewer' } }),
    await svc.admin.PATCH('/users/{userId}', { ...path, body: { active: false } }),
    await svc.admin.DELETE('/users/{userId}', path),
  ]) {
    t.is(r.response.status, 409);
    t.is((r.error as { error: string }).error, 'last_owner');
  }
  t.like((await usersNow())[0], { role: 'owner', deactivatedAt: null });
  // A deactivated owner is no longer counted: with one of two owners deactivated, the other is the last.
  const second = await person('owner');
  t.is((await svc.admin.PATCH('/users/{userId}', { ...path, body: { active: false } })).response.status, 200);
  const demote = await svc.admin.PATCH('/users/{userId}', {
    params: { path: { userId: second.userId } },
    body: { role: 'reviewer' },
  });
  t.is(demote.response.status, 409);
  t.is((await svc.admin.PATCH('/users/{userId}', { ...path, body: { active: true } })).response.status, 200);
  // Every owner removing every other at once: one stays.
  const owners = (await usersNow()).filter((u) => u.role === 'owner');
  const answers = await Promise.all(
    owners.map((u) => svc.admin.DELETE('/users/{userId}', { params: { path: { userId: u.userId } } })),
  );
  t.is(answers.filter((r) => r.response.status === 409).length, 1);
  t.is((await usersNow()).filter((u) => u.role === 'owner').length, 1);
  // An empty or unknown change is refused.
  const empty = await fetch(`${svc.internalUrl}/users/${only.userId}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
  });
  t.is(empty.status, 400);
  t.is((await svc.admin.DELETE('/users/{userId}', { params: { path: { userId: 'usr_none' } } })).response.status, 404);
});

test.serial('deactivating ends the sessions and refuses sign-in until reactivated; removing deletes', async (t) => {
  await person('owner');
  const r = await person('reviewer', HOSTILE);
  const browser = new Browser();
  t.is((await browser.signIn(r.email, PASSWORD)).status, 303);
  t.is((await browser.fetch('/')).status, 200);
  t.is((await usersNow()).find((u) => u.userId === r.userId)!.sessions, 1);

  const off = await svc.admin.PATCH('/users/{userId}', {
    params: { path: { userId: r.userId } },
    body: { active: false },
  });
  t.like(off.data, { userId: r.userId, sessions: 0 });
  t.truthy(off.data!.deactivatedAt);
  t.is(await sessionsOf(r.userId), 0);
  t.is((await browser.fetch('/')).status, 303, 'the open browser is asked to sign in');
  const refused = await browser.signIn(r.email, PASSWORD);
  t.is(refused.status, 403);
  t.regex(await refused.text(), /deactivated/);
  t.is(await sessionsOf(r.userId), 0);
  const wrong = await new Browser().signIn(r.email, 'not the password at all');
  t.is(wrong.status, 401, 'a wrong password is told nothing of the deactivation');
  t.notRegex(await wrong.text(), /deactivated/);

  await svc.admin.PATCH('/users/{userId}', { params: { path: { userId: r.userId } }, body: { active: true } });
  t.is((await browser.signIn(r.email, PASSWORD)).status, 303);
  t.is(await sessionsOf(r.userId), 1);

  t.is((await svc.admin.DELETE('/users/{userId}', { params: { path: { userId: r.userId } } })).response.status, 204);
  t.is(await userRow(r.userId), undefined);
  t.is(await sessionsOf(r.userId), 0);
  t.is((await browser.fetch('/')).status, 303);
  t.is((await browser.signIn(r.email, PASSWORD)).status, 401);
});

test.serial('password reset, ending sessions and changing one’s own password', async (t) => {
  const o = await person('owner');
  const r = await person('reviewer');
  const b1 = new Browser();
  const b2 = new Browser();
  await b1.signIn(r.email, PASSWORD);
  await b2.signIn(r.email, PASSWORD);
  const ended = await svc.admin.DELETE('/users/{userId}/sessions', { params: { path: { userId: r.userId } } });
  t.deepEqual(ended.data, { ended: 2 });
  t.is((await b1.fetch('/')).status, 303);

  // A weak reset writes nothing; a good one ends the sessions and only the new password signs in.
  const before = (await userRow(r.userId))!.password_hash;
  const weak = await svc.admin.PUT('/users/{userId}/password', {
    params: { path: { userId: r.userId } },
    body: { password: r.email },
  });
  t.is(weak.response.status, 400);
  t.is((await userRow(r.userId))!.password_hash, before);
  await b1.signIn(r.email, PASSWORD);
  const reset = await svc.admin.PUT('/users/{userId}/password', {
    params: { path: { userId: r.userId } },
    body: { password: NEW_PASSWORD },
  });
  t.is(reset.response.status, 204);
  t.is(await sessionsOf(r.userId), 0);
  t.is((await b1.signIn(r.email, PASSWORD)).status, 401);
  t.is((await b1.signIn(r.email, NEW_PASSWORD)).status, 303);

  // One's own: the current password first; a reviewer may; the admin token is nobody; a reviewer may not reset others.
  const actor = { userId: r.userId, name: r.name, role: 'reviewer' as const };
  const wrong = await asPerson(svc, actor, 'POST', '/me/password', {
    currentPassword: PASSWORD,
    password: PASSWORD + '!',
  });
  t.is(wrong.status, 403);
  t.is(wrong.body.error, 'wrong_password');
  t.true(await verifyPassword(NEW_PASSWORD, (await userRow(r.userId))!.password_hash, TEST_SCRYPT_N));
  const admin = await svc.admin.POST('/me/password', { body: { currentPassword: PASSWORD, password: NEW_PASSWORD } });
  t.is(admin.response.status, 400);
  t.is((await asPerson(svc, actor, 'DELETE', `/users/${o.userId}/sessions`)).status, 403);
  t.is((await asPerson(svc, actor, 'PUT', `/users/${o.userId}/password`, { password: NEW_PASSWORD })).status, 403);

  // Through the account page: this browser stays signed in, the other is signed out.
  await b2.signIn(r.email, NEW_PASSWORD);
  const changed = await b1.post('/account/password', { currentPassword: NEW_PASSWORD, password: PASSWORD }, '/account');
  t.is(changed.status, 303);
  t.is(changed.headers.get('location'), '/account');
  const after = await b1.fetch('/account');
  t.is(after.status, 200);
  t.regex(await after.text(), /Your password is changed/);
  t.is((await b2.fetch('/')).status, 303);
  t.is(await sessionsOf(r.userId), 1);
  const bad = await b1.post(
    '/account/password',
    { currentPassword: 'wrong wrong wrong', password: NEW_PASSWORD },
    '/account',
  );
  t.is(bad.status, 403);
  t.regex(await bad.text(), /not right; nothing changed/);
});

test.serial('the owner’s forms: redirect with a flash, hostile names escaped, the last owner kept', async (t) => {
  const o = await person('owner');
  const r = await person('reviewer', HOSTILE);
  const owner = new Browser();
  await owner.signIn(o.email, PASSWORD);
  const reviewer = new Browser();
  await reviewer.signIn(r.email, PASSWORD);

  const page = await (await owner.fetch(`/users/${r.userId}`)).text();
  t.false(page.includes(HOSTILE));
  t.true(page.includes('&lt;img src=x onerror=&quot;window.pwned=1&quot;&gt;'));

  const off = await owner.post(`/users/${r.userId}/active`, { active: 'false' }, `/users/${r.userId}`);
  t.is(off.status, 303);
  t.is(off.headers.get('location'), `/users/${r.userId}`);
  t.regex(await (await owner.fetch(`/users/${r.userId}`)).text(), /is deactivated: their sessions ended/);
  t.is((await reviewer.fetch('/')).status, 303);

  const reset = await owner.post(`/users/${r.userId}/password`, { password: 'short' }, `/users/${r.userId}`);
  t.is(reset.status, 400);
  t.regex(await reset.text(), /Nothing changed/);

  const gone = await owner.post(`/users/${r.userId}/remove`, {}, `/users/${r.userId}/remove`);
  t.is(gone.status, 303);
  t.is(gone.headers.get('location'), '/users');
  t.is(await userRow(r.userId), undefined);

  // A reviewer is refused the owners' pages before any call.
  const other = await person('reviewer');
  const rb = new Browser();
  await rb.signIn(other.email, PASSWORD);
  t.is((await rb.fetch(`/users/${o.userId}`)).status, 403);
  const csrf = await rb.csrfOf('/account');
  t.is((await rb.fetch(`/users/${o.userId}/remove`, { csrf })).status, 403);
  t.truthy(await userRow(o.userId));
});
