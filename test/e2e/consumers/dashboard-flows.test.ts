// The dashboard's form flows (server/web/flash.ts and the pages that post): notices come from a one-time
// flash kept with the session, never from the URL; every post that writes answers 303 to a page, so a reload
// repeats nothing (API keys counted, versions counted); restore, content rollback, API-key revoke and webhook
// delete are asked first on a page that shows what would change, and a post that skips that page changes nothing.
// Over HTTP with a session cookie, and in Debian's Chromium for the restore confirmation (keyboard only, a narrow
// screen) and the reload of the "key created" page. Run on MariaDB too (TEST_DB=mysql).
import test from 'ava';
import type { Page } from 'playwright-core';
import { openSession, readSession } from '../../../server/domain/users/sessions.js';
import { launchChromium, type Chromium } from '../../helpers/chromium.js';
import { signIn } from '../../helpers/signin.js';
import { createTestProject, startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
let origin: string;
let browser: Chromium | undefined;
let ownerId: string;

const OWNER = { email: 'owner-flows@example.test', password: 'a long enough password' };

test.before(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  svc.service.app.webhookResolver = (host) =>
    host === 'hooks.test' ? Promise.resolve(['127.0.0.1']) : Promise.reject(new Error('NXDOMAIN'));
  origin = svc.internalUrl.replace('/internal/v1', '');
  svc.service.app.config.publicAppUrl = origin;
  const u = await svc.admin.POST('/users', { body: { name: 'Owner', ...OWNER, role: 'owner' } });
  ownerId = u.data!.userId;
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
});

/** A signed-in person over plain HTTP: the session cookie and its CSRF token. */
async function person() {
  const { token } = await openSession(svc.service.app.db, ownerId);
  const s = (await readSession(svc.service.app.db, token))!;
  const cookie = `glossa_session=${token}`;
  return {
    get: (path: string) => fetch(`${origin}${path}`, { headers: { cookie }, redirect: 'manual' }),
    post: (path: string, form: Record<string, string> = {}) =>
      fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin },
        body: new URLSearchParams({ csrf: s.csrf, ...form }).toString(),
        redirect: 'manual',
      }),
  };
}

const runDue = async () => {
  for (let i = 0; i < 20; i++) {
    const r = await svc.admin.POST('/jobs/run-due', { body: {} });
    if (!r.data || r.data.ran === 0) break;
  }
};

async function pushAndPublish(projectId: string, client: ReturnType<TestService['client']>, keys: string[]) {
  const push = await client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId } },
    body: { units: keys.map((key) => ({ key, source: `Text of ${key}` })) },
  });
  if (!push.data) throw new Error(JSON.stringify(push.error));
  await runDue();
  const v = await svc.admin.POST('/projects/{projectId}/publish', { params: { path: { projectId } }, body: {} });
  if (!v.data) throw new Error(JSON.stringify(v.error));
  return v.data.versionId;
}

const versionCount = async (projectId: string) =>
  (await svc.admin.GET('/projects/{projectId}/versions', { params: { path: { projectId } } })).data!.versions.length;

const liveKeys = async (projectId: string) =>
  (await svc.admin.GET('/projects/{projectId}/api-keys', { params: { path: { projectId } } })).data!.apiKeys.filter(
    (k) => !k.revokedAt,
  ).length;

test.serial('a notice in ?restored= or ?published= is not shown: notices come from the session', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await pushAndPublish(p.projectId, p.client, ['a.one']);
  const me = await person();
  const evil = 'Your session expired: sign in again at https://evil.example';
  for (const q of ['restored', 'published', 'unchanged']) {
    const r = await me.get(`/projects/${p.projectId}/versions?${q}=${encodeURIComponent(`2026.11.28.9. ${evil}`)}`);
    t.is(r.status, 200);
    const body = await r.text();
    t.false(body.includes('evil.example'), q);
    t.false(body.includes('role="status"'), `${q}: no notice at all`);
  }
});

