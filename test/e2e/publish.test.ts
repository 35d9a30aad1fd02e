// POST /publish, restore, version file pulls and the delivery origin (spec: `publishVersion`, `restoreVersion`, the delivery routes, `strings.published`).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import test from 'ava';
import i18next from 'i18next';
import HttpBackend from 'i18next-http-backend';
import type { components } from '../../generated/openapi.js';
import type { operations as internal } from '../../generated/internal.js';
import { createClient, type TranslateUnit } from '../../packages/client/src/index.js';
import {
  createTestKey,
  createTestProject,
  specCheck,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { errorOf, hostile, json, type Schemas } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const today = () => new Date().toISOString().slice(0, 10).replace(/-/g, '.');
const push = (p: TestProject, units: TranslateUnit[]) =>
  p.client.POST('/projects/{projectId}/translate', { params: { path: { projectId: p.projectId } }, body: { units } });
const publish = (p: TestProject, body?: components['schemas']['PublishRequest']) =>
  p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
    ...(body === undefined ? {} : { body }),
  });
const restore = (p: TestProject, versionId: string) =>
  p.client.POST('/projects/{projectId}/versions/{versionId}/restore', {
    params: { path: { projectId: p.projectId, versionId } },
  });
const pull = (p: TestProject, query: Record<string, string>) =>
  fetch(`${svc.baseUrl}/projects/${p.projectId}/translations?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${p.apiKey}` },
  });
const runDue = () => svc.admin.POST('/jobs/run-due', { body: {} });
const setCell = (
  p: TestProject,
  key: string,
  lang: string,
  body: internal['internalPutTranslation']['requestBody']['content']['application/json'],
) =>
  svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key, lang } },
    body,
  });
const delivery = () => createClient({ baseUrl: svc.deliveryUrl, middleware: [specCheck()] });

async function translated(opts: Parameters<typeof createTestProject>[1] = {}) {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }], ...opts });
  await push(p, [{ source: 'Hello, {name}!' }, { source: 'Save' }]);
  await runDue();
  return p;
}

test.serial('publish mints YYYY.MM.DD.N versions and records strings.published in the same transaction', async (t) => {
  const p = await translated();
  const first = await publish(p, { label: 'first' });
  t.is(first.response.status, 201);
  const v1 = first.data!;
  t.is(v1.versionId, `${today()}.1`);
  t.like(v1, {
    label: 'first',
    keyCount: 2,
    languages: [
      { code: 'en', isBase: true },
      { code: 'de', isBase: false },
    ],
    icuRejected: [],
    icuRejectedTotal: 0,
  });
  const second = (await publish(p)).data!;
  t.is(second.versionId, `${today()}.2`);
  t.is(second.label, null);
  const events = (
    await svc.admin.GET('/projects/{projectId}/events', { params: { path: { projectId: p.projectId } } })
  ).data!.events.filter((e) => e.type === 'strings.published');
  t.is(events.length, 2);
  const body = events[1].payload as components['schemas']['StringsPublishedEvent']; // what a strings.published event records
  t.like(body, {
    type: 'strings.published',
    schemaVersion: 1,
    data: {
      versionId: v1.versionId,
      label: 'first',
      keyCount: 2,
      languages: [
        { code: 'en', isBase: true },
        { code: 'de', isBase: false },
      ],
    },
  });
  t.is(body.id, events[1].id);
  t.regex(body.createdAt, /\.\d{3}Z$/);
  t.deepEqual(Object.keys(body.project).sort(), ['handle', 'id', 'slug']);
  const meta = (await p.client.GET('/projects/{projectId}/meta', { params: { path: { projectId: p.projectId } } }))
    .data!;
  t.is(meta.currentVersion, second.versionId);
});

test.serial('flags are typed: strings, nulls and unknown formats are 400 before anything is minted', async (t) => {
  const p = await translated();
  for (const body of [
    { approvedOnly: 'true' },
    { require_complete: null },
    { require_complete: 'yes' },
    { skipIfIdentical: 'true' },
    { requiredOutputFormat: null },
    { requiredOutputFormat: 3 },
    { incompleteMode: 'fill' },
    { label: 5 },
  ]) {
    const r = await publish(p, hostile(body)); // deliberately mistyped flags
    t.is(r.response.status, 400, JSON.stringify(body));
  }
  const bad = await fetch(`${svc.baseUrl}/projects/${p.projectId}/publish`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    body: '[1]',
  });
  t.is(bad.status, 400);
  t.is(
    await svc.service.app
      .db('versions')
      .where({ project_id: p.projectId })
      .count({ n: '*' })
      .then((r) => Number(r[0].n)),
    0,
  );
  const nulled = await publish(p, { skipIfIdentical: null });
  t.is(nulled.response.status, 201, 'null skipIfIdentical uses the default');
});

