// POST /translate, the fill, the poll and the single-key read (spec: `translateUnits`, `getTranslations`) with the pseudo engine.
import test from 'ava';
import { previewTranslate, translate, type TranslateRequest } from '../../packages/client/src/index.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { hostile, pollJob, readKey } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const push = (p: TestProject, body: TranslateRequest) => translate(p.client, p.projectId, body);
const preview = (p: TestProject, body: TranslateRequest) => previewTranslate(p.client, p.projectId, body);
const poll = (p: TestProject, trackingToken: string) => pollJob(p.client, p.projectId, trackingToken);
const readRef = (p: TestProject, ref: string, lang?: string) => readKey(p.client, p.projectId, ref, lang);
// Scoped to the test's project, so that tests run concurrently: no test runs another's fill.
const runDue = (p: TestProject) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
const balance = async (p: TestProject) =>
  (
    await svc.admin.PATCH('/workspaces/{workspaceId}', {
      params: { path: { workspaceId: p.workspaceId } },
      body: { requireApproval: false },
    })
  ).data!.balance;
const count = async (table: string, where: Record<string, unknown>) =>
  Number((await svc.service.app.db(table).where(where).count({ n: '*' }))[0].n);

test('a push creates keys named from the source, queues a fill, and the fill translates every pair', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }], creditsMc: 100_000 });
  const r = await push(p, { units: [{ source: 'Hello, {name}!' }, { source: 'Save changes', ctx: 'toolbar' }] });
  t.is(r.response.status, 200);
  const d = r.data!;
  t.is(d.baseCode, 'en');
  t.deepEqual(d.targetLangs, ['de', 'fr']);
  t.deepEqual(
    d.units.map((u) => [u.key, u.outcome, u.pending, u.translated]),
    [
      ['hello_name', 'created', ['de', 'fr'], []],
      ['toolbar.save_changes', 'created', ['de', 'fr'], []],
    ],
  );
  // 1 mc per character per language: 14 + 12 chars, two languages.
  t.is(d.estimatedCredits, (14 + 12) * 2);
  t.is(d.balance, 100_000 - d.estimatedCredits);
  t.regex(d.trackingToken!, /^trk_/);
  const queued = await poll(p, d.trackingToken!);
  t.like(queued.data, {
    status: 'queued',
    estimatedCredits: 52,
    creditsCharged: 0,
    summary: { total: 4, translated: 0, pending: 4, failed: 0 },
  });
  const pending = await readRef(p, 'hello_name');
  t.deepEqual(pending.data, {
    key: 'hello_name',
    translations: { de: { status: 'pending' }, fr: { status: 'pending' } },
  });
  await runDue(p);
  const done = await poll(p, d.trackingToken!);
  t.like(done.data, {
    status: 'done',
    estimatedCredits: 52,
    creditsCharged: 52,
    summary: { total: 4, translated: 4, pending: 0, failed: 0 },
  });
  const read = (await readRef(p, 'hello_name', 'de')).data!;
  t.is(read.translations.de.status, 'translated');
  t.true(read.translations.de.value!.includes('{name}'));
  t.not(read.translations.de.value, 'Hello, {name}!');
  const byToken = await readRef(p, d.units[0].token);
  t.is(byToken.data?.key, 'hello_name');
  t.is(await balance(p), 100_000 - 52);
});

test('re-pushing translated units reports matched, enqueues nothing and returns a null tracking token', async (t) => {
  const p = await createTestProject(svc);
  const first = await push(p, { units: [{ source: 'Open' }] });
  await runDue(p);
  const jobs = await count('fill_jobs', { project_id: p.projectId });
  const again = await push(p, { units: [{ source: 'Open' }] });
  const d = again.data!;
  t.is(d.trackingToken, null);
  t.is(d.estimatedCredits, 0);
  t.deepEqual(
    d.units.map((u) => [u.key, u.outcome, u.translated, u.pending]),
    [['open', 'matched', ['de', 'fr'], []]],
  );
  t.is(d.units[0].token, first.data!.units[0].token);
  t.is(await count('fill_jobs', { project_id: p.projectId }), jobs);
});

