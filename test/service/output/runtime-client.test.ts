// The runtime client (packages/runtime/) in a Node app against a running service: i18next with the client's backend
// shows the published text, a new publish arrives on refresh() without a restart, a start with the delivery origin
// stopped comes from the folder cache (and from the bundled strings when there is none), locales fall back along
// the BCP 47 chain, and a pinned version stays.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import i18next from 'i18next';
import {
  createRuntimeClient,
  GlossaBackend,
  type GlossaBackendOptions,
  memoryStorage,
  webStorage,
  type Manifest,
  type RuntimeOptions,
} from '../../../packages/runtime/src/index.js';
import { folderStorage } from '../../../packages/runtime/src/node.js';
import { recordingFetch } from '../../helpers/recording-fetch.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { stringsProject, VALUES } from '../../helpers/strings-project.js';

let svc: TestService;
const dirs: string[] = [];
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const cacheDir = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'glossa-runtime-'));
  dirs.push(d);
  return d;
};

async function i18nextOver(options: RuntimeOptions, lng: string) {
  const client = createRuntimeClient({ refreshInterval: 0, ...options });
  const i18n = i18next.createInstance();
  await i18n.use(client.backend()).init({ lng, fallbackLng: 'en', interpolation: { escapeValue: false } });
  return { client, i18n };
}

test('a Node app with i18next and the backend shows the published text', async (t) => {
  const p = await stringsProject(svc);
  const net = recordingFetch();
  const { client, i18n } = await i18nextOver(
    { deliveryUrl: p.deliveryUrl, storage: folderStorage(cacheDir()), fetch: net.fetch },
    'de',
  );
  t.is(i18n.t('home.title'), 'Willkommen');
  t.is(i18n.t('cart.empty'), 'Dein Warenkorb ist leer');
  t.is(i18n.getFixedT('en')('home.title'), 'Welcome');
  t.is(client.versionId, p.versionId);
  // Another namespace is the bundle's top-level object of that name.
  await i18n.loadNamespaces('common');
  t.is(i18n.t('ok', { ns: 'common' }), 'OK');
  // One manifest, one bundle per language, nothing else.
  t.is(net.seen.filter((r) => r.includes('/manifest')).length, 1, net.seen.join('\n'));
  t.true(
    net.seen.some((r) => /\/bundles\/[^/]+\/de\.[0-9a-f]{16}\.json 200$/.test(r)),
    net.seen.join('\n'),
  );
  // Without i18next: the resources of a language.
  t.like(await client.messages('de'), { home: { title: 'Willkommen' } });
  client.close();
  // The class form, constructed by i18next itself from its `backend` option.
  const own = i18next.createInstance();
  await own.use(GlossaBackend).init({
    lng: 'pt-BR',
    fallbackLng: 'en',
    backend: {
      deliveryUrl: p.deliveryUrl,
      storage: memoryStorage(),
      refreshInterval: 0,
    } satisfies GlossaBackendOptions,
  });
  t.is(own.t('home.title'), 'Bem-vindo');
  (own.services.backendConnector as unknown as { backend: GlossaBackend }).backend.client!.close();
});

test('a new publish arrives on refresh() without a restart; an unchanged manifest is a 304', async (t) => {
  const p = await stringsProject(svc);
  const net = recordingFetch();
  const dir = cacheDir();
  const { client, i18n } = await i18nextOver(
    { deliveryUrl: p.deliveryUrl, storage: folderStorage(dir), fetch: net.fetch },
    'de',
  );
  t.is(i18n.t('home.title'), 'Willkommen');
  t.false(await client.refresh(), 'nothing new');
  t.regex(net.seen.at(-1)!, /\/manifest 304 conditional$/);
  const versions: string[] = [];
  client.on('version', (v) => versions.push(v));
  const v2 = await p.publish({ de: { 'home.title': 'Herzlich willkommen' } });
  // A new version whose bundle cannot be had (the network fails half-way) is not taken: the old one stays whole.
  net.fail(/\/bundles\/.*\/de\./);
  t.false(await client.refresh());
  t.is(client.versionId, p.versionId);
  t.deepEqual(versions, []);
  const reloaded = new Promise((resolve) => i18n.on('loaded', resolve));
  t.true(await client.refresh());
  await reloaded;
  t.deepEqual(versions, [v2]);
  t.is(client.versionId, v2);
  t.is(i18n.t('home.title'), 'Herzlich willkommen');
  t.is(i18n.t('cart.empty'), 'Dein Warenkorb ist leer');
  // The old version's bundles left the cache; the new ones and the manifest are in it.
  const files = readdirSync(dir).map(decodeURIComponent);
  t.is(files.filter((f) => /:de:[0-9a-f]{16}$/.test(f)).length, 1, files.join('\n'));
  t.true(files.some((f) => f.endsWith(':manifest')));
  client.close();
});

