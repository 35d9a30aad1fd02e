// Content group (spec: putContentDocument, createContentDocument, listContentDocuments, getContentDocument,
// runContentDocument; docs/guides/content.md). Scopes, body size (413), media type (415) and `dryRun` placement are
// the pipeline's (x-scopes, x-body-limit, x-dry-run). Every route answers 404 where Content is disabled.
import { createHash } from 'node:crypto';
import { listLanguages } from '../../domain/project/projects.js';
import type { Db } from '../../infra/db.js';
import { ApiError, invalidArgument, notFound } from '../../infra/errors.js';
import { withIdempotencyKey } from '../../infra/idempotency.js';
import { headerText, type Handler, type RequestView } from '../pipeline.js';
import type { ProjectRow } from '../../infra/tables.js';
import { etagMatches } from '../etag.js';
import type { App } from '../../infra/app.js';
import { newDocId, pushDocument, type ParseLimits, type PushResult } from '../../domain/content/push.js';
import { checkModel, planRun, startRun, type RunOptions } from '../../domain/content/run.js';
import { requireDoc } from '../../domain/content/store.js';
import { blocksOf, parseSnapshot, readVersion, textOf, type Summary } from '../../domain/content/versions.js';
import { parseJson } from '../../infra/db.js';

/** The project, where Content is enabled; 404 not_found otherwise (docs/guides/content.md). */
function contentProject(project: ProjectRow): ProjectRow {
  if (!project.content_enabled) throw notFound('Content is not enabled for this project.');
  return project;
}

const projectRef = (p: ProjectRow) => ({ id: p.id, handle: p.handle, slug: p.slug });

async function projectLanguages(db: Db, project: ProjectRow): Promise<string[]> {
  return [project.base_lang, ...(await listLanguages(db, project.id)).map((l) => l.code)];
}

/** The `Idempotency-Key` header, or null. */
function idempotencyKey(request: RequestView): string | null {
  const key = headerText(request.headers['idempotency-key']);
  if (!key) return null;
  if (key.length > 255) throw invalidArgument('Idempotency-Key: at most 255 characters.');
  return key;
}

const parseLimits = (app: App): ParseLimits => ({ deadlineMs: app.config.contentParseDeadlineMs });

export const putContentDocument: Handler<'putContentDocument'> = async (ctx) => {
  const { db } = ctx.app;
  const project = contentProject(ctx.project);
  const result = await pushDocument(
    db,
    project,
    await projectLanguages(db, project),
    ctx.params.docId,
    ctx.body,
    undefined,
    parseLimits(ctx.app),
  );
  return result.created ? { status: 201 as const, body: result } : { status: 200 as const, body: result };
};

export const createContentDocument: Handler<'createContentDocument'> = async (ctx) => {
  const { db } = ctx.app;
  const project = contentProject(ctx.project);
  const languages = await projectLanguages(db, project);
  const key = idempotencyKey(ctx.request);
  const answer = await withIdempotencyKey(
    db,
    key ? { projectId: project.id, scope: 'content.create', key } : null,
    async (scope) => {
      const result = await pushDocument(
        db,
        project,
        languages,
        newDocId(),
        ctx.body,
        (trx, r) => scope.commit(trx, { status: 201, body: r }),
        parseLimits(ctx.app),
      );
      return { status: 201, body: result };
    },
    (first) => ({ status: 201, body: { ...(first.body as PushResult), replayed: true } }),
  );
  return { status: 201, body: answer.body as PushResult };
};

