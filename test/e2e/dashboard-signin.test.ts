// Sign-in throttling, password hashing beside file I/O, and sliding sessions, over real HTTP (SQLite and MySQL):
// - attempts wait growing delays per account and per client, counted in the database before any hash, so 60
//   concurrent guesses cannot all be checked; the right password signs in once the delay has passed, and a browser
//   that signed in before is not held back by the delay an attacker built up for its account;
// - forty concurrent sign-ins leave the delivery origin's manifest reads fast (scrypt no longer fills libuv's pool);
// - a session ends after 2 idle hours, activity pushes that back (a write at most once a minute), 12 hours stay the
//   limit, and the sign-in page says why the person has to sign in again; in Chromium, text typed in the key
//   editor when the session ended comes back after the sign-in.
// The tests run one at a time, as the hash queue is the process's. Each sends from its own loopback addresses
// (127.0.0.0/8 all reaches the service on 127.0.0.1), so the per-client throttle of one never meets another's.
import { createHash } from 'node:crypto';
import http from 'node:http';
// test-batch: alone: it measures its own process's answers during a flood of password checks on libuv's threads, which the process shares (scripts/test-batches.ts).
import test from 'ava';
import type { Page } from 'playwright-core';
import { readSession } from '../../server/domain/users/sessions.js';
import { admitAttempt } from '../../server/domain/users/throttle.js';
import { translate } from '../../packages/client/src/index.js';
import { launchChromium, type Chromium } from '../helpers/chromium.js';
import { signIn as signInAs } from '../helpers/signin.js';
import { createTestProject, publishSkipping, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let origin: string;
let port: number;
let chromium: Chromium | undefined;
test.before(async () => {
  svc = await startTestService();
  origin = svc.internalUrl.replace('/internal/v1', '');
  port = Number(new URL(origin).port);
});
test.after.always(async () => {
  await chromium?.close();
  await svc?.stop();
});

const PASSWORD = 'correct horse battery staple';
let seq = 0;
const uniqueEmail = () => `signin${++seq}-${Date.now()}@example.test`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function createUser(email: string, role: 'owner' | 'reviewer' = 'owner') {
  const r = await svc.admin.POST('/users', { body: { name: 'Person', email, password: PASSWORD, role } });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

// One loopback address per test (and per attacker within a test).
let lastHost = 10;
const newAddress = () => `127.0.${Math.floor(++lastHost / 250)}.${(lastHost % 250) + 1}`;

/** A browser in miniature that connects from `address`: a cookie jar, no redirects followed. */
class Client {
  jar = new Map<string, string>();
  /** `target`: another service than the file's (its origin and port). */
  constructor(
    readonly address = newAddress(),
    readonly target = { origin, port },
  ) {}

  request(path: string, form?: Record<string, string>): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.jar.size) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const body = form ? new URLSearchParams(form).toString() : undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin = this.target.origin;
    }
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.target.port,
          path,
          method: form ? 'POST' : 'GET',
          headers,
          localAddress: this.address,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => {
            for (const c of res.headers['set-cookie'] ?? []) {
              const [pair] = c.split(';');
              const name = pair.slice(0, pair.indexOf('='));
              const value = pair.slice(pair.indexOf('=') + 1);
              if (value === '' || /Max-Age=0/.test(c)) this.jar.delete(name);
              else this.jar.set(name, value);
            }
            resolve({ status: res.statusCode!, headers: res.headers, body: text });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  async csrf(): Promise<string> {
    return /name="csrf" value="([^"]+)"/.exec((await this.request('/signin')).body)![1];
  }

  /** With `csrf`, the value another client of the same browser got (the sign-in cookie is set to it). */
  async signIn(email: string, password: string, csrf?: string): Promise<Answer> {
    if (csrf) this.jar.set('glossa_signin', csrf);
    return this.request('/signin', { csrf: csrf ?? (await this.csrf()), email, password, next: '/' });
  }
}

const retryAfter = (a: Answer) => Number(a.headers['retry-after']);

// The delays are real time, and a loaded machine may take longer than a second between two attempts. So the tests
// read the delay an attempt set from the database, and stand in for the clock by moving its end: `hold` as though
// the next attempt came at once, `release` as though the person waited it out.
const throttleTable = () => svc.service.app.db('dashboard_signin_throttle');
async function delayOf(subject: string): Promise<number> {
  const r = await throttleTable().where({ subject }).first<{ blocked_until: number; updated_at: number }>();
  return Number(r.blocked_until) - Number(r.updated_at);
}
async function hold(subject: string) {
  await throttleTable()
    .where({ subject })
    .update({ blocked_until: Date.now() + (await delayOf(subject)) });
}
const release = (subject: string) =>
  throttleTable()
    .where({ subject })
    .update({ blocked_until: Date.now() - 1 });
