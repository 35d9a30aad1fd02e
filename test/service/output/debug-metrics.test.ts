// GET /internal/v1/debug/metrics: the process's event-loop delay (perf_hooks.monitorEventLoopDelay) and memory.
// The service runs in this test's process, so a synchronous stall here is a stall of the service's loop.
import test from 'ava';
import { ADMIN_TOKEN, startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const metrics = async (reset?: boolean) => {
  const r = await svc.admin.GET('/debug/metrics', { params: { query: reset === undefined ? {} : { reset } } });
  if (r.response.status !== 200) throw new Error(`metrics answered ${r.response.status}`);
  return r.data!;
};

const stall = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};
const turn = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test.serial('the admin token is required', async (t) => {
  const r = await fetch(`${svc.internalUrl}/debug/metrics`);
  t.is(r.status, 401);
  const bad = await fetch(`${svc.internalUrl}/debug/metrics`, { headers: { authorization: 'Bearer nope' } });
  t.is(bad.status, 401);
});

test.serial('a synchronous stall shows as event-loop delay, and reset starts a new window', async (t) => {
  const first = await metrics(true);
  t.true(first.rssBytes > 0);
  t.true(first.heapUsedBytes > 0);
  t.true(first.heapUsedBytes <= first.rssBytes);
  await turn(50);
  stall(150);
  // The monitor's next sample fires once the loop is free again, and records how late it came.
  await turn(50);
  const after = await metrics(true);
  t.true(Date.parse(after.since) > Date.parse(first.since));
  t.true(after.eventLoopDelay.samples > 0);
  t.true(after.eventLoopDelay.maxMs >= 100, `max ${after.eventLoopDelay.maxMs} ms after a 150 ms stall`);
  t.true(after.eventLoopDelay.p50Ms <= after.eventLoopDelay.p99Ms);
  t.true(after.eventLoopDelay.p99Ms <= after.eventLoopDelay.maxMs);
  // The stall belongs to the window reset above: the next one begins after it, with its own samples.
  const next = await metrics();
  t.true(Date.parse(next.since) > Date.parse(after.since));
  t.true(next.eventLoopDelay.samples < after.eventLoopDelay.samples);
});

test.serial('the query flag is a boolean', async (t) => {
  const r = await fetch(`${svc.internalUrl}/debug/metrics?reset=maybe`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  t.is(r.status, 400);
});
