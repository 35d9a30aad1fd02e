// `glossa push --retranslate-outdated`: after the push, the values whose source changed since they were written
// (outdated: the service keeps serving them but counts them as not done in `glossa status`) are queued for the
// engine again (spec: `retranslateOutdated`). The job's tracking token joins the push's, so `glossa wait` follows it.
import type { ApiClient } from '../../client/src/index.js';
import { CliError, EXIT } from './errors.js';
import type { Output } from './output.js';

/** What of the commands' context this needs (commands.ts `Ctx`, which imports this module). */
interface Ctx {
  cfg: { projectId: string };
  api: ApiClient;
  out: Output;
}

interface ErrorBody {
  error?: string;
  message?: string;
}

/** The outdated values of the project's languages, as `glossa status` counts them (a dry run's answer). */
async function outdatedCount(ctx: Ctx): Promise<number> {
  const r = await ctx.api.GET('/projects/{projectId}/status', { params: { path: { projectId: ctx.cfg.projectId } } });
  if (!r.data) throw refused('status', r.response.status, r.error);
  return r.data.languages.reduce((n, l) => n + (l.outdated ?? 0), 0);
}

function refused(what: string, status: number, body: unknown): CliError {
  const e = (body ?? {}) as ErrorBody;
  return new CliError(
    status === 409 && e.error === 'fill_incomplete' ? EXIT.incomplete : EXIT.failure,
    `${what}: ${status} ${e.error ?? 'error'}${e.message ? `: ${e.message}` : ''}`,
  );
}

/**
 * Queues the project's outdated values again and returns the job's tracking token (null when nothing was queued);
 * a dry run only counts them.
 */
export async function retranslateOutdated(
  ctx: Ctx,
  dryRun: boolean,
): Promise<{ token: string | null; report: Record<string, unknown> }> {
  const { api, cfg, out } = ctx;
  if (dryRun) {
    const n = await outdatedCount(ctx);
    out.line(`would re-translate ${n} outdated values`);
    return { token: null, report: { outdated: n } };
  }
  const r = await api.POST('/projects/{projectId}/outdated/retranslate', {
    params: { path: { projectId: cfg.projectId } },
    body: {},
  });
  if (!r.data) throw refused('re-translate outdated values', r.response.status, r.error);
  const d = r.data;
  out.line(
    d.queued
      ? `re-translating ${d.queued} outdated values; ${d.estimatedCredits} mc`
      : 'no outdated values to re-translate',
  );
  return { token: d.trackingToken, report: { retranslate: d } };
}
