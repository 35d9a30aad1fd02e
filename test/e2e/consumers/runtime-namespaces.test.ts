// Two namespaces of one project in headless Chromium (Debian's /usr/bin/chromium): a page on another origin loads
// `app` and `common` as i18next namespaces from the manifest's `namespaces` (spec: Manifest), once through the
// runtime client's backend (packages/runtime/src/index.ts) and once through i18next-http-backend with a loadPath read
// from the manifest (docs/guides/runtime-client.md).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import test from 'ava';
import { sync } from '../../../packages/client/src/index.js';
import { launchChromium } from '../../helpers/chromium.js';
import { buildRuntime } from '../../helpers/runtime-build.js';
import { createTestProject, publishSkipping, startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const b64 = (o: object) => Buffer.from(JSON.stringify(o), 'utf8').toString('base64');

type Bundle = Record<string, unknown>;

// Both apps show the same four strings: t('nav.home', {ns: 'app'}), t('title', {ns: 'app'}) and the same of `common`
// (`title` is a key of both namespaces), and a plain t('save') in the default namespace `common`.
const SHOW = `
  const show = (t) => {
    document.getElementById('home').textContent = t('nav.home', { ns: 'app' });
    document.getElementById('appTitle').textContent = t('title', { ns: 'app' });
    document.getElementById('commonTitle').textContent = t('title', { ns: 'common' });
    document.getElementById('save').textContent = t('save');
    document.getElementById('welcome').textContent = t('welcome', { ns: 'app', name: 'Ana' });
  };`;

const page = (deliveryUrl: string, how: 'client' | 'http') => `<!doctype html>
<meta charset="utf-8">
<script src="/i18next.js"></script>
<script src="/${how === 'client' ? 'glossa' : 'backend'}.js"></script>
<p id="home"></p><p id="appTitle"></p><p id="commonTitle"></p><p id="save"></p><p id="welcome"></p><p id="error"></p>
<script>
(async () => {
  ${SHOW}
  const options = { lng: 'de', fallbackLng: 'en', ns: ['app', 'common'], defaultNS: 'common' };
  ${
    how === 'client'
      ? `const strings = Glossa.createRuntimeClient({ deliveryUrl: ${JSON.stringify(deliveryUrl)}, refreshInterval: 0 });
  await i18next.use(strings.backend()).init(options);`
      : `const manifestUrl = ${JSON.stringify(`${deliveryUrl}/manifest`)};
  const manifest = await (await fetch(manifestUrl)).json();
  await i18next.use(i18nextHttpBackend).init({
    ...options,
    backend: {
      loadPath: (lngs, nss) => {
        const obj = manifest.namespaces[nss[0]]?.bundles[lngs[0]];
        return obj ? new URL(obj.url, manifestUrl).href : '';
      },
    },
  });`
  }
  show(i18next.t);
})().catch((e) => { document.getElementById('error').textContent = String(e); })
  .finally(() => { document.body.dataset.done = '1'; });
</script>`;

test('the runtime client and i18next-http-backend load two namespaces from the manifest in Chromium', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const app = { title: 'My app', nav: { home: 'Home' }, welcome: 'Welcome, {name}!' };
  const common = { title: 'Common title', save: 'Save' };
  for (const [namespace, obj] of [
    ['app', app],
    ['common', common],
  ] as const) {
    const r = await sync(p.client, p.projectId, { contentBase64: b64(obj), fileName: 'en.json', namespace });
    t.is(r.response.status, 200);
  }
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  await publishSkipping(p);
  const deliveryUrl = `${svc.deliveryUrl}/projects/${p.projectId}`;
  const manifestUrl = `${deliveryUrl}/manifest`;
  const manifest = (await (await fetch(manifestUrl)).json()) as {
    namespaces: Record<string, { bundles: Record<string, { url: string }> }>;
  };
  const bundle = async (ns: string) =>
    (await (await fetch(new URL(manifest.namespaces[ns].bundles.de.url, manifestUrl))).json()) as Bundle;
  const deApp = (await bundle('app')) as { title: string; nav: { home: string }; welcome: string };
  const deCommon = (await bundle('common')) as { title: string; save: string };
  t.not(deApp.title, deCommon.title);
  const modules = path.join(process.cwd(), 'node_modules');
  const scripts: Record<string, string | Buffer> = {
    '/glossa.js': await buildRuntime('iife'),
    '/i18next.js': readFileSync(path.join(modules, 'i18next/dist/umd/i18next.min.js')),
    '/backend.js': readFileSync(path.join(modules, 'i18next-http-backend/i18nextHttpBackend.min.js')),
  };
  const pageServer = http.createServer((req, res) => {
    const script = req.url && Object.hasOwn(scripts, req.url) ? scripts[req.url] : undefined;
    if (script) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(script);
    } else if (req.url === '/client' || req.url === '/http') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page(deliveryUrl, req.url === '/client' ? 'client' : 'http'));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  // `localhost` against the delivery origin's 127.0.0.1: another origin.
  const origin = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  try {
    for (const how of ['client', 'http']) {
      const tab = await browser.context.newPage();
      const seen: string[] = [];
      tab.on('request', (r) => seen.push(r.url()));
      const consoleErrors: string[] = [];
      tab.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(m.text());
      });
      await tab.goto(`${origin}/${how}`);
      await tab.waitForSelector('body[data-done="1"]', { timeout: 20_000 });
      const text = async (id: string) => (await tab.textContent(`#${id}`)) ?? '';
      t.is(await text('error'), '', `${how}: ${consoleErrors.join('\n')}`);
      t.is(await text('home'), deApp.nav.home, how);
      t.is(await text('appTitle'), deApp.title, how);
      t.is(await text('commonTitle'), deCommon.title, how);
      t.is(await text('save'), deCommon.save, how);
      t.true((await text('welcome')).includes('Ana'), how);
      for (const ns of ['app', 'common'])
        t.true(
          seen.some((u) => new RegExp(`/bundles/[^/]+/${ns}\\.de\\.[0-9a-f]{16}\\.json$`).test(u)),
          `${how} ${ns}: ${seen.join('\n')}`,
        );
      await tab.close();
    }
  } finally {
    await browser.close();
    await new Promise((resolve) => pageServer.close(resolve));
  }
});
