// Dashboard users, sessions and CSRF over real HTTP (SQLite and MySQL): the internal API creates users (the
// password stored only as a salted scrypt hash), the sign-in page signs them in with an HttpOnly SameSite cookie
// and returns to a same-origin `next` only, every form post needs its CSRF token and an Origin of this origin,
// sessions expire and sign-out ends them. Throttling and session timeouts are in dashboard-signin.test.ts, the
// approval page in approval-page.test.ts.
import { createHash, randomBytes, scryptSync } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { safeNext } from '../../server/web/web.js';
import { cookieNames, cookieOptions } from '../../server/web/auth.js';
import { escapeHtml, html } from '../../server/web/html.js';
import { ensureFirstUser, verifyPassword } from '../../server/domain/users/users.js';
import { readSession, sweepSessions } from '../../server/domain/users/sessions.js';
import { sweepThrottle } from '../../server/domain/users/throttle.js';
import type { App } from '../../server/infra/app.js';
import { loadConfig } from '../../server/infra/config.js';
import { ADMIN_TOKEN, startTestService, TEST_SCRYPT_N, type TestService } from '../helpers/service.js';

let svc: TestService;
let origin: string;
test.before(async () => {
  svc = await startTestService();
  origin = svc.internalUrl.replace('/internal/v1', '');
});
test.after.always(() => svc?.stop());

const HOSTILE_NAME = `<script>alert("x")</script>' & </textarea>`;

async function createUser(body: { name: string; email: string; password: string; role?: 'owner' | 'reviewer' }) {
  const r = await svc.admin.POST('/users', { body });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
}

/** The cookies a response sets, by name, with their attributes as sent. */
function setCookies(r: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of r.headers.getSetCookie()) out.set(c.slice(0, c.indexOf('=')), c);
  return out;
}
const valueOf = (setCookie: string | undefined) => setCookie?.split(';')[0].split('=')[1] ?? '';

/** A browser in miniature: a cookie jar, no redirects followed. */
class Browser {
  jar = new Map<string, string>();
  async fetch(path: string, init: RequestInit & { form?: Record<string, string> } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    let body = init.body;
    if (init.form) {
      headers.set('content-type', 'application/x-www-form-urlencoded');
      if (!headers.has('origin')) headers.set('origin', origin);
      body = new URLSearchParams(init.form).toString();
    }
    const r = await fetch(origin + path, {
      ...init,
      method: init.form ? 'POST' : (init.method ?? 'GET'),
      headers,
      body,
      redirect: 'manual',
    });
    for (const [name, c] of setCookies(r)) {
      const v = valueOf(c);
      if (v === '' || /Max-Age=0/.test(c)) this.jar.delete(name);
      else this.jar.set(name, v);
    }
    return r;
  }
  /** The sign-in form's CSRF value (GET /signin). */
  async signinCsrf(): Promise<string> {
    const page = await (await this.fetch('/signin')).text();
    return /name="csrf" value="([^"]+)"/.exec(page)![1];
  }
  async signIn(email: string, password: string, next = '/'): Promise<Response> {
    const csrf = await this.signinCsrf();
    return this.fetch('/signin', { form: { csrf, email, password, next } });
  }
  /** The CSRF value of a signed-in page's forms. */
  async csrfOf(path: string): Promise<string> {
    const page = await (await this.fetch(path)).text();
    return /name="csrf" value="([^"]+)"/.exec(page)![1];
  }
}

let seq = 0;
const uniqueEmail = () => `person${++seq}-${Date.now()}@example.test`;
const PASSWORD = 'correct horse battery staple';

