// The runtime client's start with a warm cache. Time from creating the client to the first translated
// string (`createRuntimeClient` with `folderStorage`, `messages('de')`, one lookup), with the project's manifest and
// German bundle of 2,000 keys in the cache (BENCH_SCALE=1: 10,000; BENCH_RUNTIME_KEYS=n: n) and the delivery origin
// up (the client revalidates the manifest once the first strings are served, outside the measured time, as an app's
// first screen sees it), against reading the same cached bundle file with `readFile` and a bare `JSON.parse` and the
// same lookup. Alternating rounds, medians. Target: at most 1.5x. The client reads one file more than the baseline
// (the cached manifest, which names the bundle's hash): a fixed quarter of a millisecond or so, which a bundle of a
// few hundred keys does not hide. Shown beside: the same start through i18next (`init` with the client's backend,
// to the first `t()`), and the size of the browser build (minified and gzipped; the browser test holds it to 6 KB).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import i18next from 'i18next';
import { alternate, median, type Scenario } from './lib/compare.js';
import { createRuntimeClient, type Resources } from '../packages/runtime/src/index.js';
import { folderStorage } from '../packages/runtime/src/node.js';
import { buildRuntime, gzippedSize } from '../test/helpers/runtime-build.js';
import { startService, stop } from './lib/servers.js';

const KEYS = Number(process.env.BENCH_RUNTIME_KEYS) || (process.env.BENCH_SCALE === '1' ? 10_000 : 2_000);
const WARMUP = 20;
const ROUNDS = 41;
const first = (r: Resources) => (r.screen_0 as Resources).label_0 as string;

export const scenario: Scenario = {
  name: `runtime client: init to the first string from a warm cache, ${KEYS.toLocaleString('en')} keys (de), vs readFile + JSON.parse of the cached bundle (ms)`,
  async run() {
    const svc = await startService({
      BENCH_LANGS: 'de',
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: String(KEYS),
    });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-runtime-bench-'));
    try {
      const { projectId, apiKey } = svc.info.projects[0];
      const published = await fetch(`${svc.info.base}/projects/${projectId}/publish`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: '{}',
      });
      if (!published.ok) throw new Error(`publish: ${published.status} ${await published.text()}`);
      const deliveryUrl = `${svc.info.delivery}/projects/${projectId}`;
      const storage = folderStorage(dir);
      const options = { deliveryUrl, storage, refreshInterval: 0 };
      const warm = createRuntimeClient(options);
      const expected = first(await warm.messages('de'));
      warm.close();
      const bundleFile = path.join(
        dir,
        readdirSync(dir).find((f) => /%3Ade%3A[0-9a-f]{16}$/.test(f))!,
      );

      const ours = async () => {
        const t0 = performance.now();
        const client = createRuntimeClient(options);
        const text = first(await client.messages('de'));
        const ms = performance.now() - t0;
        if (text !== expected) throw new Error(`ours: ${text}`);
        // The background revalidation (a 304) ends before the next round.
        await client.refresh();
        client.close();
        return ms;
      };
      const bare = async () => {
        const t0 = performance.now();
        const text = first(JSON.parse(await readFile(bundleFile, 'utf8')) as Resources);
        const ms = performance.now() - t0;
        if (text !== expected) throw new Error(`bare: ${text}`);
        return ms;
      };
      const viaI18next = async () => {
        const t0 = performance.now();
        const client = createRuntimeClient(options);
        const i18n = i18next.createInstance();
        await i18n.use(client.backend()).init({ lng: 'de', fallbackLng: false, initAsync: true });
        const text = i18n.t('screen_0.label_0', { name: '{name}' });
        const ms = performance.now() - t0;
        if (!text.startsWith('de 0')) throw new Error(`i18next: ${text}`);
        await client.refresh();
        client.close();
        return ms;
      };
      // Each measurement starts on a quiet event loop: what the previous one left (its 304's socket) is done.
      const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
      for (let i = 0; i < WARMUP; i++) {
        await ours();
        await bare();
        await viaI18next();
      }
      const settled = (measure: () => Promise<number>) => async () => {
        await settle();
        return measure();
      };
      const rounds = await alternate(
        { ours: settled(ours), bare: settled(bare), i18next: settled(viaI18next) },
        { rounds: ROUNDS },
      );
      const [o, b, n] = [median(rounds.ours), median(rounds.bare), median(rounds.i18next)];
      const size = gzippedSize(await buildRuntime('esm'));
      const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
      return {
        figure: `${o.toFixed(2)} ms (through i18next init to t(): ${n.toFixed(2)} ms); browser build ${kb(size)} gzipped (budget 6 KB)`,
        baseline: `${b.toFixed(2)} ms (readFile + JSON.parse of the ${kb((await readFile(bundleFile)).length)} bundle)`,
        ratio: o / b,
        target: '<= 1.5',
        met: o / b <= 1.5 && size <= 6 * 1024,
      };
    } finally {
      await stop(svc);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
