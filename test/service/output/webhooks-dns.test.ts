// Webhook hosts resolved through a real DNS server (test/helpers/dns-server.ts, on loopback, named by
// WEBHOOK_DNS_SERVERS): server/domain/webhooks/resolver.ts. One project naming hosts whose DNS never answers must leave
// every other project's creates and deliveries working: the lookups run on c-ares (no libuv pool thread is held by
// a query that never returns), each project has a bounded number in flight, and answers are cached.
// test-batch: alone: its lookups' deadlines count wall time in a process that also runs its DNS server, so another
// file's work in the process could hold an answer past them (scripts/test-batches.ts).
import test from 'ava';
import {
  HostLookups,
  LookupFailed,
  PER_PROJECT_IN_FLIGHT,
  PER_PROJECT_WAITING,
} from '../../../server/domain/webhooks/resolver.js';
import { startDnsServer, type DnsServer } from '../../helpers/dns-server.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../../helpers/service.js';
import { makeTestCa, startReceiver, type Receiver, type TestCa } from '../../helpers/webhook-receiver.js';

let dns: DnsServer;
let svc: TestService;
let ca: TestCa;
let rx: Receiver;

test.before(async () => {
  dns = await startDnsServer();
  dns.set('ok.hooks.test', ['127.0.0.1']);
  dns.silence('black.test');
  ca = makeTestCa();
  rx = await startReceiver(ca);
  svc = await startTestService({
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_CA_FILE: ca.caFile,
    WEBHOOK_DNS_SERVERS: dns.address,
    WEBHOOK_DNS_TIMEOUT_MS: '1000',
  });
});
test.after.always(async () => {
  await svc?.stop();
  await rx?.close();
  await dns?.close();
  ca?.remove();
});

const create = (p: TestProject, url: string) =>
  p.client.POST('/projects/{projectId}/webhooks', {
    params: { path: { projectId: p.projectId } },
    body: { url, events: ['strings.published'] },
  });

test.serial(
  "one project's hosts that never resolve leave another project's creates and deliveries working",
  async (t) => {
    const a = await createTestProject(svc);
    const b = await createTestProject(svc);
    // Forty creates naming hosts whose DNS never answers, all at once (within the key's 120 a minute).
    const flood = Array.from({ length: 40 }, (_, i) => create(a, `https://h${i}.black.test/hook`));
    const made = await create(b, `https://ok.hooks.test:${rx.port}/b`);
    t.is(made.response.status, 201);
    const v = await b.client.POST('/projects/{projectId}/publish', { params: { path: { projectId: b.projectId } } });
    t.is(v.response.status, 201);
    await svc.admin.POST('/jobs/run-due', { body: { now: new Date(Date.now() + 1000).toISOString() } });
    const ds = await b.client.GET('/projects/{projectId}/webhooks/{webhookId}/deliveries', {
      params: { path: { projectId: b.projectId, webhookId: made.data!.webhookId } },
    });
    t.like(ds.data!.deliveries[0], { status: 'delivered', lastStatusCode: 204 });
    t.is(rx.at('/b').length, 1);
    // B's name went through the DNS server, not around it.
    t.true(dns.queries.some((q) => q.name === 'ok.hooks.test'));
    for (const r of await Promise.all(flood)) {
      t.is(r.response.status, 400);
      t.is(r.error?.error, 'invalid_argument');
      t.regex(r.error!.message, /h\d+\.black\.test (did not resolve within 1 second|was not looked up)/);
    }
    const list = await a.client.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: a.projectId } } });
    t.deepEqual(list.data!.webhooks, []);
  },
);

test.serial('a project waits for at most its share of lookups; past the queue it is refused at once', async (t) => {
  const lookups = new HostLookups({ servers: [dns.address], timeoutMs: 2000 });
  const before = dns.queries.length;
  for (let i = 0; i < PER_PROJECT_WAITING; i++) dns.set(`w${i}.hooks.test`, ['127.0.0.1']);
  // Project A: its first lookups never answer and hold every one of its slots; the next wait for a slot.
  const stuck = Array.from({ length: PER_PROJECT_IN_FLIGHT }, (_, i) => lookups.addresses('A', `s${i}.black.test`));
  const waiting = Array.from({ length: PER_PROJECT_WAITING }, (_, i) => lookups.addresses('A', `w${i}.hooks.test`));
  await t.throwsAsync(lookups.addresses('A', 'one-too-many.hooks.test'), {
    instanceOf: LookupFailed,
    message: /was not looked up: this project has \d+ lookups of webhook hosts under way/,
  });
  // Project B is not behind A's queue.
  t.deepEqual(await lookups.addresses('B', 'ok.hooks.test'), ['127.0.0.1']);
  const sent = dns.queries.slice(before);
  t.is(new Set(sent.filter((q) => q.name.endsWith('.black.test')).map((q) => q.name)).size, PER_PROJECT_IN_FLIGHT);
  t.false(sent.some((q) => q.name.startsWith('w')));
  for (const r of await Promise.allSettled(stuck)) {
    t.is(r.status, 'rejected');
    t.regex(String((r as PromiseRejectedResult).reason), /did not resolve within 2 seconds/);
  }
  for (const r of await Promise.all(waiting)) t.deepEqual(r, ['127.0.0.1']);
  // Answers and failures are cached: asked again, nothing goes to the server.
  const asked = dns.queries.length;
  t.deepEqual(await lookups.addresses('B', 'ok.hooks.test'), ['127.0.0.1']);
  await t.throwsAsync(lookups.addresses('B', 's0.black.test'), { message: /did not resolve/ });
  t.is(dns.queries.length, asked);
});

test('localhost is loopback without a query; an unknown name does not resolve; A and AAAA both count', async (t) => {
  const lookups = new HostLookups({ servers: [dns.address], timeoutMs: 2000 });
  const before = dns.queries.length;
  t.deepEqual(await lookups.addresses('C', 'localhost'), ['127.0.0.1', '::1']);
  t.deepEqual(await lookups.addresses('C', 'api.localhost'), ['127.0.0.1', '::1']);
  t.false(dns.queries.slice(before).some((q) => q.name.endsWith('localhost')));
  await t.throwsAsync(lookups.addresses('C', 'nx.hooks.test'), { message: 'nx.hooks.test does not resolve' });
  dns.set('dual.hooks.test', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
  t.deepEqual((await lookups.addresses('C', 'dual.hooks.test')).sort(), [
    '2606:2800:220:1:248:1893:25c8:1946',
    '93.184.216.34',
  ]);
});