test('users: created by the internal API without the hash; duplicates, weak and invalid input refused', async (t) => {
  const email = uniqueEmail();
  const u = await createUser({ name: 'Ada', email: email.toUpperCase(), password: PASSWORD });
  t.deepEqual(Object.keys(u).sort(), ['createdAt', 'deactivatedAt', 'email', 'name', 'role', 'sessions', 'userId']);
  t.is(u.email, email, 'stored lowercased');
  t.is(u.role, 'reviewer', 'reviewer by default');
  const owner = await createUser({ name: 'Bo', email: uniqueEmail(), password: PASSWORD, role: 'owner' });
  t.is(owner.role, 'owner');

  const dup = await svc.admin.POST('/users', {
    body: { name: 'Ada 2', email: email.toUpperCase(), password: PASSWORD },
  });
  t.is(dup.response.status, 409);
  const bad = async (body: Record<string, unknown>) => {
    const r = await fetch(`${svc.internalUrl}/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    t.is(r.status, 400, JSON.stringify(body));
    t.is(((await r.json()) as { error: string }).error, 'invalid_argument');
  };
  await bad({ name: 'Short', email: uniqueEmail(), password: 'eleven-char' });
  const self = uniqueEmail();
  await bad({ name: 'Self', email: self, password: self.toUpperCase() });
  await bad({ name: 'No email', email: 'not-an-email', password: PASSWORD });
  await bad({ name: '   ', email: uniqueEmail(), password: PASSWORD });
  await bad({ name: 'Role', email: uniqueEmail(), password: PASSWORD, role: 'admin' });
  await bad({ name: 'Extra', email: uniqueEmail(), password: PASSWORD, passwordHash: 'x' });
  const anon = await fetch(`${svc.internalUrl}/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'x', email: uniqueEmail(), password: PASSWORD }),
  });
  t.is(anon.status, 401);

  // scrypt, a salt of its own per user, parameters kept with the hash.
  const rows = await svc.service.app
    .db('dashboard_users')
    .whereIn('email', [email, owner.email])
    .select<Array<{ password_hash: string }>>('password_hash');
  t.is(rows.length, 2);
  for (const r of rows) {
    // At the tests' cost (TEST_SCRYPT_N in test/helpers/service.ts).
    t.regex(r.password_hash, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    t.false(r.password_hash.includes(PASSWORD));
    t.true(await verifyPassword(PASSWORD, r.password_hash, TEST_SCRYPT_N));
    t.false(await verifyPassword(PASSWORD + ' ', r.password_hash, TEST_SCRYPT_N));
  }
  t.not(rows[0].password_hash, rows[1].password_hash, 'same password, different salts');
  // A hash made at the default cost (32768) still verifies under another setting: the cost travels with the hash.
  const salt = randomBytes(16);
  const key = scryptSync(PASSWORD.normalize('NFKC'), salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 2 ** 20 });
  const stored = ['scrypt', 32768, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
  t.true(await verifyPassword(PASSWORD, stored, TEST_SCRYPT_N));
  t.false(await verifyPassword(`${PASSWORD}!`, stored, TEST_SCRYPT_N));
  t.false(await verifyPassword(PASSWORD, undefined, TEST_SCRYPT_N), 'no user: the decoy never matches');
  t.false(await verifyPassword(PASSWORD, 'bcrypt$whatever', TEST_SCRYPT_N), 'an unknown scheme never matches');
});