test.serial('requiredOutputFormat must be configured: 409 output_format_conflict', async (t) => {
  const p = await translated();
  const r = await publish(p, { requiredOutputFormat: 'po' });
  t.is(r.response.status, 409);
  t.is(r.error?.error, 'output_format_conflict');
  await p.client.POST('/projects/{projectId}/output-formats', {
    params: { path: { projectId: p.projectId } },
    body: { format: 'po' },
  });
  t.is((await publish(p, { requiredOutputFormat: 'po' })).response.status, 201);
});

test.serial(
  'incomplete cells: source fallback by default for SDK projects, skip for TMS projects, and require_complete refuses',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    await push(p, [{ source: 'Untranslated' }]);
    const refused = await publish(p, { require_complete: true });
    t.is(refused.response.status, 409);
    t.like(refused.error, { error: 'fill_incomplete', pending: 1, exhausted: 0, refused: { icu: 0, markup: 0 } });
    const v = (await publish(p)).data!;
    const de = await pull(p, { version: v.versionId, format: 'json', lang: 'de' });
    t.deepEqual(await de.json(), { untranslated: 'Untranslated' });
    const skip = (await publish(p, { incompleteMode: 'skip' })).data!;
    t.deepEqual(await (await pull(p, { version: skip.versionId, format: 'json', lang: 'de' })).json(), {});
    const tms = await createTestProject(svc, { languages: [{ code: 'de' }], mode: 'a' });
    await push(tms, [{ source: 'Untranslated' }]);
    const tv = (await publish(tms)).data!;
    t.deepEqual(await (await pull(tms, { version: tv.versionId, format: 'json', lang: 'de' })).json(), {});
  },
);

test.serial('approvedOnly and requireApproval publish approved cells only', async (t) => {
  const p = await translated();
  await setCell(p, 'save', 'de', { status: 'approved' });
  const v = (await publish(p, { approvedOnly: true, incompleteMode: 'skip' })).data!;
  t.deepEqual(
    Object.keys(
      await json<Schemas['RenderedJsonFile']>(await pull(p, { version: v.versionId, format: 'json', lang: 'de' })),
    ),
    ['save'],
  );
  await svc.admin.PATCH('/workspaces/{workspaceId}', {
    params: { path: { workspaceId: p.workspaceId } },
    body: { requireApproval: true },
  });
  const w = (await publish(p, { incompleteMode: 'skip' })).data!;
  t.deepEqual(
    Object.keys(
      await json<Schemas['RenderedJsonFile']>(await pull(p, { version: w.versionId, format: 'json', lang: 'de' })),
    ),
    ['save'],
  );
});

test.serial('gates leave out cells whose placeholders or markup differ from the source, and list them', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await push(p, [{ source: 'Hi {name}' }, { source: 'Click <b>here</b>' }, { source: 'Fine' }]);
  await runDue();
  await setCell(p, 'hi_name', 'de', { value: 'Hallo {nom}' });
  await setCell(p, 'click_b_here_b', 'de', { value: 'Hier klicken' });
  const v = (await publish(p, { incompleteMode: 'skip' })).data!;
  t.like(v, {
    icuRejected: ['hi_name [de]'],
    icuRejectedTotal: 1,
    markupRejected: ['click_b_here_b [de]'],
    markupRejectedTotal: 1,
  });
  t.deepEqual(
    Object.keys(
      await json<Schemas['RenderedJsonFile']>(await pull(p, { version: v.versionId, format: 'json', lang: 'de' })),
    ),
    ['fine'],
  );
  const strict = await publish(p, { require_complete: true });
  t.like(strict.error, { error: 'fill_incomplete', refused: { icu: 1, markup: 1 } });
});