test('ctx makes identical sources distinct; names never collide', async (t) => {
  const p = await createTestProject(svc);
  const r = (await push(p, { units: [{ source: 'Back' }, { source: 'Back', ctx: 'nav' }, { source: 'back!' }] })).data!;
  t.deepEqual(
    r.units.map((u) => u.key),
    ['back', 'nav.back', 'back_2'],
  );
  t.is(new Set(r.units.map((u) => u.token)).size, 3);
  const again = (await push(p, { units: [{ source: 'BACK' }] })).data!;
  t.is(again.units[0].key, 'back_3');
});

test('explicit keys must be canonical: one bad key refuses the whole request before anything is written', async (t) => {
  const p = await createTestProject(svc);
  for (const key of ['has space', 'dash-ed', '.lead', 'trail.', 'a..b', '', 'ünï']) {
    const r = await push(p, {
      units: [
        { source: 'Fine', key: 'ok.key' },
        { source: 'Bad', key },
      ],
    });
    t.is(r.response.status, 400, key);
    t.is(r.error?.error, 'invalid_key', key);
  }
  t.is(await count('keys', { project_id: p.projectId }), 0);
  t.is(await balance(p), 1_000_000);
  const ok = (await push(p, { units: [{ source: 'Fine', key: 'settings.ok_button' }] })).data!;
  t.is(ok.units[0].key, 'settings.ok_button');
});

test('limits: 500 units, 5,000 characters; exactly one of source or forms, with other', async (t) => {
  const p = await createTestProject(svc);
  const many = await push(p, { units: Array.from({ length: 501 }, (_, i) => ({ source: `s${i}` })) });
  t.is(many.error?.error, 'too_many_units');
  const long = await push(p, { units: [{ source: 'x'.repeat(5001) }] });
  t.is(long.error?.error, 'source_too_long');
  const longForm = await push(p, { units: [{ forms: { one: 'x', other: 'y'.repeat(5001) } }] });
  t.is(longForm.error?.error, 'source_too_long');
  for (const unit of [
    {},
    { source: 'a', forms: { other: 'b' } },
    { forms: { one: 'x' } },
    { forms: { other: 'x', lots: 'y' } },
    { source: 3 },
  ]) {
    const r = await push(p, { units: [hostile(unit)] }); // deliberately invalid units
    t.is(r.response.status, 400, JSON.stringify(unit));
  }
  const at = await preview(p, { units: Array.from({ length: 500 }, (_, i) => ({ source: `unit number ${i}` })) });
  t.is(at.response.status, 200);
  t.is(await count('keys', { project_id: p.projectId }), 0);
});

test('langs restricts targets; a manual language is never a target and naming one is fill_mode_manual', async (t) => {
  const p = await createTestProject(svc, {
    languages: [{ code: 'de' }, { code: 'fr' }, { code: 'ja', fillMode: 'manual' }],
  });
  const all = (await push(p, { units: [{ source: 'One' }] })).data!;
  t.deepEqual(all.targetLangs, ['de', 'fr']);
  const some = (await push(p, { units: [{ source: 'Two' }], langs: ['FR'] })).data!;
  t.deepEqual(some.targetLangs, ['fr']);
  t.deepEqual(some.units[0].pending, ['fr']);
  const manual = await push(p, { units: [{ source: 'Three' }], langs: ['de', 'ja'] });
  t.is(manual.response.status, 400);
  t.is(manual.error?.error, 'fill_mode_manual');
  const unknown = await push(p, { units: [{ source: 'Three' }], langs: ['it'] });
  t.is(unknown.error?.error, 'invalid_argument');
  t.is(await count('keys', { project_id: p.projectId, source: 'Three' }), 0);
});

test('plural forms: each target gets exactly its own CLDR categories', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'pl' }, { code: 'ja' }, { code: 'ar' }] });
  const r = (await push(p, { units: [{ forms: { one: '# file', other: '# files' } }] })).data!;
  t.is(r.units[0].key, 'files');
  t.is(r.estimatedCredits, (6 + 7) * 3);
  await runDue(p);
  const tr = (await readRef(p, 'files')).data!.translations;
  const cats = (v: string) => [...v.matchAll(/(?:^|[\s}])(zero|one|two|few|many|other)\s*\{/g)].map((m) => m[1]);
  t.deepEqual(cats(tr.pl.value!), ['one', 'few', 'many', 'other']);
  t.deepEqual(cats(tr.ja.value!), ['other']);
  t.deepEqual(cats(tr.ar.value!), ['zero', 'one', 'two', 'few', 'many', 'other']);
  const same = (await push(p, { units: [{ forms: { other: '# files', one: '# file' } }] })).data!;
  t.is(same.units[0].outcome, 'matched', 'form order does not change the token');
});

