// The delivery origin is public and cookie-free: a browser app on any origin reads the manifest and the bundles.
// Checked at the HTTP level (every answer, its 304s and 404s, preflights, the custom-domain routes and the S3-backed
// store), then in headless Chromium (Debian's /usr/bin/chromium): a page served from another origin revalidates
// the manifest with If-None-Match, and i18next with i18next-http-backend loads a bundle and shows its text.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { components } from '../../../generated/openapi.js';
import { launchChromium } from '../../helpers/chromium.js';
import { deliveredIcuProject, type IcuProject } from '../../helpers/icu-project.js';
import { createTestProject, startTestService, type TestService } from '../../helpers/service.js';

type Manifest = components['schemas']['Manifest'];

let svc: TestService;
let p: IcuProject;
let manifestUrl: string;
let manifest: Manifest;
test.before(async () => {
  svc = await startTestService();
  ({ p, manifestUrl, manifest } = await deliveredIcuProject(svc));
});
test.after.always(() => svc?.stop());

const ORIGIN = 'http://app.example.test:3000';

/** The headers every answer of the delivery origin carries, whatever its status. */
function crossOrigin(t: ExecutionContext, headers: Headers | http.IncomingHttpHeaders, what: string) {
  const get = (name: string) => {
    if (headers instanceof Headers) return headers.get(name);
    const v = headers[name];
    return Array.isArray(v) ? v.join(', ') : (v ?? null);
  };
  t.is(get('access-control-allow-origin'), '*', `${what}: Access-Control-Allow-Origin`);
  t.regex(get('access-control-expose-headers') ?? '', /\bETag\b/i, `${what}: ETag exposed`);
  t.is(get('access-control-allow-credentials'), null, `${what}: no credentials`);
  t.is(get('set-cookie'), null, `${what}: no cookie`);
}

function preflightOk(t: ExecutionContext, status: number, headers: Headers | http.IncomingHttpHeaders, what: string) {
  t.is(status, 204, what);
  crossOrigin(t, headers, what);
  const get = (name: string) =>
    headers instanceof Headers ? headers.get(name) : (headers[name] as string | undefined);
  t.regex(get('access-control-allow-methods') ?? '', /^GET, HEAD, OPTIONS$/, `${what}: methods`);
  t.regex(get('access-control-allow-headers') ?? '', /\bIf-None-Match\b/i, `${what}: If-None-Match allowed`);
  t.true(Number(get('access-control-max-age')) > 0, `${what}: max age`);
}

const preflight = (url: string) =>
  fetch(url, {
    method: 'OPTIONS',
    headers: {
      Origin: ORIGIN,
      'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Headers': 'if-none-match',
    },
  });

test('manifest, bundles and health answer any origin, their 304s and 404s too', async (t) => {
  const m = await fetch(manifestUrl, { headers: { Origin: ORIGIN } });
  t.is(m.status, 200);
  crossOrigin(t, m.headers, 'manifest');
  const etag = m.headers.get('etag')!;
  t.truthy(etag);
  // The same headers without an Origin: a CDN caching this answer serves it to browsers too.
  crossOrigin(t, (await fetch(manifestUrl)).headers, 'manifest without Origin');
  const again = await fetch(manifestUrl, { headers: { Origin: ORIGIN, 'If-None-Match': etag } });
  t.is(again.status, 304);
  crossOrigin(t, again.headers, 'manifest 304');
  const bundleUrl = new URL(manifest.bundles.pl.url, manifestUrl).toString();
  const b = await fetch(bundleUrl, { headers: { Origin: ORIGIN } });
  t.is(b.status, 200);
  crossOrigin(t, b.headers, 'bundle');
  const b304 = await fetch(bundleUrl, { headers: { Origin: ORIGIN, 'If-None-Match': b.headers.get('etag')! } });
  t.is(b304.status, 304);
  crossOrigin(t, b304.headers, 'bundle 304');
  const head = await fetch(bundleUrl, { method: 'HEAD', headers: { Origin: ORIGIN } });
  t.is(head.status, 200);
  crossOrigin(t, head.headers, 'bundle HEAD');
  const health = await fetch(`${svc.deliveryUrl}/health`, { headers: { Origin: ORIGIN } });
  t.is(health.status, 200);
  crossOrigin(t, health.headers, 'health');
  for (const missing of [
    `${svc.deliveryUrl}/projects/nope/manifest`,
    `${svc.deliveryUrl}/projects/${p.projectId}/bundles/${p.versionId}/missing.json`,
    `${svc.deliveryUrl}/no/such/route`,
  ]) {
    const r = await fetch(missing, { headers: { Origin: ORIGIN } });
    t.is(r.status, 404, missing);
    crossOrigin(t, r.headers, `404 ${missing}`);
  }
});

