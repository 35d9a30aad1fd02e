// Where a webhook may point, with WEBHOOK_ALLOW_PRIVATE off (server/domain/webhooks/urls.ts): https only,
// no credentials, every address of the host public, in any spelling, at create, at update and again before every
// delivery. The resolver is the test's, so a name can resolve to a public address when the webhook is created and
// to 127.0.0.1 when it is delivered to (DNS rebinding): that delivery is refused before any connection, which the
// real receiver on loopback confirms by receiving nothing.
import test from 'ava';
import { createTestProject, startTestService, type TestProject, type TestService } from '../../helpers/service.js';
import { makeTestCa, startReceiver, type Receiver, type TestCa } from '../../helpers/webhook-receiver.js';
import { addressRefusal } from '../../../server/domain/webhooks/urls.js';

let svc: TestService;
let ca: TestCa;
let rx: Receiver;
const dns = new Map<string, string[]>();

test.before(async () => {
  ca = makeTestCa();
  rx = await startReceiver(ca);
  svc = await startTestService({ WEBHOOK_CA_FILE: ca.caFile });
  svc.service.app.webhookResolver = (host) => {
    const a = dns.get(host);
    return a ? Promise.resolve(a) : Promise.reject(new Error('NXDOMAIN'));
  };
});
test.after.always(async () => {
  await svc?.stop();
  await rx?.close();
  ca?.remove();
});

const create = (p: TestProject, url: string) =>
  p.client.POST('/projects/{projectId}/webhooks', {
    params: { path: { projectId: p.projectId } },
    body: { url, events: ['strings.published'] },
  });

const REFUSED = [
  'https://127.0.0.1/',
  'https://127.1.2.3/',
  'https://2130706433/',
  'https://0x7f000001/',
  'https://0x7f.0.0.1/',
  'https://0177.0.0.1/',
  'https://127.1/',
  'https://[::1]/',
  'https://[::ffff:127.0.0.1]/',
  'https://[::ffff:7f00:1]/',
  'https://[0:0:0:0:0:ffff:10.0.0.1]/',
  'https://10.0.0.1/',
  'https://012.0.0.1/',
  'https://172.16.0.1/',
  'https://172.31.255.255/',
  'https://192.168.1.1/',
  'https://3232235777/',
  'https://[fc00::1]/',
  'https://[fd12:3456::1]/',
  'https://169.254.169.254/',
  'https://169.254.10.1/',
  'https://[fe80::1]/',
  'https://100.64.0.1/',
  'https://100.127.255.254/',
  'https://100.100.100.200/',
  'https://[fd00:ec2::254]/',
  'https://0.0.0.0/',
  'https://0/',
  'https://[::]/',
  'https://224.0.0.1/',
  'https://239.255.255.250/',
  'https://[ff02::1]/',
  'https://255.255.255.255/',
  'https://[2002:7f00:1::]/',
  'https://[64:ff9b::7f00:1]/',
  'https://localhost/',
  'https://private.example/',
  'https://mixed.example/',
  'https://nxdomain.example/',
  'http://8.8.8.8/',
  'https://user@8.8.8.8/',
  'https://user:secret@8.8.8.8/',
];

test.serial(
  'private, loopback, link-local, CGNAT, metadata, special and unresolvable hosts are 400 in every spelling',
  async (t) => {
    dns.set('localhost', ['127.0.0.1', '::1']);
    dns.set('private.example', ['10.1.2.3']);
    dns.set('mixed.example', ['93.184.216.34', '192.168.0.10']);
    const p = await createTestProject(svc);
    for (const url of REFUSED) {
      const r = await create(p, url);
      t.is(r.response.status, 400, url);
      t.is(r.error?.error, 'invalid_argument', url);
    }
    const list = await p.client.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: p.projectId } } });
    t.deepEqual(list.data!.webhooks, []);
    dns.set('public.example', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
    for (const url of ['https://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/hook', 'https://public.example/hook'])
      t.is((await create(p, url)).response.status, 201, url);
  },
);

test.serial('a PATCH to a refused URL is 400 and leaves the URL as it was', async (t) => {
  dns.set('public.example', ['93.184.216.34']);
  const p = await createTestProject(svc);
  const w = (await create(p, 'https://public.example/a')).data!;
  for (const url of [
    'https://10.0.0.1/',
    'https://0x7f.1/',
    'https://[::ffff:169.254.169.254]/',
    'https://private.example/',
  ]) {
    dns.set('private.example', ['172.20.0.5']);
    const r = await p.client.PATCH('/projects/{projectId}/webhooks/{webhookId}', {
      params: { path: { projectId: p.projectId, webhookId: w.webhookId } },
      body: { url, enabled: false },
    });
    t.is(r.response.status, 400, url);
  }
  const list = await p.client.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: p.projectId } } });
  t.like(list.data!.webhooks[0], { url: 'https://public.example/a', enabled: true });
});

