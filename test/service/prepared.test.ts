// The prepared publish (publish/prepare.ts): computed once the content is quiet, it mints exactly what the live
// path would; every content write makes it stale; any other flag, a lost race or a failing store falls back or
// fails as the live path does; replaced preparations leave nothing behind.
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { defaultParams } from '../../server/domain/publish/build.js';
import { collectParts, openVersion } from '../../server/domain/publish/parts-store.js';
import { buildSnapshot, publishEnv } from '../../server/domain/publish/stream.js';
import { prepareProject, preparedFor, type PreparedSummary } from '../../server/domain/publish/prepare.js';
import { mintVersion, PreparedStale } from '../../server/domain/publish/versions.js';
import { getProject } from '../../server/domain/project/projects.js';
import { contentRev } from '../../server/domain/project/revision.js';
import { migrate, openDb } from '../../server/infra/db.js';
import { migrationSource } from '../../server/infra/migrations/index.js';
import { FolderStore } from '../../server/infra/objects.js';
import type { components } from '../../generated/openapi.js';
import type { TranslateUnit } from '../../packages/client/src/index.js';
import { errorReply, startFakeOpenAI } from '../helpers/fake-openai.js';
import { json, type Schemas } from '../helpers/typed.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  testDatabase,
  type TestProject,
  type TestService,
} from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const db = () => svc.service.app.db;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const push = (p: TestProject, units: TranslateUnit[]) =>
  p.client.POST('/projects/{projectId}/translate', { params: { path: { projectId: p.projectId } }, body: { units } });
const publish = (p: TestProject, body?: components['schemas']['PublishRequest']) =>
  p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
    ...(body === undefined ? {} : { body }),
  });
const syncJson = (p: TestProject, obj: unknown) =>
  p.client.POST('/projects/{projectId}/sync', {
    params: { path: { projectId: p.projectId } },
    body: { contentBase64: b64(JSON.stringify(obj)), fileName: 'en.json' },
  });
/** Jobs due now; sweeps too, but a change younger than PREPARE_DELAY_MS is not prepared yet. */
const runDue = () => svc.admin.POST('/jobs/run-due', { body: {} });
/**
 * Everything due once the content has been quiet for a minute. Twice: a fill in the first round may store its
 * values after the sweep prepared the project; the second round prepares it again.
 */
const quiet = async (on = svc) => {
  for (let i = 0; i < 2; i++)
    await on.admin.POST('/jobs/run-due', { body: { now: new Date(Date.now() + 60_000).toISOString() } });
};
const rev = (p: TestProject) => contentRev(db(), p.projectId);
const preparedRow = (p: TestProject) => db()('prepared_publishes').where({ project_id: p.projectId }).first();
const store = () => svc.service.app.objects as FolderStore;
const versionDir = (p: TestProject, versionId: string) =>
  path.join(store().root, 'v1', 'projects', p.projectId, 'bundles', versionId);
/** A version's objects are hard links to prepared ones: the publish copied them rather than rendering. */
const linked = (p: TestProject, versionId: string) =>
  readdirSync(versionDir(p, versionId)).every((f) => statSync(path.join(versionDir(p, versionId), f)).nlink >= 2);

/** The digest a publish with the default flags would freeze from the content as it is now. */
async function liveDigest(p: TestProject, flags: { mode?: 'skip' | 'source' } = {}) {
  const project = await getProject(db(), p.projectId);
  const params = { ...(await defaultParams(db(), project)), ...flags };
  return (await buildSnapshot(publishEnv(svc.service.app), p.projectId, params)).digest;
}

const addFormat = (p: TestProject, format: 'json' | 'android_xml' | 'po') =>
  p.client.POST('/projects/{projectId}/output-formats', {
    params: { path: { projectId: p.projectId } },
    body: { format },
  });
const pull = (p: TestProject, query: Record<string, string>) =>
  fetch(`${svc.baseUrl}/projects/${p.projectId}/translations?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${p.apiKey}` },
  });

