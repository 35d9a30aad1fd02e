// The client-side packages as a user gets them (docs/decisions/0013-client-packages.md): each `npm pack`ed (its
// prepack builds dist/) and installed from the tarball into an empty folder. The CLI installs small, with nothing of
// the server, and runs (its commands and its MCP server); the runtime client is plain JavaScript that Node imports without a TypeScript loader and
// esbuild bundles into a page Chromium runs. Install scripts are skipped (nothing here needs a native module) and
// the npm cache is preferred.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { build } from 'esbuild';
import { launchChromium } from '../../helpers/chromium.js';

const MAX_CLI_INSTALL_KB = 15 * 1024;
const SERVER_PACKAGES = ['@hapi', 'knex', 'better-sqlite3', 'mysql2', '@aws-sdk', 'tsx', 'pino', 'piscina'];

const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-packages-'));
test.after.always(() => rmSync(dir, { recursive: true, force: true }));

const npm = (args: string[], cwd: string) =>
  spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    timeout: 240_000,
    env: { ...process.env, npm_config_fund: 'false' },
  });

/** `npm pack`s packages/<name> into `dir` and installs the tarball into a new empty folder; returns that folder. */
function packAndInstall(name: string) {
  const packed = npm(['pack', '--json', '--pack-destination', dir], path.resolve('packages', name));
  if (packed.status !== 0) throw new Error(`npm pack packages/${name}: ${packed.stderr}`);
  const [{ filename }] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  const app = path.join(dir, `app-${name}`);
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), '{"name":"app","private":true,"type":"module"}\n');
  const started = Date.now();
  const installed = npm(
    ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', path.join(dir, filename)],
    app,
  );
  if (installed.status !== 0) throw new Error(`npm install ${filename}: ${installed.stderr}`);
  return { app, installMs: Date.now() - started };
}

/** Every package folder npm installed (its own record of the tree). */
const installedPackages = (app: string) =>
  Object.keys(
    (JSON.parse(readFileSync(path.join(app, 'node_modules/.package-lock.json'), 'utf8')) as { packages: object })
      .packages,
  ).filter((p) => p.startsWith('node_modules/'));

test('the CLI installs from its tarball at most 15 MB, without the server, and `glossa --version` works', (t) => {
  const { app, installMs } = packAndInstall('cli');
  const kb = Number(spawnSync('du', ['-sk', 'node_modules'], { cwd: app, encoding: 'utf8' }).stdout.split('\t')[0]);
  const packages = installedPackages(app);
  t.deepEqual(packages, ['node_modules/@glossa/cli'], 'everything it runs is bundled in dist/glossa.js');
  t.log(`installed in ${(installMs / 1000).toFixed(1)} s: ${(kb / 1024).toFixed(1)} MB, ${packages.length} packages`);
  t.true(kb > 0 && kb <= MAX_CLI_INSTALL_KB, `${kb} KB installed`);
  const server = packages.filter((p) => SERVER_PACKAGES.some((s) => p.split('node_modules/').pop()!.startsWith(s)));
  t.deepEqual(server, [], 'no server dependency');
  const pkg = path.join(app, 'node_modules/@glossa/cli');
  t.true(existsSync(path.join(pkg, 'glossa.schema.json')), 'the schema ships where `glossa init` points');
  t.false(existsSync(path.join(pkg, 'src')), 'built JavaScript only');

  const npx = (args: string[]) => spawnSync('npx', ['--no-install', 'glossa', ...args], { cwd: app, encoding: 'utf8' });
  const version = npx(['--version']);
  t.is(version.status, 0, version.stderr);
  t.is(
    version.stdout.trim(),
    (JSON.parse(readFileSync(path.resolve('packages/cli/package.json'), 'utf8')) as { version: string }).version,
  );
  const help = npx(['--help']);
  t.is(help.status, 0, help.stderr);
  t.regex(help.stdout, /Usage: glossa/);
  t.regex(help.stdout, /Exit codes: 0 success/);
  t.is(npx(['status']).status, 2, 'no config: exit 2');

  // The bundled MCP SDK answers over stdio: initialize, then the tool list.
  writeFileSync(
    path.join(app, 'glossa.config.json'),
    JSON.stringify({
      projectId: 'p1',
      baseUrl: 'http://127.0.0.1:9/v1',
      files: [{ source: 'en.json', format: 'json', template: '{locale}.json' }],
    }),
  );
  const rpc = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ];
  const mcp = spawnSync('npx', ['--no-install', 'glossa', 'mcp'], {
    cwd: app,
    encoding: 'utf8',
    input: rpc.map((m) => JSON.stringify(m)).join('\n') + '\n',
    env: { PATH: process.env.PATH, GLOSSA_API_KEY: 'not-used' },
    timeout: 30_000,
  });
  const answers = mcp.stdout
    .split('\n')
    .filter(Boolean)
    .map(
      (l) =>
        JSON.parse(l) as { id: number; result: { serverInfo?: { version: string }; tools?: Array<{ name: string }> } },
    );
  t.is(answers.find((a) => a.id === 1)?.result.serverInfo?.version, version.stdout.trim(), mcp.stderr);
  t.true(answers.find((a) => a.id === 2)?.result.tools?.some((tool) => tool.name === 'status'));
});

