// The publish gates' verdict on one cell, the one rule the publish (publish/tasks.ts, on its threads) and the
// review pages (http/routes/review.ts) both apply.
import { gateCell, gateImported } from '../../../packages/core/src/gates.js';
import type { MarkupPolicy } from '../../../packages/core/src/markup.js';
import { valueIcuOk } from './file.js';

/**
 * A value imported from the team's own file is theirs verbatim: only its ICU syntax counts, and its markup must be
 * safe to ship (packages/core/src/markup.ts); any other value meets every gate.
 */
export function cellGate(
  source: string,
  value: string,
  lang: string,
  imported: boolean,
  policy: MarkupPolicy,
): ReturnType<typeof gateCell> {
  if (imported) return gateImported(source, value, valueIcuOk({ kind: 'text', text: value }), policy);
  return gateCell(source, value, lang, policy);
}
