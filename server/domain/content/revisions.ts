// A document's revisions: the blocks of a new revision matched to the previous one's ids, and a document put back
// together from its blocks. Apart from the parsers (blocks.ts), which load with the first document parsed or
// translated on this thread rather than with the service (docs/decisions/0035-modules-loaded-on-first-use.md).
import { createHash } from 'node:crypto';
import type { ParsedBlock } from './blocks.js';

// ---------------------------------------------------------------------------------------------------------------
// assemble

/** Rebuilds the document: every block's range replaced by translated(i) when defined, else its source text; everything between blocks (the skeleton) kept byte for byte. */
export function assemble(
  text: string,
  blocks: ParsedBlock[],
  translated: (index: number) => string | undefined,
): string {
  let out = '';
  let last = 0;
  blocks.forEach((b, i) => {
    out += text.slice(last, b.start) + (translated(i) ?? text.slice(b.start, b.end));
    last = b.end;
  });
  return out + text.slice(last);
}

// ---------------------------------------------------------------------------------------------------------------
// matchBlocks

/**
 * Ids across revisions. `previous`: the blocks of the last revision with their ids and hashes. Returns one entry per
 * new block, in order.
 *
 * 1. Same hash: the old id, status `same`, wherever the block moved (duplicates are matched in order).
 * 2. The exact matches that keep their relative order (a longest increasing subsequence of old positions) are
 *    anchors, as in a diff; between two consecutive anchors, the unmatched new blocks take the unmatched old ids of
 *    the same stretch in order: status `changed` (an edited paragraph keeps its id and its history).
 * 3. Anything left is `new`, with a fresh id.
 */
export function matchBlocks(
  previous: ReadonlyArray<{ id: string; hash: string }>,
  next: ReadonlyArray<{ hash: string }>,
): Array<{ id: string; status: 'same' | 'changed' | 'new' }> {
  const result: Array<{ id: string; status: 'same' | 'changed' | 'new' } | undefined> = next.map(() => undefined);
  const oldOf: number[] = next.map(() => -1); // new index -> old index
  const oldUsed = previous.map(() => false);

  const byHash = new Map<string, number[]>();
  previous.forEach((p, i) => {
    const q = byHash.get(p.hash);
    if (q) q.push(i);
    else byHash.set(p.hash, [i]);
  });
  next.forEach((n, i) => {
    const j = byHash.get(n.hash)?.shift();
    if (j === undefined) return;
    oldOf[i] = j;
    oldUsed[j] = true;
    result[i] = { id: previous[j].id, status: 'same' };
  });

  // Anchors: the exact matches forming the longest run increasing in both orders.
  const matched = oldOf.map((j, i) => [i, j] as const).filter(([, j]) => j >= 0);
  const anchors = longestIncreasing(matched);
  const bounds = [[-1, -1] as const, ...anchors, [next.length, previous.length] as const];
  for (let k = 0; k + 1 < bounds.length; k++) {
    const [n0, o0] = bounds[k];
    const [n1, o1] = bounds[k + 1];
    const olds: number[] = [];
    for (let j = o0 + 1; j < o1; j++) if (!oldUsed[j]) olds.push(j);
    for (let i = n0 + 1; i < n1 && olds.length; i++) {
      if (result[i]) continue;
      const j = olds.shift()!;
      oldUsed[j] = true;
      result[i] = { id: previous[j].id, status: 'changed' };
    }
  }

  // Fresh ids: deterministic from the hash and its occurrence, never one an old block had (kept or not).
  const taken = new Set(previous.map((p) => p.id));
  const seen = new Map<string, number>();
  return result.map((r, i) => {
    if (r) return r;
    const hash = next[i].hash;
    let occurrence = seen.get(hash) ?? 0;
    let id: string;
    do id = `b${createHash('sha256').update(`${hash}:${occurrence++}`).digest('hex').slice(0, 8)}`;
    while (taken.has(id));
    seen.set(hash, occurrence);
    taken.add(id);
    return { id, status: 'new' };
  });
}

/** The longest subsequence of `pairs` (sorted by their first element) whose second elements increase. */
function longestIncreasing(pairs: ReadonlyArray<readonly [number, number]>): Array<readonly [number, number]> {
  const tails: number[] = []; // tails[len] = index in pairs of the smallest tail of an increasing run of len+1
  const prev: number[] = pairs.map(() => -1);
  pairs.forEach(([, v], i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]][1] < v) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1];
    tails[lo] = i;
  });
  const out: Array<readonly [number, number]> = [];
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = prev[i]) out.unshift(pairs[i]);
  return out;
}
