// `npm run mock` as frontend teams use it: Prism serves the spec at the service's own addresses (`/v1/...`, the
// delivery routes included), answers with the spec's examples, and those examples are the service's real output
// (a real i18next bundle, manifest and rendered files, with their content types). And the spec lints clean.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import i18next from 'i18next';
import HttpBackend from 'i18next-http-backend';
import YAML from 'yaml';
import type { FormatId } from '../../packages/core/src/catalog.js';
import { manifestFor, renderDelivery, renderFile } from '../../packages/core/src/delivery.js';
import { REGISTRY } from '../../packages/core/src/formats/index.js';
import type { Snapshot } from '../../packages/core/src/snapshot.js';
import { createClient } from '../../packages/client/src/index.js';
import type { Schemas } from '../helpers/typed.js';

/** How a promisified execFile rejects: the exit code and what the command printed. */
interface RunError {
  code?: number | string;
  stdout: string;
  stderr: string;
}

/** The parts of package.json and of the spec these tests read. */
interface PackageJson {
  scripts: Record<string, string>;
}
interface Spec {
  components: { examples: Record<string, { value: unknown }> };
  paths: Record<
    string,
    Record<
      string,
      { responses: Record<string, { content: Record<string, { examples: Record<string, { value: unknown }> }> }> }
    >
  >;
}

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as PackageJson;
const spec = YAML.parse(readFileSync(path.join(root, 'spec/openapi.yaml'), 'utf8')) as Spec;
const examples = spec.components.examples;
/** The spec's example `name`, read as `T` (the schema it illustrates, or `string` for a file). */
const example = <T = unknown>(name: string) => examples[name].value as T;
const API_KEY = 'glk_aaaaaaaaaaaa_' + 'a'.repeat(43);
const PROJECT = 'p_7d2c9a';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

let mock: ChildProcess;
let log = '';
let origin = '';

