// The audit's defects that are not about names or leases: races on one project, values the databases
// must store whole, the manifest following the commit, refusals that are documented answers and never a 500, and
// the rate budget a refused request does not spend. Runs on SQLite and, with TEST_DB=mysql, on MariaDB.
import { mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import test from 'ava';
import { objectKeys } from '../../server/infra/objects.js';
import { windowStart } from '../../server/infra/ratelimit.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { json, type ApiError, type Schemas } from '../helpers/typed.js';

let svc: TestService;
const logLines: { level: number }[] = [];
test.before(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(l) as { level: number });
      done();
    },
  });
  svc = await startTestService({ LOG_LEVEL: 'warn' }, undefined, { logDestination: sink });
});
test.after.always(async () => {
  await svc?.stop();
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
/** Runs the project's own due jobs: another test's run-due of every project may hold this one's fill meanwhile. */
const runDue = (p: TestProject) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
/** The answer's status and JSON body (null when it has none), read as `T`: a refusal unless the call says what else. */
const api = <T = ApiError>(p: TestProject, method: string, route: string, body?: unknown) =>
  fetch(`${svc.baseUrl}/projects/${p.projectId}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${p.apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as T }));
const keyCount = async (p: TestProject) =>
  Number(
    (await svc.service.app.db('keys').where({ project_id: p.projectId }).count<{ n: number | string }[]>({ n: '*' }))[0]
      .n,
  );
const balance = async (p: TestProject) =>
  Number(
    (
      await svc.service.app
        .db('workspaces')
        .where({ id: p.workspaceId })
        .first<{ balance_mc: number; held_mc: number }>('balance_mc', 'held_mc')
    ).held_mc,
  );
const errorsLogged = () => logLines.filter((l) => l.level >= 50);

/** Sends raw bytes and collects what comes back until the server closes (or `ms` pass). */
function rawHttp(request: string, ms = 15_000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(svc.service.main.info.port as number, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, ms);
  });
}
const jsonOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as ApiError;

test('a dryRun in array or object form is refused, and nothing runs for real', async (t) => {
  const p = await createTestProject(svc);
  const before = await balance(p);
  for (const q of [
    'dryRun[]=true',
    'dryRun[0]=true',
    'dryRun[x]=true',
    'dryRun=true&dryRun=true',
    'dryRun[]=true&dryRun=true',
  ]) {
    const r = await fetch(`${svc.baseUrl}/projects/${p.projectId}/translate?${q}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ units: [{ source: 'Spend me' }] }),
    });
    t.is(r.status, 400, q);
    t.is((await json<ApiError>(r)).error, 'invalid_argument', q);
  }
  t.is(await keyCount(p), 0);
  t.is(await balance(p), before, 'no credit held');
});

