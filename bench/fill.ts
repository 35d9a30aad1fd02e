// Fill throughput with the pseudo engine, in (key, language) pairs per second, through the real
// jobs (reads, engine batches, charges, stored values): a project whose keys are all pending in 40 languages,
// queued as pushes of 500 keys would queue them (lib/seed.ts BENCH_PENDING_KEYS), filled by run-due.
// Baseline: the pseudo engine alone on the same items, in the same batches (one language, 500 keys each), in
// this process. Default: 2,500 keys x 40 languages (100,000 pairs), three alternating rounds, medians.
// BENCH_SCALE=1: 5,000, 20,000 and 50,000 keys x 40 languages, one round each.
// Targets: at least 20,000 pairs/s, and at the largest size within 10% of the pace at the smallest.
import { alternate, median, type Scenario } from './lib/compare.js';
import { PseudoEngine } from '../server/infra/engines/pseudo.js';
import { startService, stop } from './lib/servers.js';
import { checkFilled } from './lib/fill.js';
import { FILL_TARGETS_40 } from './lib/languages.js';

const scale = process.env.BENCH_SCALE === '1';
const SIZES = scale ? [5_000, 20_000, 50_000] : [2_500];
const ROUNDS = scale ? 1 : 3;

/** Seeds `keys` pending keys in a server of its own, fills them by run-due; pairs per second. */
async function fillRound(keys: number): Promise<number> {
  const svc = await startService({
    BENCH_LANGS: FILL_TARGETS_40.join(','),
    BENCH_SCOPES: 'admin',
    BENCH_PENDING_KEYS: String(keys),
  });
  try {
    const t0 = performance.now();
    const run = await fetch(`${svc.info.adminUrl}/jobs/run-due`, {
      method: 'POST',
      headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
      body: '{}',
    });
    const seconds = (performance.now() - t0) / 1000;
    if (run.status !== 200) throw new Error(`run-due failed: ${run.status}`);
    const pairs = keys * FILL_TARGETS_40.length;
    await checkFilled(svc.info.databaseUrl, pairs);
    return pairs / seconds;
  } finally {
    await stop(svc);
  }
}

/** The pseudo engine alone on the fill's items, batched as the fill batches them; pairs per second. */
async function engineRound(keys: number, round: number): Promise<number> {
  const engine = new PseudoEngine();
  // Sources of their own per round: the engine remembers what it translated, as it does in a fill's process.
  const source = (i: number) => `Item ${i}: you have {count} new <b>messages</b>${round ? ` ${round}` : ''}`;
  const perRead = Math.floor((engine.maxBatch * 40) / FILL_TARGETS_40.length);
  const t0 = performance.now();
  for (let from = 0; from < keys; from += perRead)
    for (const lang of FILL_TARGETS_40)
      for (let b = from; b < Math.min(keys, from + perRead); b += engine.maxBatch) {
        const items = [];
        for (let i = b; i < Math.min(keys, from + perRead, b + engine.maxBatch); i++)
          items.push({ id: String(i), key: `k${i}`, source: source(i), sourceLang: 'en', targetLang: lang });
        await engine.translate(items);
      }
  return (keys * FILL_TARGETS_40.length) / ((performance.now() - t0) / 1000);
}

export const scenario: Scenario = {
  name: `Fill throughput, pseudo engine, ${SIZES.map((k) => `${k.toLocaleString('en')}`).join(' / ')} keys x 40 languages (pairs/s)`,
  async run() {
    const fills: number[] = [];
    const engines: number[] = [];
    for (const keys of SIZES) {
      // Alternating rounds: the machine's load moves both alike.
      const { fill, engine } = await alternate(
        { fill: () => fillRound(keys), engine: (r) => engineRound(keys, fills.length * ROUNDS + r) },
        { rounds: ROUNDS },
      );
      fills.push(median(fill));
      engines.push(median(engine));
    }
    const min = Math.min(...fills);
    const keep = fills[fills.length - 1] / fills[0];
    const sized = (xs: number[]) =>
      SIZES.map((k, i) => `${(k / 1000).toLocaleString('en')}k: ${xs[i].toFixed(0)}`).join(', ');
    return {
      figure: `${sized(fills)} pairs/s${SIZES.length > 1 ? ` (largest/smallest ${keep.toFixed(2)})` : ''}`,
      baseline: `${sized(engines)} pairs/s for the pseudo engine alone`,
      ratio: median(fills.map((f, i) => f / engines[i])),
      target: `>= 20000 pairs/s${SIZES.length > 1 ? ', largest >= 0.9x smallest' : ''}`,
      met: min >= 20_000 && (SIZES.length === 1 || keep >= 0.9),
    };
  },
};
