// Issue 13, goal 3: a version pull of a format the publish rendered answers the stored object. GET /translations
// for `json` `de` of a version of 10,000 keys x 20 languages, against fs.readFile of the same bytes (what the issue
// measured the old render-per-pull against: 12-18x). Target: at most 2x. A format the version did not render
// (`nested_json`) is still rendered from the snapshot; its time is shown beside.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../bench.js';
import type { components } from '../../generated/openapi.js';
import { json, spawnServer, type ServiceInfo } from './_http.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const LANGS = 'de,fr,es,it,pt,nl,pl,sv,ja,ko,da,fi,nb,cs,hu,ro,tr,uk,el'.split(',');

export const scenario: Scenario = {
  name: 'GET /translations?version=…&format=json&lang=de, 10,000 keys x 20 languages, vs fs.readFile of the same bytes (ms)',
  async run() {
    const svc = await spawnServer<ServiceInfo>(path.join(here, '_service-server.ts'), {
      BENCH_LANGS: LANGS.join(','),
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: '10000',
      BENCH_FORMATS: 'json,android_xml',
    });
    const { projectId, apiKey } = svc.info.projects[0];
    const headers = { authorization: `Bearer ${apiKey}` };
    let body = '';
    const stored: number[] = [];
    const rendered: number[] = [];
    try {
      const res = await fetch(`${svc.info.base}/projects/${projectId}/publish`, { method: 'POST', headers });
      const { versionId } = await json<components['schemas']['PublishResult']>(res);
      const pull = async (format: string) => {
        const t0 = performance.now();
        const r = await fetch(
          `${svc.info.base}/projects/${projectId}/translations?version=${versionId}&format=${format}&lang=de`,
          { headers },
        );
        const text = await r.text();
        if (r.status !== 200) throw new Error(`pull ${format}: ${r.status} ${text.slice(0, 300)}`);
        return { ms: performance.now() - t0, text };
      };
      for (let i = 0; i < ROUNDS; i++) {
        const s = await pull('json');
        stored.push(s.ms);
        body = s.text;
        rendered.push((await pull('nested_json')).ms);
      }
    } finally {
      svc.child.kill('SIGINT');
      await new Promise((r) => svc.child.once('exit', r));
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-pull-'));
    const file = path.join(dir, 'de.json');
    writeFileSync(file, body);
    const reads: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      await readFile(file);
      reads.push(performance.now() - t0);
    }
    rmSync(dir, { recursive: true, force: true });
    const ms = median(stored);
    const floor = median(reads);
    return {
      figure: `${ms.toFixed(1)} ms per pull of the stored json (median of ${ROUNDS}, ${(body.length / 1e6).toFixed(1)} MB); ${median(rendered).toFixed(0)} ms for nested_json, rendered`,
      baseline: `${floor.toFixed(1)} ms to fs.readFile the same bytes (median of ${ROUNDS})`,
      ratio: ms / floor,
      target: '<= 2',
    };
  },
};
