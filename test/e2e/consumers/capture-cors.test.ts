// POST /capture from a browser app on another origin (spec `x-cors`): the runtime client reports missing strings
// from the app's page, so the route answers preflights and carries CORS headers on every answer, errors included,
// with no credentials. Checked over HTTP, then in headless Chromium (Debian's) from a page on another origin.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { launchChromium } from '../../helpers/chromium.js';
import { createTestKey, createTestProject, startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(() => svc?.stop());

const ORIGIN = 'http://app.example.test:3000';

test('a preflight of POST /capture is answered; answers, refusals included, allow any origin without credentials', async (t) => {
  const p = await createTestProject(svc);
  const key = await createTestKey(svc, p.projectId, ['capture']);
  const url = `${svc.baseUrl}/projects/${p.projectId}/capture`;
  const pre = await fetch(url, {
    method: 'OPTIONS',
    headers: {
      Origin: ORIGIN,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization, content-type',
    },
  });
  t.true(pre.status === 200 || pre.status === 204, String(pre.status));
  t.truthy(pre.headers.get('access-control-allow-origin'));
  t.regex(pre.headers.get('access-control-allow-headers') ?? '', /authorization/i);
  t.regex(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
  t.is(pre.headers.get('access-control-allow-credentials'), null);
  const post = (authorization: string) =>
    fetch(url, {
      method: 'POST',
      headers: { Origin: ORIGIN, authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ units: [{ source: 'Checkout' }] }),
    });
  const ok = await post(`Bearer ${key}`);
  t.is(ok.status, 200);
  t.truthy(ok.headers.get('access-control-allow-origin'));
  const refused = await post('Bearer glk_nope_nope');
  t.is(refused.status, 401);
  t.truthy(refused.headers.get('access-control-allow-origin'));
  // Other routes stay same-origin only.
  const other = await fetch(`${svc.baseUrl}/projects/${p.projectId}/meta`, {
    headers: { Origin: ORIGIN, authorization: `Bearer ${key}` },
  });
  t.is(other.headers.get('access-control-allow-origin'), null);
});

test('a page on another origin reports a missing string to POST /capture', async (t) => {
  const p = await createTestProject(svc);
  const key = await createTestKey(svc, p.projectId, ['capture']);
  const page = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>app</title><p>app</p>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  const appOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  try {
    const tab = browser.context.pages()[0] ?? (await browser.context.newPage());
    await tab.goto(appOrigin);
    const answer = await tab.evaluate(
      async ({ url, key }) => {
        const r = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ units: [{ source: 'Reported from the page' }] }),
        });
        return { status: r.status, body: (await r.json()) as unknown };
      },
      { url: `${svc.baseUrl}/projects/${p.projectId}/capture`, key },
    );
    t.is(answer.status, 200);
    const keys = await svc.admin.GET('/projects/{projectId}/keys', {
      params: { path: { projectId: p.projectId }, query: { captured: true } },
    });
    t.true(keys.data!.keys.some((k) => k.source === 'Reported from the page'));
  } finally {
    await browser.close();
    page.close();
  }
});