test('a copy edit carries the key over by previousToken or previousSource, keeping its translations and history', async (t) => {
  const p = await createTestProject(svc);
  const first = (await push(p, { units: [{ source: 'Sign in' }] })).data!;
  await runDue(p);
  const edited = (await push(p, { units: [{ source: 'Sign in now', previousToken: first.units[0].token }] })).data!;
  t.like(edited.units[0], { key: 'sign_in', outcome: 'carriedOver', translated: ['de', 'fr'], pending: [] });
  t.is(edited.trackingToken, null);
  const again = (await push(p, { units: [{ source: 'Sign in, please', previousSource: 'Sign in now' }] })).data!;
  t.like(again.units[0], { key: 'sign_in', outcome: 'carriedOver' });
  const byOld = (await push(p, { units: [{ source: 'Log in', previousToken: first.units[0].token }] })).data!;
  t.like(
    byOld.units[0],
    { key: 'sign_in', outcome: 'carriedOver' },
    'an old token still finds the key through its history',
  );
  t.is(await count('keys', { project_id: p.projectId }), 1);
  t.is(await count('key_history', { project_id: p.projectId }), 3);
  const ctxEdit = (await push(p, { units: [{ source: 'Close', ctx: 'dialog' }] })).data!;
  const moved = (
    await push(p, { units: [{ source: 'Close', ctx: 'modal', previousSource: 'Close', previousCtx: 'dialog' }] })
  ).data!;
  t.like(moved.units[0], { key: ctxEdit.units[0].key, outcome: 'carriedOver' });
});

test('auto-verify gates unverified sources: created, skipped, free, and no new languages queued', async (t) => {
  const p = await createTestProject(svc);
  await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { autoVerify: true },
  });
  const r = (await push(p, { units: [{ source: 'Gated' }, { source: 'Gated too' }] })).data!;
  t.is(r.skippedGated, 2);
  t.is(r.estimatedCredits, 0);
  t.is(r.trackingToken, null);
  t.deepEqual(
    r.units.map((u) => [u.outcome, u.gated, u.pending]),
    [
      ['created', true, []],
      ['created', true, []],
    ],
  );
  const dry = (await preview(p, { units: [{ source: 'Gated' }] })).data!;
  t.like(dry, { estimatedCredits: 0, skippedGated: 1 });
  await svc.admin.PATCH('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: 'gated' } },
    body: { sourceVerified: true },
  });
  const after = (await push(p, { units: [{ source: 'Gated' }] })).data!;
  t.is(after.skippedGated, 0);
  t.deepEqual(after.units[0].pending, ['de', 'fr']);
  t.is(after.estimatedCredits, 10);
});

test('disabled keys are not translated, cost nothing and stay disabled', async (t) => {
  const p = await createTestProject(svc);
  await push(p, { units: [{ source: 'Legacy' }], langs: ['de'] });
  await runDue(p);
  await svc.admin.PATCH('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: 'legacy' } },
    body: { enabled: false },
  });
  const r = (await push(p, { units: [{ source: 'Legacy' }] })).data!;
  t.like(r, { skippedDisabled: 1, estimatedCredits: 0, trackingToken: null });
  t.true(r.units[0].disabled);
  const keys = (await svc.admin.GET('/projects/{projectId}/keys', { params: { path: { projectId: p.projectId } } }))
    .data!.keys;
  t.false(keys[0].enabled);
  const dry = (await preview(p, { units: [{ source: 'Legacy' }] })).data!;
  t.like(dry, { skippedDisabled: 1, estimatedCredits: 0 });
});

test('a dry run estimates, says whether it would be accepted, and writes nothing', async (t) => {
  const p = await createTestProject(svc, { creditsMc: 30 });
  const r = await preview(p, { units: [{ source: 'Twelve chars' }, { source: 'abc' }] });
  t.is(r.response.status, 200);
  t.like(r.data, { estimatedCredits: 30, balance: 30, accepted: true });
  t.deepEqual(
    r.data!.units!.map((u) => u.outcome),
    ['created', 'created'],
  );
  const over = await preview(p, { units: [{ source: 'Thirteen char' }, { source: 'abc' }] });
  t.like(over.data, { estimatedCredits: 32, accepted: false });
  for (const table of ['keys', 'translations', 'fill_jobs'])
    t.is(await count(table, { project_id: p.projectId }), 0, table);
  t.is(await balance(p), 30);
  const dryFalse = await p.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: p.projectId }, query: { dryRun: 'false' } },
    body: { units: [{ source: 'abc' }] },
  });
  t.like(dryFalse.data, { estimatedCredits: 6 });
  t.is(await count('keys', { project_id: p.projectId }), 1);
});