async function project(formats: Array<'json' | 'android_xml'> = ['json', 'android_xml']) {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  for (const f of formats) await addFormat(p, f);
  return p;
}

test.serial(
  'a prepared publish mints the version the live content gives, byte for byte, and only once the content is quiet',
  async (t) => {
    const p = await project();
    await push(p, [
      { source: 'Hello, {name}!' },
      { source: 'Save' },
      { source: 'Read the <b>terms</b>' },
      { forms: { one: '{count} file', other: '{count} files' } },
    ]);
    await runDue();
    t.falsy(await preparedRow(p), 'a change younger than the delay is not prepared');
    // A refused cell, an approved one, an untranslated one (source fallback).
    await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId: p.projectId, key: 'hello_name', lang: 'de' } },
      body: { value: 'Hallo, {nom}!' },
    });
    await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId: p.projectId, key: 'save', lang: 'fr' } },
      body: { status: 'approved' },
    });
    // Left untranslated in fr (its source stands in) by a push that asks for de only.
    await p.client.POST('/projects/{projectId}/translate', {
      params: { path: { projectId: p.projectId } },
      body: { units: [{ source: 'Never translated' }], langs: ['de'] },
    });
    await runDue();

    const live = await publish(p, { label: 'live' });
    t.is(live.response.status, 201);
    const liveV = live.data!;
    t.false(linked(p, liveV.versionId));
    await quiet();
    const row = (await preparedRow(p))!;
    t.is(Number(row.content_rev), await rev(p));
    t.is(row.digest, await liveDigest(p));
    t.is((await db()('project_content').where({ project_id: p.projectId }).first('changed_at'))!.changed_at, null);

    const fast = await publish(p, { label: 'live' });
    t.is(fast.response.status, 201);
    const fastV = fast.data!;
    t.true(linked(p, fastV.versionId), 'the objects were copied from the prepared publish');
    const strip = (v: components['schemas']['PublishResult']) => ({
      ...v,
      versionId: undefined,
      snapshotAt: undefined,
    });
    t.deepEqual(strip(fastV), strip(liveV));
    t.is(liveV.icuRejectedTotal, 1);
    t.deepEqual(liveV.icuRejected, ['hello_name [de]']);

    const [a, b] = await Promise.all(
      [liveV, fastV].map((v) => db()('versions').where({ project_id: p.projectId, id: v.versionId }).first()),
    );
    for (const col of ['digest', 'formats', 'key_count', 'languages', 'all_approved', 'unapproved', 'label'] as const)
      t.deepEqual(b![col], a![col], col);
    // Both name one stored snapshot.
    t.is(Number((await db()('snapshot_bodies').where({ project_id: p.projectId }).count({ n: '*' }))[0].n), 1);
    const files = readdirSync(versionDir(p, liveV.versionId)).sort();
    t.deepEqual(readdirSync(versionDir(p, fastV.versionId)).sort(), files);
    t.is(
      files.filter((f) => !f.endsWith('.meta.json')).length,
      3 + 3 + 3,
      'bundles, json and android_xml for three languages',
    );
    for (const f of files) {
      const [x, y] = [
        await store().get(`v1/projects/${p.projectId}/bundles/${liveV.versionId}/${f.replace(/\.meta\.json$/, '')}`),
        await store().get(`v1/projects/${p.projectId}/bundles/${fastV.versionId}/${f.replace(/\.meta\.json$/, '')}`),
      ];
      t.true(x!.body.equals(y!.body), f);
      t.is(y!.contentType, x!.contentType);
      t.is(y!.cacheControl, x!.cacheControl);
    }
    const manifest = await json<Schemas['Manifest']>(
      await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`),
    );
    t.is(manifest.versionId, fastV.versionId);
    const bundle = await fetch(new URL(manifest.bundles.de.url, `${svc.deliveryUrl}/projects/${p.projectId}/manifest`));
    t.is(bundle.status, 200);
    t.deepEqual(Object.keys(await json<Schemas['I18nextBundle']>(bundle)).sort(), [
      'count_files_one',
      'count_files_other',
      'hello_name',
      'never_translated',
      'read_the_b_terms_b',
      'save',
    ]);
    // The pull of a version file reads the shared snapshot.
    const file = (v: string) => pull(p, { version: v, format: 'android_xml', lang: 'de' }).then((r) => r.text());
    t.is(await file(fastV.versionId), await file(liveV.versionId));
    // skipIfIdentical compares the prepared digest.
    const same = await publish(p, { skipIfIdentical: true });
    t.is(same.response.status, 200);
    t.like(same.data, { versionId: fastV.versionId, unchanged: true });
  },
);

test.serial(
  'every content write makes the prepared publish stale, and the next publish freezes the write; no-op writes keep it',
  async (t) => {
    const p = await project();
    await push(p, [{ source: 'One' }, { source: 'Two' }]);
    await quiet();
    const CATALOG = { one: 'One', two: 'Two', three: 'Three', four: 'Four', five: 'Five' };
    const capturer = svc.client(await createTestKey(svc, p.projectId, ['capture']));
    const writes: Array<[string, boolean, () => Promise<unknown>]> = [
      ['push of new strings', true, () => push(p, [{ source: 'Three' }])],
      ['push of strings the project holds', false, () => push(p, [{ source: 'One' }, { source: 'Two' }])],
      [
        'the fill job storing values',
        true,
        async () => {
          await push(p, [{ source: 'Four' }]);
          await prepareProject(svc.service.app, p.projectId);
          return runDue();
        },
      ],
      ['sync of a file with a new key', true, () => syncJson(p, CATALOG)],
      ['sync of the same file again', false, () => syncJson(p, CATALOG)],
      [
        'a language added',
        true,
        () =>
          p.client.POST('/projects/{projectId}/languages', {
            params: { path: { projectId: p.projectId } },
            body: { code: 'es', fillMode: 'manual' },
          }),
      ],
      [
        'a language removed',
        true,
        () =>
          svc.admin.DELETE('/projects/{projectId}/languages/{code}', {
            params: { path: { projectId: p.projectId, code: 'es' } },
          }),
      ],
      [
        'a language revived',
        true,
        () =>
          p.client.POST('/projects/{projectId}/languages', {
            params: { path: { projectId: p.projectId } },
            body: { code: 'es', fillMode: 'manual' },
          }),
      ],
      [
        'a key switched off',
        true,
        () =>
          svc.admin.PATCH('/projects/{projectId}/keys/{key}', {
            params: { path: { projectId: p.projectId, key: 'two' } },
            body: { enabled: false },
          }),
      ],
      [
        'a translation edited',
        true,
        () =>
          svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
            params: { path: { projectId: p.projectId, key: 'one', lang: 'fr' } },
            body: { value: 'Un (édité)' },
          }),
      ],
      [
        'a translation approved',
        true,
        () =>
          svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
            params: { path: { projectId: p.projectId, key: 'one', lang: 'fr' } },
            body: { status: 'approved' },
          }),
      ],
      // Captured keys never enter a snapshot, and nothing turns one into a regular key.
      [
        'a runtime capture',
        false,
        () =>
          capturer.POST('/projects/{projectId}/capture', {
            params: { path: { projectId: p.projectId } },
            body: { units: [{ source: 'Seen at runtime' }] },
          }),
      ],
    ];
    for (const [what, changes, write] of writes) {
      if ((await rev(p)) !== Number((await preparedRow(p))?.content_rev)) await quiet();
      const before = { rev: await rev(p), digest: (await preparedRow(p))!.digest };
      await write();
      const after = await rev(p);
      t.is(after > before.rev, changes, `${what}: the revision ${changes ? 'moves' : 'stays'}`);
      const v = (await publish(p)).data!;
      t.truthy(v?.versionId, what);
      const minted = (await db()('versions').where({ project_id: p.projectId, id: v.versionId }).first())!.digest;
      t.is(minted, await liveDigest(p), `${what}: the version is the live content`);
      t.is(
        linked(p, v.versionId),
        !changes,
        `${what}: ${changes ? 'published live' : 'published from the prepared publish'}`,
      );
      if (changes) t.not(minted, before.digest, `${what}: the content did change`);
    }
  },
);

test.serial('flags other than the defaults, and changed defaults, publish the live content', async (t) => {
  const p = await project(['json']);
  await push(p, [{ source: 'Translated' }]);
  await runDue();
  await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: 'translated', lang: 'de' } },
    body: { status: 'approved' },
  });
  await quiet();
  const skip = (await publish(p, { incompleteMode: 'skip' })).data!;
  t.false(linked(p, skip.versionId));
  t.is(
    (await db()('versions').where({ project_id: p.projectId, id: skip.versionId }).first())!.digest,
    await liveDigest(p, { mode: 'skip' }),
  );
  // Explicit flags equal to the defaults are the defaults.
  const explicit = (await publish(p, { incompleteMode: 'source', approvedOnly: false })).data!;
  t.true(linked(p, explicit.versionId));
  // A second output format: the prepared publish was rendered for one.
  await addFormat(p, 'po');
  const po = (await publish(p)).data!;
  t.deepEqual(po.formats, ['json', 'po']);
  t.false(linked(p, po.versionId));
  t.truthy(readdirSync(versionDir(p, po.versionId)).find((f) => f.startsWith('po.de.')));
  // A workspace that starts requiring approval publishes approved cells only.
  await quiet();
  await svc.admin.PATCH('/workspaces/{workspaceId}', {
    params: { path: { workspaceId: p.workspaceId } },
    body: { requireApproval: true },
  });
  const approved = (await publish(p)).data!;
  t.false(linked(p, approved.versionId));
  const pulled = async (lang: string) =>
    json<Schemas['RenderedJsonFile']>(await pull(p, { version: approved.versionId, format: 'json', lang }));
  t.deepEqual(await pulled('de'), {
    translated: (
      await json<Schemas['RenderedJsonFile']>(await pull(p, { version: po.versionId, format: 'json', lang: 'de' }))
    ).translated,
  });
  t.deepEqual(await pulled('fr'), { translated: 'Translated' }, 'fr was not approved: its source stands in');
});

test.serial(
  'a mint from a prepared publish that was replaced meanwhile mints nothing (the route then publishes live)',
  async (t) => {
    const p = await project();
    await push(p, [{ source: 'Raced' }]);
    await quiet();
    const app = svc.service.app;
    const project0 = await getProject(db(), p.projectId);
    const chosen = (await preparedFor(db(), project0, await defaultParams(db(), project0)))!;
    t.truthy(chosen);
    await push(p, [{ source: 'Raced again' }]);
    await prepareProject(app, p.projectId);
    const s = chosen.summary;
    await t.throwsAsync(
      mintVersion(db(), app.objects, {
        project: project0,
        digest: chosen.digest,
        keyCount: s.keyCount,
        baseLang: s.baseLang,
        languages: s.languages,
        formats: ['json', 'android_xml'],
        label: null,
        restoredFrom: null,
        unapproved: s.unapproved,
        content: { prepared: chosen.source },
      }),
      { instanceOf: PreparedStale },
    );
    t.is(Number((await db()('versions').where({ project_id: p.projectId }).count({ n: '*' }))[0].n), 0);
    // Its objects were deleted by the prepare that replaced it; the new ones serve the next publish.
    t.is(
      await store().get(`prepared/${p.projectId}/${chosen.source.token}/${chosen.source.index.objects[0].file}`),
      null,
    );
    const v = (await publish(p)).data!;
    t.is(v.keyCount, 2);
    t.true(linked(p, v.versionId));
  },
);

test.serial(
  'writes, prepares and publishes racing on one project: no error, and the last publish is the live content',
  async (t) => {
    const p = await project();
    await push(p, [{ source: 'Base' }]);
    await quiet();
    const app = svc.service.app;
    const results = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => push(p, [{ source: `Racing ${i}` }]).then((r) => r.response.status)),
      ...Array.from({ length: 3 }, () => publish(p).then((r) => r.response.status)),
      ...Array.from({ length: 3 }, () => prepareProject(app, p.projectId).then(() => 200)),
    ]);
    t.deepEqual([...new Set(results)].sort(), [200, 201]);
    await prepareProject(app, p.projectId);
    const v = (await publish(p)).data!;
    t.is(v.keyCount, 7);
    t.is(
      (await db()('versions').where({ project_id: p.projectId, id: v.versionId }).first())!.digest,
      await liveDigest(p),
    );
    t.true(linked(p, v.versionId));
  },
);

test.serial(
  'replaced preparations leave no objects and no snapshot behind, unless a version was minted from them',
  async (t) => {
    const p = await project();
    await push(p, [{ source: 'First' }]);
    await quiet();
    const first = (await preparedRow(p))!;
    const prefix = path.join(store().root, 'prepared', p.projectId);
    t.deepEqual(readdirSync(prefix), [first.token]);
    await push(p, [{ source: 'Second' }]);
    await quiet();
    const second = (await preparedRow(p))!;
    t.deepEqual(readdirSync(prefix), [second.token]);
    t.deepEqual(await db()('snapshot_bodies').where({ project_id: p.projectId }).pluck('digest'), [second.digest]);
    const v = (await publish(p)).data!;
    await push(p, [{ source: 'Third' }]);
    await quiet();
    const third = (await preparedRow(p))!;
    t.deepEqual(
      await db()('snapshot_bodies').where({ project_id: p.projectId }).orderBy('digest').pluck('digest'),
      [second.digest, third.digest].sort(),
    );
    // The version minted from the second keeps its objects (its own links) and its snapshot.
    t.is(
      (
        await p.client.GET('/projects/{projectId}/translations', {
          params: { path: { projectId: p.projectId }, query: { version: v.versionId, format: 'json', lang: 'en' } },
        })
      ).response.status,
      200,
    );
    t.true(readdirSync(versionDir(p, v.versionId)).length > 0);
  },
);

test.serial(
  "a publish copies the current version's objects of each language whose cells did not change, and renders the rest",
  async (t) => {
    const p = await project();
    await push(p, [
      { source: 'Hello', key: 'hello' },
      { source: 'Bye', key: 'bye' },
    ]);
    await quiet();
    const v1 = (await publish(p)).data!;
    const put = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId: p.projectId, key: 'hello', lang: 'de' } },
      body: { value: 'Hallo, geändert' },
    });
    t.is(put.response.status, 200);
    // Straight after the change: the live publish, not a prepared one.
    const v2 = (await publish(p)).data!;
    const inode = (v: string, file: string) => statSync(path.join(versionDir(p, v), file)).ino;
    const files = (v: string) => readdirSync(versionDir(p, v)).filter((f) => !f.endsWith('.meta.json'));
    const of = (v: string, lang: string) => files(v).filter((f) => f.startsWith(`${lang}.`) || f.includes(`.${lang}.`));
    for (const lang of ['en', 'fr']) {
      t.deepEqual(of(v2.versionId, lang), of(v1.versionId, lang), `${lang}: the same objects`);
      for (const f of of(v2.versionId, lang))
        t.is(inode(v2.versionId, f), inode(v1.versionId, f), `${lang}: ${f} copied, not rendered`);
    }
    t.notDeepEqual(of(v2.versionId, 'de'), of(v1.versionId, 'de'), 'de changed: rendered again');
    const pulled = async (v: string, lang: string) =>
      (
        await p.client.GET('/projects/{projectId}/translations', {
          params: { path: { projectId: p.projectId }, query: { version: v, format: 'json', lang } },
          parseAs: 'text',
        })
      ).data;
    t.regex((await pulled(v2.versionId, 'de'))!, /Hallo, geändert/);
    t.is(await pulled(v2.versionId, 'fr'), await pulled(v1.versionId, 'fr'));
    const manifest = JSON.parse(
      (await store().get(`v1/projects/${p.projectId}/manifest`))!.body.toString(),
    ) as Schemas['Manifest'];
    t.is(manifest.versionId, v2.versionId);
    t.true(
      Object.values(manifest.bundles).every((b) => b.url.startsWith(`bundles/${v2.versionId}/`)),
      "the manifest names the new version's objects",
    );
  },
);

test.serial(
  'files that wrote a fallback are rendered again, so the publish result still lists every warning',
  async (t) => {
    const p = await project(['android_xml']);
    await push(p, [
      { source: '{who, select, female {She replied} other {They replied}}', key: 'replied' },
      { source: 'Plain', key: 'plain' },
    ]);
    await quiet();
    const v1 = (await publish(p)).data!;
    t.true(v1.formatWarningsTotal > 0);
    await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId: p.projectId, key: 'plain', lang: 'de' } },
      body: { value: 'Schlicht, geändert' },
    });
    const v2 = (await publish(p)).data!;
    t.is(v2.formatWarningsTotal, v1.formatWarningsTotal);
    t.deepEqual([...v2.formatWarnings].sort(), [...v1.formatWarnings].sort());
  },
);

test.serial(
  'language parts no stored snapshot names are collected once no publish can still mint from them',
  async (t) => {
    const p = await project();
    await push(p, [{ source: 'Kept' }]);
    await quiet();
    const v = (await publish(p)).data!;
    const parts = () => db()('snapshot_parts').where({ project_id: p.projectId }).orderBy('digest').pluck('digest');
    const named = async () =>
      [...new Set(await db()('snapshot_part_refs').where({ project_id: p.projectId }).pluck('part_digest'))].sort();
    const stored0 = await parts();
    t.true(
      (await named()).every((d) => stored0.includes(d)),
      'every part a snapshot names is stored',
    );
    // A publish refused after its build stored parts that no snapshot will name.
    await push(p, [{ source: 'Pending for a while' }]);
    const refused = await publish(p, { require_complete: true });
    t.is(refused.response.status, 409);
    const namedNow = await named();
    t.true((await parts()).some((d) => !namedNow.includes(d)));
    const before = await parts();
    await collectParts(db(), p.projectId, Date.now());
    t.deepEqual(await parts(), before, 'young parts stay: a publish may still be minting from them');
    await collectParts(db(), p.projectId, Date.now() + 2 * 60 * 60 * 1000);
    t.deepEqual(await parts(), await named(), 'stale parts no snapshot names are gone, named ones kept');
    // The version still pulls in every language (its parts were kept).
    for (const lang of ['en', 'de', 'fr']) {
      const res = await p.client.GET('/projects/{projectId}/translations', {
        params: { path: { projectId: p.projectId }, query: { version: v.versionId, format: 'nested_json', lang } },
      });
      t.is(res.response.status, 200, lang);
    }
  },
);

test.serial(
  'require_complete on a prepared publish counts the markers of a job that ended since as exhausted',
  async (t) => {
    const fake = await startFakeOpenAI(() => errorReply(401, {}, 'bad key'));
    const other = await startTestService({
      TRANSLATION_ENGINE: 'openai',
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_MODEL: 'fake',
    });
    try {
      const p = await createTestProject(other, { languages: [{ code: 'de' }] });
      await p.client.POST('/projects/{projectId}/translate', {
        params: { path: { projectId: p.projectId } },
        body: { units: [{ source: 'Doomed' }] },
      });
      // Prepared while the job is queued: its marker is pending, not exhausted.
      await prepareProject(other.service.app, p.projectId);
      const pub = (body: components['schemas']['PublishRequest']) =>
        p.client.POST('/projects/{projectId}/publish', { params: { path: { projectId: p.projectId } }, body });
      t.like((await pub({ require_complete: true })).error, { error: 'fill_incomplete', pending: 1, exhausted: 0 });
      const revBefore = await contentRev(other.service.app.db, p.projectId);
      await other.admin.POST('/jobs/run-due', { body: {} }); // the engine refuses: the job fails, no value is written
      t.is(await contentRev(other.service.app.db, p.projectId), revBefore);
      t.like((await pub({ require_complete: true })).error, { error: 'fill_incomplete', pending: 1, exhausted: 1 });
      const v = (await pub({})).data!;
      const dir = path.join(
        (other.service.app.objects as FolderStore).root,
        'v1',
        'projects',
        p.projectId,
        'bundles',
        v.versionId,
      );
      t.true(
        readdirSync(dir).every((f) => statSync(path.join(dir, f)).nlink >= 2),
        'the prepared publish was used throughout',
      );
    } finally {
      await other.stop();
      await fake.close();
    }
  },
);

test.serial(
  'an object store failure during a prepared publish mints nothing and leaves the previous manifest in place',
  async (t) => {
    const p = await project();
    await push(p, [{ source: 'Kept' }]);
    await quiet();
    const v1 = (await publish(p)).data!;
    t.true(linked(p, v1.versionId));
    await push(p, [{ source: 'Lost' }]);
    await quiet();
    const bundles = path.join(store().root, 'v1', 'projects', p.projectId, 'bundles');
    rmSync(bundles, { recursive: true, force: true });
    writeFileSync(bundles, 'not a folder'); // every copy into a version folder now fails
    const r = await publish(p);
    t.true(r.response.status >= 500);
    rmSync(bundles, { force: true });
    t.deepEqual(await db()('versions').where({ project_id: p.projectId }).pluck('id'), [v1.versionId]);
    const m = await json<Schemas['Manifest']>(await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`));
    t.is(m.versionId, v1.versionId);
    // The prepared publish is intact and serves the retry.
    const retry = (await publish(p)).data!;
    t.is(retry.keyCount, 2);
    t.true(linked(p, retry.versionId));
  },
);