test('a start from the cache does not wait for the network, and takes a newer version in the background', async (t) => {
  const p = await stringsProject(svc);
  const dir = cacheDir();
  const first = createRuntimeClient({ deliveryUrl: p.deliveryUrl, storage: folderStorage(dir), refreshInterval: 0 });
  t.like(await first.messages('de'), { home: { title: 'Willkommen' } });
  first.close();
  const v2 = await p.publish({ de: { 'home.title': 'Hallo' } });
  // The manifest request is held back until the cached strings have been shown.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const slow: typeof fetch = async (input, init) => {
    await gate;
    return fetch(input, init);
  };
  const client = createRuntimeClient({
    deliveryUrl: p.deliveryUrl,
    storage: folderStorage(dir),
    refreshInterval: 0,
    fetch: slow,
  });
  const version = new Promise<string>((resolve) => client.on('version', resolve));
  t.like(await client.messages('de'), { home: { title: 'Willkommen' } }, 'the cached version, at once');
  t.is(client.versionId, p.versionId);
  release();
  t.is(await version, v2);
  t.like(await client.messages('de'), { home: { title: 'Hallo' } });
  client.close();
  // A refresh() before the first strings: they are the new version's.
  const v3 = await p.publish({ de: { 'home.title': 'Grüß Gott' } });
  const early = createRuntimeClient({ deliveryUrl: p.deliveryUrl, storage: folderStorage(dir), refreshInterval: 0 });
  t.true(await early.refresh());
  t.is(early.versionId, v3);
  t.like(await early.messages('de'), { home: { title: 'Grüß Gott' } });
  early.close();
});

test('starts from the cache with the delivery origin stopped, and from bundled strings with no cache', async (t) => {
  // A service of its own, stopped half-way.
  const own = await startTestService();
  const dir = cacheDir();
  let p;
  try {
    p = await stringsProject(own);
    const warm = await i18nextOver({ deliveryUrl: p.deliveryUrl, storage: folderStorage(dir) }, 'pt-BR');
    t.is(warm.i18n.t('home.title'), 'Bem-vindo');
    warm.client.close();
  } finally {
    await own.stop();
  }
  const net = recordingFetch();
  const { client, i18n } = await i18nextOver(
    { deliveryUrl: p.deliveryUrl, storage: folderStorage(dir), fetch: net.fetch },
    'pt-BR',
  );
  t.is(i18n.t('home.title'), 'Bem-vindo');
  t.is(client.versionId, p.versionId);
  t.false(await client.refresh(), 'offline: no new version, nothing thrown');
  t.true(net.seen.length > 0, 'the manifest was asked for');
  t.true(
    net.seen.every((r) => r.endsWith(' 0') || r.endsWith(' 0 conditional')),
    net.seen.join('\n'),
  );
  client.close();
  // A first start offline: the strings shipped with the app.
  const bundled = { en: { home: { title: 'Welcome (bundled)' } }, pt: { home: { title: 'Bem-vindo (embutido)' } } };
  const cold = await i18nextOver({ deliveryUrl: p.deliveryUrl, storage: folderStorage(cacheDir()), bundled }, 'pt-BR');
  t.is(cold.i18n.t('home.title'), 'Bem-vindo (embutido)');
  t.is(cold.i18n.getFixedT('de')('home.title'), 'Welcome (bundled)', 'not bundled: the first (base) language');
  t.is(cold.client.versionId, undefined);
  cold.client.close();
  // Nothing cached, nothing bundled: empty resources (i18next shows keys), never an error.
  const bare = createRuntimeClient({ deliveryUrl: p.deliveryUrl, storage: folderStorage(cacheDir()) });
  t.deepEqual(await bare.messages('de'), {});
  bare.close();
});

