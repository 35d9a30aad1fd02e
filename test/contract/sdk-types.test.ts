// The SDK's types catch mistakes at compile time: tsc over test/contract/sdk-mistakes/, a file of deliberate
// mistakes each under `// @ts-expect-error`, must pass without a word (an expected error that no longer happens
// is itself an error). And the typed calls do at run time what their types say.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import {
  createClient,
  previewSync,
  previewTranslate,
  pullFile,
  sync,
  translate,
} from '../../packages/client/src/index.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

test('tsc catches every mistake of sdk-mistakes/ and accepts every correct use', async (t) => {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const r = await run(process.execPath, [tsc, '--noEmit', '-p', 'test/contract/sdk-mistakes/tsconfig.json'], {
    cwd: root,
  }).then(
    (x) => ({ code: 0, out: x.stdout + x.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: `${e.stdout}${e.stderr}` }),
  );
  t.is(r.out, '');
  t.is(r.code, 0);
});

test('the typed calls: dryRun only on previews, bodies as given, file pulls as text', async (t) => {
  const seen: Array<{ method: string; url: URL; body: string }> = [];
  const fetch = (async (req: Request) => {
    const url = new URL(req.url);
    seen.push({ method: req.method, url, body: await req.text() });
    if (url.pathname.endsWith('/translations'))
      return new Response('<resources/>\n', { headers: { 'content-type': 'application/xml' } });
    return Response.json({ ok: true });
  }) as typeof globalThis.fetch;
  const client = createClient({ baseUrl: 'http://sdk.test/v1', apiKey: 'glk_x', fetch });
  const body = { units: [{ source: 'Save' }] };

  t.deepEqual((await translate(client, 'p1', body)).data as unknown, { ok: true });
  await previewTranslate(client, 'p1', body);
  await sync(client, 'p1', { contentBase64: 'e30=' });
  await previewSync(client, 'p1', { contentBase64: 'e30=' });
  const file = await pullFile(client, 'p1', { version: 'current', format: 'android_xml', lang: 'de' });
  t.is(file.data, '<resources/>\n');

  t.deepEqual(
    seen.map((s) => `${s.method} ${s.url.pathname}${s.url.search}`),
    [
      'POST /v1/projects/p1/translate',
      'POST /v1/projects/p1/translate?dryRun=true',
      'POST /v1/projects/p1/sync',
      'POST /v1/projects/p1/sync?dryRun=true',
      'GET /v1/projects/p1/translations?version=current&format=android_xml&lang=de',
    ],
  );
  t.deepEqual(JSON.parse(seen[0].body), body);
  t.deepEqual(JSON.parse(seen[3].body), { contentBase64: 'e30=' });
});