test('values the API accepts are stored whole; longer free text is refused with nothing written', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'ar' }] });
  // Six plural forms of 5,000 four-byte characters: 120 KB of source, the most one unit may carry.
  const wide = (c: string) => c.repeat(5000);
  const forms = {
    zero: wide('𠀀'),
    one: wide('𠀁'),
    two: wide('𠀂'),
    few: wide('𠀃'),
    many: wide('𠀄'),
    other: wide('𠀅'),
  };
  const maxKey = `k${'a'.repeat(253)}z`;
  const ok = await api<Schemas['TranslateResult']>(p, 'POST', '/translate', {
    units: [
      { forms, ctx: 'c'.repeat(2000) },
      { source: 'Longest key', key: maxKey },
    ],
  });
  t.is(ok.status, 200, JSON.stringify(ok.body).slice(0, 300));
  t.deepEqual(
    ok.body.units.map((u) => u.outcome),
    ['created', 'created'],
  );
  t.is(ok.body.units[1].key, maxKey);
  await runDue(p);
  const listed = await svc.admin.GET('/projects/{projectId}/keys', { params: { path: { projectId: p.projectId } } });
  t.is(listed.response.status, 200);
  const plural = listed.data!.keys.find((k) => k.forms)!;
  t.deepEqual(plural.forms, forms, 'every form whole');
  t.is(plural.ctx!.length, 2000);
  const read = await fetch(
    `${svc.baseUrl}/projects/${p.projectId}/translations?${new URLSearchParams({ ref: maxKey })}`,
    { headers: { authorization: `Bearer ${p.apiKey}` } },
  );
  t.is(read.status, 200, 'a key of the longest accepted name reads back');
  // Other tests of this file run jobs too: the fill may be theirs to finish.
  let poll = await api<Schemas['TranslationPoll']>(p, 'GET', `/translations?trackingToken=${ok.body.trackingToken}`);
  for (let i = 0; i < 50 && poll.body.status !== 'done'; i++) {
    await runDue(p);
    poll = await api<Schemas['TranslationPoll']>(p, 'GET', `/translations?trackingToken=${ok.body.trackingToken}`);
  }
  t.like(poll.body, { status: 'done', summary: { pending: 0, failed: 0 } });
  const ar = await svc.service.app
    .db('translations')
    .where({ project_id: p.projectId, lang: 'ar' })
    .select<{ value: string | null }[]>('value');
  t.true(
    ar.every((r) => r.value && !r.value.endsWith('\uFFFD')),
    'the fill stored its long values',
  );

  const keysBefore = await keyCount(p);
  const refused: Array<[string, unknown]> = [
    ['key of 256 characters', { units: [{ source: 'x', key: 'k'.repeat(256) }] }],
    ['ctx of 70,000 characters', { units: [{ source: 'x', ctx: 'c'.repeat(70_000) }] }],
    [
      'previousCtx of 2,001 characters',
      { units: [{ source: 'x', previousSource: 'y', previousCtx: 'c'.repeat(2001) }] },
    ],
  ];
  for (const [label, body] of refused) {
    const r = await api(p, 'POST', '/translate', body);
    t.is(r.status, 400, label);
    t.is(r.body.error, 'invalid_argument', label);
  }
  const label = await api(p, 'POST', '/publish', { label: 'l'.repeat(70_000) });
  t.is(label.status, 400);
  t.is(label.body.error, 'invalid_argument');
  const xc = {
    sourceLanguage: 'en',
    version: '1.0',
    strings: {
      hello: {
        comment: 'c'.repeat(70_000),
        localizations: { en: { stringUnit: { state: 'translated', value: 'Hello' } } },
      },
    },
  };
  const comment = await api(p, 'POST', '/sync', {
    contentBase64: b64(JSON.stringify(xc)),
    fileName: 'Localizable.xcstrings',
  });
  t.is(comment.status, 400);
  t.is(comment.body.error, 'invalid_argument');
  const empty = await api(p, 'POST', '/sync', { contentBase64: b64('{"":"Empty","ok":"Fine"}'), fileName: 'en.json' });
  t.is(empty.status, 400, 'a file key that is empty');
  t.is(empty.body.error, 'invalid_argument');
  t.is(await keyCount(p), keysBefore, 'nothing written by any refusal');
  t.is((await svc.service.app.db('versions').where({ project_id: p.projectId })).length, 0);
  // A 300-character file key spelled as a key name could not be read by that name (ref holds 255): refused whole.
  const long = `${'Long'.repeat(75)}`;
  const tooLong = await api(p, 'POST', '/sync', {
    contentBase64: b64(JSON.stringify({ [long]: 'A long key', ok: 'Fine' })),
    fileName: 'en.json',
  });
  t.is(tooLong.status, 400);
  t.is(tooLong.body.error, 'invalid_argument');
  t.is(await keyCount(p), keysBefore, 'nothing written by the refused sync');
  // A long sentence used as a key is the file's business: stored under a derived name, written back as it came.
  const sentence = `${'A long sentence used as its own key. '.repeat(9)}`;
  const synced = await api(p, 'POST', '/sync', {
    contentBase64: b64(JSON.stringify({ [sentence]: 'A long key' })),
    fileName: 'en.json',
  });
  t.is(synced.status, 200);
  t.is(
    (
      await svc.service.app
        .db('keys')
        .where({ project_id: p.projectId, file_key: sentence })
        .first<{ source: string } | undefined>()
    )?.source,
    'A long key',
  );
});

