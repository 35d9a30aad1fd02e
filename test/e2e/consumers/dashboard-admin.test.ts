// The dashboard's owner pages (API keys, webhooks, users) and the internal API routes behind them.
// Over HTTP with the admin token: the API-key list with last use, the internal webhook routes (the public rules:
// addresses, the five-webhook limit, secrets shown on create and rotate only), the users list and role changes
// (the last owner stays owner). In-process as a reviewer (the dashboard's way in): every owner route is 403.
// In a real browser (Debian's Chromium): an owner creates an agent key (its secret shown once), revokes a key,
// creates a webhook to a loopback HTTPS receiver, sees a publish's delivery and resends it, rotates its secret,
// manages users; a reviewer sees none of these buttons and the API refuses them; hostile names never run; axe
// finds no serious violation on any page. Run on MariaDB too (TEST_DB=mysql).
import test from 'ava';
import type { BrowserContext, Page } from 'playwright-core';
import { routes } from '../../../generated/routes.js';
import type { Actor } from '../../../server/http/pipeline.js';
import { asPerson as asPersonOf } from '../../helpers/actor.js';
import { seriousViolations } from '../../helpers/axe.js';
import { signIn as signInAs } from '../../helpers/signin.js';
import { launchChromium, type Chromium } from '../../helpers/chromium.js';
import { createTestProject, startTestService, type TestService } from '../../helpers/service.js';
import { makeTestCa, startReceiver, type Receiver, type TestCa } from '../../helpers/webhook-receiver.js';

let svc: TestService;
let ca: TestCa;
let rx: Receiver;
let browser: Chromium | undefined;
let context: BrowserContext;
let origin: string;

const PASSWORD = 'a long enough password';
const HOSTILE_IMG = '<img src=x onerror="window.pwned=1">';
const HOSTILE_SCRIPT = '<script>window.pwned=2</script>';

test.before(async () => {
  ca = makeTestCa();
  rx = await startReceiver(ca);
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_CA_FILE: ca.caFile });
  svc.service.app.webhookResolver = (host) =>
    host === 'hooks.test' ? Promise.resolve(['127.0.0.1']) : Promise.reject(new Error('NXDOMAIN'));
  origin = svc.internalUrl.replace('/internal/v1', '');
  svc.service.app.config.publicAppUrl = origin;
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
  await rx?.close();
  ca?.remove();
});

const hookUrl = (p: string) => `https://hooks.test:${rx.port}${p}`;
const runDue = () => svc.admin.POST('/jobs/run-due', { body: {} });

async function user(name: string, email: string, role: 'owner' | 'reviewer') {
  const r = await svc.admin.POST('/users', { body: { name, email, password: PASSWORD, role } });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
}

const asPerson = (actor: Actor, method: string, url: string, payload?: unknown) =>
  asPersonOf(svc, actor, method, url, payload);

test('API keys: the list shows name, scopes, the agent flag, creation, last use (at most once a minute) and revocation', async (t) => {
  const p = await createTestProject(svc, { scopes: ['read'] });
  const created = await svc.admin.POST('/projects/{projectId}/api-keys', {
    params: { path: { projectId: p.projectId } },
    body: { scopes: ['translate', 'publish'], requiresOperationApproval: true, name: HOSTILE_IMG },
  });
  t.is(created.response.status, 201);
  const list = async () =>
    (await svc.admin.GET('/projects/{projectId}/api-keys', { params: { path: { projectId: p.projectId } } })).data!
      .apiKeys;
  let keys = await list();
  t.is(keys.length, 2);
  const agent = keys.find((k) => k.keyId === created.data!.keyId)!;
  t.like(agent, { name: HOSTILE_IMG, requiresOperationApproval: true, lastUsedAt: null, revokedAt: null });
  t.deepEqual(agent.scopes, ['translate', 'publish']);
  t.false(JSON.stringify(keys).includes(created.data!.apiKey.slice(17)), 'no secret listed');

  // The read key is used: its last use is recorded (without delaying the request, so wait for it a little).
  const before = Date.now();
  t.is(
    (await p.client.GET('/projects/{projectId}/meta', { params: { path: { projectId: p.projectId } } })).response
      .status,
    200,
  );
  let used: string | null = null;
  for (let i = 0; i < 50 && !used; i++) {
    keys = await list();
    used = keys.find((k) => k.keyId !== agent.keyId)!.lastUsedAt;
    if (!used) await new Promise((r) => setTimeout(r, 20));
  }
  t.truthy(used);
  t.true(Date.parse(used!) >= before - 1000);
  // A second use within the minute writes nothing.
  await p.client.GET('/projects/{projectId}/meta', { params: { path: { projectId: p.projectId } } });
  await new Promise((r) => setTimeout(r, 100));
  t.is((await list()).find((k) => k.keyId !== agent.keyId)!.lastUsedAt, used);

  const revoked = await svc.admin.DELETE('/projects/{projectId}/api-keys/{keyId}', {
    params: { path: { projectId: p.projectId, keyId: agent.keyId } },
  });
  t.is(revoked.response.status, 204);
  t.truthy((await list()).find((k) => k.keyId === agent.keyId)!.revokedAt);
  const missing = await svc.admin.GET('/projects/{projectId}/api-keys', { params: { path: { projectId: 'nope' } } });
  t.is(missing.response.status, 404);
});