const account = (email: string) => `account:${sha256(email)}`;

test.serial(
  'an account waits growing delays after 5 failures; the right password once the delay has passed signs in',
  async (t) => {
    const email = uniqueEmail();
    await createUser(email);
    const c = new Client();
    for (let i = 0; i < 6; i++) t.is((await c.signIn(email, `wrong password ${i}`)).status, 401, `attempt ${i + 1}`);
    // The sixth failure set a delay of a second: even the right password waits it out.
    t.is(await delayOf(account(email)), 1000);
    await hold(account(email));
    const held = await c.signIn(email, PASSWORD);
    t.is(held.status, 429);
    t.is(retryAfter(held), 1);
    t.regex(held.body, /Too many sign-in attempts\. Try again in 1 second\./);
    t.false(c.jar.has('glossa_session'));
    // Another address is held back too: the delay is the account's.
    t.is((await new Client().signIn(email, PASSWORD)).status, 429, 'the account, from anywhere');

    await release(account(email));
    t.is((await c.signIn(email, 'wrong again')).status, 401, 'checked once the delay passed');
    t.is(await delayOf(account(email)), 2000, 'the delay doubles');
    await hold(account(email));
    const doubled = await c.signIn(email, PASSWORD);
    t.is(doubled.status, 429);
    t.is(retryAfter(doubled), 2);
    // For real this time: the delay passes on the clock.
    await sleep(2100);
    const ok = await c.signIn(email, PASSWORD);
    t.is(ok.status, 303, 'the right password after the delay');
    t.true(c.jar.has('glossa_session'));
    // A success starts the account over.
    const fresh = new Client();
    for (let i = 0; i < 5; i++) t.is((await fresh.signIn(email, `wrong ${i}`)).status, 401);
  },
);

test.serial(
  'a client trying many accounts waits after 20 attempts; a refused attempt never reaches the hash',
  async (t) => {
    const c = new Client();
    const csrf = await c.csrf();
    for (let i = 0; i < 21; i++) t.is((await c.signIn(uniqueEmail(), PASSWORD, csrf)).status, 401, `attempt ${i + 1}`);
    t.is(await delayOf(`client:${c.address}`), 1000);
    await hold(`client:${c.address}`);
    const held = await c.signIn(uniqueEmail(), PASSWORD, csrf);
    t.is(held.status, 429, 'the client, whatever the account');
    t.true(retryAfter(held) >= 1);
    // Another client is not held back.
    t.is((await new Client().signIn(uniqueEmail(), PASSWORD)).status, 401);
    const row = await svc.service.app
      .db('dashboard_signin_throttle')
      .where({ subject: `client:${c.address}` })
      .first<{ attempts: number }>('attempts');
    t.is(Number(row.attempts), 21, 'the refused attempt was not counted');
  },
);

test.serial(
  'a free attempt sets no block: an attempt that read its clock earlier but locks later is admitted',
  async (t) => {
    // Two sign-ins from one office address at once: the second read the time a moment before the first, and took the
    // row's lock after it. Within the free attempts it must be checked, never answered 429.
    const db = svc.service.app.db;
    const subject = `client:${newAddress()}`;
    const now = Date.now();
    t.deepEqual(await admitAttempt(db, [subject], now), { admitted: true });
    t.deepEqual(await admitAttempt(db, [subject], now - 5), { admitted: true });
    const row = await throttleTable().where({ subject }).first<{ attempts: number; blocked_until: number }>();
    t.is(Number(row.attempts), 2);
    t.is(Number(row.blocked_until), 0, 'no block within the free attempts');
  },
);

test.serial('60 concurrent guesses: only the free attempts are checked, the rest answer 429', async (t) => {
  const email = uniqueEmail();
  await createUser(email);
  const c = new Client();
  const csrf = await c.csrf();
  const guesses = Array.from({ length: 60 }, (_, i) => (i === 59 ? PASSWORD : `wrong guess ${i}`));
  const answers = await Promise.all(guesses.map((g) => new Client(c.address).signIn(email, g, csrf)));
  const statuses = answers.map((a) => a.status);
  const checked = statuses.filter((s) => s !== 429).length;
  // 5 free attempts and the one that set the first delay of a second; a slow run may see that delay (and the next
  // ones, of 2 and 4 seconds) pass before its last requests arrive, and check one more each time.
  t.true(checked <= 9, `checked ${checked}`);
  t.true(checked >= 6, `checked ${checked}`);
  t.is(statuses.filter((s) => s === 429).length, 60 - checked);
  t.true(
    statuses.every((s) => [401, 303, 429].includes(s)),
    statuses.join(','),
  );
  const row = await svc.service.app
    .db('dashboard_signin_throttle')
    .where({ subject: account(email) })
    .first<{ attempts: number } | undefined>('attempts');
  if (statuses.includes(303)) t.is(row, undefined, 'a success starts the account over');
  else t.is(Number(row!.attempts), checked, 'every checked attempt counted, none more');
});

