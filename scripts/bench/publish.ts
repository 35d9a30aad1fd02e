// Issue 5: publish of 10,000 keys in 20 languages with two output formats (snapshot, gates, every file, every
// bundle, the manifest), against writing the same bytes with fs.writeFile, the physical floor. Target: at most 3x.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../bench.js';
import { spawnServer } from './_http.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const LANGS = ['de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'sv', 'ja', 'ko', 'da', 'fi', 'nb', 'cs', 'hu', 'ro', 'tr', 'uk', 'el'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const full = path.join(dir, f);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

export const scenario: Scenario = {
  name: 'POST /publish, 10,000 keys x 20 languages, json + android_xml, vs fs.writeFile of the same bytes (ms)',
  async run() {
    const svc = await spawnServer(path.join(here, '_service-server.ts'), { BENCH_LANGS: LANGS.join(','), BENCH_SCOPES: 'admin', BENCH_SEED_KEYS: '10000', BENCH_FORMATS: 'json,android_xml' });
    const { projectId, apiKey } = svc.info.projects[0];
    let ms = 0;
    try {
      const t0 = performance.now();
      const res = await fetch(`${svc.info.base}/projects/${projectId}/publish`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` } });
      ms = performance.now() - t0;
      const body = await res.json();
      if (res.status !== 201 || body.keyCount !== 10000) throw new Error(`publish failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    } finally {
      svc.child.kill('SIGINT');
      await new Promise((r) => svc.child.once('exit', r));
    }
    // The floor: the same objects, written as plain files.
    const written = filesUnder(path.join(svc.info.objectsDir, 'v1', 'projects', projectId)).filter((f) => !f.endsWith('.meta.json'));
    const bodies = written.map((f) => readFileSync(f));
    const out = mkdtempSync(path.join(os.tmpdir(), 'glossa-floor-'));
    const t1 = performance.now();
    await Promise.all(bodies.map((b, i) => writeFile(path.join(out, `f${i}`), b)));
    const floor = performance.now() - t1;
    rmSync(out, { recursive: true, force: true });
    const bytes = bodies.reduce((a, b) => a + b.length, 0);
    return {
      figure: `${ms.toFixed(0)} ms per publish (${written.length} objects, ${(bytes / 1e6).toFixed(1)} MB)`,
      baseline: `${floor.toFixed(0)} ms to fs.writeFile the same bytes`,
      ratio: ms / floor,
      target: '<= 3',
    };
  },
};
