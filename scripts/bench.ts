// `npm run bench`: every scenario measures our figure and a baseline in the same run and prints the ratio.
// Scenarios live in scripts/bench/*.ts; `npm run bench -- credential` runs the ones whose name matches.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchResult {
  figure: string;
  baseline: string;
  ratio: number;
  /** e.g. ">= 0.5" or "<= 3" */
  target: string;
  /** Set when the target is on the absolute figure rather than the ratio. */
  met?: boolean;
}

export interface Scenario {
  name: string;
  run(): Promise<BenchResult>;
}

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bench');
const filter = process.argv[2];
const files = (await readdir(dir)).filter((f) => f.endsWith('.ts') && !f.startsWith('_')).sort();
let failedTargets = 0;
for (const f of files) {
  const { scenario } = (await import(path.join(dir, f))) as { scenario: Scenario };
  if (filter && !scenario.name.includes(filter)) continue;
  const r = await scenario.run();
  const [op, num] = r.target.split(' ');
  // A scenario that does not run in this mode (scale-out without BENCH_SCALE=1) answers NaN: not measured, not missed.
  const measured = !Number.isNaN(r.ratio);
  const met = r.met ?? (op === '>=' ? r.ratio >= Number(num) : r.ratio <= Number(num));
  if (measured && !met) failedTargets++;
  const verdict = measured ? `${r.ratio.toFixed(2)} (target ${r.target}: ${met ? 'met' : 'MISSED'})` : 'not measured';
  console.log(`${scenario.name}\n  ours:     ${r.figure}\n  baseline: ${r.baseline}\n  ratio:    ${verdict}`);
}
console.log(failedTargets ? `${failedTargets} target(s) missed` : 'all targets met');