export const listContentDocuments: Handler<'listContentDocuments'> = async (ctx) => {
  const { db } = ctx.app;
  const project = contentProject(ctx.project);
  const LIMIT = 200;
  const rows = await db('content_docs as d')
    .join('content_versions as v', function () {
      this.on('v.project_id', 'd.project_id')
        .andOn('v.doc_id', 'd.doc_id')
        .andOn('v.version_id', 'd.published_version');
    })
    .where('d.project_id', project.id)
    .orderBy('d.doc_id')
    .limit(LIMIT + 1)
    .select<Array<{ doc_id: string; version_id: string; summary: string }>>('d.doc_id', 'v.version_id', 'v.summary');
  const documents = rows.slice(0, LIMIT).map((r) => {
    const s = parseJson<Summary>(r.summary, null as never);
    return {
      docId: r.doc_id,
      title: s.title,
      format: s.format,
      externalId: s.externalId,
      versionId: r.version_id,
      publishedAt: s.publishedAt,
      langs: s.langs,
    };
  });
  const body = { project: projectRef(project), baseLang: project.base_lang, truncated: rows.length > LIMIT, documents };
  const etag = `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
  if (etagMatches(ctx.request.headers['if-none-match'], etag)) return { status: 304, headers: { ETag: etag } };
  return { body, headers: { ETag: etag } };
};

export const getContentDocument: Handler<'getContentDocument'> = async (ctx) => {
  const { db } = ctx.app;
  const project = contentProject(ctx.project);
  const { docId } = ctx.params;
  const { lang, version, include } = ctx.query;
  const shape = ctx.query.shape ?? 'raw';
  if (shape === 'raw' && !lang) throw invalidArgument('lang is required with shape=raw.');
  const doc = await requireDoc(db, project.id, docId);
  const versionId = version ?? doc.published_version;
  if (!versionId) throw notFound(`Document ${docId} has not been published.`);
  const row = await readVersion(db, project.id, docId, versionId);
  if (!row) throw notFound(`Document ${docId} has no version ${versionId}.`);
  const s = parseSnapshot(row);
  const all = [s.baseLang, ...Object.keys(s.langs)];
  if (lang && !all.includes(lang)) throw notFound(`Document ${docId} has no language ${lang} in ${versionId}.`);
  const content: Record<string, Record<string, unknown>> = {};
  for (const code of lang ? [lang] : all) {
    const l = s.langs[code];
    const entry: Record<string, unknown> =
      code === s.baseLang
        ? { source: 'translated', title: s.title, fields: s.sourceFields }
        : l.source === 'translated'
          ? { source: 'translated', stage: l.stage, title: l.title, fields: l.fields }
          : { source: 'fallback' };
    if (shape === 'raw') entry.text = textOf(s, code);
    else entry.blocks = blocksOf(s, code);
    content[code] = entry;
  }
  const body: Record<string, unknown> = {
    project: projectRef(project),
    docId,
    externalId: s.externalId,
    versionId,
    format: s.format,
    baseLang: s.baseLang,
    sourceFields: s.sourceFields,
    content,
  };
  if (include === 'reports') {
    const reports: Record<string, unknown> = {};
    const q = db('content_langs').where({ project_id: project.id, doc_id: docId }).whereNotNull('report');
    if (lang) q.andWhere({ lang });
    for (const r of await q) reports[r.lang] = parseJson(r.report, {});
    body.reports = reports;
    body.reportsAnchored = false;
  }
  return { body: body as never };
};

export const runContentDocument: Handler<'runContentDocument'> = async (ctx) => {
  // No operation covers a content run (`x-operation-action: content_run`): an agent key is refused even a preview.
  if (ctx.principal?.requiresOperationApproval)
    throw new ApiError(403, 'authorization_required', 'An agent key cannot run a content translation.');
  return {
    body: (await runDocument(ctx.app, ctx.project, ctx.params.docId, ctx.body, ctx.dryRun, ctx.request)) as never,
  };
};

/** The dashboard's content run (spec internal `internalRunContentDocument`): the public run's rules, for a person. */
export const internalRunContentDocument: Handler<'internalRunContentDocument'> = async (ctx) => ({
  body: (await runDocument(ctx.app, ctx.project, ctx.params.docId, ctx.body, ctx.dryRun, ctx.request)) as never,
});

/** A content run or its preview (spec `runContentDocument`), for either origin of the request. */
async function runDocument(
  app: App,
  p: ProjectRow,
  docId: string,
  body: {
    langs?: string[];
    lang?: string;
    mode?: 'fill' | 'overwrite';
    force?: boolean;
    confirm?: boolean;
    model?: string;
  },
  dryRun: boolean,
  request: RequestView,
): Promise<unknown> {
  const { db } = app;
  const project = contentProject(p);
  if (!app.engine)
    throw new ApiError(
      503,
      'unavailable',
      'No translation engine is configured (TRANSLATION_ENGINE=none); nothing was written.',
    );
  checkModel(app, body.model);
  const doc = await requireDoc(db, project.id, docId);
  const requested = body.langs ?? (body.lang ? [body.lang] : undefined);
  const opts: RunOptions = { mode: body.mode ?? 'fill', force: body.force ?? false };
  const plan = () => planRun(db, project, doc, requested, opts);
  const estimate = (p: Awaited<ReturnType<typeof plan>>) => p.run.reduce((n, r) => n + r.mc, 0);
  if (dryRun) return { estimatedMc: estimate(await plan()) };
  const key = idempotencyKey(request);
  // The key is judged before anything else: a retry of a run that started answers what the first did, even
  // though its languages now read `run_in_progress`.
  const answer = await withIdempotencyKey(
    db,
    key ? { projectId: project.id, scope: `content.run:${doc.doc_id}`, key } : null,
    async () => {
      const planned = await plan();
      const estimatedMc = estimate(planned);
      if (!planned.run.length && planned.skipped.some((s) => s.reason === 'run_in_progress'))
        throw new ApiError(
          409,
          'run_in_progress',
          'A run is already going for every language that needs one; send only the languages under `skipped`.',
        );
      const threshold = project.cost_warning_mc == null ? null : Number(project.cost_warning_mc);
      if (threshold != null && estimatedMc > threshold && !body.confirm)
        throw new ApiError(
          409,
          'cost_warning',
          `The estimate (${estimatedMc} mc) exceeds the project's cost warning threshold (${threshold} mc); send confirm: true to go ahead.`,
          { estimatedMc },
        );
      return { status: 200, body: await startRun(db, project, doc, planned, opts) };
    },
  );
  return answer.body;
}
