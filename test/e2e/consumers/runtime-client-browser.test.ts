// The runtime client's browser build: at most 6 KB minified and gzipped with no dependency, and in headless
// Chromium (Debian's /usr/bin/chromium) a page served from another origin loads its strings from the delivery
// origin through CORS (with i18next and the client's backend, and with messages()), revalidates them with a 304 on
// the next load, and, with the service stopped, keeps showing them from its localStorage cache.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import test from 'ava';
import { launchChromium } from '../../helpers/chromium.js';
import { buildRuntime, gzippedSize } from '../../helpers/runtime-build.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { stringsProject } from '../../helpers/strings-project.js';

let svc: TestService;
let stopped = false;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  if (!stopped) await svc?.stop();
});

test('the browser build is at most 6 KB minified and gzipped, with no import left', async (t) => {
  const code = await buildRuntime('esm');
  const size = gzippedSize(code);
  t.log(`${code.length} bytes minified, ${size} gzipped`);
  t.true(size <= 6 * 1024, `${size} bytes gzipped`);
  t.notRegex(code, /\bimport\s*[("'{*]|\brequire\(|node:/, 'self-contained: no dependency, no Node module');
});

// The app: the client's global build and i18next's, strings from the delivery origin on another origin.
const page = (deliveryUrl: string) => `<!doctype html>
<meta charset="utf-8">
<script src="/glossa.js"></script>
<script src="/i18next.js"></script>
<p id="title"></p><p id="cart"></p><p id="pt"></p><p id="version"></p><p id="error"></p>
<script>
(async () => {
  const strings = Glossa.createRuntimeClient({ deliveryUrl: ${JSON.stringify(deliveryUrl)}, refreshInterval: 0 });
  await i18next.use(strings.backend()).init({ lng: 'de-DE', fallbackLng: 'en' });
  document.getElementById('title').textContent = i18next.t('home.title');
  document.getElementById('cart').textContent = i18next.t('cart.empty');
  document.getElementById('pt').textContent = (await strings.messages('pt-BR')).home.title;
  document.getElementById('version').textContent = strings.versionId;
  await strings.refresh();
})().catch((e) => { document.getElementById('error').textContent = String(e); })
  .finally(() => { document.body.dataset.done = '1'; });
</script>`;

test.serial('a page on another origin loads through CORS, revalidates with a 304, and works offline', async (t) => {
  const p = await stringsProject(svc);
  const scripts: Record<string, string | Buffer> = {
    '/glossa.js': await buildRuntime('iife'),
    '/i18next.js': readFileSync(path.join(process.cwd(), 'node_modules/i18next/dist/umd/i18next.min.js')),
  };
  const pageServer = http.createServer((req, res) => {
    const script = req.url && Object.hasOwn(scripts, req.url) ? scripts[req.url] : undefined;
    if (script) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(script);
    } else if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page(p.deliveryUrl));
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
    let seen: string[] = [];
    tab.on('response', (r) => seen.push(`${r.request().method()} ${r.url()} ${r.status()}`));
    tab.on('requestfailed', (r) => seen.push(`${r.method()} ${r.url()} failed ${r.failure()?.errorText}`));
    const consoleErrors: string[] = [];
    tab.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    const load = async (what: string) => {
      seen = [];
      await (what === 'first' ? tab.goto(pageUrl) : tab.reload());
      await tab.waitForSelector('body[data-done="1"]', { timeout: 20_000 });
      const text = async (id: string) => (await tab.textContent(`#${id}`)) ?? '';
      t.is(await text('error'), '', `${what}: ${consoleErrors.join('\n')}`);
      t.is(await text('title'), 'Willkommen', what);
      t.is(await text('cart'), 'Dein Warenkorb ist leer', what);
      t.is(await text('pt'), 'Bem-vindo', `${what}: pt-BR shown in pt`);
      t.is(await text('version'), p.versionId, what);
      return seen.filter((r) => r.includes(p.projectId));
    };
    const delivery = p.deliveryUrl;
    // First visit: the manifest and the bundles of de, en and pt, across origins.
    const first = await load('first');
    t.true(first.includes(`GET ${delivery}/manifest 200`), first.join('\n'));
    for (const lang of ['de', 'en', 'pt'])
      t.true(
        first.some((r) => new RegExp(`/bundles/${p.versionId}/${lang}\\.[0-9a-f]{16}\\.json 200$`).test(r)),
        `${lang}: ${first.join('\n')}`,
      );
    const stored = await tab.evaluate(() => Object.keys(localStorage));
    t.true(
      stored.some((k) => k.endsWith(':manifest')),
      stored.join('\n'),
    );
    t.is(stored.filter((k) => /:(de|en|pt):[0-9a-f]{16}$/.test(k)).length, 3, stored.join('\n'));
    // Second visit: from the cache, the manifest revalidated (304), no bundle fetched again.
    const second = await load('second');
    // (The page's own refresh() may follow the client's revalidation: one 304 each.)
    const only = (lines: string[], line: string) => {
      const gets = lines.filter((r) => !r.startsWith('OPTIONS '));
      t.true(gets.length > 0 && gets.every((r) => r === line), gets.join('\n'));
    };
    only(second, `GET ${delivery}/manifest 304`);
    // The service stopped: the same strings from the cache; the revalidation failed without harm.
    await svc.stop();
    stopped = true;
    const offline = await load('offline');
    only(offline, `GET ${delivery}/manifest failed net::ERR_CONNECTION_REFUSED`);
  } finally {
    await browser.close();
    await new Promise((resolve) => pageServer.close(resolve));
  }
});
