// One cell checked against the whole catalogue (packages/core/src/checks: runChecks), per cell, over the real cells
// of the fixture catalogs (test/helpers/fixture-pairs.ts) and the ICU fixture project, against the publish gates
// alone on the same cells (gateCell: ICU, plurals, markup, printf), the baseline every cell already pays. Target: p95
// per cell at most 1 ms; the ratio says what the whole catalogue costs beyond the gates.
import { CATALOGUE, runChecks, type CheckInput } from '../packages/core/src/checks/index.js';
import { gateCell } from '../packages/core/src/gates.js';
import { FIXTURE_PAIRS } from '../test/helpers/fixture-pairs.js';
import { ICU_KEYS } from '../test/helpers/icu-project.js';
import { alternate, median, percentile, type Scenario } from './lib/compare.js';

const ROUNDS = 12;
const TARGET_P95_MS = 1;

const cells: CheckInput[] = [
  ...FIXTURE_PAIRS.map((p) => ({
    source: p.source,
    target: p.target,
    sourceLang: p.sourceLang,
    targetLang: p.lang,
    key: p.key,
    comment: p.comment,
    formats: [p.format],
  })),
  ...ICU_KEYS.flatMap((k) =>
    Object.entries(k.values).map(([lang, target]) => ({
      source: k.source,
      target,
      sourceLang: 'en',
      targetLang: lang,
      key: k.key,
      ctx: k.ctx,
      formats: ['json' as const, 'android_xml' as const, 'po' as const],
    })),
  ),
];

/** Each cell's time (ms) through `check`, in one pass over the cells. */
function pass(check: (c: CheckInput) => unknown): number[] {
  const times: number[] = [];
  for (const c of cells) {
    const t0 = performance.now();
    check(c);
    times.push(performance.now() - t0);
  }
  return times;
}

export const scenario: Scenario = {
  name: `Checks: one cell against the whole catalogue (runChecks, ${CATALOGUE.length} checks), p95 per cell over the fixture catalogs' cells, vs the publish gates alone (ms)`,
  async run() {
    const ours: number[] = [];
    const base: number[] = [];
    const rounds = await alternate(
      {
        ours: () => {
          const times = pass((c) => runChecks(c));
          ours.push(...times);
          return Promise.resolve(percentile(times, 95));
        },
        base: () => {
          const times = pass((c) => gateCell(c.source, c.target, c.targetLang));
          base.push(...times);
          return Promise.resolve(percentile(times, 95));
        },
      },
      { rounds: ROUNDS, warmup: 3, abba: true },
    );
    const p95 = median(rounds.ours);
    const baseP95 = median(rounds.base);
    const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
    return {
      figure: `p95 ${us(p95)} per cell (median ${us(percentile(ours, 50))}, max ${us(Math.max(...ours))}) over ${cells.length} cells`,
      baseline: `publish gates p95 ${us(baseP95)} per cell (median ${us(percentile(base, 50))})`,
      ratio: p95 / baseP95,
      target: `p95 <= ${TARGET_P95_MS} ms`,
      met: p95 <= TARGET_P95_MS,
    };
  },
};
