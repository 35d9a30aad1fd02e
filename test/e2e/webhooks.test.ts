// Webhooks (spec: createWebhook … resendWebhookDelivery, `strings.published`; docs/guides/webhooks.md):
// the routes and their rules, and deliveries to a real HTTPS receiver on loopback whose certificate authority is
// made for the run and trusted through WEBHOOK_CA_FILE. WEBHOOK_ALLOW_PRIVATE is on here (the receiver is on
// loopback); the address rules with it off are webhooks-ssrf.test.ts. Signatures are checked with Node's crypto
// and the standardwebhooks package, never with the service's own code. Time moves only through run-due with a
// simulated `now`, so every test that runs jobs is serial.
import { spawn } from 'node:child_process';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { recordEvent, newEventId, deliveryJobKey, WEBHOOK_DELIVER_JOB } from '../../server/domain/webhooks/events.js';
import { JobQueue } from '../../server/infra/jobs.js';
import { entryArgs } from '../helpers/entry.js';
import { deliverAttempt, RETRY_BACKOFF_MS } from '../../server/domain/webhooks/deliver.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  ADMIN_TOKEN,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import {
  makeTestCa,
  startReceiver,
  startSilentServer,
  type Received,
  type Receiver,
  type TestCa,
} from '../helpers/webhook-receiver.js';

let svc: TestService;
let ca: TestCa;
let rx: Receiver;
const moved = new Map<string, string>();

test.before(async () => {
  ca = makeTestCa();
  rx = await startReceiver(ca);
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_CA_FILE: ca.caFile });
  // hooks.test and its subdomains are the receiver on loopback, unless a test moves a name.
  svc.service.app.webhookResolver = (host) =>
    moved.has(host)
      ? Promise.resolve([moved.get(host)!])
      : host === 'hooks.test' || host.endsWith('.hooks.test')
        ? Promise.resolve(['127.0.0.1'])
        : Promise.reject(new Error('NXDOMAIN'));
});
test.after.always(async () => {
  await svc?.stop();
  await rx?.close();
  ca?.remove();
});

const MIN = 60_000;
const HOUR = 60 * MIN;
const hookUrl = (p: string, port = rx.port) => `https://hooks.test:${port}${p}`;
const runDue = async (at: number) => {
  const r = await svc.admin.POST('/jobs/run-due', { body: { now: new Date(at).toISOString() } });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
};

async function create(
  p: TestProject,
  url: string,
  events: Array<'strings.published' | 'content.published'> = ['strings.published'],
) {
  return p.client.POST('/projects/{projectId}/webhooks', {
    params: { path: { projectId: p.projectId } },
    body: { url, events },
  });
}

async function createOk(p: TestProject, url: string) {
  const r = await create(p, url);
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
}

async function publish(p: TestProject): Promise<string> {
  const r = await p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
    body: { label: 'hooked' },
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data.versionId;
}

async function deliveries(p: TestProject, webhookId: string) {
  const r = await p.client.GET('/projects/{projectId}/webhooks/{webhookId}/deliveries', {
    params: { path: { projectId: p.projectId, webhookId } },
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data.deliveries;
}

async function getHook(p: TestProject, webhookId: string) {
  const r = await p.client.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: p.projectId } } });
  return r.data!.webhooks.find((w) => w.webhookId === webhookId)!;
}

/** The v1 values of X-Glossa-Signature that match, checked with Node's crypto alone. */
function oursMatching(r: Received, secrets: string[]): number {
  const [tPart, ...v1] = r.headers['x-glossa-signature'].split(',');
  const t = tPart.replace(/^t=/, '');
  const expected = secrets.map((s) => createHmac('sha256', s).update(`${t}.`).update(r.body).digest('hex'));
  return v1.map((v) => v.replace(/^v1=/, '')).filter((v) => expected.includes(v)).length;
}

const standardOk = (r: Received, secret: string) => {
  try {
    new StandardWebhook(secret).verify(r.body, r.headers);
    return true;
  } catch {
    return false;
  }
};

