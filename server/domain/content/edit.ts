// A person's work on one unit of a document in one language (spec/internal.yaml `internalEditContentUnit`): a
// translation typed in, or a stale unit's previous translation kept for the new source. Both are compared with what
// the editor read (the unit's source hash, the translation's updatedAt), so a source pushed or a run finished in
// between is a conflict rather than an overwrite, and a language with a run going is left to the run.
import type { Db } from '../../infra/db.js';
import { dialectOf } from '../../infra/db.js';
import { conflict, invalidArgument, notFound } from '../../infra/errors.js';
import type { ContentUnitRow, ProjectRow } from '../../infra/tables.js';
import type { DocFormat } from './blocks.js';
import type { checkEdit } from './inline.js';
import { prescan } from './prescan.js';
import { targetsOf } from './publish.js';
import { ensureLangRow, requireDoc, touchDoc, unitState, unitsOf, type Unit } from './store.js';

interface UnitEdit {
  docId: string;
  lang: string;
  unitId: string;
  /** The unit's source hash as the editor read it. */
  sourceHash: string;
  /** The translation's updatedAt (ms) as the editor read it; null when it had none. */
  base: number | null;
  /** The person's translation; absent to keep the stale candidate. */
  text?: string;
}

/** A unit of the working document as the editor shows it (the spec's ContentWorkingUnit). */
export function workingUnit(u: Unit, row: ContentUnitRow | undefined) {
  const state = unitState(u, row);
  const text = row?.text ?? undefined;
  const common = {
    id: u.id,
    state,
    sourceHash: u.hash,
    updatedAt: row ? new Date(Number(row.updated_at)).toISOString() : null,
  };
  if (state === 'translated') return { ...common, text };
  if (text === undefined) return common;
  const previous = state === 'stale' && row?.source_text != null ? { previousSource: row.source_text } : {};
  return { ...common, candidate: text, ...previous };
}

/** The text to store: the title and fields are plain text; a block keeps its source's markup (inline.ts). */
function checked(check: typeof checkEdit, format: DocFormat, u: Unit, text: string): string {
  const unitFormat: DocFormat = u.kind === 'block' ? format : 'plaintext';
  if (u.kind !== 'block' && /[\r\n]/.test(text)) throw invalidArgument(`${u.id} is one line; nothing was saved.`);
  const why = prescan(unitFormat, text) ?? undefined;
  const result = why ? { error: why } : check(unitFormat, u.type, u.text, text);
  if ('error' in result) throw invalidArgument(`The translation cannot be saved: ${result.error}.`);
  return result.text;
}

export async function editUnit(db: Db, project: ProjectRow, edit: UnitEdit, now: number) {
  // The markup parsers load with the first edit (revisions.ts says why), before the transaction holds any lock.
  const { checkEdit } = await import('./inline.js');
  return db.transaction(async (trx) => {
    // MySQL: locking reads of the document and of the language, which a push and a run's end also write, so the
    // comparisons below hold until this commits. SQLite's transactions already take the write lock at BEGIN.
    const mysql = dialectOf(trx) === 'mysql';
    if (mysql)
      await trx('content_docs').where({ project_id: project.id, doc_id: edit.docId }).forUpdate().first('doc_id');
    const doc = await requireDoc(trx, project.id, edit.docId);
    if (!(await targetsOf(trx, project, doc)).includes(edit.lang))
      throw notFound(`Document ${edit.docId} has no language ${edit.lang}.`);
    const unit = unitsOf(doc).find((u) => u.id === edit.unitId);
    if (!unit) throw notFound(`Document ${edit.docId} has no unit ${edit.unitId}.`);
    if (unit.hash !== edit.sourceHash)
      throw conflict('edit_conflict', 'The source of this unit changed since you opened it; nothing was saved.', {
        currentSource: unit.text,
      });
    const langKey = { project_id: project.id, doc_id: doc.doc_id, lang: edit.lang };
    await ensureLangRow(trx, langKey, now);
    const langQuery = trx('content_langs').where(langKey);
    if (mysql) langQuery.forUpdate();
    const langRow = await langQuery.first();
    if (langRow?.run_id)
      throw conflict('run_in_progress', `A run is translating ${edit.lang}; edit when it has ended.`);
    const unitKey = { ...langKey, unit_id: unit.id };
    const row = await trx('content_units').where(unitKey).first<ContentUnitRow | undefined>();
    const seen = row ? Number(row.updated_at) : null;
    if (seen !== edit.base)
      throw conflict('edit_conflict', 'This translation changed since you opened it; nothing was saved.', {
        current: workingUnit(unit, row),
      });
    let stored: ContentUnitRow;
    if (edit.text === undefined) {
      if (!row || unitState(unit, row) !== 'stale')
        throw conflict('conflict', `${unit.id} has no previous translation waiting to be kept.`);
      stored = { ...row, source_hash: unit.hash, source_text: unit.text, gave_up: false, updated_at: now };
    } else {
      const text = checked(checkEdit, doc.format, unit, edit.text);
      stored = { ...unitKey, source_hash: unit.hash, text, source_text: unit.text, gave_up: false, updated_at: now };
      // New text has not been reviewed, as after a run: the language is back to `translated`.
      if (langRow?.stage) await trx('content_langs').where(langKey).update({ stage: 'translated', updated_at: now });
    }
    await trx('content_units')
      .insert(stored)
      .onConflict(['project_id', 'doc_id', 'lang', 'unit_id'])
      .merge(['source_hash', 'text', 'source_text', 'gave_up', 'updated_at']);
    await touchDoc(trx, project.id, doc.doc_id, now);
    return workingUnit(unit, stored);
  });
}
