// Memory bounded by one language. The server's peak resident memory over a cold publish and the
// prepare of the same content (lib/publish-scale.ts). Target: under 512 MiB; with BENCH_SCALE=1, the ratio is the
// peak at 50,000 x 40 over the peak at 5,000 x 40, at most 1.5. By default it is the peak over the memory of the
// started, idle server.
import type { Scenario } from './lib/compare.js';
import { publishRuns, sizeLabel } from './lib/publish-scale.js';

export const scenario: Scenario = {
  name: 'Peak RSS of the service over a cold publish and a prepare (MiB)',
  async run() {
    const runs = await publishRuns();
    const first = runs[0];
    const last = runs[runs.length - 1];
    const ratio = runs.length > 1 ? last.peakMiB / first.peakMiB : last.peakMiB / last.startMiB;
    return {
      figure: runs.map((r) => `${sizeLabel(r)}: ${r.peakMiB.toFixed(0)} MiB`).join('; '),
      baseline:
        runs.length > 1
          ? `${sizeLabel(first)}: ${first.peakMiB.toFixed(0)} MiB (growth to ${sizeLabel(last)})`
          : `${last.startMiB.toFixed(0)} MiB started and idle`,
      ratio,
      target: runs.length > 1 ? '<= 1.5' : 'peak < 512 MiB',
      met: Math.max(...runs.map((r) => r.peakMiB)) < 512 && (runs.length === 1 || ratio <= 1.5),
    };
  },
};