test('create, list, update, delete; the secret is shown on create only', async (t) => {
  const p = await createTestProject(svc);
  const r = await create(p, hookUrl('/crud'), ['strings.published', 'content.published']);
  t.is(r.response.status, 201);
  const w = r.data!;
  t.regex(w.secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
  t.is(w.secretHint, w.secret.slice(-4));
  t.like(w, { enabled: true, disabledReason: null, url: hookUrl('/crud') });
  t.deepEqual(w.events, ['strings.published', 'content.published']);
  const list = await p.client.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: p.projectId } } });
  t.is(list.data!.webhooks.length, 1);
  t.false('secret' in list.data!.webhooks[0]);
  t.false(JSON.stringify(list.data).includes(w.secret));
  const path = { projectId: p.projectId, webhookId: w.webhookId };
  const u = await p.client.PATCH('/projects/{projectId}/webhooks/{webhookId}', {
    params: { path },
    body: { url: hookUrl('/crud2'), events: ['content.published'], enabled: false },
  });
  t.like(u.data, { url: hookUrl('/crud2'), enabled: false, disabledReason: null, secretHint: w.secretHint });
  t.deepEqual(u.data!.events, ['content.published']);
  t.false('secret' in u.data!);
  const d = await p.client.DELETE('/projects/{projectId}/webhooks/{webhookId}', { params: { path } });
  t.is(d.response.status, 204);
  const gone = await p.client.PATCH('/projects/{projectId}/webhooks/{webhookId}', {
    params: { path },
    body: { enabled: true },
  });
  t.is(gone.response.status, 404);
  for (const call of [
    p.client.DELETE('/projects/{projectId}/webhooks/{webhookId}', { params: { path } }),
    p.client.POST('/projects/{projectId}/webhooks/{webhookId}/rotate-secret', { params: { path } }),
    p.client.GET('/projects/{projectId}/webhooks/{webhookId}/deliveries', { params: { path } }),
    p.client.POST('/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', {
      params: { path: { ...path, deliveryId: 'dlv_nope' } },
    }),
  ])
    t.is((await call).response.status, 404);
});

test('eight concurrent creates in one project: five webhooks, three 409 webhook_limit', async (t) => {
  const p = await createTestProject(svc);
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => create(p, hookUrl(`/race${i}`))));
  t.deepEqual(answers.map((a) => a.response.status).sort(), [201, 201, 201, 201, 201, 409, 409, 409]);
  for (const a of answers) if (a.response.status === 409) t.is(a.error!.error, 'webhook_limit');
  const list = await p.client.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: p.projectId } } });
  t.is(list.data!.webhooks.length, 5);
});

test('bad input is 400 invalid_argument and writes nothing; the sixth webhook is 409 webhook_limit', async (t) => {
  const p = await createTestProject(svc);
  const raw = (body: unknown) =>
    fetch(`${svc.baseUrl}/projects/${p.projectId}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  for (const body of [
    {},
    { url: hookUrl('/x') },
    { url: hookUrl('/x'), events: [] },
    { url: hookUrl('/x'), events: ['project.updated'] },
    { url: hookUrl('/x'), events: ['strings.published', 'strings.published'] },
    { url: 'http://hooks.test/x', events: ['strings.published'] },
    { url: 'https://user:pw@hooks.test/x', events: ['strings.published'] },
    { url: 'https://:pw@hooks.test/x', events: ['strings.published'] },
    { url: 'not a url', events: ['strings.published'] },
    { url: 'https://nowhere.invalid/x', events: ['strings.published'] },
    { url: hookUrl('/x'), events: ['strings.published'], secret: 'mine' },
  ]) {
    const r = await raw(body);
    t.is(r.status, 400, JSON.stringify(body));
    t.is(((await r.json()) as { error: string }).error, 'invalid_argument');
  }
  const list = await p.client.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: p.projectId } } });
  t.deepEqual(list.data!.webhooks, []);
  const ids = [];
  for (let i = 0; i < 5; i++) ids.push((await createOk(p, hookUrl(`/limit${i}`))).webhookId);
  const sixth = await create(p, hookUrl('/limit5'));
  t.is(sixth.response.status, 409);
  t.is(sixth.error!.error, 'webhook_limit');
  t.is(
    (await p.client.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: p.projectId } } })).data!
      .webhooks.length,
    5,
  );
  const path = { projectId: p.projectId, webhookId: ids[0] };
  for (const body of [{}, { url: 'http://hooks.test/x' }, { events: [] }, { enabled: 'yes' }, { secret: 'x' }]) {
    const r = await fetch(`${svc.baseUrl}/projects/${p.projectId}/webhooks/${ids[0]}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    t.is(r.status, 400, JSON.stringify(body));
  }
  t.is((await getHook(p, path.webhookId)).url, hookUrl('/limit0'));
  // After a delete there is room again.
  await p.client.DELETE('/projects/{projectId}/webhooks/{webhookId}', { params: { path } });
  t.is((await create(p, hookUrl('/limit5'))).response.status, 201);
});

