// Content on the dashboard's side (spec/internal.yaml): publish, rollback, delete, the
// working state of a document for review, and review stages (docs/guides/content.md, "Publishing").
import { conflict } from '../../infra/errors.js';
import type { Handler } from '../pipeline.js';
import { deleteDocument, publishDocuments, rollbackDocument, targetsOf } from '../../domain/content/publish.js';
import {
  ensureLangRow,
  readUnits,
  requireDoc,
  revisionId,
  storedBlocks,
  unitState,
  unitsOf,
  docFields,
} from '../../domain/content/store.js';
import { editUnit, workingUnit } from '../../domain/content/edit.js';
import { invalidArgument, notFound } from '../../infra/errors.js';

export const internalPublishContent: Handler<'internalPublishContent'> = async (ctx) => {
  const project = ctx.project;
  return { body: await publishDocuments(ctx.app.db, project, ctx.body?.docIds) };
};

export const internalRollbackContent: Handler<'internalRollbackContent'> = async (ctx) => {
  const project = ctx.project;
  return { body: await rollbackDocument(ctx.app.db, project, ctx.params.docId, ctx.body.versionId) };
};

export const internalDeleteContent: Handler<'internalDeleteContent'> = async (ctx) => {
  await deleteDocument(ctx.app.db, ctx.params.projectId, ctx.params.docId);
  return { status: 204 };
};

export const internalGetContentDocument: Handler<'internalGetContentDocument'> = async (ctx) => {
  const { db } = ctx.app;
  const project = ctx.project;
  const doc = await requireDoc(db, project.id, ctx.params.docId);
  const units = unitsOf(doc);
  const rows = await readUnits(db, project.id, doc.doc_id);
  const langRows = new Map(
    (await db('content_langs').where({ project_id: project.id, doc_id: doc.doc_id })).map((r) => [r.lang, r]),
  );
  const langs = (await targetsOf(db, project, doc)).map((code) => ({
    code,
    stage: langRows.get(code)?.stage ?? null,
    running: !!langRows.get(code)?.run_id,
    units: units.map((u) => workingUnit(u, rows.get(code)?.get(u.id))),
  }));
  const text = doc.text ?? '';
  return {
    body: {
      docId: doc.doc_id,
      title: doc.title,
      format: doc.format,
      baseLang: doc.base_lang,
      externalId: doc.external_id,
      revisionId: doc.text == null ? null : revisionId(doc),
      fields: docFields(doc),
      health: doc.health,
      versionId: doc.published_version,
      blocks: storedBlocks(doc).map((b) => ({ id: b.id, type: b.type, text: text.slice(b.start, b.end) })),
      langs,
    },
  };
};

export const internalSetContentStage: Handler<'internalSetContentStage'> = async (ctx) => {
  const { db } = ctx.app;
  const project = ctx.project;
  const { docId, lang } = ctx.params;
  const { stage } = ctx.body;
  await db.transaction(async (trx) => {
    const doc = await requireDoc(trx, project.id, docId);
    if (!(await targetsOf(trx, project, doc)).includes(lang))
      throw notFound(`Document ${docId} has no language ${lang}.`);
    if (stage !== 'translated') {
      const rows = (await readUnits(trx, project.id, docId, lang)).get(lang);
      const incomplete = unitsOf(doc).filter((u) => unitState(u, rows?.get(u.id)) !== 'translated');
      if (incomplete.length)
        throw conflict(
          'conflict',
          `${lang} is not translated for the current source (${incomplete.length} units): it cannot be ${stage}.`,
        );
    }
    const key = { project_id: project.id, doc_id: docId, lang };
    const now = Date.now();
    await ensureLangRow(trx, key, now);
    await trx('content_langs').where(key).update({ stage, updated_at: now });
    await trx('content_docs')
      .where({ project_id: project.id, doc_id: docId })
      .update({ state_rev: trx.raw('state_rev + 1') });
  });
  return { body: { lang, stage } };
};

export const internalEditContentUnit: Handler<'internalEditContentUnit'> = async (ctx) => {
  const { docId, lang, unitId } = ctx.params;
  const { text, keep, sourceHash, baseUpdatedAt } = ctx.body;
  if ((text === undefined) === (keep === undefined))
    throw invalidArgument('Send either text (a translation) or keep: true (the previous translation).');
  const base = baseUpdatedAt == null ? null : Date.parse(baseUpdatedAt);
  return {
    body: await editUnit(ctx.app.db, ctx.project, { docId, lang, unitId, sourceHash, base, text }, Date.now()),
  };
};