test('locales fall back along the BCP 47 chain, case-insensitively, with an explicit map first', async (t) => {
  const p = await stringsProject(svc);
  const client = createRuntimeClient({
    deliveryUrl: p.deliveryUrl,
    storage: folderStorage(cacheDir()),
    refreshInterval: 0,
    map: { 'zh-TW': 'zh-Hant', 'ZH-hk': 'zh-hant' },
  });
  await client.messages('en');
  const cases: Array<[string, string]> = [
    ['pt-BR', 'pt'],
    ['pt_br', 'pt'],
    ['PT', 'pt'],
    ['zh-Hant-TW', 'zh-Hant'],
    ['zh-hant-tw', 'zh-Hant'],
    ['zh-TW', 'zh-Hant'],
    ['zh-HK', 'zh-Hant'],
    ['zh', 'en'],
    ['zh-Hans-CN', 'en'],
    ['de-AT-u-ca-gregory', 'de'],
    ['fr-CA', 'en'],
    ['dev', 'en'],
  ];
  for (const [locale, lang] of cases) t.is(client.resolve(locale), lang, locale);
  t.like(await client.messages('pt-BR'), { home: { title: 'Bem-vindo' } });
  t.like(await client.messages('zh-Hant-TW'), { home: { title: '歡迎' } });
  t.like(await client.messages('fr-FR'), { home: { title: 'Welcome' } });
  client.close();
  // i18next asks for pt-BR, then pt, then the fallback: each is shown in its nearest project language.
  const { client: c2, i18n } = await i18nextOver(
    { deliveryUrl: p.deliveryUrl, storage: folderStorage(cacheDir()) },
    'pt-BR',
  );
  t.is(i18n.t('cart.empty'), VALUES.pt['cart.empty']);
  await i18n.changeLanguage('zh-Hant-TW');
  t.is(i18n.t('common.ok'), '確定');
  c2.close();
});

test('a pinned version never changes at run time and reads no manifest', async (t) => {
  const p = await stringsProject(svc);
  const pinned = (await (await fetch(`${p.deliveryUrl}/manifest`)).json()) as Manifest;
  await p.publish({ de: { 'home.title': 'Neu' } });
  const net = recordingFetch();
  const client = createRuntimeClient({
    deliveryUrl: p.deliveryUrl,
    storage: folderStorage(cacheDir()),
    pin: pinned,
    fetch: net.fetch,
  });
  t.like(await client.messages('de'), { home: { title: 'Willkommen' } });
  t.false(await client.refresh());
  t.is(client.versionId, p.versionId);
  t.deepEqual(
    net.seen.map((r) => r.replace(/^GET .*\/bundles\/([^/]+)\/(\w+)\..*$/, '$1 $2')),
    [`${p.versionId} de`],
  );
  client.close();
});

test('localStorage is the default cache where there is one; a storage that refuses stores nothing and throws nothing', async (t) => {
  const p = await stringsProject(svc);
  const items = new Map<string, string>();
  const area = {
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
  };
  // Read once, when the client is made: as in a browser.
  (globalThis as { localStorage?: unknown }).localStorage = area;
  const client = createRuntimeClient({ deliveryUrl: p.deliveryUrl, refreshInterval: 0 });
  delete (globalThis as { localStorage?: unknown }).localStorage;
  t.like(await client.messages('de'), { home: { title: 'Willkommen' } });
  t.deepEqual(
    [...items.keys()].map((k) => k.slice(`glossa:${p.deliveryUrl}:`.length).replace(/[0-9a-f]{16}$/, 'hash')).sort(),
    ['de:hash', 'manifest'],
  );
  await p.publish({ de: { 'home.title': 'Servus' } });
  t.true(await client.refresh());
  t.deepEqual([...items.keys()].filter((k) => k.includes(':de:')).length, 1, 'the old version of de was removed');
  client.close();
  // A full quota, a storage the browser refuses: everything from the network, nothing thrown.
  const refusing = {
    get: () => Promise.reject(new Error('SecurityError')),
    set: () => {
      throw new Error('QuotaExceededError');
    },
    delete: () => {
      throw new Error('SecurityError');
    },
  };
  const c2 = createRuntimeClient({ deliveryUrl: p.deliveryUrl, storage: refusing, refreshInterval: 0 });
  t.like(await c2.messages('de'), { home: { title: 'Servus' } });
  c2.close();
  // A damaged entry is read as none.
  const damaged = new Map<string, string>();
  const c3 = createRuntimeClient({
    deliveryUrl: p.deliveryUrl,
    refreshInterval: 0,
    storage: webStorage({
      getItem: (k) => damaged.get(k) ?? (k.endsWith(':manifest') ? '{"m":{"versionId":1}}' : '{"trunc'),
      setItem: (k, v) => void damaged.set(k, v),
      removeItem: () => undefined,
    }),
  });
  t.like(await c3.messages('de'), { home: { title: 'Servus' } });
  c3.close();
});

test('the refresh interval revalidates in the background', async (t) => {
  const p = await stringsProject(svc);
  const net = recordingFetch();
  const client = createRuntimeClient({
    deliveryUrl: p.deliveryUrl,
    storage: memoryStorage(),
    refreshInterval: 50,
    fetch: net.fetch,
  });
  await client.messages('de');
  const v2 = await p.publish({ de: { 'home.title': 'Moin' } });
  t.is(await new Promise<string>((resolve) => client.on('version', resolve)), v2);
  t.like(await client.messages('de'), { home: { title: 'Moin' } });
  t.true(net.seen.filter((r) => r.endsWith('/manifest 304 conditional')).length >= 1, net.seen.join('\n'));
  client.close();
});
