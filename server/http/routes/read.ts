// GET /translations: the fill poll (trackingToken), the live single-key read (ref, lang); version pulls come
// with the publish group. GET /requests/{requestId}: the request record.
import { listLanguages } from '../../domain/project/projects.js';
import { normalizeLanguage } from '../../domain/project/languages.js';
import { invalidArgument, notFound } from '../../infra/errors.js';
import { pullVersionFile } from '../../domain/publish/pull.js';
import { publishEnv } from '../../domain/publish/stream.js';
import type { Handler } from '../pipeline.js';
import { readRecord } from '../../infra/requests.js';
import { aiScoreOf, cellStates } from '../../domain/catalog/cells.js';
import type { CheckResult } from '../../domain/checks/compute.js';
import { storedChecks } from '../../domain/checks/read.js';

export const getTranslations: Handler<'getTranslations'> = async (ctx) => {
  const { db } = ctx.app;
  const q = ctx.query;
  const modes = (['trackingToken', 'ref', 'version'] as const).filter((k) => q[k] !== undefined);
  if (modes.length !== 1) throw invalidArgument('Send exactly one of trackingToken, ref or version.');
  const project = ctx.project;
  if (q.trackingToken !== undefined) {
    const job = await db('fill_jobs').where({ tracking_token: q.trackingToken, project_id: project.id }).first();
    if (!job) throw notFound('No fill job with this tracking token in this project.');
    const total = Number(job.total);
    const translated = Number(job.translated);
    const failed = Number(job.failed);
    return {
      body: {
        trackingToken: job.tracking_token,
        status: job.status,
        estimatedCredits: Number(job.estimated_mc),
        creditsCharged: Number(job.charged_mc),
        summary: { total, translated, pending: total - translated - failed, failed },
      },
    };
  }
  if (q.ref !== undefined) {
    // A name is read in the request's namespace (the default one unless it names one); a token is unique per project.
    const key = await db('keys')
      .where({ project_id: project.id })
      .andWhere((w) => {
        w.where({ name: q.ref, namespace: q.namespace ?? '' }).orWhere('token', q.ref);
      })
      .first('id', 'name', 'namespace');
    if (!key) throw notFound('No key with this name or token in this project.');
    const live = (await listLanguages(db, project.id)).map((l) => l.code);
    const langs = q.lang !== undefined ? [normalizeLanguage(q.lang)] : live;
    if (q.lang !== undefined && !live.includes(langs[0]))
      throw invalidArgument(`${langs[0]} is not a target language of this project.`);
    const cells = await cellStates(db, [Number(key.id)], langs);
    // Asked for (`checks=true`), so a read without the flag answers as it always did.
    const checks =
      q.checks === 'true' ? await storedChecks(db, [Number(key.id)], langs) : new Map<string, CheckResult[]>();
    const translations: Record<
      string,
      {
        status: string;
        value?: string;
        reason?: string;
        outdated?: true;
        checks?: CheckResult[];
        aiScore?: number;
        aiReason?: string;
      }
    > = {};
    for (const lang of langs) {
      const c = cells.get(`${key.id}|${lang}`);
      // `outdated` only when set (spec: KeyTranslations), so a current value reads as before.
      if (c?.value && c.row.value != null)
        translations[lang] = {
          status: c.row.status,
          value: c.row.value,
          ...(c.row.outdated_at != null ? { outdated: true as const } : {}),
          // An AI value's score (spec: KeyTranslations), while the value is the fill's; asked for with the checks.
          ...(q.checks === 'true' ? aiScoreOf(c.row) : null),
          // Only when a check reports something (spec: KeyTranslations).
          ...(checks.has(`${key.id}|${lang}`) ? { checks: checks.get(`${key.id}|${lang}`)! } : {}),
        };
      else if (c?.failed) translations[lang] = { status: 'failed', reason: c.failed };
      else translations[lang] = { status: 'pending' };
    }
    return { body: { key: key.name, ...(key.namespace ? { namespace: key.namespace } : {}), translations } };
  }
  return fileReply(await pullVersionFile(publishEnv(ctx.app), project, q as Parameters<typeof pullVersionFile>[2]));
};

/** The dashboard's export of a version's file: the public version pull's file and headers. */
export const internalExportVersion: Handler<'internalExportVersion'> = async (ctx) =>
  fileReply(await pullVersionFile(publishEnv(ctx.app), ctx.project, { ...ctx.query, version: ctx.params.versionId }));

function fileReply(file: Awaited<ReturnType<typeof pullVersionFile>>) {
  return {
    body: file.body,
    type: file.contentType,
    headers: {
      'Cache-Control': 'private, max-age=60',
      'Content-Disposition': disposition(file.fileName),
      'Glossa-Format-Warnings': String(file.warnings),
    },
  };
}

/** The `Content-Disposition` of a pulled file: its platform path as the file name (RFC 6266, with RFC 5987 for non-ASCII). */
function disposition(path: string): string {
  const ascii = path.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(path)}`;
}

export const getRequestRecord: Handler<'getRequestRecord'> = async (ctx) => {
  return { body: await readRecord(ctx.app.db, ctx.principal!.keyId, ctx.params.projectId, ctx.params.requestId) };
};
