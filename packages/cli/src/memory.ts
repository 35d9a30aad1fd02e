// `glossa memory`, `push --dry-run` and the MCP tool `memory_leverage`: what the translation memory covers of the
// pairs still to translate (spec: `getMemoryLeverage`; docs/guides/memory.md), per language and match band.
import type { ApiClient } from '../../client/src/index.js';
import type { Config } from './config.js';
import type { Output } from './output.js';
import { CliError, EXIT } from './errors.js';

/** What these need of a command's context (commands.ts `Ctx`, which imports this file). */
type Ctx = { cfg: Pick<Config, 'projectId'>; api: ApiClient; out: Output };

interface Leverage {
  preTranslate: boolean;
  threshold: number;
  languages: Array<{
    lang: string;
    pairs: number;
    credits: number;
    savedCredits: number;
    unanalysed: number;
    bands: Array<{ band: string; pairs: number; credits: number }>;
  }>;
  totals: { pairs: number; credits: number; savedCredits: number; unanalysed: number };
}

/** The analysis as the service answers it (a failure is exit 1). */
export async function memoryLeverage(ctx: Ctx, langs?: string[]): Promise<Record<string, unknown>> {
  const r = await ctx.api.GET('/projects/{projectId}/memory/leverage', {
    params: { path: { projectId: ctx.cfg.projectId }, query: langs?.length ? { langs: langs.join(',') } : {} },
  });
  if (!r.data) {
    const e = (r.error ?? {}) as { error?: string; message?: string };
    throw new CliError(
      EXIT.failure,
      `memory leverage: ${r.response.status} ${e.error ?? 'error'}${e.message ? `: ${e.message}` : ''}`,
      e,
    );
  }
  return { ok: true, ...(r.data as object) };
}

/** Lines of the analysis: one per language with its bands, then the totals. */
export function leverageLines(d: Leverage): string[] {
  const lines: string[] = [];
  if (!d.preTranslate) lines.push('memory: off for this project (nothing is pre-translated)');
  for (const l of d.languages) {
    const bands = l.bands
      .filter((b) => b.pairs > 0)
      .map((b) => `${b.band} ${b.pairs}`)
      .join(', ');
    lines.push(
      `memory ${l.lang.padEnd(8)} ${l.pairs} pairs to translate (${l.credits} mc)${bands ? `: ${bands}` : ''}; exact matches save ${l.savedCredits} mc${l.unanalysed ? `; ${l.unanalysed} not analysed` : ''}`,
    );
  }
  const t = d.totals;
  lines.push(
    `memory total: ${t.pairs} pairs, ${t.credits} mc; the memory fills ${t.savedCredits} mc of it at no charge${t.unanalysed ? ` (${t.unanalysed} pairs not analysed)` : ''}`,
  );
  return lines;
}

export async function memory(ctx: Ctx, o: { langs?: string[] }): Promise<number> {
  const d = await memoryLeverage(ctx, o.langs);
  for (const line of leverageLines(d as unknown as Leverage)) ctx.out.line(line);
  ctx.out.result(d);
  return EXIT.ok;
}
