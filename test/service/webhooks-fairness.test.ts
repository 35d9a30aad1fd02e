// Fairness of webhook deliveries between projects (server/infra/jobs.ts claimFairly, fairChoice;
// server/domain/webhooks/deliver.ts DELIVERY_SHARE): project A's receivers hang, with a backlog of deliveries older than
// project B's; B's deliveries must go through while A's are still hanging, not after A's backlog. The worker is the
// queue's own drain loop, run by the test on the service's database; A's receiver holds every request until the test
// lets it go, so nothing here depends on timing: the test waits until B's deliveries have all arrived or the whole
// window is held by A, whichever comes first, and then looks at which it was.
import test from 'ava';
import { DELIVERY_WIDTH } from '../../server/domain/webhooks/deliver.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';
import { makeTestCa, startReceiver, type Receiver, type TestCa } from '../helpers/webhook-receiver.js';

let svc: TestService;
let ca: TestCa;
let rx: Receiver;

test.before(async () => {
  ca = makeTestCa();
  rx = await startReceiver(ca);
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_CA_FILE: ca.caFile });
  svc.service.app.webhookResolver = () => Promise.resolve(['127.0.0.1']);
});
test.after.always(async () => {
  await svc?.stop();
  await rx?.close();
  ca?.remove();
});

async function createHook(p: TestProject, path: string): Promise<string> {
  const r = await p.client.POST('/projects/{projectId}/webhooks', {
    params: { path: { projectId: p.projectId } },
    body: { url: `https://hooks.test:${rx.port}${path}`, events: ['strings.published'] },
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data.webhookId;
}

async function publish(p: TestProject): Promise<void> {
  const r = await p.client.POST('/projects/{projectId}/publish', { params: { path: { projectId: p.projectId } } });
  if (!r.data) throw new Error(JSON.stringify(r.error));
}

const statuses = async (projectId: string) =>
  svc.service.app.db('webhook_deliveries').where({ project_id: projectId }).pluck<string[]>('status');

test.serial("a project's hanging receivers leave another project's deliveries flowing", async (t) => {
  const a = await createTestProject(svc);
  const b = await createTestProject(svc);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  for (let i = 0; i < 5; i++) {
    await createHook(a, `/a${i}`);
    rx.answer(`/a${i}`, { status: 204, hold: held });
  }
  await createHook(b, '/b');
  // A's backlog (5 webhooks × 5 publishes, more than the window) is older than B's three deliveries.
  for (let i = 0; i < 5; i++) await publish(a);
  for (let i = 0; i < 3; i++) await publish(b);
  const aHeld = () => rx.received.filter((r) => r.path.startsWith('/a')).length;
  t.true((await statuses(a.projectId)).length > DELIVERY_WIDTH);

  const draining = svc.service.app.jobs.drain();
  try {
    // Whichever comes first: B's three deliveries arrive, or A holds the whole window (B would then wait on A).
    while (rx.at('/b').length < 3 && aHeld() < DELIVERY_WIDTH) await new Promise((r) => setTimeout(r, 10));
    t.is(rx.at('/b').length, 3, `A held ${aHeld()} of ${DELIVERY_WIDTH} lanes when the wait ended`);
    t.true(aHeld() > 0);
    t.false((await statuses(a.projectId)).includes('delivered'));
  } finally {
    release();
    await draining;
  }
  // Once A's receivers answer, its whole backlog is delivered too: the window took every lane it could.
  t.true((await statuses(a.projectId)).every((s) => s === 'delivered'));
  t.deepEqual(await statuses(b.projectId), ['delivered', 'delivered', 'delivered']);
});
