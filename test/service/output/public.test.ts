// Public routes: /pricing (GET and HEAD) and the delivery origin's /health; and every public API route implemented.
import test from 'ava';
import { routes } from '../../../generated/routes.js';
import { implemented } from '../../../server/app/implementations.js';
import { createClient } from '../../../packages/client/src/index.js';
import { specCheck, startTestService, type TestService } from '../../helpers/service.js';
import { type Schemas } from '../../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

test('GET /pricing is public, cacheable for 300 seconds, with its UTF-8 byte length', async (t) => {
  const r = await svc.client().GET('/pricing');
  t.is(r.response.status, 200);
  const raw = await fetch(`${svc.baseUrl}/pricing`);
  const bytes = Buffer.from(await raw.arrayBuffer());
  t.is(raw.headers.get('content-length'), String(bytes.length));
  t.regex(raw.headers.get('cache-control')!, /max-age=300/);
  t.regex(raw.headers.get('content-type')!, /^application\/json/);
  const body = JSON.parse(bytes.toString('utf8')) as Schemas['Pricing'];
  t.deepEqual(body, r.data);
  t.true(body.plans.every((p) => Number.isInteger(p.priceCents) && Number.isInteger(p.monthlyCredits)));
});

test('HEAD /pricing sends the same headers as GET and no body', async (t) => {
  const get = await fetch(`${svc.baseUrl}/pricing`);
  await get.arrayBuffer();
  const head = await fetch(`${svc.baseUrl}/pricing`, { method: 'HEAD' });
  t.is(head.status, 200);
  for (const h of ['content-length', 'content-type', 'cache-control']) t.is(head.headers.get(h), get.headers.get(h), h);
  t.is((await head.arrayBuffer()).byteLength, 0);
  const viaSdk = await svc.client().HEAD('/pricing');
  t.is(viaSdk.response.status, 200);
});

test('the delivery origin answers /v1/health', async (t) => {
  const client = createClient({ baseUrl: svc.deliveryUrl, middleware: [specCheck()] });
  const r = await client.GET('/health');
  t.is(r.response.status, 200);
  t.deepEqual(r.data, { status: 'ok' });
  const notOnMain = await fetch(`${svc.baseUrl}/health`);
  t.is(notOnMain.status, 404);
});

test('every route of the public API has an implementation: none answers 501 not_implemented', (t) => {
  const pending = routes.filter(
    (r) => r.origin === 'main' && !r.public && r.method !== 'HEAD' && !implemented.has(r.operationId),
  );
  t.deepEqual(
    pending.map((r) => `${r.method} ${r.path}`),
    [],
  );
});