test('webhooks: the internal routes follow the public rules', async (t) => {
  const p = await createTestProject(svc);
  const path = { projectId: p.projectId };
  const bad = await svc.admin.POST('/projects/{projectId}/webhooks', {
    params: { path },
    body: { url: 'https://metadata.invalid/x', events: ['strings.published'] },
  });
  t.is(bad.response.status, 400);
  const made = await svc.admin.POST('/projects/{projectId}/webhooks', {
    params: { path },
    body: { url: hookUrl('/internal-a'), events: ['strings.published'] },
  });
  t.is(made.response.status, 201);
  t.regex(made.data!.secret, /^whsec_/);
  const webhookId = made.data!.webhookId;
  const listed = await svc.admin.GET('/projects/{projectId}/webhooks', { params: { path } });
  t.is(listed.data!.webhooks.length, 1);
  t.false(JSON.stringify(listed.data).includes(made.data!.secret));
  const updated = await svc.admin.PATCH('/projects/{projectId}/webhooks/{webhookId}', {
    params: { path: { ...path, webhookId } },
    body: { events: ['strings.published', 'content.published'], enabled: false },
  });
  t.like(updated.data, { enabled: false });
  t.deepEqual(updated.data!.events, ['strings.published', 'content.published']);
  await svc.admin.PATCH('/projects/{projectId}/webhooks/{webhookId}', {
    params: { path: { ...path, webhookId } },
    body: { enabled: true },
  });
  const rotated = await svc.admin.POST('/projects/{projectId}/webhooks/{webhookId}/rotate-secret', {
    params: { path: { ...path, webhookId } },
  });
  t.regex(rotated.data!.secret, /^whsec_/);
  t.not(rotated.data!.secret, made.data!.secret);

  // A publish delivers; the delivery is listed and can be resent.
  const pub = await p.client.POST('/projects/{projectId}/publish', { params: { path }, body: {} });
  t.is(pub.response.status, 201, JSON.stringify(pub.error));
  await runDue();
  const log = await svc.admin.GET('/projects/{projectId}/webhooks/{webhookId}/deliveries', {
    params: { path: { ...path, webhookId } },
  });
  t.is(log.data!.deliveries.length, 1);
  t.like(log.data!.deliveries[0], { status: 'delivered', eventType: 'strings.published', lastStatusCode: 204 });
  const resent = await svc.admin.POST('/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', {
    params: { path: { ...path, webhookId, deliveryId: log.data!.deliveries[0].deliveryId } },
  });
  t.is(resent.response.status, 202);
  t.is(resent.data!.status, 'pending');
  const gone = await svc.admin.POST('/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', {
    params: { path: { ...path, webhookId, deliveryId: 'dl_none' } },
  });
  t.is(gone.response.status, 404);

  // Five at most, as on the public API.
  for (let i = 0; i < 4; i++)
    await svc.admin.POST('/projects/{projectId}/webhooks', {
      params: { path },
      body: { url: hookUrl(`/more-${i}`), events: ['strings.published'] },
    });
  const sixth = await svc.admin.POST('/projects/{projectId}/webhooks', {
    params: { path },
    body: { url: hookUrl('/sixth'), events: ['strings.published'] },
  });
  t.is(sixth.response.status, 409);
  t.is(sixth.error!.error, 'webhook_limit');
  const deleted = await svc.admin.DELETE('/projects/{projectId}/webhooks/{webhookId}', {
    params: { path: { ...path, webhookId } },
  });
  t.is(deleted.response.status, 204);
  const none = await svc.admin.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: 'nope' } } });
  t.is(none.response.status, 404);
});