test('metadata addresses stay refused with WEBHOOK_ALLOW_PRIVATE; loopback and private ranges open', async (t) => {
  const p = await createTestProject(svc);
  for (const url of [
    'https://169.254.169.254/latest/meta-data',
    'https://[fd00:ec2::254]/',
    'https://100.100.100.200/',
    'https://[::ffff:169.254.169.254]/',
    'https://2852039166/',
    'https://169.254.1.1/',
    'https://100.64.0.1/',
    'https://224.0.0.1/',
    'https://0.0.0.0/',
  ]) {
    const r = await create(p, url);
    t.is(r.response.status, 400, url);
  }
  for (const url of ['https://127.0.0.1:9/x', 'https://10.1.2.3/x', 'https://[::1]/x', 'https://192.168.0.1/x']) {
    t.is((await create(p, url)).response.status, 201, url);
  }
});

test('scope publish: a key without it is 403 on every webhook route', async (t) => {
  const p = await createTestProject(svc);
  const w = await createOk(p, hookUrl('/scoped'));
  for (const scopes of [['read'], ['write', 'translate', 'capture']] as const) {
    const key = await createTestKey(svc, p.projectId, [...scopes]);
    const c = svc.client(key);
    const path = { projectId: p.projectId, webhookId: w.webhookId };
    const calls = [
      c.POST('/projects/{projectId}/webhooks', {
        params: { path },
        body: { url: hookUrl('/s'), events: ['strings.published'] },
      }),
      c.GET('/projects/{projectId}/webhooks', { params: { path } }),
      c.PATCH('/projects/{projectId}/webhooks/{webhookId}', { params: { path }, body: { enabled: true } }),
      c.DELETE('/projects/{projectId}/webhooks/{webhookId}', { params: { path } }),
      c.POST('/projects/{projectId}/webhooks/{webhookId}/rotate-secret', { params: { path } }),
      c.GET('/projects/{projectId}/webhooks/{webhookId}/deliveries', { params: { path } }),
      c.POST('/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', {
        params: { path: { ...path, deliveryId: 'dlv_x' } },
      }),
    ];
    for (const r of await Promise.all(calls)) t.is(r.response.status, 403);
  }
  const pub = svc.client(await createTestKey(svc, p.projectId, ['publish']));
  t.is(
    (await pub.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: p.projectId } } })).response.status,
    200,
  );
});

test.serial('a publish is delivered once, signed (both schemes) over the exact bytes, with the 6.2 body', async (t) => {
  const p = await createTestProject(svc);
  const w = await createOk(p, hookUrl('/signed'));
  const off = await createOk(p, hookUrl('/off'));
  await p.client.PATCH('/projects/{projectId}/webhooks/{webhookId}', {
    params: { path: { projectId: p.projectId, webhookId: off.webhookId } },
    body: { enabled: false },
  });
  const content = await createOk(p, hookUrl('/content-only'));
  await p.client.PATCH('/projects/{projectId}/webhooks/{webhookId}', {
    params: { path: { projectId: p.projectId, webhookId: content.webhookId } },
    body: { events: ['content.published'] },
  });
  const versionId = await publish(p);
  const [d] = await deliveries(p, w.webhookId);
  t.like(d, {
    status: 'pending',
    attempts: 0,
    publishId: versionId,
    eventType: 'strings.published',
    lastStatusCode: null,
  });
  t.deepEqual(await deliveries(p, off.webhookId), []);
  t.deepEqual(await deliveries(p, content.webhookId), []);
  await runDue(Date.now());
  const got = rx.at('/signed');
  t.is(got.length, 1);
  const r = got[0];
  t.is(oursMatching(r, [w.secret]), 1);
  t.regex(r.headers['x-glossa-signature'], /^t=\d+,v1=[0-9a-f]{64}$/);
  t.true(Math.abs(Number(r.headers['x-glossa-signature'].slice(2, 12)) - Date.now() / 1000) < 60);
  t.true(standardOk(r, w.secret));
  t.false(standardOk(r, 'whsec_' + Buffer.from('wrong key 0123456789abcdef').toString('base64')));
  const body = JSON.parse(r.body.toString('utf8')) as Record<string, unknown> & { id: string };
  t.is(r.headers['x-glossa-event-id'], body.id);
  t.is(r.headers['webhook-id'], body.id);
  t.is(r.headers['x-glossa-webhook-id'], w.webhookId);
  t.is(r.headers['content-type'], 'application/json');
  t.like(body, { type: 'strings.published', schemaVersion: 1, project: { id: p.projectId } });
  t.regex(body.createdAt as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.like(body.data, { versionId, label: 'hooked', keyCount: 0 });
  t.true(Array.isArray((body.data as { languages: unknown }).languages));
  t.like((await deliveries(p, w.webhookId))[0], {
    eventId: body.id,
    status: 'delivered',
    attempts: 1,
    nextAttemptAt: null,
    lastStatusCode: 204,
    lastError: null,
  });
  // Delivered once: another run-due sends nothing.
  await runDue(Date.now() + HOUR);
  t.is(rx.at('/signed').length, 1);
  t.is(rx.at('/off').length + rx.at('/content-only').length, 0);
});

test.serial('a content publish is delivered as content.published (6.3) to the webhooks subscribed to it', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'fr' }], contentEnabled: true });
  const strings = await createOk(p, hookUrl('/strings-only'));
  const content = await createOk(p, hookUrl('/content'));
  await p.client.PATCH('/projects/{projectId}/webhooks/{webhookId}', {
    params: { path: { projectId: p.projectId, webhookId: content.webhookId } },
    body: { events: ['content.published'] },
  });
  const push = await p.client.PUT('/projects/{projectId}/content/{docId}', {
    params: { path: { projectId: p.projectId, docId: 'faq' } },
    body: { title: 'FAQ', text: '# FAQ\n\nAsk us anything.', externalId: '7' },
  });
  t.is(push.response.status, 201);
  const pub = await svc.admin.POST('/projects/{projectId}/content/publish', {
    params: { path: { projectId: p.projectId } },
    body: {},
  });
  await runDue(Date.now());
  const got = rx.at('/content');
  t.is(got.length, 1);
  t.is(oursMatching(got[0], [content.secret]), 1);
  t.true(standardOk(got[0], content.secret));
  const body = JSON.parse(got[0].body.toString('utf8')) as { type: string; data: Record<string, unknown> };
  t.is(body.type, 'content.published');
  t.deepEqual(body.data, {
    publishId: pub.data!.publishId,
    summary: { docsPublished: 1, docsHeld: 0, docsUnchanged: 0, docsSkipped: 0, docsTooLarge: 0 },
    documents: [{ docId: 'faq', action: 'published', versionId: pub.data!.versionId, externalId: '7' }],
    truncated: false,
  });
  t.like((await deliveries(p, content.webhookId))[0], {
    eventType: 'content.published',
    publishId: pub.data!.publishId,
  });
  t.is(rx.at('/strings-only').length, 0);
  t.deepEqual(await deliveries(p, strings.webhookId), []);
});

