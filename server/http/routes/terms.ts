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
  visibleTerms,
} from '../../domain/terms/store.js';
import { recheckTermUses } from '../../domain/checks/terms.js';

export const listTerms: Handler<'listTerms'> = async (ctx) => ({
  body: await list(ctx.app.db, ctx.project, ctx.query),
});

export const createTerm: Handler<'createTerm'> = async (ctx) => {
  const { scope = 'project', ...fields } = ctx.body;
  const term = await create(ctx.app.db, ctx.project, scope, fields);
  await recheckTermUses(ctx.app.db, ctx.project, scope, [term.text]);
  return { status: 201, body: term };
};

// A changed or deleted term: the keys using its old text and its new one are checked again (checks/terms.ts).
export const updateTerm: Handler<'updateTerm'> = async (ctx) => {
  const before = await termById(ctx.app.db, ctx.project, ctx.params.termId);
  const term = await update(ctx.app.db, ctx.project, ctx.params.termId, ctx.body);
  await recheckTermUses(ctx.app.db, ctx.project, term.scope, [before.text, term.text]);
  return { body: term };
};

export const deleteTerm: Handler<'deleteTerm'> = async (ctx) => {
  const before = await termById(ctx.app.db, ctx.project, ctx.params.termId);
  await remove(ctx.app.db, ctx.project, ctx.params.termId);
  await recheckTermUses(ctx.app.db, ctx.project, before.scope, [before.text]);
  return { status: 204 };
};

export const importTerms: Handler<'importTerms'> = async (ctx) => {
  const { db } = ctx.app;
  const since = Date.now();
  const body = await importFile(db, ctx.project, ctx.body);
  // What the import created or changed carries its time (an entry it left unchanged does not).
  if (body.created || body.updated) {
    const written: Array<{ text: string; project_id: string | null }> = await visibleTerms(db, ctx.project)
      .andWhere('updated_at', '>=', since)
      .select('text', 'project_id');
    for (const scope of ['project', 'workspace'] as const)
      await recheckTermUses(
        db,
        ctx.project,
        scope,
        written.filter((w) => (w.project_id === null) === (scope === 'workspace')).map((w) => w.text),
      );
  }
  return { body };
};

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