// The app's code, the same for Node and the page: a client over a fake delivery origin (its own `fetch`).
const APP = `import { createRuntimeClient, memoryStorage } from '@glossa/runtime';
const deliveryUrl = 'https://cdn.example.test/v1/projects/p1';
const files = {
  [deliveryUrl + '/manifest']: {
    projectId: 'p1', versionId: '2026.11.28.1', baseLang: 'en',
    languages: [{ code: 'en', isBase: true }, { code: 'de', isBase: false }],
    bundles: { en: { url: 'bundles/en.json', hash: 'e0', size: 30 }, de: { url: 'bundles/de.json', hash: 'd0', size: 30 } },
  },
  [deliveryUrl + '/bundles/de.json']: { home: { title: 'Willkommen' } },
};
const fetch = async (url) => {
  const body = files[String(url)];
  return body ? new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }) : new Response('', { status: 404 });
};
const strings = createRuntimeClient({ deliveryUrl, storage: memoryStorage(), refreshInterval: 0, fetch });
const de = await strings.messages('de-DE');
export const result = strings.resolve('de-DE') + ' ' + strings.versionId + ' ' + de.home.title;
strings.close();
`;
const EXPECTED = 'de 2026.11.28.1 Willkommen';

test('the runtime client: plain Node imports the package, and esbuild bundles it into a page Chromium runs', async (t) => {
  const { app } = packAndInstall('runtime');
  t.deepEqual(installedPackages(app), ['node_modules/@glossa/runtime'], 'no dependency');
  const files = readdirSync(path.join(app, 'node_modules/@glossa/runtime/dist'));
  t.deepEqual(
    files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
    [],
    'no TypeScript source',
  );

  writeFileSync(path.join(app, 'app.js'), APP);
  writeFileSync(
    path.join(app, 'main.js'),
    `import { result } from './app.js';\nimport { folderStorage } from '@glossa/runtime/node';\n` +
      `console.log(result, typeof folderStorage('.cache').get);\n`,
  );
  // A child `node` with no loader: not this test's tsx.
  const node = spawnSync(process.execPath, ['main.js'], {
    cwd: app,
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  t.is(node.status, 0, node.stderr);
  t.is(node.stdout.trim(), `${EXPECTED} function`);

  writeFileSync(
    path.join(app, 'page.js'),
    `import { result } from './app.js';\ndocument.body.dataset.result = result;\n`,
  );
  const bundled = await build({
    entryPoints: [path.join(app, 'page.js')],
    absWorkingDir: app,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const code = bundled.outputFiles[0].text;
  t.notRegex(code, /\bimport\s*[("'{*]|\brequire\(|node:/, 'one self-contained script');
  const browser = await launchChromium();
  try {
    const tab = await browser.context.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (e) => errors.push(String(e)));
    await tab.setContent('<!doctype html><body></body>');
    await tab.addScriptTag({ content: code, type: 'module' });
    await tab.waitForFunction(() => document.body.dataset.result || null, undefined, { timeout: 10_000 });
    t.is(await tab.evaluate(() => document.body.dataset.result), EXPECTED);
    t.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