test('OPTIONS answers a preflight with 204, the methods, If-None-Match and a max age', async (t) => {
  for (const url of [
    manifestUrl,
    new URL(manifest.bundles.de.url, manifestUrl).toString(),
    `${svc.deliveryUrl}/health`,
  ]) {
    const r = await preflight(url);
    preflightOk(t, r.status, r.headers, `preflight ${url}`);
    t.is(await r.text(), '');
  }
});

/** A request through node:http with its own Host header (fetch may not set Host), as a CDN forwards it. */
const viaHost = (url: string, host: string, method = 'GET', headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    http
      .request(url, { method, headers: { host, ...headers } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
      })
      .on('error', reject)
      .end();
  });

test.serial('the custom-domain routes answer any origin and preflights too', async (t) => {
  const host = `cors-${p.projectId.toLowerCase()}.cdn.test`;
  const patched = await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { deliveryHost: host },
  });
  t.falsy(patched.error);
  const m = await viaHost(`${svc.deliveryUrl}/manifest`, host, 'GET', { origin: ORIGIN });
  t.is(m.status, 200);
  crossOrigin(t, m.headers, 'domain manifest');
  const bundle = manifest.bundles.de.url.replace(/^bundles\//, '');
  const b = await viaHost(`${svc.deliveryUrl}/bundles/${bundle}`, host, 'GET', { origin: ORIGIN });
  t.is(b.status, 200);
  crossOrigin(t, b.headers, 'domain bundle');
  const pre = await viaHost(`${svc.deliveryUrl}/manifest`, host, 'OPTIONS', {
    origin: ORIGIN,
    'access-control-request-method': 'GET',
    'access-control-request-headers': 'if-none-match',
  });
  preflightOk(t, pre.status, pre.headers, 'domain preflight');
  const unknown = await viaHost(`${svc.deliveryUrl}/manifest`, 'unknown.example', 'GET', { origin: ORIGIN });
  t.is(unknown.status, 404);
  crossOrigin(t, unknown.headers, 'unknown domain 404');
});