test.serial('users: listed by name; roles change; the last owner cannot become a reviewer', async (t) => {
  const a = await user('Ada Owner', 'ada@example.test', 'owner');
  const b = await user('Bo Reviewer', 'bo@example.test', 'reviewer');
  const list = (await svc.admin.GET('/users')).data!.users;
  t.truthy(list.find((u) => u.userId === a.userId && u.role === 'owner'));
  t.false(JSON.stringify(list).includes('password'));
  const promoted = await svc.admin.PATCH('/users/{userId}', {
    params: { path: { userId: b.userId } },
    body: { role: 'owner' },
  });
  t.like(promoted.data, { userId: b.userId, role: 'owner' });
  // Every owner demoting themselves at once: one stays owner.
  const owners = (await svc.admin.GET('/users')).data!.users.filter((u) => u.role === 'owner');
  const answers = await Promise.all(
    owners.map((u) =>
      svc.admin.PATCH('/users/{userId}', { params: { path: { userId: u.userId } }, body: { role: 'reviewer' } }),
    ),
  );
  t.is(answers.filter((r) => r.response.status === 409).length, 1);
  for (const r of answers.filter((x) => x.response.status === 409)) t.is(r.error!.error, 'last_owner');
  t.is((await svc.admin.GET('/users')).data!.users.filter((u) => u.role === 'owner').length, 1);
  const unknown = await svc.admin.PATCH('/users/{userId}', {
    params: { path: { userId: 'usr_none' } },
    body: { role: 'owner' },
  });
  t.is(unknown.response.status, 404);
  // Put the owners back for the tests after.
  for (const u of owners)
    await svc.admin.PATCH('/users/{userId}', { params: { path: { userId: u.userId } }, body: { role: 'owner' } });
});

test('a reviewer is refused every owner route by the API itself (403); reads of their own are allowed', async (t) => {
  const p = await createTestProject(svc);
  const reviewer: Actor = { userId: 'usr_r', name: 'R', role: 'reviewer' };
  const owner: Actor = { userId: 'usr_o', name: 'O', role: 'owner' };
  const pp = `/projects/${p.projectId}`;
  // Every internal route whose x-roles leave reviewers out (the generated route table, so a route added later is
  // held to it too), with its path parameters filled in: the role is refused before anything else is read.
  const ownerOnly = routes.filter((r) => r.origin === 'internal' && !r.roles.includes('reviewer'));
  t.true(ownerOnly.length >= 30, `${ownerOnly.length} owner routes`);
  for (const r of ownerOnly) {
    const url = r.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'projectId' ? p.projectId : `x_${name}`));
    t.true(r.statuses.includes('403'), `${r.operationId} documents its 403`);
    const res = await asPerson(reviewer, r.method, url, r.hasBody ? {} : undefined);
    t.is(res.status, 403, `${r.method} ${url}`);
    t.is(res.body.error, 'forbidden');
  }
  t.is((await asPerson(owner, 'GET', `${pp}/api-keys`)).status, 200);
  t.is((await asPerson(owner, 'GET', `${pp}/webhooks`)).status, 200);
  t.is((await asPerson(reviewer, 'GET', pp)).status, 200);
  t.is(
    (await svc.admin.GET('/projects/{projectId}/api-keys', { params: { path: { projectId: p.projectId } } })).response
      .status,
    200,
  );
});

// ---------------------------------------------------------------------------------------------- in the browser

async function page(): Promise<Page> {
  if (!browser) {
    browser = await launchChromium();
    context = browser.context;
  }
  return context.pages()[0] ?? context.newPage();
}

async function signIn(email: string): Promise<Page> {
  const pg = await page();
  await signInAs(pg, origin, { email, password: PASSWORD });
  return pg;
}

const pwned = (pg: Page) => pg.evaluate(() => (window as unknown as { pwned?: number }).pwned);
const mainText = async (pg: Page) => (await pg.locator('main').innerText()).replace(/\s+/g, ' ');

let reviewer: { userId: string };
test.serial.before(async () => {
  await user(`Olga ${HOSTILE_IMG}`, 'olga@example.test', 'owner');
  reviewer = await user(`Rita ${HOSTILE_SCRIPT}`, 'rita@example.test', 'reviewer');
});