test.serial(
  'a name that resolves to 127.0.0.1 at delivery time is refused before connecting (DNS rebinding)',
  async (t) => {
    dns.set('rebind.hooks.test', ['93.184.216.34']);
    const p = await createTestProject(svc);
    const w = (await create(p, `https://rebind.hooks.test:${rx.port}/rebound`)).data!;
    dns.set('rebind.hooks.test', ['127.0.0.1']);
    const v = await p.client.POST('/projects/{projectId}/publish', { params: { path: { projectId: p.projectId } } });
    t.is(v.response.status, 201);
    await svc.admin.POST('/jobs/run-due', { body: { now: new Date(Date.now() + 1000).toISOString() } });
    const ds = await p.client.GET('/projects/{projectId}/webhooks/{webhookId}/deliveries', {
      params: { path: { projectId: p.projectId, webhookId: w.webhookId } },
    });
    const d = ds.data!.deliveries[0];
    t.like(d, { status: 'pending', attempts: 1, lastStatusCode: null });
    t.regex(d.lastError!, /^refused: rebind\.hooks\.test resolves to 127\.0\.0\.1 is not a public address/);
    t.is(rx.received.length, 0);
  },
);

test('addressRefusal: the ranges, and what WEBHOOK_ALLOW_PRIVATE opens', (t) => {
  for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '93.184.216.34'])
    t.is(addressRefusal(a, false), null, a);
  for (const a of ['127.0.0.1', '10.0.0.1', '172.16.0.1', '192.168.0.1', '::1', 'fc00::1', '::ffff:127.0.0.1'])
    t.is(addressRefusal(a, true), null, a);
  for (const a of ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '::ffff:169.254.169.254']) {
    t.regex(addressRefusal(a, true)!, /metadata/, a);
    t.regex(addressRefusal(a, false)!, /metadata/, a);
  }
  for (const a of ['169.254.1.1', 'fe80::1', '100.64.0.1', '0.0.0.0', '::', '224.0.0.1', 'ff02::1', '203.0.113.5'])
    t.truthy(addressRefusal(a, true), a);
  t.regex(addressRefusal('not-an-ip', false)!, /not an IP address/);
});

// IPv6 forms that carry an IPv4 address (server/domain/webhooks/urls.ts EMBEDDING): IPv4-compatible `::/96`, which the
// URL parser rewrites to `::7f00:1` and ipaddr.js calls unicast, SIIT, NAT64 (well-known and local-use), 6to4 and
// Teredo; refused whatever they carry, at create and in addressRefusal with or without WEBHOOK_ALLOW_PRIVATE.
test.serial('IPv6 addresses embedding an IPv4 address (compatible, SIIT, NAT64, 6to4, Teredo) are 400', async (t) => {
  const p = await createTestProject(svc);
  const urls = [
    'https://[::127.0.0.1]/',
    'https://[::169.254.169.254]/',
    'https://[::7f00:1]/',
    'https://[::10.0.0.1]/',
    'https://[::8.8.8.8]/',
    'https://[0:0:0:0:0:0:c0a8:101]/',
    'https://[::ffff:0:127.0.0.1]/',
    'https://[64:ff9b::8.8.8.8]/',
    'https://[64:ff9b:1::a00:1]/',
    'https://[2002:808:808::1]/',
    'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
  ];
  for (const url of urls) {
    const r = await create(p, url);
    t.is(r.response.status, 400, url);
    t.is(r.error?.error, 'invalid_argument', url);
  }
  const list = await p.client.GET('/projects/{projectId}/webhooks', { params: { path: { projectId: p.projectId } } });
  t.deepEqual(list.data!.webhooks, []);
  for (const allowPrivate of [false, true]) {
    t.regex(addressRefusal('::7f00:1', allowPrivate)!, /ipv4Compatible, carrying 127\.0\.0\.1/);
    t.regex(addressRefusal('::a9fe:a9fe', allowPrivate)!, /metadata/);
    t.regex(addressRefusal('2001:0:4136:e378:8000:63bf:80ff:fffe', allowPrivate)!, /teredo, carrying 127\.0\.0\.1/);
    t.regex(addressRefusal('2002:a9fe:a9fe::', allowPrivate)!, /metadata/);
  }
  // `::` and `::1` sit in ::/96 but keep their own names.
  t.regex(addressRefusal('::1', false)!, /loopback/);
  t.regex(addressRefusal('::', false)!, /unspecified/);
  t.is(addressRefusal('::1', true), null);
});
