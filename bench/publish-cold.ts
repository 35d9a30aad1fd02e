// A cold publish (json + android_xml) against the raw floor of the same work (lib/publish-scale.ts).
// Target: at most 1.5x, and linear in cells: with BENCH_SCALE=1, the time per cell at 50,000 x 40 within 1.5x of
// the time per cell at 5,000 x 40.
import type { Scenario } from './lib/compare.js';
import { publishRuns, sizeLabel } from './lib/publish-scale.js';

export const scenario: Scenario = {
  name: 'POST /publish as a cold publish (straight after a change), json + android_xml, vs a raw SELECT + serialize + write of the same cells (ms)',
  async run() {
    const runs = await publishRuns();
    const worst = runs.reduce((a, b) => (b.coldMs / b.floorMs > a.coldMs / a.floorMs ? b : a));
    const perCell = (r: (typeof runs)[number]) => r.coldMs / (r.keys * r.langs);
    const linear = runs.length > 1 ? perCell(runs[runs.length - 1]) / perCell(runs[0]) : 1;
    return {
      figure: runs
        .map(
          (r) =>
            `${sizeLabel(r)}: ${r.coldMs.toFixed(0)} ms (${(r.coldMs / r.floorMs).toFixed(2)}x; ${((perCell(r) * 1e6) / 1e3).toFixed(2)} µs per cell)`,
        )
        .join('; '),
      baseline: runs.map((r) => `${sizeLabel(r)}: ${r.floorMs.toFixed(0)} ms`).join('; '),
      ratio: worst.coldMs / worst.floorMs,
      target: '<= 1.5',
      met: worst.coldMs / worst.floorMs <= 1.5 && linear <= 1.5,
    };
  },
};
