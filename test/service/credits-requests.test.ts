// Credits (holds, charges, caps, plan limits) and idempotent requests (requestId) on translate, plus capture.
import test from 'ava';
import { translate, type TranslateRequest } from '../../packages/client/src/index.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { pollJob, type Schemas } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const push = (p: TestProject, body: TranslateRequest) => translate(p.client, p.projectId, body);
const rawPush = (p: TestProject, body: TranslateRequest) =>
  fetch(`${svc.baseUrl}/projects/${p.projectId}/translate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, text: await r.text() }));
const record = (p: TestProject, requestId: string, client = p.client) =>
  client.GET('/projects/{projectId}/requests/{requestId}', { params: { path: { projectId: p.projectId, requestId } } });
const runDue = (now?: number) =>
  svc.admin.POST('/jobs/run-due', { body: now ? { now: new Date(now).toISOString() } : {} });
const workspace = async (p: TestProject) =>
  (await svc.service.app.db('workspaces').where({ id: p.workspaceId }).first())!;
const count = async (table: string, where: Record<string, unknown>) =>
  Number((await svc.service.app.db(table).where(where).count({ n: '*' }))[0].n);

test.serial(
  'insufficient credits: 402 with availableCredits; keys and pending markers stay; the next push retries',
  async (t) => {
    const p = await createTestProject(svc, { creditsMc: 10 });
    const r = await push(p, { units: [{ source: 'Too expensive' }] });
    t.is(r.response.status, 402);
    t.like(r.error, { error: 'insufficient_credits', availableCredits: 10 });
    t.is(await count('keys', { project_id: p.projectId }), 1);
    t.is(await count('translations', { project_id: p.projectId, status: 'pending' }), 2);
    t.is(await count('fill_jobs', { project_id: p.projectId }), 0);
    await svc.admin.POST('/workspaces/{workspaceId}/credits', {
      params: { path: { workspaceId: p.workspaceId } },
      body: { mc: 100 },
    });
    const again = await push(p, { units: [{ source: 'Too expensive' }] });
    t.is(again.response.status, 200);
    t.like(again.data, { estimatedCredits: 26 });
    t.deepEqual(again.data!.units[0].pending, ['de', 'fr']);
    await runDue();
    const w = await workspace(p);
    t.is(Number(w.balance_mc), 110 - 26);
    t.is(Number(w.held_mc), 0);
  },
);

test.serial('two concurrent pushes that together exceed the balance never overdraw it', async (t) => {
  const p = await createTestProject(svc, { creditsMc: 100, languages: [{ code: 'de' }] });
  const units = (tag: string) => ({ units: [{ source: `${tag} `.repeat(15).trim() }] }); // 89 characters each: only one fits
  const results = await Promise.all(['alpha', 'bravo', 'charl', 'delta'].map((tag) => push(p, units(tag))));
  const ok = results.filter((r) => r.response.status === 200);
  const refused = results.filter((r) => r.response.status === 402);
  t.deepEqual(results.map((r) => r.response.status).sort(), [200, 402, 402, 402]);
  t.is(ok.length, 1);
  t.is(refused.length, 3);
  const w = await workspace(p);
  t.true(Number(w.balance_mc) - Number(w.held_mc) >= 0);
  await runDue();
  const after = await workspace(p);
  t.true(Number(after.balance_mc) >= 0);
  t.is(Number(after.held_mc), 0);
  t.is(Number(after.balance_mc), 100 - ok[0].data!.estimatedCredits);
});

test.serial('the monthly spending cap refuses with capRemaining and spendingCap', async (t) => {
  const p = await createTestProject(svc, { creditsMc: 10_000 });
  await svc.admin.PATCH('/workspaces/{workspaceId}', {
    params: { path: { workspaceId: p.workspaceId } },
    body: { spendingCapMc: 50 },
  });
  const first = await push(p, { units: [{ source: 'Twenty characters!!' }] }); // 19 chars × 2 = 38
  t.is(first.response.status, 200);
  await runDue();
  const second = await push(p, { units: [{ source: 'Ten chars!' }] }); // 20
  t.is(second.response.status, 402);
  t.like(second.error, { error: 'spend_cap_exceeded', capRemaining: 12, spendingCap: 50 });
});

test.serial('the key cap refuses new keys with 402 plan_limit and writes none', async (t) => {
  const p = await createTestProject(svc);
  await svc.admin.PATCH('/workspaces/{workspaceId}', {
    params: { path: { workspaceId: p.workspaceId } },
    body: { keyLimit: 2 },
  });
  t.is((await push(p, { units: [{ source: 'k1' }, { source: 'k2' }] })).response.status, 200);
  const over = await push(p, { units: [{ source: 'k1' }, { source: 'k3' }] });
  t.is(over.response.status, 402);
  t.like(over.error, { error: 'plan_limit', details: [{ feature: 'keys', limit: 2 }] });
  t.is(await count('keys', { project_id: p.projectId }), 2);
  const dry = await p.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: p.projectId }, query: { dryRun: 'true' } },
    body: { units: [{ source: 'k4' }] },
  });
  t.like(dry.data, { accepted: false });
});

test.serial(
  'a job that runs out of credits mid-way ends aborted_no_credits and charges only what it translated',
  async (t) => {
    const p = await createTestProject(svc, { creditsMc: 1_000_000, languages: [{ code: 'de' }] });
    const units = Array.from({ length: 300 }, (_, i) => ({ source: `String number ${i}` }));
    const d = (await push(p, { units })).data!;
    // Credits are taken away after the hold: the first batch's charge is no longer covered.
    await svc.service.app.db('workspaces').where({ id: p.workspaceId }).update({ balance_mc: 5 });
    await runDue();
    const poll = (await pollJob(p.client, p.projectId, d.trackingToken!)).data!;
    t.is(poll.status, 'aborted_no_credits');
    t.true(poll.creditsCharged <= poll.estimatedCredits);
    const w = await workspace(p);
    t.true(Number(w.balance_mc) >= 0);
    t.is(Number(w.held_mc), 0);
    t.is(poll.summary.pending + poll.summary.translated + poll.summary.failed, 300);
  },
);

test.serial('requestId: the same id and body replays the first answer byte for byte and writes nothing', async (t) => {
  const p = await createTestProject(svc);
  const body = { units: [{ source: 'Idempotent' }], requestId: 'req-1' };
  const first = await rawPush(p, body);
  t.is(first.status, 200);
  const keys = await count('keys', { project_id: p.projectId });
  const second = await rawPush(p, { requestId: 'req-1', units: [{ source: 'Idempotent' }] });
  t.is(second.status, 200);
  t.is(second.text, first.text);
  const answer = JSON.parse(first.text) as Schemas['TranslateResult'];
  t.truthy(answer.trackingToken);
  t.is(await count('keys', { project_id: p.projectId }), keys);
  t.is(await count('fill_jobs', { project_id: p.projectId }), 1);
  const rec = (await record(p, 'req-1')).data!;
  t.like(rec, { state: 'done', status: 200, trackingToken: answer.trackingToken });
  t.deepEqual(rec.response, JSON.parse(first.text));
  const mismatch = await push(p, { units: [{ source: 'Something else' }], requestId: 'req-1' });
  t.is(mismatch.response.status, 409);
  t.is(mismatch.error?.error, 'request_mismatch');
});

test.serial('20 concurrent requests with one requestId have exactly one effect', async (t) => {
  const p = await createTestProject(svc);
  const body = { units: [{ source: 'Once only' }, { source: 'And this' }], requestId: 'burst' };
  const results = await Promise.all(Array.from({ length: 20 }, () => rawPush(p, body)));
  const ok = results.filter((r) => r.status === 200);
  t.true(ok.length >= 1);
  t.true(ok.every((r) => r.text === ok[0].text));
  for (const r of results.filter((x) => x.status !== 200)) {
    t.is(r.status, 409);
    const b = JSON.parse(r.text) as Schemas['RequestInProgressError'];
    t.is(b.error, 'request_in_progress');
    t.truthy(Date.parse(b.leaseUntil));
  }
  t.is(await count('keys', { project_id: p.projectId }), 2);
  t.is(await count('fill_jobs', { project_id: p.projectId }), 1);
  t.is(await count('request_records', { project_id: p.projectId }), 1);
});

test.serial(
  'request records: scoped to the key, states by time, expired after 24 hours, unknown after 90 days',
  async (t) => {
    const p = await createTestProject(svc);
    t.deepEqual((await record(p, 'never')).data, { state: 'unknown' });
    await push(p, { units: [{ source: 'Recorded' }], requestId: 'rec-1' });
    const other = svc.client(await createTestKey(svc, p.projectId, ['read']));
    t.deepEqual((await record(p, 'rec-1', other)).data, { state: 'unknown' }, 'another key does not see it');
    const db = svc.service.app.db;
    const row = (await db('request_records').where({ request_id: 'rec-1' }).first())!;
    await db('request_records')
      .where({ request_id: 'rec-1' })
      .update({ closed_at: Number(row.closed_at) - 25 * 3600_000 });
    const expired = (await record(p, 'rec-1')).data!;
    t.like(expired, { state: 'expired', stateWas: 'done' });
    t.truthy(expired.trackingToken);
    const resend = await push(p, { units: [{ source: 'Recorded' }], requestId: 'rec-1' });
    t.is(resend.response.status, 409);
    t.is(resend.error?.error, 'request_expired');
    await db('request_records')
      .where({ request_id: 'rec-1' })
      .update({ closed_at: Number(row.closed_at) - 91 * 24 * 3600_000 });
    t.deepEqual((await record(p, 'rec-1')).data, { state: 'unknown' });
    await runDue();
    t.is(await count('request_records', { request_id: 'rec-1' }), 0, 'the sweep forgets it');
    const refused = await push(p, { units: [{ source: 'x' }], langs: ['it'], requestId: 'rec-2' });
    t.is(refused.response.status, 400);
    const failed = (await record(p, 'rec-2')).data!;
    t.like(failed, { state: 'failed', status: 400 });
    t.is(failed.body?.error, 'invalid_argument');
    const bad = await record(p, '__reserved__');
    t.is(bad.response.status, 400);
  },
);

test.serial(
  'an expired lease is recovered: enqueued work keeps its captured answer, otherwise failed and orphaned',
  async (t) => {
    const p = await createTestProject(svc);
    const db = svc.service.app.db;
    const keyId = p.apiKey.split('_')[1];
    const now = Date.now();
    await db('request_records').insert({
      api_key_id: keyId,
      request_id: 'crashed-early',
      project_id: p.projectId,
      action: 'translate',
      body_hash: 'x',
      state: 'processing',
      lease_until: now - 1,
      recovery_version: 1,
      created_at: now - 60_000,
    });
    await db('request_records').insert({
      api_key_id: keyId,
      request_id: 'crashed-late',
      project_id: p.projectId,
      action: 'translate',
      body_hash: 'y',
      state: 'processing',
      lease_until: now + 30_000,
      recovery_version: 1,
      captured_response: '{"trackingToken":"trk_x"}',
      tracking_token: 'trk_x',
      status: 200,
      created_at: now,
    });
    await db('request_records').insert({
      api_key_id: keyId,
      request_id: 'legacy',
      project_id: p.projectId,
      action: 'translate',
      body_hash: 'z',
      state: 'processing',
      lease_until: now - 1,
      recovery_version: null,
      created_at: now,
    });
    const early = (await record(p, 'crashed-early')).data!;
    t.like(early, { state: 'failed', orphaned: true });
    t.like((await record(p, 'crashed-late')).data, { state: 'processing' });
    t.like((await record(p, 'legacy')).data, { state: 'processing' }, 'legacy records are not taken automatically');
    await runDue(now + 120_000);
    const late = (await record(p, 'crashed-late')).data!;
    t.like(late, { state: 'done', trackingToken: 'trk_x' });
    t.deepEqual(late.response, { trackingToken: 'trk_x' });
  },
);

test.serial(
  'capture: unknown strings become captured keys for review; known ones are skipped; nothing is charged',
  async (t) => {
    const p = await createTestProject(svc);
    const capturer = svc.client(await createTestKey(svc, p.projectId, ['capture']));
    await push(p, { units: [{ source: 'Known' }] });
    const before = Number((await workspace(p)).balance_mc) - Number((await workspace(p)).held_mc);
    const r = await capturer.POST('/projects/{projectId}/capture', {
      params: { path: { projectId: p.projectId } },
      body: {
        units: [{ source: 'Known' }, { source: 'New one' }, { source: 'New one' }, { source: 'New one', ctx: 'menu' }],
      },
    });
    t.is(r.response.status, 200);
    t.deepEqual(r.data, { captured: 2, skipped: 2 });
    const keys = (
      await svc.admin.GET('/projects/{projectId}/keys', {
        params: { path: { projectId: p.projectId }, query: { captured: true } },
      })
    ).data!.keys;
    t.deepEqual(keys.map((k) => k.key).sort(), ['menu.new_one', 'new_one']);
    t.is(
      await count('translations', { project_id: p.projectId, status: 'pending' }),
      2,
      'only the pushed key has markers',
    );
    t.is(Number((await workspace(p)).balance_mc) - Number((await workspace(p)).held_mc), before);
    const tooMany = await capturer.POST('/projects/{projectId}/capture', {
      params: { path: { projectId: p.projectId } },
      body: { units: Array.from({ length: 201 }, (_, i) => ({ source: `c${i}` })) },
    });
    t.is(tooMany.error?.error, 'too_many_units');
    const translateKey = svc.client(await createTestKey(svc, p.projectId, ['translate', 'write']));
    const forbidden = await translateKey.POST('/projects/{projectId}/capture', {
      params: { path: { projectId: p.projectId } },
      body: { units: [{ source: 'x' }] },
    });
    t.is(forbidden.response.status, 403);
  },
);

test.serial('capture stops at 5,000 new captured keys per project per day', async (t) => {
  const p = await createTestProject(svc);
  const day = new Date().toISOString().slice(0, 10);
  await svc.service.app.db('daily_counts').insert({ project_id: p.projectId, kind: 'capture', day, n: 4_998 });
  const r = await p.client.POST('/projects/{projectId}/capture', {
    params: { path: { projectId: p.projectId } },
    body: { units: [{ source: 'q1' }, { source: 'q2' }, { source: 'q3' }] },
  });
  t.deepEqual(r.data, { captured: 2, skipped: 1 });
  const full = await p.client.POST('/projects/{projectId}/capture', {
    params: { path: { projectId: p.projectId } },
    body: { units: [{ source: 'q4' }] },
  });
  t.deepEqual(full.data, { captured: 0, skipped: 1 });
});
