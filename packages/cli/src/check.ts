// `glossa check`: what the project's quality checks found (docs/guides/checks.md), from GET /checks (spec:
// `listCheckResults`), printed one result a line with the characters it points at marked, for CI. It exits 4 (as a
// gate's refusal does, errors.ts) when a check reports an error, or, with `--max-warnings N`, more than N cells with
// warnings: the counts are the service's `totals` under the command's `--lang` and `--check`.
import type { ApiClient } from '../../client/src/index.js';
import { CliError, EXIT } from './errors.js';
import type { Output } from './output.js';

/** What of the commands' context this needs (commands.ts `Ctx`). */
interface Ctx {
  cfg: { projectId: string };
  api: ApiClient;
  out: Output;
}

type Severity = 'error' | 'warning' | 'info';

interface CheckOptions {
  lang?: string;
  severity?: Severity;
  check?: string;
  /** Exit 4 when more cells than this have warnings. */
  maxWarnings?: number;
  /** Results printed at most. */
  limit: number;
}

interface ErrorBody {
  error?: string;
  message?: string;
}

/** The text a result is about with its spans between `»` and `«`, on one line. */
function marked(text: string, spans: Array<{ start: number; end: number }> | undefined): string {
  let out = '';
  let at = 0;
  for (const s of [...(spans ?? [])].sort((a, b) => a.start - b.start)) {
    if (s.start < at || s.end > text.length) continue;
    out += `${text.slice(at, s.start)}»${text.slice(s.start, s.end)}«`;
    at = s.end;
  }
  return (out + text.slice(at)).replace(/\n/g, '\\n');
}

export async function check(ctx: Ctx, o: CheckOptions): Promise<number> {
  const { api, cfg, out } = ctx;
  const shown: unknown[] = [];
  let totals: Record<Severity, number> | undefined;
  let checking = false;
  let more = false;
  let cursor: string | undefined;
  do {
    const r = await api.GET('/projects/{projectId}/checks', {
      params: {
        path: { projectId: cfg.projectId },
        query: {
          ...(o.lang ? { lang: o.lang } : {}),
          ...(o.severity ? { severity: o.severity } : {}),
          ...(o.check ? { check: o.check } : {}),
          ...(cursor ? { cursor } : {}),
          limit: Math.min(500, Math.max(1, o.limit - shown.length)),
        },
      },
    });
    if (!r.data) {
      const e = (r.error ?? {}) as ErrorBody;
      throw new CliError(
        EXIT.failure,
        `check: ${r.response.status} ${e.error ?? 'error'}${e.message ? `: ${e.message}` : ''}`,
      );
    }
    totals ??= r.data.totals;
    checking ||= r.data.checking;
    for (const x of r.data.results) {
      shown.push(x);
      out.line(
        `${x.severity.padEnd(7)} ${x.key}${x.namespace ? ` (${x.namespace})` : ''} [${x.lang}] ${x.check}: ${x.message}`,
      );
      if (x.spans?.length) out.line(`        ${marked(x.text, x.spans)}`);
    }
    cursor = r.data.nextCursor ?? undefined;
    more = cursor !== undefined && shown.length >= o.limit;
  } while (cursor && !more);
  const t = totals ?? { error: 0, warning: 0, info: 0 };
  if (more) out.line(`(more results not shown: --limit ${o.limit})`);
  if (checking)
    out.note('a re-check after a settings change is under way: some results may follow the earlier settings');
  out.line(`${t.error} cells with errors, ${t.warning} with warnings, ${t.info} with infos`);
  const tooMany = o.maxWarnings !== undefined && t.warning > o.maxWarnings;
  const ok = t.error === 0 && !tooMany;
  out.result({ ok, totals: t, checking, results: shown });
  if (!ok)
    throw new CliError(
      EXIT.incomplete,
      [
        t.error ? `${t.error} cells with check errors.` : '',
        tooMany ? `${t.warning} cells with warnings, more than --max-warnings ${o.maxWarnings}.` : '',
      ]
        .filter(Boolean)
        .join(' '),
      { totals: t },
    );
  return EXIT.ok;
}

/** The sources' errors and warnings a push or sync answer names (spec `SourceWarning`), one a line. */
export function sourceWarningLines(
  out: Output,
  d: {
    sourceWarnings?: Array<{ key: string; check: string; severity: string; message: string }>;
    sourceWarningsTotal?: number;
  },
): void {
  for (const w of d.sourceWarnings ?? []) out.line(`  source ${w.severity} ${w.key}: ${w.check}: ${w.message}`);
  const more = (d.sourceWarningsTotal ?? 0) - (d.sourceWarnings?.length ?? 0);
  if (more > 0) out.line(`  and ${more} more source warnings (glossa check --lang <base language>)`);
}