test.before(async () => {
  // The command `npm run mock` runs (`tsx scripts/mock.ts`), on a free port: node with tsx's loader is what the
  // tsx binary runs, without its extra process in between.
  const [runner, script, ...args] = String(pkg.scripts.mock).split(/\s+/);
  if (runner !== 'tsx') throw new Error(`npm run mock is "${pkg.scripts.mock}"`);
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  mock = spawn(process.execPath, ['--import', 'tsx', script, ...args, '-p', String(port), '-h', '127.0.0.1'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  mock.stdout!.on('data', (d) => {
    log += d;
  });
  mock.stderr!.on('data', (d) => {
    log += d;
  });
  const deadline = Date.now() + 90_000;
  while (!/Prism is listening/.test(log)) {
    if (Date.now() > deadline || mock.exitCode !== null) throw new Error(`the mock did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
});

test.after.always(async () => {
  if (!mock || mock.exitCode !== null) return;
  const exited = new Promise((r) => mock.once('exit', r));
  mock.kill('SIGTERM');
  await exited;
});

test('npm run mock is scripts/mock.ts', (t) => {
  t.is(pkg.scripts.mock, 'tsx scripts/mock.ts');
});

test('the SDK with baseUrl .../v1 gets the example answers of the main origin', async (t) => {
  const client = createClient({ baseUrl: `${origin}/v1`, apiKey: API_KEY });
  const pricing = await client.GET('/pricing');
  t.is(pricing.response.status, 200);
  t.deepEqual(
    pricing.data,
    spec.paths['/pricing'].get.responses['200'].content['application/json'].examples.catalogue.value,
  );
  const meta = await client.GET('/projects/{projectId}/meta', { params: { path: { projectId: PROJECT } } });
  t.is(meta.response.status, 200);
  t.deepEqual(
    meta.data,
    spec.paths['/projects/{projectId}/meta'].get.responses['200'].content['application/json'].examples.meta.value,
  );
  const cred = await client.GET('/projects/{projectId}/credential', { params: { path: { projectId: PROJECT } } });
  t.is(cred.response.status, 200);
  t.true(Array.isArray(cred.data!.scopes));
  // The key is required as it is by the service.
  const anonymous = await createClient({ baseUrl: `${origin}/v1` }).GET('/projects/{projectId}/meta', {
    params: { path: { projectId: PROJECT } },
  });
  t.is(anonymous.response.status, 401);
  // Like the service, nothing answers outside /v1.
  t.is(
    (await fetch(`${origin}/projects/${PROJECT}/meta`, { headers: { authorization: `Bearer ${API_KEY}` } })).status,
    404,
  );
  t.is((await fetch(`${origin}/pricing`)).status, 404);
});

test('version pulls answer the real files with their content types', async (t) => {
  const client = createClient({ baseUrl: `${origin}/v1`, apiKey: API_KEY });
  const pull = (format: FormatId, accept: string, prefer?: string) =>
    client.GET('/projects/{projectId}/translations', {
      params: { path: { projectId: PROJECT }, query: { version: 'current', format, lang: 'fr' } },
      headers: { accept, ...(prefer ? { prefer: `example=${prefer}` } : {}) },
      parseAs: 'text',
    });
  const text: Array<[FormatId, string, string]> = [
    ['android_xml', 'application/xml', 'AndroidXmlFileFr'],
    ['ios_strings', 'text/plain', 'IosStringsFileFr'],
    ['po', 'text/x-gettext-translation', 'PoFileFr'],
  ];
  for (const [format, accept, name] of text) {
    const r = await pull(format, accept);
    t.is(r.response.status, 200, format);
    t.is(r.response.headers.get('content-type')!.split(';')[0], REGISTRY[format].contentType.split(';')[0], format);
    t.is(r.data, example<string>(name), format);
  }
  const json: Array<[FormatId, string, string]> = [
    ['json', 'jsonFile', 'JsonFileFr'],
    ['nested_json', 'nestedJsonFile', 'NestedJsonFileFr'],
    ['arb', 'arbFile', 'ArbFileFr'],
    ['xcstrings', 'xcstringsFile', 'XcstringsFile'],
  ];
  for (const [format, prefer, name] of json) {
    const r = await pull(format, 'application/json', prefer);
    t.is(r.response.status, 200, format);
    t.regex(r.response.headers.get('content-type')!, /^application\/json/, format);
    t.deepEqual(JSON.parse(r.data as string), example(name), format);
  }
});

test('the delivery routes answer under /v1: health, the manifest, and bundles i18next loads', async (t) => {
  const delivery = createClient({ baseUrl: `${origin}/v1` });
  const health = await delivery.GET('/health');
  t.deepEqual(health.data, { status: 'ok' });
  const manifest = await delivery.GET('/projects/{projectId}/manifest', { params: { path: { projectId: PROJECT } } });
  t.is(manifest.response.status, 200);
  t.regex(manifest.response.headers.get('content-type')!, /^application\/json/);
  t.is(manifest.response.headers.get('cache-control'), 'public, max-age=60, must-revalidate');
  const m = manifest.data!;
  t.deepEqual(m, example('DeliveryManifest'));
  const manifestUrl = `${origin}/v1/projects/${PROJECT}/manifest`;

  // The manifest's relative URLs resolve to the mock's bundle route, as they do on the delivery origin.
  const bundle = await fetch(new URL(m.bundles.fr.url, manifestUrl));
  t.is(bundle.status, 200);
  t.regex(bundle.headers.get('content-type')!, /^application\/json/);
  t.is(bundle.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.deepEqual(await bundle.json(), example('I18nextBundleFr'));
  const xml = await fetch(new URL(m.files.android_xml.fr.url, manifestUrl), { headers: { accept: 'application/xml' } });
  t.is(xml.headers.get('content-type')!.split(';')[0], 'application/xml');
  t.is(await xml.text(), example<string>('AndroidXmlFileFr'));

  // i18next loads the example bundle unchanged: `{{name}}` interpolation and plural suffix keys.
  const i18n = i18next.createInstance();
  await i18n.use(HttpBackend).init({
    lng: 'fr',
    fallbackLng: false,
    ns: ['translation'],
    backend: { loadPath: (lngs: string[]) => new URL(m.bundles[lngs[0]].url, manifestUrl).toString() },
  });
  t.is(i18n.t('home.welcome', { name: 'Ada' }), 'Bon retour, Ada !');
  t.is(i18n.t('cart.items', { count: 1 }), '1 article dans votre panier');
  t.is(i18n.t('cart.items', { count: 3 }), '3 articles dans votre panier');

  // The custom-domain routes, without the project prefix.
  t.deepEqual(await (await fetch(`${origin}/v1/manifest`)).json(), example('DeliveryManifest'));
  t.deepEqual(
    await (await fetch(new URL(m.bundles.fr.url, `${origin}/v1/manifest`))).json(),
    example('I18nextBundleFr'),
  );
});

// The snapshot the examples were published from (four keys, `en` and `fr`, formats json and android_xml). If a
// renderer changes its output, this test says which example to refresh.
const SNAPSHOT: Snapshot = {
  baseLang: 'en',
  languages: ['fr'],
  keys: [
    ['home.welcome', 'Welcome back, {name}!', null, 'Bon retour, {name} !'],
    ['home.title', 'Your projects', null, 'Vos projets'],
    [
      'cart.items',
      '{count, plural, one {# item in your cart} other {# items in your cart}}',
      { one: '# item in your cart', other: '# items in your cart' },
      '{count, plural, one {# article dans votre panier} many {# articles dans votre panier} other {# articles dans votre panier}}',
    ],
    ['actions.save', 'Save', null, 'Enregistrer'],
  ].map(([name, source, forms, fr]) => ({
    name: name as string,
    fileKey: null,
    comment: null,
    meta: null,
    ctx: null,
    source: source as string,
    forms: forms as Record<string, string> | null,
    cells: { fr: { value: fr as string, status: 'translated' } },
  })),
  catalogs: {},
};

test('the examples are what the publisher renders: manifest, bundles and files', (t) => {
  const rendered = renderDelivery(SNAPSHOT, ['json', 'android_xml']);
  const manifest = JSON.parse(
    manifestFor(PROJECT, '2025.01.31.2', Date.parse('2025-01-31T10:20:00.000Z'), rendered),
  ) as Schemas['Manifest'];
  t.deepEqual(manifest, example('DeliveryManifest'));
  const object = (prefix: string) => rendered.objects.find((o) => o.file.startsWith(prefix))!;
  // Byte for byte: the bundle as stored (minified), the rendered files as sent.
  t.is(object('fr.').body, JSON.stringify(example('I18nextBundleFr')));
  t.is(object('en.').body, JSON.stringify(example('I18nextBundleEn')));
  t.is(object('json.fr.').body, `${JSON.stringify(example('JsonFileFr'), null, 2)}\n`);
  t.is(object('android_xml.fr.').body, example<string>('AndroidXmlFileFr'));
  t.is(renderFile(SNAPSHOT, 'android_xml', 'fr').body, example<string>('AndroidXmlFileFr'));
  t.is(renderFile(SNAPSHOT, 'ios_strings', 'fr').body, example<string>('IosStringsFileFr'));
  t.is(renderFile(SNAPSHOT, 'po', 'fr').body, example<string>('PoFileFr'));
  t.is(renderFile(SNAPSHOT, 'nested_json', 'fr').body, `${JSON.stringify(example('NestedJsonFileFr'), null, 2)}\n`);
  t.is(renderFile(SNAPSHOT, 'arb', 'fr').body, `${JSON.stringify(example('ArbFileFr'), null, 2)}\n`);
  t.deepEqual(JSON.parse(renderFile(SNAPSHOT, 'xcstrings', 'fr').body), example('XcstringsFile'));
});

test('npm run lint:spec: zero errors and zero warnings', async (t) => {
  // The same command line as the script, with the CLI run directly (no npm banner, no update check).
  const [bin, ...args] = String(pkg.scripts['lint:spec']).split(/\s+/);
  t.is(bin, 'redocly');
  const { stdout, stderr } = await run(
    process.execPath,
    [path.join(root, 'node_modules/@redocly/cli/bin/cli.js'), ...args],
    {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  ).catch((e: RunError) => ({ stdout: `exit ${e.code}\n${e.stdout}`, stderr: String(e.stderr) }));
  const out = stdout + stderr;
  t.regex(out, /Your API descriptions are valid/, out);
  // Each problem prints "<Warning|Error> was generated by the <rule> rule." and the summary "You have N warnings".
  // (Plain "warning" cannot be the test: on Node 20 the CLI prints a Node deprecation warning banner.)
  t.notRegex(out, /(Warning|Error) was generated by/, out);
  t.notRegex(out, /You have \d+ (warning|error)/, out);
  t.notRegex(out, /^exit /, out);
});