test.serial(
  "an attacker cannot keep the owner out: a browser that signed in before is not held by the account's delay",
  async (t) => {
    const email = uniqueEmail();
    await createUser(email);
    const owner = new Client();
    t.is((await owner.signIn(email, PASSWORD)).status, 303);
    t.true(owner.jar.has('glossa_device'), 'a known-device cookie');
    const device = await svc.service.app
      .db('dashboard_devices')
      .where({ token_hash: sha256(owner.jar.get('glossa_device')!) })
      .first<{ user_id: string } | undefined>('user_id');
    t.truthy(device, 'stored as its hash');
    owner.jar.delete('glossa_session');

    // An attacker elsewhere builds up the account's delay.
    const attacker = new Client();
    const csrf = await attacker.csrf();
    for (let i = 0; i < 6; i++) t.is((await attacker.signIn(email, `guess ${i}`, csrf)).status, 401);
    // As an attacker who keeps at it for a while: the account's delay reaches its ceiling of 15 minutes.
    await throttleTable()
      .where({ subject: account(email) })
      .update({ blocked_until: Date.now() + 15 * 60_000 });
    t.is((await attacker.signIn(email, 'guess 7', csrf)).status, 429, 'the attacker is held back');
    t.is((await new Client().signIn(email, PASSWORD)).status, 429, 'a new browser waits like anyone');
    // The owner's browser is not.
    const back = await owner.signIn(email, PASSWORD);
    t.is(back.status, 303, 'the owner signs in');
    // Its own failures still count: a stolen device cookie is no free pass.
    owner.jar.delete('glossa_session');
    for (let i = 0; i < 6; i++) t.is((await owner.signIn(email, `typo ${i}`)).status, 401);
    const deviceSubject = `device:${sha256(owner.jar.get('glossa_device')!)}`;
    t.is(await delayOf(deviceSubject), 1000, "the sixth set the device's first delay");
    await hold(deviceSubject);
    t.is((await owner.signIn(email, PASSWORD)).status, 429);
    // Another person's device cookie is no pass for this account.
    const other = uniqueEmail();
    await createUser(other);
    const mallory = new Client();
    t.is((await mallory.signIn(other, PASSWORD)).status, 303);
    mallory.jar.delete('glossa_session');
    t.is((await mallory.signIn(email, PASSWORD)).status, 429, "another user's device: the account's delay holds");
  },
);

test.serial('forty concurrent sign-ins leave delivery manifest reads fast', async (t) => {
  // A service of its own with password hashes at the default cost, not the tests' cheap one: what a flood of
  // sign-ins does to the service depends on what one hash costs.
  const own = await startTestService({ PASSWORD_SCRYPT_N: String(2 ** 15) });
  t.teardown(() => own.stop());
  const ownOrigin = own.internalUrl.replace('/internal/v1', '');
  const target = { origin: ownOrigin, port: Number(new URL(ownOrigin).port) };
  const p = await createTestProject(own);
  const r = await translate(p.client, p.projectId, { units: [{ key: 'k', source: 'Hello' }] });
  t.truthy(r.data);
  await own.admin.POST('/jobs/run-due', { body: {} });
  await publishSkipping(p);
  const manifest = `${own.deliveryUrl}/projects/${p.projectId}/manifest`;
  const read = async () => {
    const start = performance.now();
    const res = await fetch(manifest);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`manifest ${res.status}`);
    return performance.now() - start;
  };
  const p99 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.ceil(ms.length * 0.99) - 1];
  await read();
  const quiet: number[] = [];
  for (let i = 0; i < 20; i++) quiet.push(await read());

  // Forty anonymous attempts with random emails, each from its own address: no throttle holds them back, so each
  // is a password check.
  const csrf = await new Client(newAddress(), target).csrf();
  let done = false;
  const attack = Promise.all(
    Array.from({ length: 40 }, () =>
      new Client(newAddress(), target).signIn(uniqueEmail(), 'some password guess', csrf),
    ),
  ).finally(() => (done = true));
  const during: number[] = [];
  while (!done || during.length < 20) during.push(await read());
  const statuses = (await attack).map((a) => a.status);
  t.true(
    statuses.every((s) => s === 401 || s === 503),
    statuses.join(','),
  );
  t.true(statuses.filter((s) => s === 401).length >= 30, 'most were checked');
  for (const a of await attack) if (a.status === 503) t.true(retryAfter(a) >= 1, 'a refused check says when');
  // The bound: manifest reads took 7 to 11.6 s at p99 during such an attack.
  t.true(p99(during) < 1000, `p99 ${p99(during).toFixed(0)} ms during, ${p99(quiet).toFixed(0)} ms before`);
});

