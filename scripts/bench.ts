// `npm run bench`: every scenario measures our figure and a baseline in the same run and prints the ratio.
// One file per scenario in bench/*.ts (what they share is bench/lib/); `npm run bench -- credential` runs the
// ones whose name matches.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultLines, verdict, type Scenario } from '../bench/lib/compare.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bench');
const filter = process.argv[2];
const files = (await readdir(dir, { withFileTypes: true }))
  .filter((f) => f.isFile() && f.name.endsWith('.ts'))
  .map((f) => f.name)
  .sort();
let failedTargets = 0;
for (const f of files) {
  const { scenario } = (await import(path.join(dir, f))) as { scenario: Scenario };
  if (filter && !scenario.name.includes(filter)) continue;
  const r = await scenario.run();
  // A scenario that does not run in this mode (scale-out without BENCH_SCALE=1) answers NaN: not measured, not missed.
  const met = verdict(r);
  if (met === false) failedTargets++;
  console.log(`${scenario.name}\n${resultLines(r, met)}`);
}
console.log(failedTargets ? `${failedTargets} target(s) missed` : 'all targets met');