test('sign-in: wrong password refused, then the session cookie (HttpOnly, SameSite) and a same-origin return', async (t) => {
  const email = uniqueEmail();
  await createUser({ name: HOSTILE_NAME, email, password: PASSWORD });
  const b = new Browser();
  const home = await b.fetch('/');
  t.is(home.status, 303);
  t.is(home.headers.get('location'), '/signin');

  const form = await b.fetch('/signin?next=%2Fsome%2Fpage%3Fa%3D1');
  t.is(form.status, 200);
  t.regex(form.headers.get('content-type')!, /^text\/html/);
  t.regex(form.headers.get('content-security-policy')!, /default-src 'none'.*frame-ancestors 'none'/);
  t.is(form.headers.get('x-frame-options'), 'DENY');
  const signinCookie = setCookies(form).get('glossa_signin')!;
  t.regex(signinCookie, /; HttpOnly/);
  t.regex(signinCookie, /; SameSite=Lax/);
  t.notRegex(signinCookie, /Secure/, 'served over http');
  t.regex(await form.text(), /name="next" value="\/some\/page\?a=1"/);

  const wrong = await b.signIn(email, 'wrong password!!', '/some/page');
  t.is(wrong.status, 401);
  const wrongPage = await wrong.text();
  t.regex(wrongPage, /Wrong email or password/);
  t.false(setCookies(wrong).has('glossa_session'));
  const unknown = await b.signIn(uniqueEmail(), PASSWORD);
  t.is(unknown.status, 401, 'unknown email: the same answer');
  t.regex(await unknown.text(), /Wrong email or password/);

  const ok = await b.signIn(email.toUpperCase(), PASSWORD, '/some/page?a=1');
  t.is(ok.status, 303);
  t.is(ok.headers.get('location'), '/some/page?a=1');
  const session = setCookies(ok).get('glossa_session')!;
  // Hapi writes the attributes (and an Expires beside Max-Age) in an order of its own.
  t.regex(session, /^glossa_session=[A-Za-z0-9_-]{43};/);
  t.deepEqual(
    session
      .split('; ')
      .slice(1)
      .filter((a) => !a.startsWith('Expires='))
      .sort(),
    ['HttpOnly', 'Max-Age=129600', 'Path=/', 'SameSite=Lax'],
    'the cookie outlives the session by a day',
  );
  // Stored only as its hash.
  const token = valueOf(session);
  const stored = await svc.service.app.db('dashboard_sessions').select<Array<{ token_hash: string }>>('token_hash');
  t.false(stored.some((r) => r.token_hash === token));

  const signedIn = await b.fetch('/');
  t.is(signedIn.status, 200);
  const text = await signedIn.text();
  t.true(text.includes(escapeHtml(HOSTILE_NAME)), 'the name is shown escaped');
  t.false(text.includes(HOSTILE_NAME));
  t.false(text.includes('<script>'));
  // Signed in already: the sign-in page sends the person on.
  const again = await b.fetch('/signin?next=/elsewhere');
  t.is(again.status, 303);
  t.is(again.headers.get('location'), '/elsewhere');
});

test('sign-in: next never leaves the origin', async (t) => {
  const email = uniqueEmail();
  await createUser({ name: 'Nix', email, password: PASSWORD });
  for (const next of [
    '//evil.example/x',
    'https://evil.example/',
    '/\\evil.example',
    '/\t/evil.example',
    'javascript:alert(1)',
    '/signin?next=//evil.example',
  ]) {
    const b = new Browser();
    const r = await b.signIn(email, PASSWORD, next);
    t.is(r.status, 303, next);
    t.is(r.headers.get('location'), '/', next);
  }
  // Paths that normalise to `//host`: the answer is the normalised path, so that is what must stay on this origin.
  for (const next of ['/.//evil.example/x', '/a/..//evil.example', '/%2e//evil.example', '/./%2E//evil.example']) {
    t.is(safeNext(next), '/', next);
    const b = new Browser();
    const form = await (await b.fetch(`/signin?next=${encodeURIComponent(next)}`)).text();
    t.regex(form, /name="next" value="\/"/, `signed-out form, ${next}`);
    t.false(form.includes('evil.example'), `signed-out form, ${next}`);
    const r = await b.signIn(email, PASSWORD, next);
    t.is(r.headers.get('location'), '/', `after sign-in, ${next}`);
    const signedIn = await b.fetch(`/signin?next=${encodeURIComponent(next)}`);
    t.is(signedIn.status, 303, `signed in, ${next}`);
    t.is(signedIn.headers.get('location'), '/', `signed in, ${next}`);
  }
  t.is(safeNext('/a/.//b'), '/a//b', 'a double slash further in is a path of this origin');
  t.is(safeNext('/approve/op_1?x=%2F%2Fevil#f'), '/approve/op_1?x=%2F%2Fevil#f');
  t.is(safeNext('/a/../b'), '/b');
  t.is(safeNext(['/a']), '/');
  t.is(safeNext('/' + 'a'.repeat(2001)), '/');
});