test.serial(
  'sessions: 2 idle hours end one, activity pushes that back (a write at most a minute), 12 hours stay the limit',
  async (t) => {
    const email = uniqueEmail();
    await createUser(email);
    const c = new Client();
    t.is((await c.signIn(email, PASSWORD)).status, 303);
    const token = c.jar.get('glossa_session')!;
    const db = svc.service.app.db;
    const row = () =>
      db('dashboard_sessions')
        .where({ token_hash: sha256(token) })
        .first<{ created_at: number; expires_at: number; idle_expires_at: number }>();
    const start = Number((await row()).created_at);
    const HOUR = 3600_000;
    t.is(Number((await row()).idle_expires_at), start + 2 * HOUR);
    t.truthy(await readSession(db, token, start + 30_000));
    t.is(Number((await row()).idle_expires_at), start + 2 * HOUR, 'no write within a minute');
    t.truthy(await readSession(db, token, start + 90_000));
    t.is(Number((await row()).idle_expires_at), start + 90_000 + 2 * HOUR, 'pushed back');
    t.falsy(await readSession(db, token, start + 90_000 + 2 * HOUR), 'idle for 2 hours: ended');
    // Working every hour keeps it, up to the absolute limit.
    for (let h = 1; h < 12; h++) t.truthy(await readSession(db, token, start + h * HOUR), `hour ${h}`);
    t.falsy(await readSession(db, token, start + 12 * HOUR), '12 hours: ended, however active');

    // Over HTTP: a session idle for 2 hours sends the person to sign in, saying why.
    t.is((await c.request('/')).status, 200);
    await db('dashboard_sessions')
      .where({ token_hash: sha256(token) })
      .update({ idle_expires_at: Date.now() - 1 });
    const home = await c.request('/');
    t.is(home.status, 303);
    t.is(home.headers.location, '/signin');
    const page = await c.request('/signin');
    t.regex(page.body, /Your session expired; sign in again\./);
    t.false(c.jar.has('glossa_session'), 'said once: the dead cookie goes');
    t.notRegex((await c.request('/signin')).body, /session expired/);
    t.notRegex((await new Client().request('/signin')).body, /session expired/, 'never signed in: nothing to say');
  },
);

async function browser(): Promise<Page> {
  chromium ??= await launchChromium();
  return chromium.context.newPage();
}

test.serial('editor: text typed when the session ended comes back after signing in, and saves', async (t) => {
  const email = uniqueEmail();
  await createUser(email);
  const p = await createTestProject(svc);
  const r = await translate(p.client, p.projectId, { units: [{ key: 'home.title', source: 'Welcome home' }] });
  t.truthy(r.data);
  await svc.admin.POST('/jobs/run-due', { body: {} });
  const page = await browser();
  const keyPage = `/projects/${p.projectId}/keys/home.title`;
  await signInAs(page, origin, { email, password: PASSWORD }, keyPage);

  const typed = 'Willkommen daheim, mit Text, der nicht verloren geht';
  await page.getByLabel('Translation (de)').fill(typed);
  await page.locator('#cell-de').getByLabel('Status').selectOption('reviewed');
  // The session ends while the person types (12 hours, or 2 idle ones).
  const user = await svc.service.app.db('dashboard_users').where({ email }).first<{ id: string }>('id');
  await svc.service.app
    .db('dashboard_sessions')
    .where({ user_id: user.id })
    .update({ expires_at: Date.now() - 1 });
  await page.locator('#cell-de').getByRole('button', { name: 'Save' }).click();
  await page.waitForURL(/\/signin\?next=/);
  t.is(await page.locator('#signin-reason').innerText(), 'Your session expired; sign in again.');
  t.regex(await page.locator('main, body').first().innerText(), /The text you were sending is kept in this tab/);

  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${origin}${keyPage}`);
  t.is(await page.getByLabel('Translation (de)').inputValue(), typed, 'the typed text is back');
  t.is(await page.locator('#cell-de').getByLabel('Status').inputValue(), 'reviewed');
  t.regex(await page.locator('#cell-de p.notice').innerText(), /Your text is back/);
  await page.locator('#cell-de').getByRole('button', { name: 'Save' }).click();
  await page.locator('p.notice', { hasText: 'Saved (de).' }).waitFor();
  const detail = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: 'home.title' } },
  });
  t.like(
    detail.data!.cells.find((c) => c.lang === 'de'),
    { value: typed, status: 'reviewed' },
  );
  // Once saved, nothing comes back again.
  await page.reload();
  t.is(await page.locator('#cell-de p.notice').count(), 0);
  await page.close();
});