test.serial(
  'browser: an owner creates an agent key (secret shown once), sees its last use, and revokes it',
  async (t) => {
    const p = await createTestProject(svc);
    const pg = await signIn('olga@example.test');
    const url = `${origin}/projects/${p.projectId}/api-keys`;
    await pg.goto(url);
    t.deepEqual(await seriousViolations(pg), []);
    await pg.getByLabel('Name').fill(`agent ${HOSTILE_SCRIPT}`);
    await pg.locator('#scope-translate').check();
    await pg.locator('#scope-publish').check();
    await pg.getByLabel(/Agent key/).check();
    const [answer] = await Promise.all([
      pg.waitForResponse((r) => r.request().method() === 'POST'),
      pg.getByRole('button', { name: 'Create key' }).click(),
    ]);
    // Post/redirect/get: the secret is shown by the page the redirect opens, from a one-time flash.
    t.is(answer.status(), 303);
    await pg.waitForURL(url);
    const secret = (await pg.locator('#new-secret').textContent())!;
    t.regex(secret, /^glk_[A-Za-z0-9]{12}_[A-Za-z0-9]{43}$/);
    t.is(await pg.getByRole('button', { name: 'Copy' }).count(), 1);
    t.deepEqual(await seriousViolations(pg), []);
    t.is(pg.url(), url, 'no secret in the URL');
    // The secret works, as an agent key with these scopes.
    const agent = svc.client(secret);
    const meta = await agent.GET('/projects/{projectId}/meta', { params: { path: { projectId: p.projectId } } });
    t.is(meta.response.status, 200);
    // Shown once: a later load of the page has no trace of it.
    await pg.goto(url);
    t.is(await pg.locator('#new-secret').count(), 0);
    t.false((await pg.content()).includes(secret.slice(4)));
    const row = pg.locator('tr', { hasText: `agent ${HOSTILE_SCRIPT}` });
    t.is(await row.count(), 1, 'the hostile name shown literally');
    t.regex(await row.innerText(), /translate, publish/);
    t.regex(await row.innerText(), /yes/);
    t.regex(await row.innerText(), /UTC/, 'last use shown');
    t.is(await pwned(pg), undefined);
    await row.getByRole('link', { name: /Revoke/ }).click();
    await pg.getByRole('button', { name: /^Revoke/ }).click();
    await pg.waitForURL(url);
    t.regex(await pg.locator('tr', { hasText: `agent ${HOSTILE_SCRIPT}` }).innerText(), /revoked/);
    const after = await agent.GET('/projects/{projectId}/meta', { params: { path: { projectId: p.projectId } } });
    t.is(after.response.status, 401);
    t.is(await pwned(pg), undefined);
  },
);

