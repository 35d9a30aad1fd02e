// The termbase group (spec: listTerms … exportTerms; docs/guides/terms.md) and the dashboard's internal operations
// (internalListTerms … internalMatchTerms, at the end). Scopes (`read` to list and export, `write` to change and
// import) are the pipeline's (x-scopes); the rules are the domain's (server/domain/terms/).
import type { Handler } from '../pipeline.js';
import { exportTerms as exportFile } from '../../domain/terms/export.js';
import { importTerms as importFile } from '../../domain/terms/import.js';
import { matchTerms } from '../../domain/terms/glossary.js';
import {
  createTerm as create,
  deleteTerm as remove,
  listTerms as list,
  termById,
  updateTerm as update,
  type TermWriteHook,
} from '../../domain/terms/store.js';
import { recheckTermUses } from '../../domain/checks/terms.js';

export const listTerms: Handler<'listTerms'> = async (ctx) => ({
  body: await list(ctx.app.db, ctx.project, ctx.query),
});

/** The re-check of the keys using what a termbase write touched, queued in its transaction (checks/terms.ts). */
const recheck =
  (ctx: { project: Parameters<typeof recheckTermUses>[1] }): TermWriteHook =>
  (trx, scope, texts) =>
    recheckTermUses(trx, ctx.project, scope, texts);

export const createTerm: Handler<'createTerm'> = async (ctx) => {
  const { scope = 'project', ...fields } = ctx.body;
  return { status: 201, body: await create(ctx.app.db, ctx.project, scope, fields, recheck(ctx)) };
};

export const updateTerm: Handler<'updateTerm'> = async (ctx) => ({
  body: await update(ctx.app.db, ctx.project, ctx.params.termId, ctx.body, recheck(ctx)),
});

export const deleteTerm: Handler<'deleteTerm'> = async (ctx) => {
  await remove(ctx.app.db, ctx.project, ctx.params.termId, recheck(ctx));
  return { status: 204 };
};

export const importTerms: Handler<'importTerms'> = async (ctx) => ({
  body: await importFile(ctx.app.db, ctx.project, ctx.body, recheck(ctx)),
});

export const exportTerms: Handler<'exportTerms'> = async (ctx) => {
  const file = await exportFile(ctx.app.db, ctx.project, ctx.query.format!, ctx.query.scope);
  return {
    body: file.body,
    type: file.contentType,
    headers: { 'Content-Disposition': `attachment; filename="${file.fileName}"`, 'Cache-Control': 'no-store' },
  };
};

// The internal API's operations (spec/internal.yaml): the same rules for a signed-in person.
export const internalListTerms: Handler<'internalListTerms'> = (ctx) => listTerms({ ...ctx });

export const internalCreateTerm: Handler<'internalCreateTerm'> = (ctx) => createTerm({ ...ctx });

export const internalGetTerm: Handler<'internalGetTerm'> = async (ctx) => ({
  body: await termById(ctx.app.db, ctx.project, ctx.params.termId),
});

export const internalUpdateTerm: Handler<'internalUpdateTerm'> = (ctx) => updateTerm({ ...ctx });

export const internalDeleteTerm: Handler<'internalDeleteTerm'> = (ctx) => deleteTerm({ ...ctx });

export const internalMatchTerms: Handler<'internalMatchTerms'> = async (ctx) => ({
  body: { matches: await matchTerms(ctx.app.db, ctx.project, ctx.body.text, ctx.body.lang) },
});
