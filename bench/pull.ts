// A version pull of a format the publish rendered answers the stored object. GET /translations
// for `json` `de` of a version of 10,000 keys x 20 languages (BENCH_SCALE=1: 50,000 x 40), against the same bytes
// answered by a bare Node http server reading them from disk per request (_file-server.ts), alternating rounds.
// Target: at most 2x. fs.readFile alone, and a format the version did not render (`nested_json`, rendered from the
// keys and that language's cells), are shown beside.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../scripts/bench.js';
import type { components } from '../generated/openapi.js';
import { json, spawnServer, type ServiceInfo } from './_http.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SCALE = process.env.BENCH_SCALE === '1';
const KEYS = SCALE ? 50_000 : 10_000;
const ROUNDS = 15;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const LANGS = (
  'de,fr,es,it,pt,nl,pl,sv,ja,ko,da,fi,nb,cs,hu,ro,tr,uk,el,he,ar,hi,th,vi,id,ms,bg,hr,sk,sl,sr,lt,lv,et,ca,eu,gl,' +
  'is,ga'
)
  .split(',')
  .slice(0, SCALE ? 39 : 19);

async function timed(url: string, headers: Record<string, string> = {}) {
  const t0 = performance.now();
  const r = await fetch(url, { headers });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${text.slice(0, 300)}`);
  return { ms: performance.now() - t0, text };
}

export const scenario: Scenario = {
  name: `GET /translations?version=…&format=json&lang=de, ${KEYS.toLocaleString('en')} keys x ${LANGS.length + 1} languages, vs a bare http server reading the same bytes from disk (ms)`,
  async run() {
    const svc = await spawnServer<ServiceInfo>(path.join(here, '_service-server.ts'), {
      BENCH_LANGS: LANGS.join(','),
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: String(KEYS),
      BENCH_FORMATS: 'json,android_xml',
    });
    const { projectId, apiKey } = svc.info.projects[0];
    const headers = { authorization: `Bearer ${apiKey}` };
    const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-pull-'));
    const file = path.join(dir, 'de.json');
    const stored: number[] = [];
    const gzipped: number[] = [];
    const bare: number[] = [];
    const reads: number[] = [];
    let rendered = 0;
    let size = 0;
    let files: Awaited<ReturnType<typeof spawnServer<{ url: string }>>> | undefined;
    try {
      const res = await fetch(`${svc.info.base}/projects/${projectId}/publish`, { method: 'POST', headers });
      const { versionId } = await json<components['schemas']['PublishResult']>(res);
      // Identity by default, as the bare server answers (and as curl asks): fetch would ask for gzip, which Hapi
      // then compresses on every pull. The gzip figure is shown beside.
      const pull = (format: string, extra: Record<string, string> = { 'accept-encoding': 'identity' }) =>
        timed(`${svc.info.base}/projects/${projectId}/translations?version=${versionId}&format=${format}&lang=de`, {
          ...headers,
          ...extra,
        });
      const first = await pull('json');
      size = first.text.length;
      writeFileSync(file, first.text);
      files = await spawnServer<{ url: string }>(path.join(here, '_file-server.ts'), { FILE: file });
      for (let i = 0; i < ROUNDS; i++) {
        stored.push((await pull('json')).ms);
        gzipped.push((await pull('json', { 'accept-encoding': 'gzip' })).ms);
        bare.push((await timed(files.info.url)).ms);
        const t0 = performance.now();
        await readFile(file);
        reads.push(performance.now() - t0);
      }
      rendered = (await pull('nested_json')).ms;
    } finally {
      files?.child.kill('SIGINT');
      svc.child.kill('SIGINT');
      await new Promise((r) => svc.child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    }
    const ms = median(stored);
    const floor = median(bare);
    return {
      figure: `${ms.toFixed(1)} ms per pull of the stored json (median of ${ROUNDS}, ${(size / 1e6).toFixed(1)} MB; ${median(gzipped).toFixed(1)} ms asking for gzip, compressed per pull); ${rendered.toFixed(0)} ms for nested_json, rendered from de's cells`,
      baseline: `${floor.toFixed(1)} ms from a bare http server reading the file; fs.readFile alone ${median(reads).toFixed(1)} ms (medians of ${ROUNDS})`,
      ratio: ms / floor,
      target: '<= 2',
    };
  },
};
