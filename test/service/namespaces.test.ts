// Namespaces (spec: `Namespace`, SyncRequest.namespace, TranslateRequest.namespace; docs/decisions/0016-namespaces.md):
// a sync naming its namespace is the whole catalog of that namespace only, a translate's units live in theirs, and
// the first sync of a named namespace takes in the default namespace's keys of the same names without paying again.
import test from 'ava';
import { sync as syncCall, translate, type SyncRequest } from '../../packages/client/src/index.js';
import {
  createTestProject,
  publishSkipping,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { errorOf, hostile } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const sync = (p: TestProject, body: SyncRequest) => syncCall(p.client, p.projectId, body);
const jsonIn = (obj: unknown, namespace?: string, fileName = 'en.json'): SyncRequest => ({
  contentBase64: b64(JSON.stringify(obj)),
  fileName,
  ...(namespace === undefined ? {} : { namespace }),
});
const runDue = (p: { projectId: string }) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
const db = () => svc.service.app.db;
const keyRows = (p: TestProject) =>
  db()('keys')
    .where({ project_id: p.projectId })
    .orderBy(['namespace', 'name'])
    .select('id', 'namespace', 'name', 'enabled', 'token');
const cells = (p: TestProject) =>
  db()('translations')
    .where({ project_id: p.projectId })
    .orderBy(['key_id', 'lang'])
    .select('key_id', 'lang', 'value', 'status', 'origin');
const workspace = async (p: TestProject) => (await db()('workspaces').where({ id: p.workspaceId }).first())!;
const held = async (p: TestProject) => Number((await workspace(p)).held_mc);
const balance = async (p: TestProject) => Number((await workspace(p)).balance_mc);

/** Runs the project's due jobs until its fills are done and settled (a loaded database can leave one for the next). */
async function settle(p: TestProject) {
  await runDue(p);
  for (let i = 0; i < 10 && (await held(p)) > 0; i++) await runDue(p);
}

const APP = { title: 'My app', nav: { home: 'Home', settings: 'Settings' } };
const COMMON = { title: 'Common', save: 'Save', cancel: 'Cancel' };

test('two files in two namespaces never touch each other, and ten runs of both change nothing', async (t) => {
  const p = await createTestProject(svc);
  const a = await sync(p, jsonIn(APP, 'app', 'app.json'));
  t.like(a.data, { created: 3, disabledOrphans: 0, adopted: 0 });
  const c = await sync(p, jsonIn(COMMON, 'common', 'common.json'));
  // `title` is a key of both: one name, two namespaces.
  t.like(c.data, { created: 3, disabledOrphans: 0, adopted: 0 });
  // The two fills done and settled (a loaded database can leave one for the next run-due), so what follows starts
  // from nothing held.
  await settle(p);
  t.is(await held(p), 0);
  const keys = await keyRows(p);
  t.deepEqual(
    keys.map((k) => `${k.namespace}:${k.name}`),
    ['app:nav.home', 'app:nav.settings', 'app:title', 'common:cancel', 'common:save', 'common:title'],
  );
  t.true(keys.every((k) => Boolean(k.enabled)));
  const before = JSON.stringify([await keyRows(p), await cells(p), await balance(p)]);
  for (let run = 0; run < 10; run++) {
    for (const [obj, ns] of [
      [APP, 'app'],
      [COMMON, 'common'],
    ] as const) {
      const r = await sync(p, jsonIn(obj, ns, `${ns}.json`));
      t.like(r.data, { created: 0, updatedSources: 0, matchedSources: 3, disabledOrphans: 0, reenabled: 0 });
      t.is(r.data?.estimatedCredits, 0);
      t.is(r.data?.trackingToken, null);
    }
  }
  t.is(await held(p), 0);
  t.is(JSON.stringify([await keyRows(p), await cells(p), await balance(p)]), before);
});

test('a key gone from one namespace file is disabled there only; the default namespace is another catalog', async (t) => {
  const p = await createTestProject(svc);
  await sync(p, jsonIn({ hello: 'Hello' }));
  await sync(p, jsonIn(APP, 'app'));
  await sync(p, jsonIn(COMMON, 'common'));
  const r = await sync(p, jsonIn({ title: 'My app', nav: { home: 'Home' } }, 'app'));
  t.like(r.data, { disabledOrphans: 1, disabledKeys: ['nav.settings'] });
  // The default namespace's sync sees only its own keys, as before namespaces.
  const d = await sync(p, jsonIn({ hello: 'Hello' }));
  t.like(d.data, { created: 0, matchedSources: 1, disabledOrphans: 0 });
  t.false('adopted' in d.data!);
  const keys = await keyRows(p);
  t.deepEqual(
    keys.filter((k) => !k.enabled).map((k) => `${k.namespace}:${k.name}`),
    ['app:nav.settings'],
  );
});

test('a project with one default-namespace file that splits it into two namespaces pays nothing', async (t) => {
  const p = await createTestProject(svc);
  const whole = { ...APP, save: 'Save', cancel: 'Cancel' };
  const first = await sync(p, jsonIn(whole));
  t.true(first.data!.estimatedCredits > 0);
  await runDue(p);
  const valuesBefore = (await cells(p)).map((c) => `${c.key_id}|${c.lang}|${c.value}|${c.status}|${c.origin}`);
  t.is(valuesBefore.length, 10);
  const paid = await balance(p);
  const a = await sync(p, jsonIn(APP, 'app', 'app.json'));
  t.like(a.data, {
    created: 0,
    adopted: 3,
    matchedSources: 3,
    updatedSources: 0,
    estimatedCredits: 0,
    disabledOrphans: 0,
  });
  const c = await sync(p, jsonIn({ title: 'Common', save: 'Save', cancel: 'Cancel' }, 'common', 'common.json'));
  // `title` is new in `common` (the default namespace's `title` went to `app`); save and cancel move with their values.
  t.like(c.data, { created: 1, adopted: 2, matchedSources: 2 });
  await runDue(p);
  // The same key rows (ids) with the same values: only `common:title` was translated.
  const after = (await cells(p)).map((c) => `${c.key_id}|${c.lang}|${c.value}|${c.status}|${c.origin}`);
  t.deepEqual(after.slice(0, 10), valuesBefore);
  t.is(after.length, 12);
  const keys = await keyRows(p);
  t.deepEqual(
    keys.map((k) => `${k.namespace}:${k.name}`),
    ['app:nav.home', 'app:nav.settings', 'app:title', 'common:cancel', 'common:save', 'common:title'],
  );
  const titleCost = paid - (await balance(p));
  t.true(titleCost > 0);
  // A second run of both: nothing adopted, created, disabled or charged.
  for (const [obj, ns] of [
    [APP, 'app'],
    [{ title: 'Common', save: 'Save', cancel: 'Cancel' }, 'common'],
  ] as const) {
    const r = await sync(p, jsonIn(obj, ns));
    t.like(r.data, { created: 0, adopted: 0, updatedSources: 0, disabledOrphans: 0, estimatedCredits: 0 });
  }
});

test('keys pushed through /translate are adopted by the first sync of an Android file in a namespace', async (t) => {
  const p = await createTestProject(svc);
  const pushed = await translate(p.client, p.projectId, {
    units: [
      { key: 'app_name', source: 'Notes' },
      { key: 'welcomeMessage', source: 'Welcome!' },
    ],
  });
  t.is(pushed.response.status, 200);
  await runDue(p);
  const paid = await balance(p);
  const xml = `<?xml version="1.0" encoding="utf-8"?>
<resources>
  <string name="app_name">Notes</string>
  <string name="welcomeMessage">Welcome!</string>
  <string name="added">Added</string>
</resources>
`;
  const plain = await sync(p, { contentBase64: b64(xml), fileName: 'strings.xml' });
  t.is(plain.response.status, 400);
  t.is(errorOf(plain)?.error, 'format_not_syncable');
  const r = await sync(p, { contentBase64: b64(xml), fileName: 'strings.xml', namespace: 'strings' });
  t.is(r.response.status, 200);
  t.like(r.data, { created: 1, adopted: 2, matchedSources: 2, updatedSources: 0 });
  const keys = await keyRows(p);
  t.deepEqual(
    keys.map((k) => `${k.namespace}:${k.name}`),
    ['strings:added', 'strings:app_name', 'strings:welcomeMessage'],
  );
  await runDue(p);
  const again = await sync(p, { contentBase64: b64(xml), fileName: 'strings.xml', namespace: 'strings' });
  t.like(again.data, { created: 0, adopted: 0, matchedSources: 3, estimatedCredits: 0 });
  // Only `added` was paid for after the adoption.
  t.true(paid - (await balance(p)) > 0);
  // A string deleted from the base file is disabled on the next sync: the prune.
  const pruned = await sync(p, {
    contentBase64: b64(xml.replace(/ *<string name="added">Added<\/string>\n/, '')),
    fileName: 'strings.xml',
    namespace: 'strings',
  });
  t.like(pruned.data, { disabledOrphans: 1, disabledKeys: ['added'] });
});

test('translate with a namespace: the same text in two namespaces is two keys, names are free per namespace', async (t) => {
  const p = await createTestProject(svc);
  const one = await translate(p.client, p.projectId, {
    namespace: 'app',
    units: [{ source: 'Save' }, { key: 'ok', source: 'OK' }],
  });
  const two = await translate(p.client, p.projectId, {
    namespace: 'common',
    units: [{ source: 'Save' }, { key: 'ok', source: 'Fine' }],
  });
  const dflt = await translate(p.client, p.projectId, { units: [{ source: 'Save' }] });
  t.deepEqual(
    one.data!.units.map((u) => [u.key, u.outcome]),
    [
      ['save', 'created'],
      ['ok', 'created'],
    ],
  );
  t.deepEqual(
    two.data!.units.map((u) => [u.key, u.outcome]),
    [
      ['save', 'created'],
      ['ok', 'created'],
    ],
  );
  t.deepEqual(
    dflt.data!.units.map((u) => [u.key, u.outcome]),
    [['save', 'created']],
  );
  const again = await translate(p.client, p.projectId, { namespace: 'app', units: [{ source: 'Save' }] });
  t.deepEqual(
    again.data!.units.map((u) => [u.key, u.outcome]),
    [['save', 'matched']],
  );
  // The default namespace's token is the token it always had.
  t.is(
    dflt.data!.units[0].token,
    (await translate(p.client, p.projectId, { units: [{ source: 'Save' }] })).data!.units[0].token,
  );
  t.deepEqual(
    (await keyRows(p)).map((k) => `${k.namespace}:${k.name}`),
    ['', 'app', 'app', 'common', 'common'].map((ns, i) => `${ns}:${['save', 'ok', 'save', 'ok', 'save'][i]}`),
  );
});

test('a namespace that is not one is 400 invalid_argument and writes nothing', async (t) => {
  const p = await createTestProject(svc);
  for (const ns of ['', '.hidden', '-x', 'a/b', 'x'.repeat(65), '__proto__ ']) {
    const r = await sync(p, hostile({ ...jsonIn(APP), namespace: ns }));
    t.is(r.response.status, 400, ns);
    t.is(errorOf(r)?.error, 'invalid_argument', ns);
    const tr = await translate(p.client, p.projectId, hostile({ namespace: ns, units: [{ source: 'Hi' }] }));
    t.is(tr.response.status, 400, ns);
  }
  t.is((await keyRows(p)).length, 0);
});

const pull = (p: TestProject, q: Record<string, string>) =>
  fetch(`${svc.baseUrl}/projects/${p.projectId}/translations?${new URLSearchParams(q)}`, {
    headers: { authorization: `Bearer ${p.apiKey}` },
  });

test('a version renders one file per format, namespace and language; the manifest and pulls name them', async (t) => {
  const p = await createTestProject(svc);
  for (const format of ['json', 'android_xml'] as const)
    await p.client.POST('/projects/{projectId}/output-formats', {
      params: { path: { projectId: p.projectId } },
      body: { format },
    });
  await sync(p, jsonIn({ hello: 'Hello' }));
  await sync(p, jsonIn(APP, 'app', 'app.json'));
  await sync(p, jsonIn(COMMON, 'common', 'common.json'));
  await runDue(p);
  const v = await publishSkipping(p);
  const manifest = (await (await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`)).json()) as {
    bundles: Record<string, { url: string }>;
    files: Record<string, Record<string, { url: string }>>;
    namespaces: Record<
      string,
      { bundles: Record<string, { url: string }>; files: Record<string, Record<string, { url: string }>> }
    >;
  };
  t.deepEqual(Object.keys(manifest.namespaces), ['app', 'common']);
  const get = async (url: string) =>
    (await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/${url}`)).json() as Promise<unknown>;
  t.deepEqual(await get(manifest.bundles.en.url), { hello: 'Hello' });
  t.deepEqual(await get(manifest.namespaces.app.bundles.en.url), APP);
  t.deepEqual(await get(manifest.namespaces.common.bundles.en.url), COMMON);
  t.regex(
    manifest.namespaces.app.files.json.de.url,
    new RegExp(`^bundles/${v.replace(/\./g, '\\.')}/json\\.app\\.de\\.[0-9a-f]{16}\\.json$`),
  );
  const de = (await get(manifest.namespaces.common.bundles.de.url)) as Record<string, string>;
  t.deepEqual(Object.keys(de).sort(), ['cancel', 'save', 'title']);
  // Pulls: the default namespace's file holds its keys alone, each named one its own.
  const pulled = async (q: Record<string, string>) => {
    const r = await pull(p, { version: v, ...q });
    t.is(r.status, 200, JSON.stringify(q));
    return r.text();
  };
  t.deepEqual(Object.keys(JSON.parse(await pulled({ format: 'json', lang: 'de' })) as object), ['hello']);
  t.deepEqual(
    Object.keys(JSON.parse(await pulled({ format: 'json', lang: 'de', namespace: 'app' })) as object).sort(),
    ['nav.home', 'nav.settings', 'title'],
  );
  t.regex(await pulled({ format: 'android_xml', lang: 'de', namespace: 'common' }), /name="cancel"/);
  t.notRegex(await pulled({ format: 'android_xml', lang: 'de', namespace: 'common' }), /name="hello"/);
  // A format the version did not render is rendered from its snapshot, per namespace as well.
  t.deepEqual(JSON.parse(await pulled({ format: 'nested_json', lang: 'en', namespace: 'app' })), APP);
  const missing = await pull(p, { version: v, format: 'json', lang: 'de', namespace: 'nope' });
  t.is(missing.status, 404);
  // The same key name in two namespaces is no export collision.
  t.is(
    (await pull(p, { version: v, format: 'json', namespace: 'common' })).headers.get('content-type'),
    'application/zip',
  );
  // A key read by name reads the request's namespace; the key read back names its namespace.
  const read = await p.client.GET('/projects/{projectId}/translations', {
    params: { path: { projectId: p.projectId }, query: { ref: 'title', namespace: 'common' } },
  });
  t.like(read.data, { key: 'title', namespace: 'common' });
  const dflt = await p.client.GET('/projects/{projectId}/translations', {
    params: { path: { projectId: p.projectId }, query: { ref: 'hello' } },
  });
  t.false('namespace' in (dflt.data as object));
  t.is(
    (
      await p.client.GET('/projects/{projectId}/translations', {
        params: { path: { projectId: p.projectId }, query: { ref: 'title' } },
      })
    ).response.status,
    404,
  );
});

test('a project without named namespaces publishes a manifest without `namespaces`', async (t) => {
  const p = await createTestProject(svc);
  await sync(p, jsonIn({ hello: 'Hello' }));
  await runDue(p);
  await publishSkipping(p);
  const manifest = (await (await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`)).json()) as object;
  t.false('namespaces' in manifest);
});

test("a version diff names a named namespace's keys with their namespace", async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await sync(p, jsonIn({ hello: 'Hello' }));
  await sync(p, jsonIn({ title: 'A' }, 'app'));
  await runDue(p);
  const v1 = await publishSkipping(p);
  await sync(p, jsonIn({ title: 'A', more: 'More' }, 'app'));
  await sync(p, jsonIn({ title: 'C' }, 'common'));
  await runDue(p);
  const v2 = await publishSkipping(p);
  const d = await svc.admin.GET('/projects/{projectId}/versions/diff', {
    params: { path: { projectId: p.projectId }, query: { from: v1, to: v2 } },
  });
  const base = d.data!.languages.find((l) => l.isBase)!;
  t.deepEqual(base.added.map((a) => a.key).sort(), ['app:more', 'common:title']);
});

test('namespaces named like Object.prototype members are data: synced, published, listed and pulled', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  for (const ns of ['__proto__', 'constructor', 'a..b.'])
    t.is((await sync(p, jsonIn({ [`${ns.replace(/_/g, '')}_key`]: 'Text' }, ns))).response.status, 200, ns);
  await runDue(p);
  const v = await publishSkipping(p);
  const manifest = (await (await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`)).json()) as {
    namespaces: Record<string, { bundles: Record<string, { url: string }> }>;
  };
  t.deepEqual(Object.keys(manifest.namespaces), ['__proto__', 'a..b.', 'constructor']);
  // Every object the manifest names is served by the delivery origin, `a..b.`'s too.
  for (const { bundles } of Object.values(manifest.namespaces)) {
    const r = await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/${bundles.de.url}`);
    t.is(r.status, 200, bundles.de.url);
  }
  t.true(Object.hasOwn(manifest.namespaces, '__proto__'));
  for (const [ns, key] of [
    ['__proto__', 'proto_key'],
    ['constructor', 'constructor_key'],
    ['a..b.', 'a..b._key'],
  ]) {
    const r = await pull(p, { version: v, format: 'json', lang: 'en', namespace: ns });
    t.is(r.status, 200, ns);
    t.deepEqual(Object.keys(JSON.parse(await r.text()) as object), [key], ns);
  }
  t.is((await pull(p, { version: v, format: 'json', lang: 'en', namespace: 'toString' })).status, 404);
});

test('an Apple .strings and an ARB base file sync into namespaces and pull back per namespace', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  for (const format of ['ios_strings', 'arb'] as const)
    await p.client.POST('/projects/{projectId}/output-formats', {
      params: { path: { projectId: p.projectId } },
      body: { format },
    });
  const strings = '"greeting" = "Hello";\n"farewell" = "Goodbye";\n';
  const arb = JSON.stringify({ '@@locale': 'en', title: 'Title', '@title': { description: 'The title' } });
  const s = await sync(p, { contentBase64: b64(strings), fileName: 'Localizable.strings', namespace: 'ios' });
  t.like(s.data, { created: 2 });
  const a = await sync(p, { contentBase64: b64(arb), fileName: 'app_en.arb', namespace: 'flutter' });
  t.like(a.data, { created: 1 });
  await settle(p);
  const v = await publishSkipping(p);
  const text = async (q: Record<string, string>) => {
    const r = await pull(p, { version: v, lang: 'de', ...q });
    t.is(r.status, 200, JSON.stringify(q));
    return r.text();
  };
  const ios = await text({ format: 'ios_strings', namespace: 'ios' });
  t.regex(ios, /"greeting" = /);
  t.notRegex(ios, /"title"/);
  t.regex(await text({ format: 'ios_strings', namespace: 'ios', part: 'stringsdict' }), /<plist/);
  const flutter = JSON.parse(await text({ format: 'arb', namespace: 'flutter' })) as Record<string, unknown>;
  t.true('title' in flutter);
  t.false('greeting' in flutter);
  // The default namespace holds none of them.
  t.notRegex(await text({ format: 'ios_strings' }), /greeting|title/);
});
