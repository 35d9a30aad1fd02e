// Issue 3: fill throughput with the pseudo engine, in (key, language) pairs per second, through the real job
// (batches, charges, stored values). Baseline: the pseudo engine alone on the same items in this process.
// Target: at least 5,000 pairs per second.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../bench.js';
import { PseudoEngine } from '../../handlers/platform/engines/pseudo.js';
import type { components } from '../../generated/openapi.js';
import { json, spawnServer, type ServiceInfo } from './_http.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const LANGS = ['de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'sv', 'ja', 'ko'];
const PUSHES = 4;

export const scenario: Scenario = {
  name: 'Fill throughput, pseudo engine, 20,000 pairs (pairs/s)',
  async run() {
    const svc = await spawnServer<ServiceInfo>(path.join(here, '_service-server.ts'), {
      BENCH_LANGS: LANGS.join(','),
      BENCH_SCOPES: 'admin',
    });
    const { projectId, apiKey } = svc.info.projects[0];
    const sources: string[] = [];
    const tokens: string[] = [];
    let pairs = 0;
    let seconds = 0;
    try {
      for (let n = 0; n < PUSHES; n++) {
        const units = Array.from({ length: 500 }, (_, i) => ({
          source: `Push ${n} item ${i}: you have {count} new <b>messages</b>`,
        }));
        sources.push(...units.map((u) => u.source));
        const res = await fetch(`${svc.info.base}/projects/${projectId}/translate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ units }),
        });
        if (res.status !== 200) throw new Error(`push failed: ${res.status}`);
        tokens.push((await json<components['schemas']['TranslateResult']>(res)).trackingToken!);
      }
      pairs = sources.length * LANGS.length;
      const t0 = performance.now();
      const run = await fetch(`${svc.info.adminUrl}/jobs/run-due`, {
        method: 'POST',
        headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
        body: '{}',
      });
      seconds = (performance.now() - t0) / 1000;
      if (run.status !== 200) throw new Error(`run-due failed: ${run.status}`);
      for (const token of tokens) {
        const poll = await fetch(`${svc.info.base}/projects/${projectId}/translations?trackingToken=${token}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        }).then((r) => json<components['schemas']['TranslationPoll']>(r));
        if (poll.status !== 'done' || poll.summary.translated !== 500 * LANGS.length)
          throw new Error(`fill did not finish: ${JSON.stringify(poll)}`);
      }
    } finally {
      svc.child.kill('SIGINT');
    }
    const engine = new PseudoEngine();
    const items = sources.flatMap((source, i) =>
      LANGS.map((lang) => ({ id: `${i}:${lang}`, key: `k${i}`, source, sourceLang: 'en', targetLang: lang })),
    );
    const e0 = performance.now();
    for (let i = 0; i < items.length; i += engine.maxBatch) await engine.translate(items.slice(i, i + engine.maxBatch));
    const engineSeconds = (performance.now() - e0) / 1000;
    const rate = pairs / seconds;
    const engineRate = items.length / engineSeconds;
    return {
      figure: `${rate.toFixed(0)} pairs/s (${pairs} pairs in ${seconds.toFixed(2)} s)`,
      baseline: `${engineRate.toFixed(0)} pairs/s for the pseudo engine alone`,
      ratio: rate / engineRate,
      target: '>= 5000 pairs/s',
      met: rate >= 5000,
    };
  },
};
