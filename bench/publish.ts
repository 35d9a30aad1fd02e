// Publish of 10,000 keys in 20 languages with two output formats (snapshot, gates, every file, every
// bundle, the manifest), against writing the same bytes with fs.writeFile, the physical floor. Target: at most 3x.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { median, type Scenario } from './lib/compare.js';
import type { components } from '../generated/openapi.js';
import { json } from './lib/http.js';
import { TARGETS_19 } from './lib/languages.js';
import { startService, stop } from './lib/servers.js';

const ROUNDS = 5;
const LANGS = TARGETS_19;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const full = path.join(dir, f);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

export const scenario: Scenario = {
  name: 'POST /publish, 10,000 keys x 20 languages, json + android_xml, vs fs.writeFile of the same bytes (ms)',
  async run() {
    const svc = await startService({
      BENCH_LANGS: LANGS.join(','),
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: '10000',
      BENCH_FORMATS: 'json,android_xml',
    });
    const { projectId, apiKey } = svc.info.projects[0];
    const publish = async () => {
      const t0 = performance.now();
      const res = await fetch(`${svc.info.base}/projects/${projectId}/publish`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
      });
      const ms = performance.now() - t0;
      const body = await json<components['schemas']['PublishResult']>(res);
      if (res.status !== 201 || body.keyCount !== 10000)
        throw new Error(`publish failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      return ms;
    };
    let cold = 0;
    let ms = 0;
    try {
      // Right after the content changed: the publish reads, gates and renders every cell while the client waits.
      cold = await publish();
      // Once the content has been quiet for PREPARE_DELAY_MS, the worker prepares the publish (here: run-due,
      // told the delay has passed); a publish then copies what was prepared.
      const due = await fetch(`${svc.info.adminUrl}/jobs/run-due`, {
        method: 'POST',
        headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
        body: JSON.stringify({ now: new Date(Date.now() + 60_000).toISOString() }),
      });
      if (due.status !== 200) throw new Error(`run-due failed: ${due.status} ${await due.text()}`);
      // Five publishes of the prepared content (a version each), the median reported: one alone is noisy.
      const runs: number[] = [];
      for (let i = 0; i < ROUNDS; i++) runs.push(await publish());
      ms = median(runs);
    } finally {
      await stop(svc);
    }
    // The floor: the objects of one version (the last), written as plain files.
    const versions = path.join(svc.info.objectsDir, 'v1', 'projects', projectId, 'bundles');
    const last = readdirSync(versions).sort().at(-1)!;
    const written = filesUnder(path.join(versions, last)).filter((f) => !f.endsWith('.meta.json'));
    // Linked, not rewritten: proof that the timed publish took the prepared path.
    if (written.some((f) => statSync(f).nlink < 2))
      throw new Error('the second publish did not use the prepared publish');
    const bodies = written.map((f) => readFileSync(f));
    const floors: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const out = mkdtempSync(path.join(os.tmpdir(), 'glossa-floor-'));
      const t1 = performance.now();
      await Promise.all(bodies.map((b, n) => writeFile(path.join(out, `f${n}`), b)));
      floors.push(performance.now() - t1);
      rmSync(out, { recursive: true, force: true });
    }
    const floor = median(floors);
    const bytes = bodies.reduce((a, b) => a + b.length, 0);
    return {
      figure: `${ms.toFixed(0)} ms per publish, prepared (median of ${ROUNDS}; ${written.length} objects, ${(bytes / 1e6).toFixed(1)} MB); ${cold.toFixed(0)} ms straight after a change (${(cold / floor).toFixed(1)}x)`,
      baseline: `${floor.toFixed(0)} ms to fs.writeFile the same bytes (median of ${ROUNDS})`,
      ratio: ms / floor,
      target: '<= 3',
    };
  },
};
