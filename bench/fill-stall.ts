// As publish-stall.ts, for the fill: with the default inline workers, another client's `GET /pricing` while a fill of
// 20,000 pairs (500 keys x 40 languages, queued as one push would) runs in the same process, against its latency
// on the idle server just before; and the server's own event-loop delay over the fill (GET /internal/v1/debug/
// metrics). Requests go out every 10 ms, answered or not. Target: p99 under 50 ms.
import { percentile, type Scenario } from './lib/compare.js';
import { openDb } from '../server/infra/db.js';
import type { components } from '../generated/internal.js';
import { json } from './lib/http.js';
import { startService, stop } from './lib/servers.js';
import { checkFilled, fillState } from './lib/fill.js';
import { FILL_TARGETS_40 } from './lib/languages.js';

const KEYS = 500;
const INTERVAL_MS = 10;

/**
 * Latencies (ms) of GET /pricing sent every INTERVAL_MS until `done()` says stop, whether or not the earlier ones
 * were answered (an open loop: a stall delays every request sent during it, as it would real clients).
 */
async function pricingLoad(url: string, done: () => boolean): Promise<number[]> {
  const sent: Array<Promise<number>> = [];
  while (!done()) {
    const t0 = performance.now();
    sent.push(
      fetch(url).then(async (res) => {
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`pricing answered ${res.status}`);
        return performance.now() - t0;
      }),
    );
    await new Promise((r) => setTimeout(r, INTERVAL_MS));
  }
  return Promise.all(sent);
}

type Metrics = components['schemas']['DebugMetrics'];

async function metrics(adminUrl: string): Promise<Metrics> {
  const res = await fetch(`${adminUrl}/debug/metrics?reset=true`, { headers: { authorization: 'Bearer bench' } });
  if (res.status !== 200) throw new Error(`metrics answered ${res.status}`);
  return json<Metrics>(res);
}

export const scenario: Scenario = {
  name: 'GET /pricing p99 while a 20,000-pair fill runs on inline workers, vs the idle server (ms)',
  async run() {
    const svc = await startService({
      BENCH_LANGS: FILL_TARGETS_40.join(','),
      BENCH_SCOPES: 'admin',
      BENCH_PENDING_KEYS: String(KEYS),
      BENCH_PENDING_HOLD: '1',
      BENCH_WORKERS: 'inline',
    });
    const pricing = `${svc.info.base}/pricing`;
    try {
      const stop = performance.now() + 3000;
      const idle = await pricingLoad(pricing, () => performance.now() > stop);
      await metrics(svc.info.adminUrl);
      // The held jobs become due; the inline worker claims them at its next tick.
      const db = openDb(svc.info.databaseUrl);
      await db('jobs').where({ kind: 'fill' }).update({ run_at: 0 });
      await db.destroy();
      let finished = false;
      const t0 = performance.now();
      const watch = (async () => {
        while ((await fillState(svc.info.databaseUrl)).open) await new Promise((r) => setTimeout(r, 100));
        finished = true;
      })();
      const busy = await pricingLoad(pricing, () => finished);
      await watch;
      const seconds = (performance.now() - t0) / 1000;
      const loop = await metrics(svc.info.adminUrl);
      await checkFilled(svc.info.databaseUrl, KEYS * FILL_TARGETS_40.length);
      const p99 = percentile(busy, 99);
      const d = loop.eventLoopDelay;
      return {
        figure:
          `p99 ${p99.toFixed(1)} ms, max ${Math.max(...busy).toFixed(1)} ms over ${busy.length} requests during the ` +
          `fill (${seconds.toFixed(1)} s, polled to the end); server event-loop delay p50 ${d.p50Ms} / p99 ${d.p99Ms} / max ${d.maxMs} ms`,
        baseline: `idle p99 ${percentile(idle, 99).toFixed(1)} ms, max ${Math.max(...idle).toFixed(1)} ms (${idle.length} requests)`,
        ratio: p99 / percentile(idle, 99),
        target: 'p99 < 50 ms',
        met: p99 < 50,
      };
    } finally {
      await stop(svc);
    }
  },
};