test.serial('rotation: both secrets sign for 24 hours, then only the new one', async (t) => {
  const p = await createTestProject(svc);
  const w = await createOk(p, hookUrl('/rotate'));
  const path = { projectId: p.projectId, webhookId: w.webhookId };
  const before = Date.now();
  const rot = await p.client.POST('/projects/{projectId}/webhooks/{webhookId}/rotate-secret', { params: { path } });
  t.is(rot.response.status, 200);
  const { secret, previousSecretExpiresAt } = rot.data!;
  t.not(secret, w.secret);
  const expires = Date.parse(previousSecretExpiresAt);
  t.true(expires >= before + 24 * HOUR && expires <= Date.now() + 24 * HOUR);
  t.is((await getHook(p, w.webhookId)).secretHint, secret.slice(-4));
  await publish(p);
  await runDue(Date.now());
  const first = rx.at('/rotate')[0];
  t.is(first.headers['x-glossa-signature'].split(',').length, 3);
  t.is(oursMatching(first, [secret]), 1);
  t.is(oursMatching(first, [w.secret]), 1);
  t.is(first.headers['webhook-signature'].split(' ').length, 2);
  t.true(standardOk(first, secret));
  t.true(standardOk(first, w.secret));
  // Past the 24 hours a resend is signed with the new secret only.
  const [d] = await deliveries(p, w.webhookId);
  await p.client.POST('/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', {
    params: { path: { ...path, deliveryId: d.deliveryId } },
  });
  await runDue(expires + 1);
  const second = rx.at('/rotate')[1];
  t.is(second.headers['x-glossa-signature'].split(',').length, 2);
  t.is(oursMatching(second, [secret]), 1);
  t.true(standardOk(second, secret));
  t.false(standardOk(second, w.secret));
  t.is(second.headers['x-glossa-event-id'], first.headers['x-glossa-event-id']);
});