test.serial('the S3 path: a prepared publish copies its objects inside the bucket', async (t) => {
  const { withS3Service } = await import('../helpers/s3.js');
  await withS3Service('tenant-p', async (s3svc, s3) => {
    const p = await createTestProject(s3svc, { languages: [{ code: 'de' }] });
    await p.client.POST('/projects/{projectId}/translate', {
      params: { path: { projectId: p.projectId } },
      body: { units: [{ source: 'Copied in S3' }] },
    });
    await quiet(s3svc);
    const row = (await s3svc.service.app.db('prepared_publishes').where({ project_id: p.projectId }).first())!;
    t.truthy(row);
    const pub = await p.client.POST('/projects/{projectId}/publish', { params: { path: { projectId: p.projectId } } });
    t.is(pub.response.status, 201);
    const m = await json<Schemas['Manifest']>(await fetch(`${s3svc.deliveryUrl}/projects/${p.projectId}/manifest`));
    const bundle = await fetch(new URL(m.bundles.de.url, `${s3svc.deliveryUrl}/projects/${p.projectId}/manifest`));
    t.is(bundle.status, 200);
    t.is(bundle.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    t.is(bundle.headers.get('content-type'), 'application/json; charset=utf-8');
    t.truthy((await json<Schemas['I18nextBundle']>(bundle)).copied_in_s3);
    const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
    const client = s3.client();
    const listed = await client.send(
      new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `tenant-p/prepared/${p.projectId}/${row.token}/` }),
    );
    t.is(listed.KeyCount, (JSON.parse(row.summary) as PreparedSummary).index.objects.length);
    t.is(listed.KeyCount, Object.keys(m.bundles).length);
    client.destroy();
  });
});

