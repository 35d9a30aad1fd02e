// The background re-check of a whole project after its check settings change (server/domain/checks/recheck.ts), with
// the default inline job workers: its throughput in cells per second, and another client's `GET /pricing` while it
// runs against its latency on the idle server just before (as bench/fill-stall.ts), with the server's own event-loop
// delay over the re-check (GET /internal/v1/debug/metrics). The project holds real strings (the fixture catalogs'
// sources, each language's value the pseudo engine's: BENCH_SEED_TEXT=real) in 40 languages; 2,500 keys (100,000
// cells) by default, 50,000 keys (2,000,000 cells) with BENCH_SCALE=1. Three changes, one after the other: a custom
// check added and then changed (every cell is checked again: the worst case, which the targets are on; the second is
// measured, the first starts the threads), then severities changed (the stored results are remapped, no check runs).
// Targets: the full re-check of 2,000,000 cells in at most 60 s (at the default size, the rate measured is
// extrapolated to that size: said so in the figure), and a p99 under 50 ms during it.
import { percentile, type Scenario } from './lib/compare.js';
import type { components } from '../generated/internal.js';
import { json } from './lib/http.js';
import { startService, stop } from './lib/servers.js';
import { FILL_TARGETS_40 } from './lib/languages.js';

const SCALE = process.env.BENCH_SCALE === '1';
const KEYS = SCALE ? 50_000 : 2_500;
const LANGS = FILL_TARGETS_40;
const CELLS = KEYS * LANGS.length;
const FULL = 2_000_000;
const TARGET_S = 60;
const INTERVAL_MS = 10;

/** Latencies (ms) of GET /pricing sent every INTERVAL_MS until `done()`, answered or not (an open loop). */
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
type SettingsView = components['schemas']['CheckSettingsView'];

const ADMIN = { authorization: 'Bearer bench', 'content-type': 'application/json' };

async function metrics(adminUrl: string): Promise<Metrics> {
  const res = await fetch(`${adminUrl}/debug/metrics?reset=true`, { headers: ADMIN });
  if (res.status !== 200) throw new Error(`metrics answered ${res.status}`);
  return json<Metrics>(res);
}

export const scenario: Scenario = {
  name: `Checks: re-check of ${KEYS.toLocaleString('en-US')} keys x ${LANGS.length} languages after a settings change on inline workers (cells/s), and GET /pricing p99 during it vs the idle server (ms)`,
  async run() {
    const svc = await startService({
      BENCH_LANGS: LANGS.join(','),
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: String(KEYS),
      BENCH_SEED_TEXT: 'real',
      BENCH_WORKERS: 'inline',
      // The re-check alone: the prepared publish its end sets due (a cold publish of the project, measured by
      // bench/publish-cold.ts and bench/publish-stall.ts) would otherwise run beside the next one.
      PREPARE_DELAY_MS: String(3_600_000),
    });
    const { projectId } = svc.info.projects[0];
    const settingsUrl = `${svc.info.adminUrl}/projects/${projectId}/checks/settings`;
    const pricing = `${svc.info.base}/pricing`;
    try {
      const stopIdle = performance.now() + 3000;
      const idle = await pricingLoad(pricing, () => performance.now() > stopIdle);
      await metrics(svc.info.adminUrl);
      /** Puts `settings` and waits, under the pricing load, until the re-check has passed over the project. */
      const change = async (settings: unknown) => {
        const t0 = performance.now();
        const put = await fetch(settingsUrl, { method: 'PUT', headers: ADMIN, body: JSON.stringify(settings) });
        if (put.status !== 200) throw new Error(`settings answered ${put.status}: ${await put.text()}`);
        let finished = false;
        const watch = (async () => {
          for (;;) {
            const res = await fetch(settingsUrl, { headers: ADMIN });
            if (!(await json<SettingsView>(res)).checking) break;
            await new Promise((r) => setTimeout(r, 100));
          }
          finished = true;
        })();
        const latencies = await pricingLoad(pricing, () => finished);
        await watch;
        return { seconds: (performance.now() - t0) / 1000, latencies };
      };
      const custom = [
        { id: 'no-click', name: 'Say tap', pattern: '\\b(click|klick)', mode: 'must-not-match', severity: 'warning' },
      ];
      // A check added: every key's source and values are checked again, on the inline worker and the threads. The
      // threads start with the first re-check (a second each, loading the engine): the second is the one measured.
      await change({ custom });
      const changed = [{ ...custom[0], pattern: '\\b(click|klick|cliquez)' }];
      const full = await change({ custom: changed });
      const loop = await metrics(svc.info.adminUrl);
      // Then severities alone: the stored results are remapped.
      const remap = await change({
        custom: changed,
        severity: { 'end-stop': 'error' },
        languages: { fr: { disabled: ['french-spacing'] } },
      });
      const { seconds, latencies: busy } = full;
      const rate = CELLS / seconds;
      const projected = FULL / rate;
      const p99 = percentile(busy, 99);
      const max = Math.max(...busy);
      const d = loop.eventLoopDelay;
      return {
        figure:
          `${CELLS.toLocaleString('en-US')} cells in ${seconds.toFixed(1)} s: ${Math.round(rate).toLocaleString('en-US')} cells/s, ` +
          `${SCALE ? 'measured at' : 'so, extrapolated linearly to'} 2,000,000 cells ${projected.toFixed(0)} s (target ${TARGET_S} s); ` +
          `GET /pricing p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms over ${busy.length} requests during it; ` +
          `server event-loop delay p50 ${d.p50Ms} / p99 ${d.p99Ms} / max ${d.maxMs} ms; then a change of severities ` +
          `(remapped, no check run) in ${remap.seconds.toFixed(1)} s, GET /pricing p99 ` +
          `${percentile(remap.latencies, 99).toFixed(1)} ms, max ${Math.max(...remap.latencies).toFixed(1)} ms`,
        baseline: `idle p99 ${percentile(idle, 99).toFixed(1)} ms, max ${Math.max(...idle).toFixed(1)} ms (${idle.length} requests)`,
        ratio: p99 / percentile(idle, 99),
        target: `p99 < 50 ms, 2,000,000 cells <= ${TARGET_S} s`,
        met: p99 < 50 && projected <= TARGET_S,
      };
    } finally {
      await stop(svc);
    }
  },
};