test.serial(
  'the retry schedule through run-due, failed after six attempts, three failed in a row disable; enabled clears',
  async (t) => {
    const p = await createTestProject(svc);
    const w = await createOk(p, hookUrl('/fails'));
    rx.answer('/fails', { status: 503, body: 'down for maintenance' });
    await publish(p);
    await publish(p);
    await publish(p);
    const t0 = Date.now() + 1000;
    const waits = [30_000, 2 * MIN, 10 * MIN, HOUR, 6 * HOUR];
    let now = t0;
    await runDue(now);
    t.is(rx.at('/fails').length, 3);
    for (const [i, wait] of waits.entries()) {
      const ds = await deliveries(p, w.webhookId);
      for (const d of ds) {
        t.like(d, { status: 'pending', attempts: i + 1, lastStatusCode: 503 });
        t.is(d.lastError, 'HTTP 503: down for maintenance');
        t.is(Date.parse(d.nextAttemptAt!), now + wait);
      }
      // Not a moment early.
      await runDue(now + wait - 1);
      t.is(rx.at('/fails').length, 3 * (i + 1));
      now += wait;
      await runDue(now);
      t.is(rx.at('/fails').length, 3 * (i + 2));
    }
    const ds = await deliveries(p, w.webhookId);
    for (const d of ds) t.like(d, { status: 'failed', attempts: 6, nextAttemptAt: null, lastStatusCode: 503 });
    // Each delivery repeated its own event id on every attempt.
    t.is(new Set(rx.at('/fails').map((r) => r.headers['x-glossa-event-id'])).size, 3);
    await runDue(now + 24 * HOUR);
    t.is(rx.at('/fails').length, 18);
    t.like(await getHook(p, w.webhookId), { enabled: false, disabledReason: 'auto_failures' });
    // Disabled: a publish creates no delivery.
    await publish(p);
    t.is((await deliveries(p, w.webhookId)).length, 3);
    const path = { projectId: p.projectId, webhookId: w.webhookId };
    const on = await p.client.PATCH('/projects/{projectId}/webhooks/{webhookId}', {
      params: { path },
      body: { enabled: true },
    });
    t.like(on.data, { enabled: true, disabledReason: null });
    // The count was cleared: one more failed delivery does not disable it again.
    await publish(p);
    let at = Date.now() + 1000;
    await runDue(at);
    for (const wait of waits) await runDue((at += wait));
    t.like(await getHook(p, w.webhookId), { enabled: true, disabledReason: null });
    // A resend of a failed delivery starts over with the same event id, and succeeds.
    rx.answer('/fails', { status: 200 });
    const [last] = await deliveries(p, w.webhookId);
    t.is(last.status, 'failed');
    const re = await p.client.POST('/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', {
      params: { path: { ...path, deliveryId: last.deliveryId } },
    });
    t.is(re.response.status, 202);
    t.like(re.data, { status: 'pending', attempts: 6, eventId: last.eventId });
    await runDue(at + 1000);
    t.like((await deliveries(p, w.webhookId))[0], {
      status: 'delivered',
      attempts: 7,
      lastStatusCode: 200,
      lastError: null,
    });
    t.is(rx.at('/fails').at(-1)!.headers['x-glossa-event-id'], last.eventId);
  },
);

test.serial(
  'a redirect fails and is not followed; 410 Gone is a failed attempt retried on the schedule; a long error body is capped',
  async (t) => {
    const p = await createTestProject(svc);
    const redirect = await createOk(p, hookUrl('/redirect'));
    const gone = await createOk(p, hookUrl('/gone'));
    const loud = await createOk(p, hookUrl('/loud'));
    rx.answer('/redirect', { status: 302, headers: { location: hookUrl('/elsewhere') } });
    rx.answer('/gone', { status: 410 });
    rx.answer('/loud', { status: 500, body: 'x'.repeat(5_000_000) });
    await publish(p);
    await runDue(Date.now() + 1000);
    t.is(rx.at('/redirect').length, 1);
    t.is(rx.at('/elsewhere').length, 0);
    t.like((await deliveries(p, redirect.webhookId))[0], { status: 'pending', lastStatusCode: 302, attempts: 1 });
    t.regex((await deliveries(p, redirect.webhookId))[0].lastError!, /redirect/);
    // `Webhook.disabledReason`: a 410 is one failed attempt like any other non-2xx; only auto_failures disables.
    const first = (await deliveries(p, gone.webhookId))[0];
    t.like(first, { status: 'pending', lastStatusCode: 410, attempts: 1 });
    t.truthy(first.nextAttemptAt);
    t.like(await getHook(p, gone.webhookId), { enabled: true, disabledReason: null });
    const l = (await deliveries(p, loud.webhookId))[0];
    t.like(l, { status: 'pending', lastStatusCode: 500 });
    t.true(l.lastError!.length <= 220);
    t.like(await getHook(p, redirect.webhookId), { enabled: true });
    // The receiver, fixed, takes the retry 30 seconds later: the delivery is not lost.
    rx.answer('/gone', { status: 204 });
    await runDue(Date.parse(first.nextAttemptAt!) + 1000);
    t.is(rx.at('/gone').length, 2);
    t.like((await deliveries(p, gone.webhookId))[0], { status: 'delivered', lastStatusCode: 204, attempts: 2 });
    t.like(await getHook(p, gone.webhookId), { enabled: true, disabledReason: null });
  },
);

