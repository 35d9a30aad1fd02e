// The key list by namespace (spec internal.yaml: internalListKeys `namespace`, KeyFilter.namespace): over the internal
// API, and in Debian's Chromium signed in as an owner, axe-clean: the Namespace filter, each named namespace's keys
// tagged and linked by token (one name may be a key of several namespaces), the editor naming the namespace.
import test from 'ava';
import { sync } from '../../../packages/client/src/index.js';
import { seriousViolations } from '../../helpers/axe.js';
import { launchChromium } from '../../helpers/chromium.js';
import { signIn } from '../../helpers/signin.js';
import { createTestProject, startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const b64 = (o: object) => Buffer.from(JSON.stringify(o), 'utf8').toString('base64');
const OWNER = { email: 'owner-ns@example.test', password: 'a long enough password', name: 'Nora Owner' };

test('the key list filters by namespace, over the API and in the dashboard', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await sync(p.client, p.projectId, { contentBase64: b64({ hello: 'Hello' }), fileName: 'en.json' });
  await sync(p.client, p.projectId, {
    contentBase64: b64({ title: 'App', home: 'Home' }),
    fileName: 'app.json',
    namespace: 'app',
  });
  await sync(p.client, p.projectId, {
    contentBase64: b64({ title: 'Common' }),
    fileName: 'common.json',
    namespace: 'common',
  });
  const list = async (namespace?: string) => {
    const r = await svc.admin.GET('/projects/{projectId}/keys', {
      params: { path: { projectId: p.projectId }, query: namespace === undefined ? {} : { namespace } },
    });
    return r.data!;
  };
  const all = await list();
  t.deepEqual(all.namespaces, ['app', 'common']);
  t.deepEqual(
    all.keys.map((k) => `${k.namespace ?? ''}:${k.key}`),
    [':hello', 'app:title', 'app:home', 'common:title'],
  );
  t.deepEqual(
    (await list('common')).keys.map((k) => k.key),
    ['title'],
  );
  t.deepEqual(
    (await list('')).keys.map((k) => k.key),
    ['hello'],
  );
  const bad = await svc.admin.GET('/projects/{projectId}/keys', {
    params: { path: { projectId: p.projectId }, query: { namespace: '../x' } },
  });
  t.is(bad.response.status, 400);

  const origin = svc.internalUrl.replace('/internal/v1', '');
  svc.service.app.config.publicAppUrl = origin;
  await svc.admin.POST('/users', { body: { ...OWNER, role: 'owner' } });
  const browser = await launchChromium();
  try {
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await signIn(page, origin, OWNER);
    const keysUrl = `${origin}/projects/${p.projectId}/keys`;
    await page.goto(keysUrl);
    t.regex(await page.locator('#key-count').innerText(), /^4 keys match/);
    t.deepEqual(await seriousViolations(page), []);
    await page.getByLabel('Namespace').selectOption('common');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/namespace=common/);
    await page
      .locator('#key-count')
      .filter({ hasText: /\b1 key matches/ })
      .waitFor();
    const count = async () => (await page.locator('#key-count').innerText()).replace(/\s+/g, ' ');
    t.regex(await count(), /\(in namespace common\)/);
    t.is(await page.locator('table.keys tbody th a').innerText(), 'title');
    t.is(await page.locator('table.keys tbody th .tag').innerText(), 'common');
    t.deepEqual(await seriousViolations(page), []);
    // The default namespace, as a shareable URL.
    await page.getByLabel('Namespace').selectOption({ label: 'the default namespace' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/namespace=%7Edefault/);
    await page
      .locator('#key-count')
      .filter({ hasText: /hello|\(in the default namespace\)/ })
      .waitFor();
    await page.locator('table.keys tbody th a', { hasText: 'hello' }).waitFor();
    t.regex(await count(), /1 key matches \(in the default namespace\)/);
    t.is(await page.locator('table.keys tbody th a').innerText(), 'hello');
    // A named namespace's key opens by its token: `title` of `app`, not `common`'s.
    await page.goto(`${keysUrl}?namespace=app`);
    await page.locator('table.keys tbody th a', { hasText: 'title' }).click();
    await page.waitForURL(/\/keys\/[A-Za-z0-9_-]{32}$/);
    t.regex(await page.locator('h1').innerText(), /Key title\s+in namespace app/);
    t.regex(await page.locator('main').innerText(), /App/);
    t.deepEqual(await seriousViolations(page), []);
  } finally {
    await browser.close();
  }
});