test.serial(
  'the migration moves stored snapshots under their digest and gives every project a content revision',
  async (t) => {
    const target = await testDatabase({ empty: true });
    const old = openDb(target.url);
    try {
      for (let i = 0; i < 4; i++) await old.migrate.up({ migrationSource }); // up to 004_publish
      const now = Date.now();
      await old('workspaces').insert({ id: 'w_old', name: 'old', created_at: now, updated_at: now });
      await old('projects').insert({
        id: 'p_old',
        workspace_id: 'w_old',
        name: 'old',
        handle: 'old-1',
        slug: 'old',
        base_lang: 'en',
        output_formats: '[]',
        created_at: now,
        updated_at: now,
      });
      const body = JSON.stringify({ baseLang: 'en', languages: ['de'], keys: [], catalogs: {} });
      const version = {
        project_id: 'p_old',
        day: '2026.01.01',
        formats: '[]',
        key_count: 0,
        languages: '[]',
        all_approved: true,
        created_at: now,
        snapshot_at: now,
        digest: 'd'.repeat(64),
      };
      await old('versions').insert([
        { ...version, id: '2026.01.01.1', seq: 1 },
        { ...version, id: '2026.01.01.2', seq: 2 },
      ]);
      await old('version_snapshots').insert([
        { project_id: 'p_old', version_id: '2026.01.01.1', body },
        { project_id: 'p_old', version_id: '2026.01.01.2', body },
      ]);
      await migrate(old);
      t.deepEqual(await old('snapshot_bodies').select('project_id', 'digest'), [
        { project_id: 'p_old', digest: 'd'.repeat(64) },
      ]);
      // Stored whole before parts (migration 009): read a language at a time all the same.
      const stored = await openVersion(old, 'p_old', '2026.01.01.2');
      t.like(stored.head, { baseLang: 'en', languages: ['de'], keys: [], catalogs: {} });
      t.is(await stored.part('de'), '[]');
      t.is(await stored.part('fr'), null);
      t.is(await contentRev(old, 'p_old'), 0);
      t.false(await old.schema.hasTable('version_snapshots'));
    } finally {
      await old.destroy();
      await target.drop();
    }
  },
);

