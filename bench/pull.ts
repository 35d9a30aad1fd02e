// A version pull of a format the publish rendered answers the stored object. GET /translations
// for `json` `de` of a version of 10,000 keys x 20 languages (BENCH_SCALE=1: 50,000 x 40), against the same bytes
// answered by a bare Node http server reading them from disk per request (lib/servers/file.ts), alternating rounds.
// Target: at most 2x. fs.readFile alone, and a format the version did not render (`nested_json`, rendered from the
// keys and that language's cells), are shown beside.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { alternate, median, type Scenario } from './lib/compare.js';
import type { components } from '../generated/openapi.js';
import { json } from './lib/http.js';
import { TARGETS_19, TARGETS_39 } from './lib/languages.js';
import { SERVERS, spawnServer, startService, stop, type Spawned } from './lib/servers.js';

const SCALE = process.env.BENCH_SCALE === '1';
const KEYS = SCALE ? 50_000 : 10_000;
const ROUNDS = 15;
const LANGS = SCALE ? TARGETS_39 : TARGETS_19;

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
    const svc = await startService({
      BENCH_LANGS: LANGS.join(','),
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: String(KEYS),
      BENCH_FORMATS: 'json,android_xml',
    });
    const { projectId, apiKey } = svc.info.projects[0];
    const headers = { authorization: `Bearer ${apiKey}` };
    const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-pull-'));
    const file = path.join(dir, 'de.json');
    let rounds;
    let rendered = 0;
    let size = 0;
    let files: Spawned<{ url: string }> | undefined;
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
      files = await spawnServer<{ url: string }>(SERVERS.file, { FILE: file });
      const fileUrl = files.info.url;
      rounds = await alternate(
        {
          stored: async () => (await pull('json')).ms,
          gzipped: async () => (await pull('json', { 'accept-encoding': 'gzip' })).ms,
          bare: async () => (await timed(fileUrl)).ms,
          reads: async () => {
            const t0 = performance.now();
            await readFile(file);
            return performance.now() - t0;
          },
        },
        { rounds: ROUNDS },
      );
      rendered = (await pull('nested_json')).ms;
    } finally {
      if (files) await stop(files);
      await stop(svc);
      rmSync(dir, { recursive: true, force: true });
    }
    const { stored, gzipped, bare, reads } = rounds;
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