test.serial('a receiver slower than 10 seconds and a connection that never opens are failed attempts', async (t) => {
  const p = await createTestProject(svc);
  const silent = await startSilentServer();
  try {
    const slow = await createOk(p, hookUrl('/slow'));
    const stuck = await createOk(p, hookUrl('/stuck', silent.port));
    rx.answer('/slow', { status: 200, delayMs: 12_000 });
    await publish(p);
    const started = Date.now();
    await runDue(Date.now() + 1000);
    t.true(Date.now() - started < 20_000);
    const s = (await deliveries(p, slow.webhookId))[0];
    t.like(s, { status: 'pending', attempts: 1, lastStatusCode: null });
    t.regex(s.lastError!, /timed out.*10 seconds/);
    const c = (await deliveries(p, stuck.webhookId))[0];
    t.like(c, { status: 'pending', attempts: 1, lastStatusCode: null });
    t.regex(c.lastError!, /connect timed out.*5 seconds/);
  } finally {
    await silent.close();
  }
});

test.serial(
  'resend while an attempt is in flight is 409 delivery_in_flight; a pending one is brought forward',
  async (t) => {
    const p = await createTestProject(svc);
    const w = await createOk(p, hookUrl('/inflight'));
    rx.answer('/inflight', (n) => (n === 1 ? { status: 500 } : { status: 200, delayMs: 1500 }));
    await publish(p);
    const t0 = Date.now() + 1000;
    await runDue(t0);
    const [d] = await deliveries(p, w.webhookId);
    t.is(d.status, 'pending');
    const path = { projectId: p.projectId, webhookId: w.webhookId, deliveryId: d.deliveryId };
    // Pending for a retry 30 s away: a resend makes it due now.
    const re = await p.client.POST('/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', {
      params: { path },
    });
    t.is(re.response.status, 202);
    const running = runDue(Date.now());
    let seen = false;
    for (let i = 0; i < 100 && !seen; i++) {
      seen = (await deliveries(p, w.webhookId))[0].status === 'delivering';
      if (!seen) await new Promise((r) => setTimeout(r, 20));
    }
    t.true(seen);
    const busy = await p.client.POST('/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', {
      params: { path },
    });
    t.is(busy.response.status, 409);
    t.is(busy.error!.error, 'delivery_in_flight');
    await running;
    t.like((await deliveries(p, w.webhookId))[0], { status: 'delivered', attempts: 2 });
    t.is(rx.at('/inflight').length, 2);
  },
);

test.serial('a delivery coming due for a disabled webhook is not sent and ends failed without counting', async (t) => {
  const p = await createTestProject(svc);
  const w = await createOk(p, hookUrl('/disabled'));
  await publish(p);
  const path = { projectId: p.projectId, webhookId: w.webhookId };
  await p.client.PATCH('/projects/{projectId}/webhooks/{webhookId}', { params: { path }, body: { enabled: false } });
  await runDue(Date.now() + 1000);
  t.is(rx.at('/disabled').length, 0);
  t.like((await deliveries(p, w.webhookId))[0], {
    status: 'failed',
    attempts: 0,
    lastError: 'webhook disabled: not sent',
  });
  t.like(await getHook(p, w.webhookId), { enabled: false, disabledReason: null });
});

test.serial('a deleted webhook drops its pending deliveries', async (t) => {
  const p = await createTestProject(svc);
  const w = await createOk(p, hookUrl('/deleted'));
  await publish(p);
  await p.client.DELETE('/projects/{projectId}/webhooks/{webhookId}', {
    params: { path: { projectId: p.projectId, webhookId: w.webhookId } },
  });
  await runDue(Date.now() + 1000);
  t.is(rx.at('/deleted').length, 0);
});

/** `n` strings.published events through the outbox, as a publish records them (without 30 publishes a day). */
async function emit(p: TestProject, n: number): Promise<void> {
  const { db } = svc.service.app;
  for (let i = 0; i < n; i++) {
    const id = newEventId();
    await db.transaction((trx) =>
      recordEvent(
        trx,
        p.projectId,
        'strings.published',
        {
          id,
          type: 'strings.published',
          schemaVersion: 1,
          createdAt: new Date().toISOString(),
          project: { id: p.projectId },
          data: { versionId: `2025.01.01.${i + 1}`, label: null, keyCount: 0, languages: [] },
        },
        Date.now(),
        id,
      ),
    );
  }
}