test.serial('disabled keys are excluded; skipIfIdentical answers 200 unchanged with the current version', async (t) => {
  const p = await translated();
  const v1 = (await publish(p)).data!;
  const same = await publish(p, { skipIfIdentical: true });
  t.is(same.response.status, 200);
  t.like(same.data, { versionId: v1.versionId, unchanged: true });
  await svc.admin.PATCH('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: 'save' } },
    body: { enabled: false },
  });
  const v2 = await publish(p, { skipIfIdentical: true });
  t.is(v2.response.status, 201);
  t.is(v2.data?.keyCount, 1);
});

test.serial('restore copies an old snapshot into a new version; previous names the one before current', async (t) => {
  const p = await translated();
  const v1 = (await publish(p)).data!;
  await push(p, [{ source: 'Added later' }]);
  await runDue();
  const v2 = (await publish(p)).data!;
  t.is(v2.keyCount, 3);
  const r = await restore(p, 'previous');
  t.is(r.response.status, 201);
  const v3 = r.data!;
  t.like(v3, { restoredFrom: v1.versionId, keyCount: 2 });
  t.deepEqual(
    await (await pull(p, { version: 'current', format: 'json', lang: 'de' })).json(),
    await (await pull(p, { version: v1.versionId, format: 'json', lang: 'de' })).json(),
  );
  t.is((await restore(p, '2001.01.01.1')).response.status, 404);
  const byId = (await restore(p, v2.versionId)).data!;
  t.like(byId, { restoredFrom: v2.versionId, keyCount: 3 });
  const versions = await svc.service.app.db('versions').where({ project_id: p.projectId }).count({ n: '*' });
  t.is(Number(versions[0].n), 4, 'history is never rewritten');
});

test.serial('restore in a requireApproval workspace refuses versions with unapproved cells', async (t) => {
  const p = await translated();
  const v1 = (await publish(p)).data!;
  await svc.admin.PATCH('/workspaces/{workspaceId}', {
    params: { path: { workspaceId: p.workspaceId } },
    body: { requireApproval: true },
  });
  const r = await restore(p, v1.versionId);
  t.is(r.response.status, 409);
  t.like(r.error, { error: 'version_not_approved', unapproved: ['hello_name [de]', 'save [de]'], unapproved_total: 2 });
});

test.serial(
  'a version keeps its first 50 unapproved cells and their real total, and a restore carries them on',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
    await push(
      p,
      Array.from({ length: 30 }, (_, i) => ({ source: `Item ${i}`, key: `item_${String(i).padStart(2, '0')}` })),
    );
    await runDue();
    const v1 = (await publish(p)).data!;
    // Restored outside requireApproval: the new version is as unapproved as the one it copies.
    const v2 = (await restore(p, v1.versionId)).data!;
    t.is(v2.restoredFrom, v1.versionId);
    await svc.admin.PATCH('/workspaces/{workspaceId}', {
      params: { path: { workspaceId: p.workspaceId } },
      body: { requireApproval: true },
    });
    const expected = Array.from({ length: 25 }, (_, i) => [
      `item_${String(i).padStart(2, '0')} [de]`,
      `item_${String(i).padStart(2, '0')} [fr]`,
    ]).flat();
    for (const v of [v1, v2]) {
      const r = await restore(p, v.versionId);
      t.is(r.response.status, 409);
      t.deepEqual(errorOf(r)?.unapproved, expected);
      t.is(errorOf(r)?.unapproved_total, 60);
    }
  },
);

test.serial('publish and restore share 30 per day per project', async (t) => {
  const p = await translated();
  const day = new Date().toISOString().slice(0, 10);
  await svc.service.app.db('daily_counts').insert({ project_id: p.projectId, kind: 'publish', day, n: 29 });
  const last = await publish(p);
  t.is(last.response.status, 201);
  const over = await publish(p);
  t.is(over.response.status, 429);
  t.is((await restore(p, last.data!.versionId)).response.status, 429);
});

test.serial('export collisions in a lossy configured format are refused with the colliding groups', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await push(p, [
    { source: 'A', key: 'menu.open' },
    { source: 'B', key: 'menu_open' },
  ]);
  await p.client.POST('/projects/{projectId}/output-formats', {
    params: { path: { projectId: p.projectId } },
    body: { format: 'android_xml' },
  });
  const r = await publish(p);
  t.is(r.response.status, 409);
  t.like(r.error, {
    error: 'export_collision',
    groups: [{ format: 'android_xml', name: 'menu_open', keys: ['menu.open', 'menu_open'] }],
  });
});