test('concurrent publishes of one project take consecutive numbers, and delivery names the newest', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await api(p, 'POST', '/translate', { units: [{ source: 'Hello' }] });
  await runDue(p);
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) => api<Schemas['PublishResult']>(p, 'POST', '/publish', { label: `race ${i}` })),
  );
  t.deepEqual(
    answers.map((a) => a.status),
    Array(10).fill(201),
    JSON.stringify(answers.filter((a) => a.status !== 201).map((a) => a.body)),
  );
  const ns = answers.map((a) => Number(a.body.versionId.split('.').pop())).sort((a, b) => a - b);
  t.deepEqual(ns, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  const meta = await api<Schemas['ProjectMeta']>(p, 'GET', '/meta');
  const manifest = await json<Schemas['Manifest']>(await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`));
  t.is(manifest.versionId, meta.body.currentVersion!);
  t.is(meta.body.currentVersion!.split('.').pop(), '10');
  // 25 more at once: the daily cap of 30 holds exactly, and every answer is a documented one.
  const more = await Promise.all(Array.from({ length: 25 }, () => api(p, 'POST', '/publish')));
  const statuses = more.map((a) => a.status);
  t.is(statuses.filter((s) => s === 201).length, 20);
  t.is(statuses.filter((s) => s === 429).length, 5);
  t.is((await svc.service.app.db('versions').where({ project_id: p.projectId })).length, 30);
  t.deepEqual(errorsLogged(), []);
});

test('concurrent identical publishes with skipIfIdentical mint one version', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await api(p, 'POST', '/translate', { units: [{ source: 'Once' }] });
  await runDue(p);
  const answers = await Promise.all(
    Array.from({ length: 6 }, () => api<Schemas['PublishResult']>(p, 'POST', '/publish', { skipIfIdentical: true })),
  );
  t.is(answers.filter((a) => a.status === 201).length, 1);
  t.is(answers.filter((a) => a.status === 200 && a.body.unchanged === true).length, 5);
});

test('concurrent whole-catalog syncs are serialized: one file wins whole, as in any serial order', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const same = await Promise.all(
    Array.from({ length: 10 }, () =>
      api<Schemas['SyncResult']>(p, 'POST', '/sync', {
        contentBase64: b64('{"title":"Title","save":"Save"}'),
        fileName: 'en.json',
      }),
    ),
  );
  t.deepEqual(
    same.map((a) => a.status),
    Array(10).fill(200),
    JSON.stringify(same.find((a) => a.status !== 200)?.body),
  );
  t.is(same.filter((a) => a.body.created === 2).length, 1, 'one sync created the keys, the others matched them');
  t.is(await keyCount(p), 2);
  const different = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      api(p, 'POST', '/sync', {
        contentBase64: b64(JSON.stringify({ [`only${i}`]: `Only ${i}` })),
        fileName: 'en.json',
      }),
    ),
  );
  t.deepEqual(
    different.map((a) => a.status),
    Array(10).fill(200),
  );
  const enabled = await svc.service.app
    .db('keys')
    .where({ project_id: p.projectId })
    .andWhere('enabled', true)
    .pluck<string[]>('name');
  t.is(enabled.length, 1, `one catalog is the project's whole catalog: ${enabled.join(', ')}`);
});

