// The runtime client's capture against a running service: nothing is sent before the language's bundle has loaded,
// many repeats of one missing string make one unit in one request, batches hold at most 200 units and are spaced
// by the interval, nothing is sent unless capture is enabled, and a network failure neither throws nor loses the
// batch (a refused key turns capture off).
import test from 'ava';
import i18next from 'i18next';
import { createRuntimeClient, memoryStorage, type CaptureOptions } from '../../../packages/runtime/src/index.js';
import { recordingFetch } from '../../helpers/recording-fetch.js';
import { createTestKey, startTestService, type TestService } from '../../helpers/service.js';
import { stringsProject } from '../../helpers/strings-project.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(() => svc?.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A project, its capture-only key, and a client whose every request is recorded. */
async function setup(capture: Partial<CaptureOptions> = {}, scopes: Array<'capture' | 'read'> = ['capture']) {
  const p = await stringsProject(svc);
  const apiKey = await createTestKey(svc, p.projectId, scopes);
  const net = recordingFetch();
  const client = createRuntimeClient({
    deliveryUrl: p.deliveryUrl,
    storage: memoryStorage(),
    refreshInterval: 0,
    fetch: net.fetch,
    capture: { enabled: true, apiUrl: svc.baseUrl, apiKey, delay: 30, interval: 150, ...capture },
  });
  const captures = () => net.requests.filter((r) => r.line.startsWith('POST ') && r.line.includes('/capture'));
  const units = () => captures().flatMap((r) => (r.body as { units: unknown[] }).units);
  return { p, client, net, captures, units };
}

/** Waits until `n` capture requests were made, then a little longer to see that no other follows. */
async function settled(captures: () => unknown[], n: number, quiet = 400) {
  for (let waited = 0; captures().length < n && waited < 10_000; waited += 20) await sleep(20);
  await sleep(quiet);
}

test('nothing before the bundle loads; many repeats of a missing string are one unit in one request', async (t) => {
  const { p, client, captures } = await setup();
  client.report('Shown before any bundle');
  client.missingKeyHandler(['de'], 'translation', 'early.key', 'Shown before the German bundle');
  const i18n = i18next.createInstance();
  const init = i18n.use(client.backend()).init({
    lng: 'de',
    fallbackLng: 'en',
    saveMissing: true,
    missingKeyHandler: client.missingKeyHandler,
  });
  i18n.t('Shown while loading');
  await init;
  await sleep(300);
  t.deepEqual(captures(), [], 'nothing was sent before the bundle loaded');
  t.is(i18n.t('home.title'), 'Willkommen');
  for (let i = 0; i < 1000; i++) t.is(i18n.t('Checkout now'), 'Checkout now');
  await settled(captures, 1);
  t.is(captures().length, 1);
  const [post] = captures();
  t.regex(post.line, new RegExp(`^POST ${svc.baseUrl}/projects/${p.projectId}/capture 200$`));
  t.deepEqual(post.body, { units: [{ source: 'Checkout now' }] });
  t.deepEqual(post.answer, { captured: 1, skipped: 0 });
  client.close();
});

test('report() with ctx, and batches of at most 200 units spaced by the interval', async (t) => {
  const { client, captures, units } = await setup({ interval: 250 });
  await client.messages('de');
  client.report('Welcome', undefined, 'de');
  for (let i = 0; i < 450; i++) client.report(`Item ${i}`, 'a product list row');
  for (let i = 0; i < 450; i++) client.report(`Item ${i}`, 'a product list row');
  client.report('Item 0', 'another ctx');
  await settled(captures, 3);
  const posts = captures();
  t.deepEqual(
    posts.map((r) => (r.body as { units: unknown[] }).units.length),
    [200, 200, 52],
  );
  t.is(new Set(units().map((u) => JSON.stringify(u))).size, 452, 'each source and ctx once');
  t.deepEqual(units()[1], { source: 'Item 0', ctx: 'a product list row' });
  for (let i = 1; i < posts.length; i++) t.true(posts[i].at - posts[i - 1].at >= 200, 'spaced by the interval');
  const answers = posts.map((r) => r.answer as { captured: number; skipped: number });
  t.is(
    answers.reduce((n, a) => n + a.captured, 0),
    451,
  );
  t.is(answers[0].skipped, 1, '"Welcome" is a known source');
  client.close();
});

test("the i18next backend's saveMissing path reports through create(), once", async (t) => {
  const { client, captures } = await setup();
  const i18n = i18next.createInstance();
  await i18n.use(client.backend()).init({ lng: 'de', fallbackLng: 'en', saveMissing: true });
  for (let i = 0; i < 50; i++) i18n.t('missing.key', { defaultValue: 'Pay now' });
  await settled(captures, 1);
  t.deepEqual(
    captures().map((r) => r.body),
    [{ units: [{ source: 'Pay now', key: 'missing.key' }] }],
  );
  client.close();
});

