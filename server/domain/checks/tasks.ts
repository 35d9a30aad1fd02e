// The re-check's CPU work, one slice of keys at a time: every key's source and stored values checked (compute.ts).
// Plain data in and out, so it runs the same on a worker thread (pool.ts) as inline.
import { rowsOfKey, type CheckContext, type CheckRow, type KeyInput } from './compute.js';

export interface SliceInput {
  ctx: CheckContext;
  keys: KeyInput[];
  /** The slice's stored values: [index into keys, language, value]. */
  cells: Array<[number, string, string]>;
  /** False: the values only, not the keys' sources (the fill's checks ahead of its writes). Default true. */
  withSource?: boolean;
}

/** The termbase lists this thread has seen, by stamp (compute.ts `termsStamp`): the last few. */
const seenTerms = new Map<string, NonNullable<CheckContext['terms']>>();

/** The rows of a slice of keys (their sources and values), in key order. */
export function checkSlice(input: SliceInput): CheckRow[] {
  const stamp = input.ctx.termsStamp;
  if (stamp && input.ctx.terms) {
    const known = seenTerms.get(stamp);
    if (known) input.ctx.terms = known;
    else {
      if (seenTerms.size >= 4) seenTerms.delete(seenTerms.keys().next().value!);
      seenTerms.set(stamp, input.ctx.terms);
    }
  }
  const byKey = input.keys.map(() => [] as Array<{ lang: string; value: string }>);
  for (const [i, lang, value] of input.cells) byKey[i].push({ lang, value });
  return input.keys.flatMap((k, i) => rowsOfKey(input.ctx, k, byKey[i], input.withSource ?? true));
}
