// Keys as the dashboard reviews them: switch on/off, verify the source, edit or review translations, list.
import { contentChanged } from '../platform/content.js';
import { getProject } from '../config/projects.js';
import { normalizeLanguage } from '../config/languages.js';
import type { Db } from '../platform/db.js';
import { bool, parseJson } from '../platform/db.js';
import { invalidArgument, notFound } from '../platform/errors.js';
import type { Handler } from '../platform/pipeline.js';

async function keyByRef(db: Db, projectId: string, ref: string) {
  const key = await db('keys').where({ project_id: projectId }).andWhere((w) => w.where('name', ref).orWhere('token', ref)).first();
  if (!key) throw notFound('No key with this name or token.');
  return key;
}

export const internalUpdateKey: Handler = async (ctx) => {
  const { db } = ctx.app;
  const p = await getProject(db, ctx.params.projectId);
  const key = await keyByRef(db, p.id, ctx.params.key);
  const now = Date.now();
  const row: Record<string, unknown> = { updated_at: now };
  if ('enabled' in ctx.body) row.enabled = ctx.body.enabled;
  if ('sourceVerified' in ctx.body) row.source_verified = ctx.body.sourceVerified;
  await db.transaction(async (trx) => {
    await trx('keys').where({ id: key.id }).update(row);
    await contentChanged(trx, p.id, now);
  });
  return { body: { key: key.name, enabled: 'enabled' in ctx.body ? ctx.body.enabled : bool(key.enabled), sourceVerified: 'sourceVerified' in ctx.body ? ctx.body.sourceVerified : bool(key.source_verified) } };
};

export const internalPutTranslation: Handler = async (ctx) => {
  const { db } = ctx.app;
  const p = await getProject(db, ctx.params.projectId);
  const key = await keyByRef(db, p.id, ctx.params.key);
  const lang = normalizeLanguage(ctx.params.lang);
  if (lang === p.base_lang) throw invalidArgument('Edit the base language through a push or sync.');
  const now = Date.now();
  const existing = await db('translations').where({ key_id: key.id, lang }).first();
  if (!existing && ctx.body.value === undefined) throw notFound('No translation to review yet.');
  const row = {
    value: ctx.body.value ?? existing?.value,
    status: ctx.body.status ?? (ctx.body.value !== undefined ? 'translated' : existing.status),
    origin: ctx.body.value !== undefined ? 'edit' : existing?.origin,
    job_id: null,
    updated_at: now,
  };
  await db.transaction(async (trx) => {
    if (existing) await trx('translations').where({ key_id: key.id, lang }).update(row);
    else await trx('translations').insert({ key_id: key.id, lang, project_id: p.id, ...row });
    await contentChanged(trx, p.id, now);
  });
  return { body: { key: key.name, lang, status: row.status, value: row.value, origin: row.origin } };
};

export const internalListKeys: Handler = async (ctx) => {
  const { db } = ctx.app;
  const p = await getProject(db, ctx.params.projectId);
  const q = db('keys').where({ project_id: p.id }).orderBy('id').limit(1000).select('name', 'token', 'source', 'forms', 'ctx', 'enabled', 'source_verified', 'captured');
  if (ctx.query.captured !== undefined) q.andWhere('captured', ctx.query.captured === true || ctx.query.captured === 'true');
  const rows = await q;
  return {
    body: {
      keys: rows.map((k) => ({
        key: k.name, token: k.token, source: k.source, forms: parseJson(k.forms, null), ctx: k.ctx,
        enabled: bool(k.enabled), sourceVerified: bool(k.source_verified), captured: bool(k.captured),
      })),
    },
  };
};