test('a captured key is the key the app asked for, its default text the source: once reviewed and published, the app finds it', async (t) => {
  const { p, client, captures } = await setup();
  const i18n = i18next.createInstance();
  await i18n.use(client.backend()).init({ lng: 'de', fallbackLng: 'en', saveMissing: true });
  t.is(i18n.t('checkout.new_button', { defaultValue: 'Pay now' }), 'Pay now');
  t.is(i18n.t('cart.payNow', { defaultValue: 'Pay now' }), 'Pay now');
  i18n.t('Checkout now');
  await settled(captures, 1);
  t.deepEqual(captures()[0].body, {
    units: [
      { source: 'Pay now', key: 'checkout.new_button' },
      { source: 'Pay now', key: 'cart.payNow' },
      { source: 'Checkout now' },
    ],
  });
  t.deepEqual(captures()[0].answer, { captured: 3, skipped: 0 }, 'one text, two keys: two captured keys');
  const list = await svc.admin.GET('/projects/{projectId}/keys', {
    params: { path: { projectId: p.projectId }, query: { captured: true } },
  });
  t.deepEqual(
    list.data!.keys.map((k) => [k.key, k.source]).sort(),
    [
      ['cart.payNow', 'Pay now'],
      ['checkout.new_button', 'Pay now'],
      ['checkout_now', 'Checkout now'],
    ],
    'named by the key the app asked for; the default text is the source',
  );
  // Reported again: known by its key, not captured twice.
  const again = await p.client.POST('/projects/{projectId}/capture', {
    params: { path: { projectId: p.projectId } },
    body: {
      units: [
        { source: 'Pay now', key: 'checkout.new_button' },
        { source: 'Zahlen', key: 'cart.payNow' },
      ],
    },
  });
  t.deepEqual(again.data, { captured: 0, skipped: 2 });
  const accepted = await svc.admin.POST('/projects/{projectId}/captured', {
    params: { path: { projectId: p.projectId } },
    body: { action: 'accept', keys: ['checkout.new_button', 'cart.payNow'] },
  });
  t.deepEqual(accepted.data, { affected: 2 });
  await p.publish({ de: { 'checkout.new_button': 'Jetzt zahlen', 'cart.payNow': 'Bezahlen' } });
  t.true(await client.refresh());
  await i18n.reloadResources(['de']);
  t.is(i18n.t('checkout.new_button'), 'Jetzt zahlen');
  t.is(i18n.t('cart.payNow'), 'Bezahlen');
  client.close();
});

test('capture sends nothing unless enabled', async (t) => {
  const off = await setup({ enabled: false });
  await off.client.messages('de');
  off.client.report('Never sent');
  await off.client.flush();
  await sleep(200);
  t.deepEqual(off.captures(), []);
  off.client.close();
  // No capture options at all: the same.
  const p = await stringsProject(svc);
  const net = recordingFetch();
  const none = createRuntimeClient({ deliveryUrl: p.deliveryUrl, storage: memoryStorage(), fetch: net.fetch });
  await none.messages('de');
  none.report('Never sent');
  await none.flush();
  t.false(net.seen.some((r) => r.includes('/capture')));
  none.close();
});

test('a network failure never throws and loses nothing; a refused key turns capture off', async (t) => {
  const { client, net, captures } = await setup({ delay: 10_000 });
  await client.messages('de');
  net.fail(/^POST .*\/capture$/);
  client.report('Offline for a moment');
  await t.notThrowsAsync(client.flush());
  t.regex(captures()[0].line, / 0$/);
  await client.flush();
  t.deepEqual(
    captures().map((r) => [r.line.split(' ').at(-1), r.body]),
    [
      ['0', { units: [{ source: 'Offline for a moment' }] }],
      ['200', { units: [{ source: 'Offline for a moment' }] }],
    ],
  );
  client.close();
  // A key without the capture scope: 403 once, then nothing more is sent.
  const refused = await setup({ delay: 10 }, ['read']);
  await refused.client.messages('de');
  refused.client.report('First');
  await settled(refused.captures, 1, 100);
  refused.client.report('Second');
  await refused.client.flush();
  await sleep(200);
  t.deepEqual(
    refused.captures().map((r) => r.line.split(' ').at(-1)),
    ['403'],
  );
  refused.client.close();
});

test("a key missing in a namespace the manifest names is captured in that namespace; i18next's `translation` is the default one", async (t) => {
  const { p, client, captures } = await setup();
  const synced = await p.client.POST('/projects/{projectId}/sync', {
    params: { path: { projectId: p.projectId } },
    body: {
      contentBase64: Buffer.from(JSON.stringify({ save: 'Save' })).toString('base64'),
      fileName: 'en.json',
      namespace: 'app',
    },
  });
  t.is(synced.response.status, 200, JSON.stringify(synced.error));
  await p.publish({ de: {} });
  t.true(await client.refresh());
  await client.messages('de');
  client.missingKeyHandler(['de'], 'app', 'app.title', 'My app');
  client.missingKeyHandler(['de'], 'app', 'save', 'Save');
  client.missingKeyHandler(['de'], 'translation', 'app.title', 'My app');
  client.missingKeyHandler(['de'], 'unknown', 'other.title', 'Other');
  await settled(captures, 1);
  t.deepEqual(captures()[0].body, {
    units: [
      { source: 'My app', key: 'app.title', namespace: 'app' },
      { source: 'Save', key: 'save', namespace: 'app' },
      { source: 'My app', key: 'app.title' },
      { source: 'Other', key: 'other.title' },
    ],
  });
  t.deepEqual(
    captures()[0].answer,
    { captured: 3, skipped: 1 },
    '`save` is known in `app`; `app.title` is new in both',
  );
  const rows = await svc.service.app
    .db('keys')
    .where({ project_id: p.projectId, captured: true })
    .orderBy(['namespace', 'name'])
    .select('namespace', 'name', 'source');
  t.deepEqual(
    rows.map((r) => [r.namespace, r.name, r.source]),
    [
      ['', 'app.title', 'My app'],
      ['', 'other.title', 'Other'],
      ['app', 'app.title', 'My app'],
    ],
  );
  client.close();
});