test.serial('version pulls render every format with its content type', async (t) => {
  const p = await translated({ languages: [{ code: 'de' }, { code: 'pl' }] });
  const v = (await publish(p)).data!;
  const types: Record<string, RegExp> = {
    json: /^application\/json/,
    nested_json: /^application\/json/,
    angular_json: /^application\/json/,
    arb: /^application\/json/,
    xcstrings: /^application\/json/,
    ios_strings: /^text\/plain/,
    android_xml: /^application\/xml/,
    po: /^text\/x-gettext-translation/,
  };
  for (const [format, type] of Object.entries(types)) {
    const res = await pull(p, { version: v.versionId, format, lang: 'de' });
    t.is(res.status, 200, format);
    t.regex(res.headers.get('content-type')!, type, format);
    const text = await res.text();
    t.true(text.includes('{name}') || text.includes('%1$s') || text.includes('name'), format);
  }
  const all = await pull(p, { version: v.versionId, format: 'json' });
  t.is(all.status, 200, 'without lang: every language as a zip (bulk export, test/e2e/consumers/cli-export.test.ts)');
  t.regex(all.headers.get('content-type')!, /^application\/zip/);
  t.is((await pull(p, { version: v.versionId, format: 'json', lang: 'it' })).status, 404);
  t.is((await pull(p, { version: '2001.01.01.1', format: 'json', lang: 'de' })).status, 404);
  t.is((await pull(p, { version: v.versionId, format: 'yaml', lang: 'de' })).status, 400);
  const reader = await createTestKey(svc, p.projectId, ['read']);
  t.is(
    (
      await fetch(`${svc.baseUrl}/projects/${p.projectId}/translations?version=current&format=xcstrings`, {
        headers: { authorization: `Bearer ${reader}` },
      })
    ).status,
    200,
  );
});

test.serial(
  'the delivery origin serves the manifest with ETag and 304, and immutable bundles that i18next loads',
  async (t) => {
    const p = await translated();
    await p.client.POST('/projects/{projectId}/output-formats', {
      params: { path: { projectId: p.projectId } },
      body: { format: 'android_xml' },
    });
    const v = (await publish(p)).data!;
    const manifest = await delivery().GET('/projects/{projectId}/manifest', {
      params: { path: { projectId: p.projectId } },
    });
    t.is(manifest.response.status, 200);
    const m = manifest.data!;
    t.like(m, { projectId: p.projectId, versionId: v.versionId, baseLang: 'en' });
    t.truthy(m.files.android_xml.de);
    const etag = manifest.response.headers.get('etag')!;
    const again = await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`, {
      headers: { 'if-none-match': etag },
    });
    t.is(again.status, 304);
    const bundleUrl = new URL(m.bundles.de.url, `${svc.deliveryUrl}/projects/${p.projectId}/manifest`).toString();
    const bundle = await fetch(bundleUrl);
    t.is(bundle.status, 200);
    t.is(bundle.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const instance = i18next.createInstance();
    await instance.use(HttpBackend).init({
      lng: 'de',
      fallbackLng: 'en',
      ns: ['translation'],
      backend: {
        loadPath: (lngs: string[]) =>
          new URL(m.bundles[lngs[0]].url, `${svc.deliveryUrl}/projects/${p.projectId}/manifest`).toString(),
      },
    });
    const hello = instance.t('hello_name', { name: 'Ada' });
    t.true(hello.includes('Ada'), hello);
    t.not(hello, 'hello_name');
    t.is(
      (await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/bundles/${v.versionId}/..%2F..%2Fmanifest`)).status,
      404,
    );
  },
);