test.serial('restore: asked first with the diff; a post that skips the page restores nothing', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const v1 = await pushAndPublish(p.projectId, p.client, ['k.one']);
  const v2 = await pushAndPublish(p.projectId, p.client, ['k.two', 'k.three']);
  const me = await person();
  const page = await me.get(`/projects/${p.projectId}/versions/${v1}/restore`);
  t.is(page.status, 200);
  const body = await page.text();
  t.regex(body, /Restore version <code>[^<]+<\/code>\?/);
  t.true(body.includes('k.two') && body.includes('k.three'), 'the keys the restore removes are listed');
  t.regex(body, /2 fewer than production serves now/);
  t.true(body.includes(`name="current" value="${v2}"`));
  // The old one-click form (no `current`) and a form drawn before another publish restore nothing.
  const before = await versionCount(p.projectId);
  const oneClick = await me.post(`/projects/${p.projectId}/versions/${v1}/restore`);
  t.is(oneClick.status, 409);
  const stale = await me.post(`/projects/${p.projectId}/versions/${v1}/restore`, { current: v1 });
  t.is(stale.status, 409);
  t.regex(await stale.text(), /Another version was published since this page was drawn/);
  t.is(await versionCount(p.projectId), before);
  // Confirmed: 303 to the versions page, whose notice is a one-time flash.
  const done = await me.post(`/projects/${p.projectId}/versions/${v1}/restore`, { current: v2 });
  t.is(done.status, 303);
  const location = done.headers.get('location')!;
  t.is(location, `/projects/${p.projectId}/versions`);
  t.is(await versionCount(p.projectId), before + 1);
  const shown = await (await me.get(location)).text();
  t.regex(shown, new RegExp(`Restored ${v1.replace(/\./g, '\\.')} as version `));
  const again = await (await me.get(location)).text();
  t.false(again.includes(' as version '), 'shown once');
  t.is(await versionCount(p.projectId), before + 1, 'reading the page again restores nothing');
});

test.serial('publish from the dashboard: 303, the notice once, nothing published again', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await pushAndPublish(p.projectId, p.client, ['p.one']);
  await p.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: p.projectId } },
    body: { units: [{ key: 'p.two', source: 'Two' }] },
  });
  const me = await person();
  const before = await versionCount(p.projectId);
  const r = await me.post(`/projects/${p.projectId}/publish`, { skipIfIdentical: 'true' });
  t.is(r.status, 303);
  t.is(r.headers.get('location'), `/projects/${p.projectId}/versions`);
  t.regex(await (await me.get(r.headers.get('location')!)).text(), /Published version \d{4}\.\d{2}\.\d{2}\.\d+\./);
  t.false((await (await me.get(r.headers.get('location')!)).text()).includes('Published version'));
  t.is(await versionCount(p.projectId), before + 1);
});

test.serial('two reads of a flash at once show it once', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const me = await person();
  const made = await me.post(`/projects/${p.projectId}/api-keys`, { name: 'Race', scope_read: 'on' });
  t.is(made.status, 303);
  const location = made.headers.get('location')!;
  const pages = await Promise.all([1, 2, 3, 4].map(async () => (await me.get(location)).text()));
  t.is(pages.filter((b) => b.includes('id="new-secret"')).length, 1);
  // Another session of the same person never sees it either: the flash is sealed for the session that posted.
  const other = await person();
  const m2 = await me.post(`/projects/${p.projectId}/api-keys`, { name: 'Race 2', scope_read: 'on' });
  t.false((await (await other.get(m2.headers.get('location')!)).text()).includes('id="new-secret"'));
  const rows = await svc.service.app.db('dashboard_flashes').select('sealed');
  t.false(
    rows.some((r: { sealed: string }) => r.sealed.includes('glk_')),
    'the secret rests sealed, never in clear',
  );
});

test.serial('API key revoke: asked first with what stops working, then 303 with a notice', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const me = await person();
  await me.post(`/projects/${p.projectId}/api-keys`, { name: 'CI <pull>', scope_read: 'on', scope_write: 'on' });
  const key = (
    await svc.admin.GET('/projects/{projectId}/api-keys', { params: { path: { projectId: p.projectId } } })
  ).data!.apiKeys.find((k) => k.name === 'CI <pull>')!;
  const list = await (await me.get(`/projects/${p.projectId}/api-keys`)).text();
  t.false(list.includes(`/api-keys/${key.keyId}/revoke" method`), 'no one-click revoke form on the list');
  const ask = await me.get(`/projects/${p.projectId}/api-keys/${key.keyId}/revoke`);
  t.is(ask.status, 200);
  const text = await ask.text();
  t.true(text.includes('CI &lt;pull&gt;'));
  t.regex(text, /What stops working: every request with this key is refused \(401\)/);
  t.regex(text, /pulls of strings and files/);
  const live = await liveKeys(p.projectId);
  t.true(live >= 1);
  await me.get(`/projects/${p.projectId}/api-keys/${key.keyId}/revoke`);
  t.is(await liveKeys(p.projectId), live, 'asking revokes nothing');
  const done = await me.post(`/projects/${p.projectId}/api-keys/${key.keyId}/revoke`);
  t.is(done.status, 303);
  t.is(await liveKeys(p.projectId), live - 1);
  t.regex(await (await me.get(done.headers.get('location')!)).text(), /Revoked CI &lt;pull&gt;/);
});