test('CSRF: a form post without the token, with another token or from a foreign Origin is refused and changes nothing', async (t) => {
  const email = uniqueEmail();
  const cy = await createUser({ name: 'Cy', email, password: PASSWORD });
  const b = new Browser();
  const csrf = await b.signinCsrf();
  const refused = async (r: Response, what: string) => {
    t.is(r.status, 403, what);
    t.regex(await r.text(), /Refused/, what);
    t.false(setCookies(r).has('glossa_session'), what);
  };
  await refused(await b.fetch('/signin', { form: { email, password: PASSWORD } }), 'no token');
  await refused(await b.fetch('/signin', { form: { csrf: csrf + 'x', email, password: PASSWORD } }), 'other token');
  await refused(
    await b.fetch('/signin', { form: { csrf, email, password: PASSWORD }, headers: { origin: 'http://evil.example' } }),
    'foreign origin',
  );
  await refused(
    await b.fetch('/signin', { form: { csrf, email, password: PASSWORD }, headers: { origin: 'null' } }),
    'opaque origin',
  );
  await refused(
    await b.fetch('/signin', {
      form: { csrf, email, password: PASSWORD },
      headers: { 'sec-fetch-site': 'cross-site' },
    }),
    'cross-site fetch',
  );
  const fresh = new Browser();
  await refused(await fresh.fetch('/signin', { form: { csrf, email, password: PASSWORD } }), 'no sign-in cookie');
  t.is(
    await svc.service.app
      .db('dashboard_signin_throttle')
      .where({ subject: `account:${createHash('sha256').update(email).digest('hex')}` })
      .first(),
    undefined,
    'refused posts count no attempt',
  );

  const ok = await b.fetch('/signin', { form: { csrf, email, password: PASSWORD } });
  t.is(ok.status, 303);
  // Sign-out is a form post too.
  const sessions = async () =>
    Number(
      (await svc.service.app.db('dashboard_sessions').where({ user_id: cy.userId }).count<{ n: number }[]>('* as n'))[0]
        .n,
    );
  const before = await sessions();
  await refused(await b.fetch('/signout', { form: {} }), 'sign-out without token');
  const token = await b.csrfOf('/');
  await refused(
    await b.fetch('/signout', { form: { csrf: token }, headers: { origin: 'https://evil.example' } }),
    'sign-out, foreign origin',
  );
  t.is(await sessions(), before, 'still signed in');
  t.is((await b.fetch('/')).status, 200);
  const out = await b.fetch('/signout', { form: { csrf: token } });
  t.is(out.status, 303);
  t.is(out.headers.get('location'), '/signin');
  t.regex(setCookies(out).get('glossa_session')!, /Max-Age=0/);
  t.is(await sessions(), before - 1);
  t.is((await b.fetch('/')).status, 303, 'signed out');
  // The old cookie is worthless after sign-out.
  const stale = await fetch(origin + '/', {
    headers: { cookie: `glossa_session=${valueOf(setCookies(ok).get('glossa_session'))}` },
    redirect: 'manual',
  });
  t.is(stale.status, 303);
  // Signing out without a session just goes to the sign-in page.
  t.is((await new Browser().fetch('/signout', { form: { csrf: token } })).headers.get('location'), '/signin');
});

test('sessions expire after 12 hours', async (t) => {
  const email = uniqueEmail();
  await createUser({ name: 'Exp', email, password: PASSWORD });
  const b = new Browser();
  t.is((await b.signIn(email, PASSWORD)).status, 303);
  const token = b.jar.get('glossa_session')!;
  const s = await readSession(svc.service.app.db, token);
  t.truthy(s);
  t.true(Math.abs(s!.expiresAt - Date.now() - 12 * 3600_000) < 60_000);
  t.falsy(await readSession(svc.service.app.db, token, s!.expiresAt), 'not at its expiry');
  t.falsy(await readSession(svc.service.app.db, 'x'.repeat(101)));
  // Only this test's session: the file's tests run concurrently, and another one's session must stay valid.
  await svc.service.app
    .db('dashboard_sessions')
    .where({ user_id: s!.user.id })
    .update({ expires_at: Date.now() - 1 });
  const r = await b.fetch('/');
  t.is(r.status, 303);
  t.is(r.headers.get('location'), '/signin');
});

