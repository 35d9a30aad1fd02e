// What a push or a sync says about the sources it carries (spec `SourceWarning`): the errors and warnings of each
// source's and key name's checks (a source that is not valid ICU, unbalanced tags, a placeholder one plural form
// uses alone), so the developer sees them at push time, before every language's fill fails on them. Infos are left
// to the dashboard and GET /checks.
import type { CheckContext, CheckResult } from './compute.js';
import { checkKeySource } from './compute.js';
import { inSlices } from './store.js';

/** Rows an answer lists at most (as its other lists: conflicts, disabled keys). */
const MAX_WARNINGS = 50;

interface SourceWarning {
  key: string;
  check: string;
  severity: 'error' | 'warning';
  message: string;
  field?: 'source' | 'key';
  spans?: CheckResult['spans'];
}

/** A source a request carries, under the key name it has (or would get). */
interface PushedSource {
  key: string;
  source: string;
  ctx?: string | null;
  comment?: string | null;
}

/** The answer's `sourceWarnings` and `sourceWarningsTotal`, or nothing when every source passes. */
export async function sourceWarnings(
  ctx: CheckContext,
  sources: PushedSource[],
): Promise<{ sourceWarnings?: SourceWarning[]; sourceWarningsTotal?: number }> {
  const found = (
    await inSlices(sources, (s) =>
      checkKeySource(ctx, { id: 0, name: s.key, source: s.source, ctx: s.ctx ?? null, comment: s.comment ?? null })
        .filter((r) => r.severity !== 'info')
        .map((r): SourceWarning => ({
          key: s.key,
          check: r.check,
          severity: r.severity as 'error' | 'warning',
          message: r.message,
          ...(r.field === 'source' || r.field === 'key' ? { field: r.field } : {}),
          ...(r.spans ? { spans: r.spans } : {}),
        })),
    )
  ).flat();
  return found.length ? { sourceWarnings: found.slice(0, MAX_WARNINGS), sourceWarningsTotal: found.length } : {};
}