test.serial(
  'browser: an owner creates a webhook, sees a publish delivered, resends it, rotates its secret, disables it',
  async (t) => {
    const p = await createTestProject(svc);
    const pg = await signIn('olga@example.test');
    const url = `${origin}/projects/${p.projectId}/webhooks`;
    await pg.goto(url);
    t.deepEqual(await seriousViolations(pg), []);
    // A hostile URL is refused by the API and shown back literally.
    const hostile = hookUrl(`/x/${HOSTILE_IMG}`);
    await pg.getByLabel('URL (https)').fill(hostile);
    await pg.getByRole('button', { name: 'Create webhook' }).click();
    await pg.waitForLoadState();
    t.is(await pg.getByRole('alert').count(), 1);
    t.is(await pg.getByLabel('URL (https)').inputValue(), hostile);
    t.is(await pwned(pg), undefined);

    const path = `/dash-${p.projectId}/it's&more`;
    await pg.getByLabel('URL (https)').fill(hookUrl(path));
    const [answer] = await Promise.all([
      pg.waitForResponse((r) => r.request().method() === 'POST'),
      pg.getByRole('button', { name: 'Create webhook' }).click(),
    ]);
    t.is(answer.status(), 303, 'post/redirect/get: the secret comes from a one-time flash');
    await pg.waitForURL(url);
    const secret = (await pg.locator('#new-secret').textContent())!;
    t.regex(secret, /^whsec_/);
    t.deepEqual(await seriousViolations(pg), []);
    await pg.goto(url);
    t.is(await pg.locator('#new-secret').count(), 0);
    t.is(await pg.getByText(hookUrl(path), { exact: true }).count(), 1);

    // A publish is delivered; the log shows it.
    const pub = await p.client.POST('/projects/{projectId}/publish', {
      params: { path: { projectId: p.projectId } },
      body: {},
    });
    t.is(pub.response.status, 201);
    await runDue();
    const received = rx.received.filter((r) => r.path.startsWith(`/dash-${p.projectId}/`));
    t.is(received.length, 1);
    await pg.getByRole('link', { name: /Edit and deliveries/ }).click();
    await pg.waitForLoadState();
    t.deepEqual(await seriousViolations(pg), []);
    const hookPage = pg.url();
    let log = pg.locator('table', { hasText: 'Resend' });
    t.regex(await log.innerText(), /strings\.published/);
    t.regex(await log.innerText(), new RegExp(pub.data!.versionId.replace(/\./g, '\\.')));
    t.regex(await log.innerText(), /delivered/);

    // The receiver now fails with a hostile body: a resend shows the failure and its last error, literally.
    rx.answer(received[0].path, { status: 500, body: HOSTILE_SCRIPT });
    await pg.getByRole('button', { name: /Resend/ }).click();
    await pg.waitForURL(hookPage);
    t.regex(await mainText(pg), /pending/);
    await runDue();
    await pg.goto(hookPage);
    log = pg.locator('table', { hasText: 'Resend' });
    t.regex(await log.innerText(), /500/);
    t.true((await log.innerText()).includes(HOSTILE_SCRIPT), 'the last error shown literally');
    t.is(await pwned(pg), undefined);
    t.is(rx.received.filter((r) => r.path.startsWith(`/dash-${p.projectId}/`)).length, 2);
    // It recovers: resend again, delivered.
    rx.answer(received[0].path, { status: 204 });
    await pg.getByRole('button', { name: /Resend/ }).click();
    await pg.waitForURL(hookPage);
    await runDue();
    await pg.goto(hookPage);
    t.regex(await pg.locator('table', { hasText: 'Resend' }).innerText(), /delivered/);
    t.is(rx.received.filter((r) => r.path.startsWith(`/dash-${p.projectId}/`)).length, 3);

    // Rotate: the new secret once.
    await pg.getByRole('button', { name: 'Rotate secret' }).click();
    await pg.waitForLoadState();
    const rotated = (await pg.locator('#new-secret').textContent())!;
    t.regex(rotated, /^whsec_/);
    t.not(rotated, secret);
    await pg.goto(hookPage);
    t.is(await pg.locator('#new-secret').count(), 0);
    // The hint is the secret's tail as it is: base64 may end in `+` or `/`, so it is matched as text, not a pattern.
    t.true((await mainText(pg)).includes(`…${rotated.slice(-4)}`), 'the new secret’s hint is shown');

    // Edit: disable it.
    await pg.getByLabel(/Enabled/).uncheck();
    await pg.getByRole('button', { name: 'Save webhook' }).click();
    await pg.waitForURL(hookPage);
    t.regex(await mainText(pg), /State disabled/);
    const listed = await svc.admin.GET('/projects/{projectId}/webhooks', {
      params: { path: { projectId: p.projectId } },
    });
    t.false(listed.data!.webhooks[0].enabled);
    t.is(await pwned(pg), undefined);
  },
);

test.serial('browser: an owner adds a person and changes roles; hostile names show literally', async (t) => {
  const pg = await signIn('olga@example.test');
  await pg.goto(`${origin}/users`);
  t.deepEqual(await seriousViolations(pg), []);
  t.is(await pg.getByRole('cell', { name: `Olga ${HOSTILE_IMG} (you)`, exact: true }).count(), 1, 'owner');
  t.is(await pg.getByRole('cell', { name: `Rita ${HOSTILE_SCRIPT}`, exact: true }).count(), 1, 'reviewer');
  await pg.getByLabel('Name', { exact: true }).fill(`Nina ${HOSTILE_IMG}`);
  await pg.getByLabel('Email').fill('nina@example.test');
  await pg.getByLabel(/First password/).fill(PASSWORD);
  await pg.getByLabel('Role', { exact: true }).selectOption('reviewer');
  await pg.getByRole('button', { name: 'Add user' }).click();
  await pg.waitForURL(`${origin}/users`);
  const nina = (await svc.admin.GET('/users')).data!.users.find((u) => u.email === 'nina@example.test')!;
  t.is(nina.role, 'reviewer');
  t.is(nina.name, `Nina ${HOSTILE_IMG}`);
  await pg.getByLabel(`Role of Nina ${HOSTILE_IMG}`, { exact: true }).selectOption('owner');
  await pg.getByRole('button', { name: `Change the role of Nina ${HOSTILE_IMG}` }).click();
  await pg.waitForURL(`${origin}/users`);
  t.is((await svc.admin.GET('/users')).data!.users.find((u) => u.email === 'nina@example.test')!.role, 'owner');
  // A too-short password is refused and nothing is added.
  await pg.getByLabel('Name', { exact: true }).fill('Short');
  await pg.getByLabel('Email').fill('short@example.test');
  await pg.getByLabel(/First password/).evaluate((el) => el.removeAttribute('minlength'));
  await pg.getByLabel(/First password/).fill('short');
  await pg.getByRole('button', { name: 'Add user' }).click();
  await pg.waitForLoadState();
  t.is(await pg.getByRole('alert').count(), 1, 'refused');
  t.falsy((await svc.admin.GET('/users')).data!.users.find((u) => u.email === 'short@example.test'));
  t.deepEqual(await seriousViolations(pg), []);
  t.is(await pwned(pg), undefined);
});