test.serial('webhooks: create and rotate show the secret once after a redirect; delete is asked first', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const me = await person();
  const hooks = async () =>
    (await svc.admin.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: p.projectId } } })).data!
      .webhooks;
  const made = await me.post(`/projects/${p.projectId}/webhooks`, {
    url: 'https://hooks.test/receive',
    event_strings: 'on',
  });
  t.is(made.status, 303);
  t.true((await (await me.get(made.headers.get('location')!)).text()).includes('id="new-secret"'));
  t.false((await (await me.get(made.headers.get('location')!)).text()).includes('id="new-secret"'));
  t.is((await hooks()).length, 1);
  const id = (await hooks())[0].webhookId;
  const hint = (await hooks())[0].secretHint;
  const rotated = await me.post(`/projects/${p.projectId}/webhooks/${id}/rotate-secret`);
  t.is(rotated.status, 303);
  const shown = await (await me.get(rotated.headers.get('location')!)).text();
  t.true(shown.includes('id="new-secret"') && shown.includes('The previous secret keeps signing until'));
  const newHint = (await hooks())[0].secretHint;
  t.not(newHint, hint);
  await me.get(rotated.headers.get('location')!);
  t.is((await hooks())[0].secretHint, newHint, 'reading the page again rotates nothing');
  const ask = await (await me.get(`/projects/${p.projectId}/webhooks/${id}/delete`)).text();
  t.regex(ask, /What stops: https:\/\/hooks\.test\/receive receives no more strings\.published events/);
  t.is((await hooks()).length, 1);
  const gone = await me.post(`/projects/${p.projectId}/webhooks/${id}/delete`);
  t.is(gone.status, 303);
  t.is((await hooks()).length, 0);
});

const narrow = { width: 360, height: 740 };

async function noHorizontalScroll(page: Page) {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);
}

test.serial(
  'browser: restore is confirmed on a page that shows the diff, by keyboard on a narrow screen',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const v1 = await pushAndPublish(p.projectId, p.client, ['b.one']);
    await pushAndPublish(p.projectId, p.client, ['b.two', 'b.three', 'b.four']);
    browser ??= await launchChromium();
    const page = await browser.context.newPage();
    await page.setViewportSize(narrow);
    const versions = `${origin}/projects/${p.projectId}/versions`;
    await signIn(page, origin, OWNER, `/projects/${p.projectId}/versions`);
    const before = await versionCount(p.projectId);
    // The keyboard reaches the Restore link of v1 and opens the confirmation: nothing is restored yet.
    const link = page.getByRole('link', { name: `Restore ${v1}` });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${versions}/${v1}/restore`);
    t.is(await versionCount(p.projectId), before);
    const main = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
    t.regex(main, /Keys now 4 in \S+ Keys after 1 \(3 fewer than production serves now\)/);
    t.regex(main, /b\.two/);
    t.true(await noHorizontalScroll(page), 'the confirmation fits a narrow screen');
    // Tab from the heading reaches the Restore button before Cancel; Enter restores.
    const button = page.getByRole('button', { name: `Restore ${v1}` });
    await button.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(versions);
    t.is(await versionCount(p.projectId), before + 1);
    t.regex(await page.getByRole('status').innerText(), new RegExp(`Restored ${v1.replace(/\./g, '\\.')} as version`));
    // A reload is a GET: nothing is restored again, and the notice was shown once.
    await page.reload();
    t.is(await versionCount(p.projectId), before + 1);
    t.is(await page.getByRole('status').count(), 0);
    await page.close();
  },
);

test.serial('browser: reloading the "key created" page shows no secret and creates no second key', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  browser ??= await launchChromium();
  const page = await browser.context.newPage();
  await page.setViewportSize(narrow);
  await signIn(page, origin, OWNER, `/projects/${p.projectId}/api-keys`);
  await page.getByLabel('Name').fill('Reload test');
  await page.getByLabel(/^read/).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.waitForURL(`${origin}/projects/${p.projectId}/api-keys`);
  const secret = (await page.locator('#new-secret').textContent())!;
  t.regex(secret, /^glk_/);
  const live = await liveKeys(p.projectId);
  await page.reload();
  t.is(await liveKeys(p.projectId), live, 'the reload created no second key');
  t.is(await page.locator('#new-secret').count(), 0, 'the secret was shown once');
  await page.goBack().catch(() => undefined);
  await page.goForward().catch(() => undefined);
  t.is(await liveKeys(p.projectId), live);
  await page.close();
});
