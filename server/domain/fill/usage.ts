// What the last AI fills of a project cost (docs/guides/translation.md, "Cost"): the engine's tokens as it reported
// them (fill_jobs.prompt_tokens, completion_tokens, engine_requests; migration 030) and the credits charged, per job
// and per 1,000 strings translated, so a team sees what its instructions and terms add to every request.
import type { Db } from '../../infra/db.js';

const LAST_FILLS = 20;

export async function fillUsage(db: Db, projectId: string) {
  const rows = await db('fill_jobs')
    .where({ project_id: projectId })
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(LAST_FILLS)
    .select(
      'tracking_token',
      'status',
      'created_at',
      'translated',
      'prompt_tokens',
      'completion_tokens',
      'engine_requests',
      'charged_mc',
    );
  const fills = rows.map((r) => ({
    trackingToken: r.tracking_token,
    status: r.status,
    createdAt: new Date(Number(r.created_at)).toISOString(),
    strings: Number(r.translated),
    promptTokens: Number(r.prompt_tokens ?? 0),
    completionTokens: Number(r.completion_tokens ?? 0),
    requests: Number(r.engine_requests ?? 0),
    chargedMc: Number(r.charged_mc),
  }));
  const sum = (f: (x: (typeof fills)[number]) => number) => fills.reduce((n, x) => n + f(x), 0);
  const strings = sum((x) => x.strings);
  const per = (n: number) => Math.round((n * 1000 * 100) / strings) / 100;
  return {
    fills,
    perThousand: strings
      ? {
          promptTokens: per(sum((x) => x.promptTokens)),
          completionTokens: per(sum((x) => x.completionTokens)),
          requests: per(sum((x) => x.requests)),
          credits: per(sum((x) => x.chargedMc) / 1000),
        }
      : null,
  };
}