test('the sweeps take expired sessions and quiet throttle rows, and leave live ones', async (t) => {
  const db = svc.service.app.db;
  const [gone, kept] = [uniqueEmail(), uniqueEmail()];
  for (const email of [gone, kept]) await createUser({ name: 'Swept', email, password: PASSWORD });
  const [a, b] = [new Browser(), new Browser()];
  t.is((await a.signIn(gone, PASSWORD)).status, 303);
  t.is((await b.signIn(kept, PASSWORD)).status, 303);
  const [sa, sb] = [
    await readSession(db, a.jar.get('glossa_session')),
    await readSession(db, b.jar.get('glossa_session')),
  ];
  await db('dashboard_sessions')
    .where({ user_id: sa!.user.id })
    .update({ expires_at: Date.now() - 1 });
  const now = Date.now();
  const quiet = `client:swept-${now}`;
  const recent = `client:kept-${now}`;
  await db('dashboard_signin_throttle').insert([
    { subject: quiet, attempts: 3, blocked_until: 0, updated_at: now - 2 * 3600_000 },
    { subject: recent, attempts: 3, blocked_until: 0, updated_at: now },
  ]);
  await sweepSessions(db, Date.now());
  await sweepThrottle(db, Date.now());
  const count = async (userId: string) =>
    Number((await db('dashboard_sessions').where({ user_id: userId }).count<{ n: number }[]>('* as n'))[0].n);
  t.is(await count(sa!.user.id), 0);
  t.is(await count(sb!.user.id), 1);
  const subjects = (await db('dashboard_signin_throttle').whereIn('subject', [quiet, recent]).select('subject')).map(
    (r: { subject: string }) => r.subject,
  );
  t.deepEqual(subjects, [recent]);
});

// Serial: runs before the others, on a table with no user yet.
test.serial(
  "first run: one owner with a generated password, or the environment's; nothing once a user exists",
  async (t) => {
    const db = svc.service.app.db;
    await t.throwsAsync(ensureFirstUser(db, { DASHBOARD_EMAIL: 'nope' }, TEST_SCRYPT_N), {
      message: /DASHBOARD_EMAIL/,
    });
    await t.throwsAsync(ensureFirstUser(db, { DASHBOARD_PASSWORD: 'short' }, TEST_SCRYPT_N), {
      message: /^DASHBOARD_PASSWORD: must have at least 12/,
    });
    const first = await ensureFirstUser(db, {}, TEST_SCRYPT_N);
    t.is(first?.email, 'owner@glossa.local');
    t.regex(first!.generatedPassword!, /^[A-Za-z0-9_-]{20}$/);
    const row = await db('dashboard_users').first<{ role: string; password_hash: string }>('role', 'password_hash');
    t.is(row.role, 'owner');
    t.true(await verifyPassword(first!.generatedPassword!, row.password_hash, TEST_SCRYPT_N));
    t.is(await ensureFirstUser(db, {}, TEST_SCRYPT_N), undefined, 'a user exists');
    await db('dashboard_users').delete();
    const env = await ensureFirstUser(
      db,
      { DASHBOARD_EMAIL: 'Lead@Example.test', DASHBOARD_PASSWORD: PASSWORD },
      TEST_SCRYPT_N,
    );
    t.deepEqual(env, { email: 'lead@example.test', generatedPassword: undefined });
    t.is((await new Browser().signIn('lead@example.test', PASSWORD)).status, 303);
    await db('dashboard_sessions').delete();
    await db('dashboard_users').delete();
  },
);

test('cookies over HTTPS are Secure and __Host- prefixed; pages escape every value', (t) => {
  const app = { config: loadConfig({ PUBLIC_APP_URL: 'https://glossa.example' }) } as App;
  const c = cookieNames(app);
  t.is(c.session, '__Host-glossa_session');
  t.like(cookieOptions(c, 60_000), { ttl: 60_000, path: '/', isHttpOnly: true, isSameSite: 'Lax', isSecure: true });
  t.is(cookieNames({ config: loadConfig({}) } as App).session, 'glossa_session');
  t.is(
    html`<p title="${`"'><`}">${HOSTILE_NAME}${[1, '<b>']}${null}${undefined}${false}</p>`.text,
    '<p title="&quot;&#39;&gt;&lt;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; &amp; &lt;/textarea&gt;1&lt;b&gt;</p>',
  );
});

test('form posts take URL-encoded bodies only', async (t: ExecutionContext) => {
  const r = await fetch(origin + '/signin', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  t.is(r.status, 415);
});
