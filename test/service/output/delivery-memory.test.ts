// Bundles held in memory are answered before Hapi sees the request (server/http/delivery-memory.ts). That answer must
// be the one Hapi gives: the same status, headers and bytes for every request it takes (plain GETs, with or without
// compression), and every other request (HEAD, ranges, conditionals, other encodings, unknown or unsafe paths)
// still answered by Hapi. Compared over HTTP with a second service on the same database and object folder whose
// debug logging keeps every answer in Hapi.
import { gunzipSync, inflateSync } from 'node:zlib';
import test from 'ava';
import { createTestProject, publishSkipping, startTestService, type TestService } from '../../helpers/service.js';
import { deliveredIcuProject } from '../../helpers/icu-project.js';
import type { components } from '../../../generated/openapi.js';

let fast: TestService;
let hapi: TestService;
let bundlePaths: string[];
let projectId: string;

test.before(async () => {
  fast = await startTestService();
  const delivered = await deliveredIcuProject(fast);
  projectId = delivered.p.projectId;
  const manifest: components['schemas']['Manifest'] = delivered.manifest;
  bundlePaths = Object.values(manifest.bundles).map((b) => `/projects/${projectId}/${b.url}`);
  // And a project published with nothing translated: bundles far under Hapi's 1 KB compression threshold.
  const empty = await createTestProject(fast);
  await publishSkipping(empty);
  const small = (await (
    await fetch(`${fast.deliveryUrl}/projects/${empty.projectId}/manifest`)
  ).json()) as components['schemas']['Manifest'];
  for (const b of Object.values(small.bundles)) bundlePaths.push(`/projects/${empty.projectId}/${b.url}`);
  const { config } = fast.service.app;
  hapi = await startTestService({ LOG_LEVEL: 'debug', OBJECT_STORE: config.objectStore }, config.databaseUrl, {
    logDestination: { write: () => undefined },
  });
});
test.after.always(async () => {
  await hapi?.service.stop();
  await fast?.stop();
});

interface Seen {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

async function get(base: string, path: string, headers: Record<string, string>, method = 'GET'): Promise<Seen> {
  // node:http rather than fetch: fetch adds its own Accept-Encoding and decodes the body.
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (k !== 'date') h[k] = String(v);
        resolve({ status: res.statusCode!, headers: h, body: Buffer.concat(parts) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The decoded bytes, and the headers with their framing (chunked or Content-Length) set aside. */
function meaning(s: Seen) {
  const enc = s.headers['content-encoding'];
  const body = enc === 'gzip' ? gunzipSync(s.body) : enc === 'deflate' ? inflateSync(s.body) : s.body;
  const headers = { ...s.headers };
  if (enc) {
    delete headers['content-length'];
    delete headers['transfer-encoding'];
  }
  return { status: s.status, headers, body: body.toString('utf8') };
}

const VARIANTS: Array<{ name: string; headers: Record<string, string>; method?: string }> = [
  { name: 'plain', headers: {} },
  { name: 'gzip', headers: { 'accept-encoding': 'gzip' } },
  { name: 'browser', headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } },
  { name: 'curl', headers: { 'accept-encoding': 'deflate, gzip' } },
  { name: 'gzip, deflate', headers: { 'accept-encoding': 'gzip, deflate' } },
  { name: 'gzip, deflate, br', headers: { 'accept-encoding': 'gzip, deflate, br' } },
  { name: 'deflate only', headers: { 'accept-encoding': 'deflate' } },
  { name: 'br only', headers: { 'accept-encoding': 'br' } },
  { name: 'gzip refused', headers: { 'accept-encoding': 'gzip;q=0' } },
  { name: 'empty accept-encoding', headers: { 'accept-encoding': '' } },
  { name: 'range', headers: { range: 'bytes=0-9' } },
  { name: 'conditional', headers: { 'if-none-match': '"nope"' } },
  { name: 'HEAD', headers: {}, method: 'HEAD' },
  { name: 'origin', headers: { origin: 'http://app.example.test' } },
];

test('a bundle held in memory is answered as Hapi answers it, whatever the request', async (t) => {
  t.true(bundlePaths.length > 1);
  const sizes = new Set<boolean>();
  for (const path of bundlePaths) {
    // Twice first: the first request reads the store and keeps the bundle, the compressed bytes follow it.
    await get(fast.deliveryUrl, path, { 'accept-encoding': 'gzip' });
    await new Promise((r) => setTimeout(r, 50));
    for (const v of VARIANTS) {
      for (let i = 0; i < 2; i++) {
        const ours = await get(fast.deliveryUrl, path, v.headers, v.method);
        const theirs = await get(hapi.deliveryUrl, path, v.headers, v.method);
        t.deepEqual(meaning(ours), meaning(theirs), `${path} ${v.name}`);
        if (v.name === 'plain') {
          t.is(ours.status, 200);
          sizes.add(ours.body.length >= 1024);
        }
      }
    }
  }
  // Both sides of Hapi's 1 KB compression threshold were compared.
  t.deepEqual([...sizes].sort(), [false, true]);
});

test('paths that name no bundle are still refused by Hapi', async (t) => {
  const [path] = bundlePaths;
  for (const p of [
    `${path}/`,
    `${path}?x=1`,
    path.replace('/bundles/', '/bundles/../'),
    path.replace(projectId, 'p_nonexistent0'),
    `${path}%00`,
    path.toUpperCase(),
  ]) {
    const ours = meaning(await get(fast.deliveryUrl, p, {}));
    t.deepEqual(ours, meaning(await get(hapi.deliveryUrl, p, {})), p);
  }
});