test.serial('the delivery log lists the last 50, newest first, and keeps no more', async (t) => {
  const p = await createTestProject(svc);
  const w = await createOk(p, hookUrl('/log'));
  await emit(p, 55);
  const ds = await deliveries(p, w.webhookId);
  t.is(ds.length, 50);
  t.is(ds[0].publishId, '2025.01.01.55');
  t.is(ds[49].publishId, '2025.01.01.6');
  await runDue(Date.now() + 1000);
  t.is(rx.at('/log').length, 55);
  // The log's sweep (every 10 minutes) deletes finished rows past the last 50.
  await runDue(Date.now() + 11 * MIN);
  const stored = await svc.service.app.db('webhook_deliveries').where({ webhook_id: w.webhookId }).count({ n: '*' });
  t.is(Number(stored[0].n), 50);
  t.is((await deliveries(p, w.webhookId))[49].publishId, '2025.01.01.6');
});

test.serial('two worker processes on one database never send the same attempt twice', async (t) => {
  const p = await createTestProject(svc);
  const hooks: Array<{ webhookId: string }> = [];
  // An address literal (the receiver's certificate names 127.0.0.1): the worker processes resolve nothing.
  for (let i = 0; i < 4; i++) {
    hooks.push(await createOk(p, `https://127.0.0.1:${rx.port}/twice${i}`));
    // A receiver that takes 250 ms: a worker sends DELIVERY_WIDTH at once, and the 40 attempts still outlast a
    // worker's poll interval, so both processes claim (batches of several jobs each).
    rx.answer(`/twice${i}`, { status: 204, delayMs: 250 });
  }
  // Two `npm run worker` processes on this test's database; this process runs no worker loop.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'glossa-workers-'));
  const workers = [0, 1].map(() => {
    const child = spawn(process.execPath, entryArgs(path.resolve('scripts/worker.ts')), {
      env: {
        ...process.env,
        DATABASE_URL: svc.service.app.config.databaseUrl,
        DATA_DIR: dataDir,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_CA_FILE: ca.caFile,
        ADMIN_TOKEN,
        LOG_LEVEL: 'silent',
        PUBLISH_THREADS: '0',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const polling = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        const m = /^worker (\S+) polling/m.exec(d.toString());
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
    });
    return { child, polling, exited: new Promise((resolve) => child.once('exit', resolve)) };
  });
  try {
    const ids = await Promise.all(workers.map((w) => w.polling));
    // The events come once both poll, so both find the same due deliveries.
    await emit(p, 10);
    const got = () => hooks.flatMap((_, i) => rx.at(`/twice${i}`));
    for (let i = 0; i < 800 && got().length < 40; i++) await new Promise((r) => setTimeout(r, 25));
    // A worker records an attempt after its answer came: on a loaded machine that can take seconds.
    const recorded = async () => {
      for (const h of hooks)
        if ((await deliveries(p, h.webhookId)).some((d) => d.status === 'delivering')) return false;
      return true;
    };
    for (const until = Date.now() + 30_000; Date.now() < until && !(await recorded());)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    t.is(got().length, 40);
    t.is(new Set(got().map((r) => `${r.headers['x-glossa-webhook-id']} ${r.headers['x-glossa-event-id']}`)).size, 40);
    for (const h of hooks)
      for (const d of await deliveries(p, h.webhookId)) t.like(d, { status: 'delivered', attempts: 1 });
    const sent = await svc.service.app
      .db('jobs')
      .where({ kind: 'webhook.deliver', state: 'done' })
      .whereIn('locked_by', ids)
      .select('locked_by');
    t.is(sent.length, 40, 'every attempt was sent by one of the two processes');
    const perProcess = ids.map((id) => sent.filter((r) => r.locked_by === id).length);
    t.log(`per process: ${perProcess.join(' / ')}`);
    t.true(
      perProcess.every((n) => n > 0),
      'both processes sent attempts (the two really raced for the same jobs)',
    );
  } finally {
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.serial('a kept-alive connection is never reused for another address of the same name', async (t) => {
  // A second receiver on 127.0.0.2, same port: the name moves between two addresses; each must get its own.
  const other = await startReceiver(ca, { host: '127.0.0.2', port: rx.port });
  try {
    const p = await createTestProject(svc);
    await createOk(p, hookUrl('/moving').replace('hooks.test', 'moving.hooks.test'));
    const round = async () => {
      await emit(p, 1);
      await runDue(Date.now() + 1000);
    };
    await round();
    await round();
    t.is(rx.at('/moving').length, 2);
    moved.set('moving.hooks.test', '127.0.0.2');
    await round();
    t.is(rx.at('/moving').length, 2, 'nothing more over the socket kept alive to 127.0.0.1');
    t.is(other.at('/moving').length, 1);
    moved.delete('moving.hooks.test');
    await round();
    t.is(rx.at('/moving').length, 3);
    t.is(other.at('/moving').length, 1);
  } finally {
    moved.delete('moving.hooks.test');
    await other.close();
  }
});

test.serial(
  'a kept-alive socket the receiver dropped is not a failed attempt: the POST goes again on a new one',
  async (t) => {
    // A receiver that answers the first request of each connection and drops the connection on the next, unanswered:
    // what a receiver closing idle kept-alive sockets does to a sender that writes as it closes.
    const seen: Array<{ socket: number; nth: number }> = [];
    const sockets = new WeakMap<object, { id: number; n: number }>();
    let ids = 0;
    const server = https.createServer({ key: ca.key, cert: ca.cert, keepAlive: true }, (req, res) => {
      let s = sockets.get(req.socket);
      if (!s) sockets.set(req.socket, (s = { id: ++ids, n: 0 }));
      s.n++;
      seen.push({ socket: s.id, nth: s.n });
      req.resume();
      req.on('end', () => {
        if (s.n > 1) req.socket.destroy();
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const p = await createTestProject(svc);
      const w = await createOk(p, hookUrl('/drops', (server.address() as AddressInfo).port));
      await emit(p, 1);
      await runDue(Date.now() + 1000);
      await emit(p, 1);
      await runDue(Date.now() + 2000);
      t.deepEqual(seen, [
        { socket: 1, nth: 1 },
        { socket: 1, nth: 2 },
        { socket: 2, nth: 1 },
      ]);
      for (const d of await deliveries(p, w.webhookId)) t.like(d, { status: 'delivered', attempts: 1 });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  },
);

test.serial(
  'an attempt whose claim was taken over writes nothing; one ending beside it in the same commit stands',
  async (t) => {
    const { app } = svc.service;
    const p = await createTestProject(svc);
    const w = await createOk(p, hookUrl('/lost'));
    await emit(p, 2);
    const ds = await deliveries(p, w.webhookId);
    // A second worker of its own, whose two claims are set up by hand: one then taken over by another claim.
    const stale = new JobQueue(app.db);
    stale.register(WEBHOOK_DELIVER_JOB, (ctx) => deliverAttempt(app, ctx as never), {
      maxAttempts: 6,
      backoffMs: RETRY_BACKOFF_MS,
    });
    const now = Date.now();
    const jobs = [];
    for (const d of ds) {
      const job = (await app
        .db('jobs')
        .where({ unique_key: deliveryJobKey(d.deliveryId) })
        .first())!;
      await app
        .db('jobs')
        .where({ id: job.id })
        .update({ state: 'running', locked_by: stale.workerId, attempts: 1, locked_until: now + 60_000 });
      jobs.push({ ...job, id: Number(job.id), attempts: 1 });
    }
    const [lost, kept] = jobs;
    await app.db('jobs').where({ id: lost.id }).update({ attempts: 2, locked_by: 'another-worker' });
    const ran = await Promise.all(jobs.map((j) => stale.runOne(j, now)));
    t.deepEqual(ran, [false, true]);
    // Both were sent (at least once); only the attempt still holding its claim wrote its outcome.
    t.is(rx.at('/lost').length, 2);
    const after = await deliveries(p, w.webhookId);
    const of = (id: string) => after.find((d) => d.deliveryId === id)!;
    const payloadOf = (j: { payload: string }) => (JSON.parse(j.payload) as { deliveryId: string }).deliveryId;
    t.like(of(payloadOf(kept)), { status: 'delivered', attempts: 1 });
    t.like(of(payloadOf(lost)), { status: 'delivering', attempts: 0 });
    t.like(await app.db('jobs').where({ id: lost.id }).first(), { state: 'running', locked_by: 'another-worker' });
    t.like(await app.db('jobs').where({ id: kept.id }).first(), { state: 'done', locked_by: stale.workerId });
    // Once that other claim's lease runs out, the next claim delivers it.
    await runDue(now + 2 * 60_000);
    t.like(
      (await deliveries(p, w.webhookId)).find((d) => d.deliveryId === payloadOf(lost)),
      {
        status: 'delivered',
        attempts: 1,
      },
    );
  },
);