test('the manifest follows the commit: a store that refuses it leaves delivery on the previous version, and the sweep catches up', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await api(p, 'POST', '/translate', { units: [{ source: 'Hello' }] });
  await runDue(p);
  const first = await api<Schemas['PublishResult']>(p, 'POST', '/publish');
  t.is(first.status, 201);
  // A folder where the manifest file goes: the folder store's rename over it fails (EISDIR), a real refusal.
  const manifestFile = path.join(svc.service.app.config.dataDir, 'objects', objectKeys.manifest(p.projectId));
  rmSync(manifestFile);
  rmSync(`${manifestFile}.meta.json`, { force: true });
  mkdirSync(path.join(manifestFile, 'blocked'), { recursive: true });
  const second = await api(p, 'POST', '/publish');
  t.is(second.status, 503);
  t.is(second.body.error, 'unavailable');
  t.regex(second.body.message, /was minted/);
  const meta = await api<Schemas['ProjectMeta']>(p, 'GET', '/meta');
  t.not(meta.body.currentVersion, first.body.versionId, 'the version was minted');
  t.is(
    (await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`)).status,
    404,
    'no manifest names a version that was not written',
  );
  // Scoped to the project: its sweep runs here and now. The queued sweep may be claimed by another test's
  // run-due at that moment, and a run-due that finds it claimed returns without it.
  const sweep = () => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  await sweep();
  t.not(
    (
      await svc.service.app
        .db('projects')
        .where({ id: p.projectId })
        .first<{ manifest_version: string | null }>('manifest_version')
    ).manifest_version,
    meta.body.currentVersion,
    'still refused',
  );
  rmSync(manifestFile, { recursive: true });
  await sweep();
  const manifest = await json<Schemas['Manifest']>(await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`));
  t.is(manifest.versionId, meta.body.currentVersion!);
  const bundle = await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/${manifest.bundles.de.url}`);
  t.is(bundle.status, 200);
});

test('malformed delivery paths are 404 without an error logged', async (t) => {
  const p = await createTestProject(svc);
  const before = errorsLogged().length;
  for (const url of [
    `/projects/${p.projectId}/bundles/2026.01.01.1/${'f'.repeat(262)}.json`,
    `/projects/${p.projectId}/bundles/${'9'.repeat(300)}/de.json`,
    `/projects/${'p'.repeat(300)}/manifest`,
    `/projects/${p.projectId}/bundles/${'a'.repeat(255)}/${'b'.repeat(255)}`,
  ]) {
    const r = await fetch(`${svc.deliveryUrl}${url}`);
    t.is(r.status, 404, url.slice(0, 80));
    t.is((await json<ApiError>(r)).error, 'not_found');
  }
  t.is(errorsLogged().length, before);
});

test('a replayed orphaned requestId answers 503 unavailable, as its record says', async (t) => {
  const p = await createTestProject(svc);
  const body = { units: [{ source: 'Orphan' }], requestId: 'orphan-1' };
  // The state a request leaves when its process dies after writing its record: processing, lease running out.
  const { db } = svc.service.app;
  // Under the concurrent publishes and syncs of the other tests of this file, MySQL may answer 503 `contended`
  // (a deadlock that still lost after the service's retries): the documented answer is to retry, as a client does.
  let first = await api(p, 'POST', '/translate', body);
  for (let i = 0; i < 3 && first.status === 503 && first.body?.error === 'contended'; i++)
    first = await api(p, 'POST', '/translate', body);
  t.is(first.status, 200, JSON.stringify(first.body));
  const updated = await db('request_records')
    .where({ request_id: 'orphan-1' })
    .update({
      state: 'processing',
      lease_until: Date.now() - 1,
      closed_at: null,
      response: null,
      captured_response: null,
      status: null,
    });
  t.is(updated, 1, 'the record the first call left');
  const replay = await api(p, 'POST', '/translate', body);
  t.is(replay.status, 503);
  t.is(replay.body.error, 'unavailable');
  const record = await api<Schemas['RequestRecord']>(p, 'GET', '/requests/orphan-1');
  t.like(record.body, { state: 'failed', status: 503, orphaned: true, body: { error: 'unavailable' } });
});

test('a declared oversize body is refused at once and its connection closed; a body that never comes is too', async (t) => {
  const p = await createTestProject(svc);
  const head = (len: number) =>
    `POST /v1/projects/${p.projectId}/translate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${p.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${len}\r\n\r\n`;
  // 200 MB declared, none sent: a server that waited for the body would never answer.
  const big = await rawHttp(`${head(200_000_000)}{"units":[`);
  t.true(big.closed);
  t.regex(big.text, /^HTTP\/1\.1 413/);
  t.is(jsonOf(big.text).error, 'payload_too_large');
  const stalled = await rawHttp(`${head(100)}{"units":[`, 20_000);
  t.true(stalled.closed, 'closed after the body timeout');
  t.regex(stalled.text, /^HTTP\/1\.1 400/);
  t.is(jsonOf(stalled.text).error, 'invalid_argument');
  t.is(await keyCount(p), 0);
});

test('malformed headers get the JSON error body, and two Authorization headers are no key', async (t) => {
  const p = await createTestProject(svc);
  const huge = await rawHttp(
    `GET /v1/projects/${p.projectId}/credential HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(17_000)}\r\n\r\n`,
  );
  t.regex(huge.text, /^HTTP\/1\.1 400/);
  t.is(jsonOf(huge.text).error, 'invalid_argument');
  const two = await rawHttp(
    `GET /v1/projects/${p.projectId}/credential HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${p.apiKey}\r\nAuthorization: Bearer glk_other\r\nConnection: close\r\n\r\n`,
  );
  t.regex(two.text, /^HTTP\/1\.1 401/);
  t.is(jsonOf(two.text).error, 'unauthorized');
  const one = await rawHttp(
    `GET /v1/projects/${p.projectId}/credential HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${p.apiKey}\r\nConnection: close\r\n\r\n`,
  );
  t.regex(one.text, /^HTTP\/1\.1 200/);
});

test('requests the scope refuses do not spend the project rate budget', async (t) => {
  const p = await createTestProject(svc);
  const capture = await createTestKey(svc, p.projectId, ['capture']);
  const start = windowStart(Date.now());
  const count = async () =>
    Number(
      (
        await svc.service.app
          .db('rate_windows')
          .where({ project_id: p.projectId })
          .andWhere('window_start', '>=', start)
          .sum<{ n: number | string | null }[]>({ n: 'count' })
      )[0].n ?? 0,
    );
  const before = await count();
  for (let i = 0; i < 130; i++) {
    const r = await fetch(`${svc.baseUrl}/projects/${p.projectId}/publish`, {
      method: 'POST',
      headers: { authorization: `Bearer ${capture}` },
    });
    t.is(r.status, 403);
  }
  t.is(await count(), before, 'nothing counted');
  t.is((await api(p, 'POST', '/publish')).status, 201, "the owner's publish still goes through");
});
