// Projects, their languages and API keys, as the dashboard manages them.
import { contentChanged } from '../../domain/project/revision.js';
import { normalizeLanguage } from '../../domain/project/languages.js';
import { createProject, getProject, normalizeFillInstructions, projectView } from '../../domain/project/projects.js';
import { createApiKey } from '../apikeys.js';
import { changeSharing } from '../../domain/memory/entries.js';
import { requestRecheck } from '../../domain/checks/settings.js';
import { parseJson, retryContended } from '../../infra/db.js';
import { invalidArgument, notFound } from '../../infra/errors.js';
import type { Handler } from '../pipeline.js';
import { fillUsage } from '../../domain/fill/usage.js';

export const internalCreateProject: Handler<'internalCreateProject'> = async (ctx) => ({
  status: 201,
  body: await createProject(ctx.app.db, ctx.body),
});

export const internalGetProject: Handler<'internalGetProject'> = async (ctx) => ({
  body: await projectView(ctx.app.db, ctx.project),
});

/** An origin as URL spells it (`https://help.example.com`), or 400 when the text is not one. */
function originOf(text: string): string {
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    // refused below
  }
  const bare = url && !url.username && !url.password && !url.search && !url.hash && ['', '/'].includes(url.pathname);
  if (!url?.host || !bare)
    throw invalidArgument(`markupOrigins: ${JSON.stringify(text)} is not an origin such as https://help.example.com.`);
  return `${url.protocol}//${url.host}`;
}

export const internalUpdateProject: Handler<'internalUpdateProject'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const b = ctx.body;
  const row: Record<string, unknown> = { updated_at: Date.now() };
  if ('autoVerify' in b) row.auto_verify = b.autoVerify;
  if ('contentEnabled' in b) row.content_enabled = b.contentEnabled;
  if ('costWarningMc' in b) row.cost_warning_mc = b.costWarningMc;
  if ('deliveryHost' in b) row.delivery_host = b.deliveryHost ? String(b.deliveryHost).toLowerCase() : null;
  if (b.markupOrigins !== undefined) row.markup_origins = JSON.stringify(b.markupOrigins.map(originOf));
  if (b.outdatedMode !== undefined) row.outdated_mode = b.outdatedMode;
  if (b.memoryPreTranslate !== undefined) row.memory_pretranslate = b.memoryPreTranslate;
  if (b.memoryThreshold !== undefined) row.memory_threshold = b.memoryThreshold;
  if (b.memorySharing !== undefined) row.memory_sharing = b.memorySharing;
  if (b.fillInstructions !== undefined) row.fill_instructions = normalizeFillInstructions(b.fillInstructions);
  if (b.aiReviewBelow !== undefined)
    row.ai_review_below = b.aiReviewBelow === null ? null : Math.round(b.aiReviewBelow * 1000);
  await db.transaction(async (trx) => {
    await trx('projects').where({ id: p.id }).update(row);
    // The entries the project wrote follow it into the memory it now belongs to.
    if (b.memorySharing !== undefined) await changeSharing(trx, p, b.memorySharing);
    // The gates read the origins, and the publish holds AI values scored below aiReviewBelow: a publish prepared
    // under the old ones no longer describes the project.
    if (b.markupOrigins !== undefined || b.aiReviewBelow !== undefined) await contentChanged(trx, p.id, Date.now());
  });
  // The markup checks read the origins: stored results are checked again (server/domain/checks/).
  if (b.markupOrigins !== undefined)
    await retryContended(() => db.transaction((trx) => requestRecheck(trx, p.id, Date.now())));
  return { body: await projectView(db, await getProject(db, p.id)) };
};

export const internalListEvents: Handler<'internalListEvents'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const rows = await db('events')
    .where({ project_id: p.id })
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(100);
  return {
    body: {
      events: rows.map((r) => ({
        id: r.id,
        type: r.type,
        createdAt: new Date(Number(r.created_at)).toISOString(),
        payload: parseJson(r.payload, {}),
      })),
    },
  };
};

export const internalRemoveLanguage: Handler<'internalRemoveLanguage'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const code = normalizeLanguage(ctx.params.code);
  if (code === p.base_lang) throw invalidArgument('The base language cannot be removed.');
  const row = await db('project_languages').where({ project_id: p.id, code }).first();
  if (!row) throw notFound(`${code} is not a language of this project.`);
  const now = Date.now();
  await db.transaction(async (trx) => {
    const n = await trx('project_languages')
      .where({ project_id: p.id, code })
      .whereNull('removed_at')
      .update({ removed_at: now, updated_at: now });
    if (n) await contentChanged(trx, p.id, now);
  });
  return { status: 204 };
};

export const internalCreateApiKey: Handler<'internalCreateApiKey'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const scopes = ctx.body.scopes;
  const requiresOperationApproval = Boolean(ctx.body.requiresOperationApproval);
  const key = await createApiKey(db, p.id, { scopes, requiresOperationApproval, name: ctx.body.name });
  return { status: 201, body: { ...key, scopes, requiresOperationApproval } };
};

export const internalRevokeApiKey: Handler<'internalRevokeApiKey'> = async (ctx) => {
  const n = await ctx.app
    .db('api_keys')
    .where({ id: ctx.params.keyId, project_id: ctx.params.projectId })
    .whereNull('revoked_at')
    .update({ revoked_at: Date.now() });
  if (!n) throw notFound('No such live key in this project.');
  return { status: 204 };
};

export const internalGetFillUsage: Handler<'internalGetFillUsage'> = async (ctx) => ({
  body: await fillUsage(ctx.app.db, ctx.project.id),
});