test.serial(
  'browser: a reviewer sees no owner sections or buttons, and the API refuses their posts (403)',
  async (t) => {
    const p = await createTestProject(svc);
    const made = await svc.admin.POST('/projects/{projectId}/webhooks', {
      params: { path: { projectId: p.projectId } },
      body: { url: hookUrl('/reviewer'), events: ['strings.published'] },
    });
    const keysBefore = (
      await svc.admin.GET('/projects/{projectId}/api-keys', { params: { path: { projectId: p.projectId } } })
    ).data!.apiKeys;
    const pg = await signIn('rita@example.test');
    await pg.goto(`${origin}/projects/${p.projectId}/api-keys`);
    t.regex(await mainText(pg), /Only an owner can see and manage API keys/);
    t.is(await pg.getByRole('button', { name: 'Create key' }).count(), 0);
    t.is(await pg.locator('nav.main').getByRole('link', { name: 'API keys' }).count(), 0);
    t.is(await pg.locator('nav.main').getByRole('link', { name: 'Webhooks' }).count(), 0);
    t.is(await pg.locator('nav.main').getByRole('link', { name: 'Users' }).count(), 0);
    t.deepEqual(await seriousViolations(pg), []);
    await pg.goto(`${origin}/projects/${p.projectId}/webhooks`);
    t.regex(await mainText(pg), /Only an owner can see and manage webhooks/);
    t.is(await pg.getByRole('button', { name: 'Create webhook' }).count(), 0);
    await pg.goto(`${origin}/users`);
    t.regex(await mainText(pg), /Only an owner can see and manage users/);
    t.is(await pg.getByRole('button', { name: 'Add user' }).count(), 0);
    t.is(await pwned(pg), undefined, "the reviewer's own hostile name in the header never ran");

    // Posts forged with the reviewer's own valid CSRF token: the API refuses each, nothing changes.
    const csrf = await pg.locator('header input[name=csrf]').inputValue();
    const post = (path: string, form: Record<string, string>) =>
      pg.request.post(`${origin}${path}`, { form: { csrf, ...form }, maxRedirects: 0 });
    const pp = `/projects/${p.projectId}`;
    for (const [path, form] of [
      [`${pp}/api-keys`, { scope_admin: 'on', name: 'sneaky' }],
      [`${pp}/api-keys/${keysBefore[0].keyId}/revoke`, {}],
      [`${pp}/webhooks`, { url: hookUrl('/sneaky'), event_strings: 'on' }],
      [`${pp}/webhooks/${made.data!.webhookId}/rotate-secret`, {}],
      [`${pp}/webhooks/${made.data!.webhookId}/delete`, {}],
      ['/users', { name: 'Sneaky', email: 'sneaky@example.test', password: PASSWORD, role: 'owner' }],
      [`/users/${reviewer.userId}/role`, { role: 'owner' }],
    ] as Array<[string, Record<string, string>]>) {
      const r = await post(path, form);
      t.is(r.status(), 403, path);
      t.regex(await r.text(), /Only an owner can/);
    }
    const keysAfter = (
      await svc.admin.GET('/projects/{projectId}/api-keys', { params: { path: { projectId: p.projectId } } })
    ).data!.apiKeys;
    t.deepEqual(keysAfter, keysBefore);
    const hooks = (
      await svc.admin.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: p.projectId } } })
    ).data!.webhooks;
    t.is(hooks.length, 1);
    t.is(hooks[0].secretHint, made.data!.secretHint);
    const users = (await svc.admin.GET('/users')).data!.users;
    t.falsy(users.find((u) => u.email === 'sneaky@example.test'));
    t.is(users.find((u) => u.userId === reviewer.userId)!.role, 'reviewer');
  },
);
