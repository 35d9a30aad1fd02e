// What every scenario shares: the result it hands to scripts/bench.ts, and the arithmetic of comparing our figure
// with its baseline. Both sides are measured in the same run, in alternating rounds, so a slow patch of the shared
// machine weighs on both; medians (or the median round) are compared, never a single run.

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

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The nearest-rank percentile `p` (0-100) of `xs`; 0 for none. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0;
}

/** The figures of each round, as a scenario shows them beside its median: "12, 15, 11". */
export const list = (xs: number[], digits = 0) => xs.map((x) => x.toFixed(digits)).join(', ');

/**
 * Runs `warmup` unrecorded rounds, then `rounds` recorded ones; a round runs each side once, in the order given
 * (with `abba`, reversed every other round, so a drift over the run favours neither side). A side is told the
 * round's number (0, 1, ...; -1, -2, ... for the warm-up) to make its data its own. Each side's figures.
 */
export async function alternate<K extends string>(
  sides: Record<K, (round: number) => Promise<number>>,
  opts: { rounds: number; warmup?: number; abba?: boolean },
): Promise<Record<K, number[]>> {
  const keys = Object.keys(sides) as K[];
  const out = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let w = 0; w < (opts.warmup ?? 0); w++) for (const k of keys) await sides[k](-1 - w);
  for (let r = 0; r < opts.rounds; r++)
    for (const k of opts.abba && r % 2 ? [...keys].reverse() : keys) out[k].push(await sides[k](r));
  return out;
}

/** The round whose ratio ours/base is the median one, for throughputs measured in pairs of rounds. */
export function medianRound(ours: number[], base: number[]): { ours: number; base: number; ratio: number } {
  const pairs = ours.map((o, i) => ({ ours: o, base: base[i], ratio: o / base[i] }));
  return [...pairs].sort((a, b) => a.ratio - b.ratio)[Math.floor(pairs.length / 2)];
}

/** The three lines scripts/bench.ts prints under a scenario's name; `met` is the verdict, null when not measured. */
export function resultLines(r: BenchResult, met: boolean | null): string {
  const verdict =
    met === null ? 'not measured' : `${r.ratio.toFixed(2)} (target ${r.target}: ${met ? 'met' : 'MISSED'})`;
  return `  ours:     ${r.figure}\n  baseline: ${r.baseline}\n  ratio:    ${verdict}`;
}

/** Whether `r` met its target; null when the scenario did not run in this mode (its ratio is NaN). */
export function verdict(r: BenchResult): boolean | null {
  if (Number.isNaN(r.ratio)) return null;
  const [op, num] = r.target.split(' ');
  return r.met ?? (op === '>=' ? r.ratio >= Number(num) : r.ratio <= Number(num));
}