test.serial(
  'the publish preview reads a prepared publish of the content as it is, and says what the live build says',
  async (t) => {
    const p = await project();
    await push(p, [
      { source: 'Hello, {name}!' },
      { source: 'Save' },
      { source: '{gender, select, female {She liked it} other {They liked it}}' },
    ]);
    await runDue();
    // A refused cell; the select is written as its `other` branch by android_xml (a format warning).
    await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId: p.projectId, key: 'hello_name', lang: 'de' } },
      body: { value: 'Hallo, {nom}!' },
    });
    t.is((await publish(p, { label: 'first' })).response.status, 201);
    await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId: p.projectId, key: 'save', lang: 'fr' } },
      body: { value: 'Sauvegarder' },
    });
    const preview = async () => {
      const r = await svc.admin.GET('/projects/{projectId}/publish/preview', {
        params: { path: { projectId: p.projectId } },
      });
      t.is(r.response.status, 200);
      return r.data!;
    };
    t.falsy(
      await preparedFor(
        db(),
        await getProject(db(), p.projectId),
        await defaultParams(db(), await getProject(db(), p.projectId)),
      ),
    );
    const live = await preview();
    t.true(live.formatWarningsTotal > 0 && live.icuRejectedTotal > 0, JSON.stringify(live));
    t.deepEqual(
      live.languages.find((l) => l.lang === 'fr')!.changed.map((c) => c.key),
      ['save'],
    );
    await quiet();
    const row = (await preparedRow(p))!;
    t.is(Number(row.content_rev), await rev(p));
    t.deepEqual(await preview(), live, 'the prepared publish gives the same preview');
    // It is the prepared one that answered: a mark put in its stored warnings shows.
    const summary = JSON.parse(row.summary) as PreparedSummary;
    summary.index.formatWarnings = ['marked'];
    await db()('prepared_publishes')
      .where({ project_id: p.projectId })
      .update({ summary: JSON.stringify(summary) });
    t.deepEqual((await preview()).formatWarnings, ['marked']);
    // A write makes it stale: the preview is built live again.
    await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId: p.projectId, key: 'save', lang: 'de' } },
      body: { value: 'Speichern' },
    });
    const after = await preview();
    t.deepEqual(after.formatWarnings, live.formatWarnings);
    t.deepEqual(
      after.languages.find((l) => l.lang === 'de')!.changed.map((c) => c.key),
      ['save'],
    );
  },
);