test.serial(
  'an object store failure during publish mints nothing and leaves the previous manifest in place',
  async (t) => {
    const p = await translated();
    const v1 = (await publish(p)).data!;
    const root = svc.service.app.config.objectStore.replace('file://', '');
    const bundles = path.join(root, 'v1', 'projects', p.projectId, 'bundles');
    rmSync(bundles, { recursive: true, force: true });
    mkdirSync(path.dirname(bundles), { recursive: true });
    writeFileSync(bundles, 'not a folder'); // every bundle write now fails, even as root
    const r = await publish(p);
    t.true(r.response.status >= 500);
    rmSync(bundles, { force: true });
    const versions = await svc.service.app.db('versions').where({ project_id: p.projectId }).select('id');
    t.deepEqual(
      versions.map((x) => x.id),
      [v1.versionId],
    );
    const m = (await delivery().GET('/projects/{projectId}/manifest', { params: { path: { projectId: p.projectId } } }))
      .data!;
    t.is(m.versionId, v1.versionId);
    const meta = (await p.client.GET('/projects/{projectId}/meta', { params: { path: { projectId: p.projectId } } }))
      .data!;
    t.is(meta.currentVersion, v1.versionId);
  },
);

test.serial('the S3 path: publishing to an S3 bucket (s3rver on loopback) and serving from it', async (t) => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const { withS3Service } = await import('../helpers/s3.js');
  await withS3Service('tenant-a', async (s3svc, s3) => {
    const p = await createTestProject(s3svc, { languages: [{ code: 'de' }] });
    await p.client.POST('/projects/{projectId}/translate', {
      params: { path: { projectId: p.projectId } },
      body: { units: [{ source: 'Stored in S3' }] },
    });
    await s3svc.admin.POST('/jobs/run-due', { body: {} });
    const v = (await p.client.POST('/projects/{projectId}/publish', { params: { path: { projectId: p.projectId } } }))
      .data!;
    const m = await json<Schemas['Manifest']>(await fetch(`${s3svc.deliveryUrl}/projects/${p.projectId}/manifest`));
    t.is(m.versionId, v.versionId);
    const bundle = await fetch(new URL(m.bundles.de.url, `${s3svc.deliveryUrl}/projects/${p.projectId}/manifest`));
    t.is(bundle.status, 200);
    t.truthy((await json<Schemas['I18nextBundle']>(bundle)).stored_in_s3);
    const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
    const client = s3.client();
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'tenant-a/' }));
    client.destroy();
    t.true((listed.Contents ?? []).some((o) => o.Key === `tenant-a/v1/projects/${p.projectId}/manifest`));
  });
});

test.serial('on a custom domain the delivery origin serves the project without its prefix', async (t) => {
  const p = await translated();
  const v = (await publish(p)).data!;
  await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { deliveryHost: 'cdn.glossa.test' },
  });
  // fetch() may not set Host, so these requests go through node:http as a CDN would send them.
  const get = (url: string, host: string) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      http
        .get(url, { headers: { host } }, (res) => {
          let body = '';
          res.on('data', (d) => {
            body += d;
          });
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        })
        .on('error', reject);
    });
  const m = await get(`${svc.deliveryUrl}/manifest`, 'cdn.glossa.test');
  t.is(m.status, 200);
  const manifest = JSON.parse(m.body) as Schemas['Manifest'];
  t.is(manifest.versionId, v.versionId);
  const bundle = await get(
    new URL(manifest.bundles.de.url, `${svc.deliveryUrl}/manifest`).toString(),
    'cdn.glossa.test:443',
  );
  t.is(bundle.status, 200);
  t.is(bundle.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.is((await get(`${svc.deliveryUrl}/manifest`, 'unknown.example')).status, 404);
});

test.serial(
  'Android and .strings files carry printf specifiers numbered by the source, whatever the word order',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    await push(p, [
      { source: '{user} shared {file}', key: 'share' },
      { forms: { one: '# file', other: '# files' }, key: 'files' },
    ]);
    await setCell(p, 'share', 'de', { value: '{file} wurde von {user} geteilt' });
    await setCell(p, 'files', 'de', { value: '{count, plural, one {# Datei} other {# Dateien}}' });
    const v = (await publish(p)).data!;
    const android = await (await pull(p, { version: v.versionId, format: 'android_xml', lang: 'de' })).text();
    t.true(android.includes('<string name="share">%2$s wurde von %1$s geteilt</string>'), android);
    t.true(android.includes('<item quantity="one">%1$d Datei</item>'), android);
    const strings = await (await pull(p, { version: v.versionId, format: 'ios_strings', lang: 'en' })).text();
    t.true(strings.includes('"share" = "%1$@ shared %2$@";'), strings);
  },
);