test('20 concurrent pushes of the same new unit create exactly one key', async (t) => {
  const p = await createTestProject(svc);
  const results = await Promise.all(Array.from({ length: 20 }, () => push(p, { units: [{ source: 'Race me' }] })));
  t.true(results.every((r) => r.response.status === 200));
  const outcomes = results.map((r) => r.data!.units[0].outcome);
  t.is(outcomes.filter((o) => o === 'created').length, 1);
  t.true(outcomes.every((o) => ['created', 'matched', 'contended'].includes(o)));
  t.is(await count('keys', { project_id: p.projectId }), 1);
  t.is(await count('translations', { project_id: p.projectId }), 2);
  const holds = results.reduce((a, r) => a + (r.data!.trackingToken ? r.data!.estimatedCredits : 0), 0);
  t.is(holds, 14, 'the pair was queued and held once');
});

test('engine none: translate answers 503 unavailable and writes nothing', async (t) => {
  const off = await startTestService({ TRANSLATION_ENGINE: 'none' });
  try {
    const p = await createTestProject(off);
    const r = await p.client.POST('/projects/{projectId}/translate', {
      params: { path: { projectId: p.projectId } },
      body: { units: [{ source: 'x' }] },
    });
    t.is(r.response.status, 503);
    t.is(r.error?.error, 'unavailable');
    t.regex(r.error!.message, /engine/);
    t.is(Number((await off.service.app.db('keys').count({ n: '*' }))[0].n), 0);
  } finally {
    await off.stop();
  }
});

test('the poll and key read need read or translate; unknown tokens and refs are 404', async (t) => {
  const p = await createTestProject(svc);
  const d = (await push(p, { units: [{ source: 'Scoped' }] })).data!;
  const reader = svc.client(await createTestKey(svc, p.projectId, ['read']));
  const r = await reader.GET('/projects/{projectId}/translations', {
    params: { path: { projectId: p.projectId }, query: { trackingToken: d.trackingToken! } },
  });
  t.is(r.response.status, 200);
  t.is((await poll(p, 'trk_nope')).response.status, 404);
  t.is((await readRef(p, 'nope')).response.status, 404);
  const none = await p.client.GET('/projects/{projectId}/translations', {
    params: { path: { projectId: p.projectId }, query: {} },
  });
  t.is(none.response.status, 400);
});

test('an agent key pushes for free but needs an operation for paid work: 403 authorization_required with the estimate', async (t) => {
  const p = await createTestProject(svc);
  const agent = svc.client(await createTestKey(svc, p.projectId, ['translate', 'read'], true));
  const paid = await agent.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: p.projectId } },
    body: { units: [{ source: 'Agent text' }] },
  });
  t.is(paid.response.status, 403);
  t.like(paid.error, { error: 'authorization_required', estimatedCredits: 20 });
  t.is(await count('keys', { project_id: p.projectId }), 0);
  const dry = await agent.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: p.projectId }, query: { dryRun: 'true' } },
    body: { units: [{ source: 'Agent text' }] },
  });
  t.like(dry.data, { estimatedCredits: 20, accepted: true });
  await push(p, { units: [{ source: 'Agent text' }] });
  await runDue(p);
  const free = await agent.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: p.projectId } },
    body: { units: [{ source: 'Agent text' }] },
  });
  t.is(free.response.status, 200);
  t.like(free.data, { trackingToken: null, estimatedCredits: 0 });
});

test('run-due scoped to a project runs its fill alone; another project waits for its own', async (t) => {
  const a = await createTestProject(svc);
  const b = await createTestProject(svc);
  const ta = (await push(a, { units: [{ source: 'Only mine' }] })).data!.trackingToken!;
  const tb = (await push(b, { units: [{ source: 'Not yet' }] })).data!.trackingToken!;
  const ran = await runDue(a);
  t.is(ran.response.status, 200);
  t.is((await poll(a, ta)).data!.status, 'done');
  t.is((await poll(b, tb)).data!.status, 'queued');
  await runDue(b);
  t.is((await poll(b, tb)).data!.status, 'done');
});