test.serial('delivery served from an S3 bucket answers any origin', async (t) => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const { withS3Service } = await import('../../helpers/s3.js');
  await withS3Service('cors', async (s3svc) => {
    const q = await createTestProject(s3svc, { languages: [{ code: 'pt-br', fillMode: 'manual' }] });
    await q.client.POST('/projects/{projectId}/translate', {
      params: { path: { projectId: q.projectId } },
      body: { units: [{ key: 'hello', source: 'Hello' }] },
    });
    const published = await q.client.POST('/projects/{projectId}/publish', {
      params: { path: { projectId: q.projectId } },
    });
    t.truthy(published.data);
    const url = `${s3svc.deliveryUrl}/projects/${q.projectId}/manifest`;
    const m = await fetch(url, { headers: { Origin: ORIGIN } });
    t.is(m.status, 200);
    crossOrigin(t, m.headers, 'S3 manifest');
    const body = (await m.json()) as Manifest;
    const b = await fetch(new URL(body.bundles['pt-BR'].url, url), { headers: { Origin: ORIGIN } });
    t.is(b.status, 200);
    crossOrigin(t, b.headers, 'S3 bundle');
    const pre = await preflight(url);
    preflightOk(t, pre.status, pre.headers, 'S3 preflight');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// A page on another origin, in Debian's headless Chromium

const modules = path.join(process.cwd(), 'node_modules');
const SCRIPTS: Record<string, string> = {
  '/i18next.js': path.join(modules, 'i18next/dist/umd/i18next.min.js'),
  '/backend.js': path.join(modules, 'i18next-http-backend/i18nextHttpBackend.min.js'),
};

// The app: revalidates the manifest with If-None-Match (a preflighted request), then lets i18next load the
// Polish bundle through the manifest and writes what t() shows into the page.
const page = (manifest: string) => `<!doctype html>
<meta charset="utf-8">
<script src="/i18next.js"></script>
<script src="/backend.js"></script>
<p id="etag"></p><p id="revalidated"></p><p id="cart"></p><p id="photos"></p><p id="liked"></p><p id="braces"></p>
<p id="error"></p>
<script>
(async () => {
  const manifestUrl = ${JSON.stringify(manifest)};
  const first = await fetch(manifestUrl);
  const etag = first.headers.get('ETag');
  const manifest = await first.json();
  document.getElementById('etag').textContent = etag || 'none';
  const again = await fetch(manifestUrl, { headers: { 'If-None-Match': etag } });
  document.getElementById('revalidated').textContent = String(again.status);
  await i18next.use(i18nextHttpBackend).init({
    lng: 'pl',
    fallbackLng: 'en',
    backend: {
      loadPath: (lngs) => {
        const obj = manifest.bundles[lngs[0]];
        return obj ? new URL(obj.url, manifestUrl).href : '';
      },
    },
  });
  const t = i18next.t;
  document.getElementById('cart').textContent = t('cart.items', { count: 5 });
  document.getElementById('photos').textContent = t('photos.added', { name: 'Ana', count: 2 });
  document.getElementById('liked').textContent = t('post.liked', { context: 'female' });
  document.getElementById('braces').textContent = i18next.getFixedT('en')('help.braces');
})().catch((e) => { document.getElementById('error').textContent = String(e); })
  .finally(() => { document.body.dataset.done = '1'; });
</script>`;

test.serial('a page on another origin revalidates the manifest and shows a bundle through i18next', async (t) => {
  const pageServer = http.createServer((req, res) => {
    const script = req.url && Object.hasOwn(SCRIPTS, req.url) ? SCRIPTS[req.url] : undefined;
    if (script) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(readFileSync(script));
    } else if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page(manifestUrl));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  // `localhost` against the delivery origin's 127.0.0.1: another host and port, so another origin.
  const pageUrl = `http://localhost:${(pageServer.address() as AddressInfo).port}/`;
  const browser = await launchChromium();
  try {
    const tab = await browser.context.newPage();
    const seen: string[] = [];
    tab.on('request', (r) => seen.push(`${r.method()} ${r.url()}`));
    const consoleErrors: string[] = [];
    tab.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await tab.goto(pageUrl);
    await tab.waitForSelector('body[data-done="1"]', { timeout: 20_000 });
    const text = async (id: string) => (await tab.textContent(`#${id}`)) ?? '';
    t.is(await text('error'), '', consoleErrors.join('\n'));
    t.regex(await text('etag'), /^(W\/)?"[^"]+"$/, 'the ETag header is readable by the page');
    t.is(await text('revalidated'), '304');
    t.is(await text('cart'), '5 produktów w koszyku');
    t.is(await text('photos'), 'Ana dodał(a) 2 zdjęcia');
    t.is(await text('liked'), 'Polubiła twój post');
    t.is(await text('braces'), "Use {curly} braces, it's easy");
    t.true(
      seen.some((r) => r.startsWith('GET ') && r.includes('/bundles/') && r.includes('/pl.')),
      seen.join('\n'),
    );
  } finally {
    await browser.close();
    await new Promise((resolve) => pageServer.close(resolve));
  }
});
