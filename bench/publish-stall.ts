// Nothing stalls the event loop for more than 50 ms. Another client's `GET /pricing` p99 while a
// cold publish runs (lib/publish-scale.ts; sent every 10 ms, open loop), against its p99 on the idle server. Target:
// under 50 ms.
import type { Scenario } from './lib/compare.js';
import { publishRuns, resets, sizeLabel } from './lib/publish-scale.js';

export const scenario: Scenario = {
  name: 'GET /pricing p99 while a cold publish runs, vs the idle server (ms)',
  async run() {
    const runs = await publishRuns();
    const worst = runs.reduce((a, b) => (b.pricingP99 > a.pricingP99 ? b : a));
    return {
      figure: runs
        .map(
          (r) =>
            `${sizeLabel(r)}: p99 ${r.pricingP99.toFixed(1)} ms, max ${r.pricingMax.toFixed(1)} ms (${r.pricingCount} requests); ` +
            `server event-loop delay p99 ${r.loopP99} / max ${r.loopMax} ms`,
        )
        .join('; ')
        .concat(resets ? `; ${resets} reset keep-alive sockets not counted` : ''),
      baseline: runs.map((r) => `${sizeLabel(r)}: idle p99 ${r.idleP99.toFixed(1)} ms`).join('; '),
      ratio: worst.pricingP99 / worst.idleP99,
      target: 'p99 < 50 ms',
      met: worst.pricingP99 < 50,
    };
  },
};
