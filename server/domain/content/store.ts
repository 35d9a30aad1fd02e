// A document's units and their translations as stored (migrations/013_content.ts). A unit is what a run
// translates and a publish freezes: each block of the source, the title (`@title`) and each field
// (`@field:<name>`). A translation is current when it was made from the unit's present source hash; otherwise the
// unit reads stale and the old text is the candidate reviewers see.
import { createHash } from 'node:crypto';
import type { Db } from '../../infra/db.js';
import { bool, insertOrKeep, parseJson } from '../../infra/db.js';
import { notFound } from '../../infra/errors.js';
import type { ContentDocRow, ContentUnitRow } from '../../infra/tables.js';

/** A block as stored with its document: the text is the slice [start, end) of the document's text. */
export interface StoredBlock {
  id: string;
  type: string;
  hash: string;
  start: number;
  end: number;
}

export interface Unit {
  id: string;
  kind: 'block' | 'title' | 'field';
  /** The block type; `title` or `field` for the others. */
  type: string;
  text: string;
  hash: string;
}

type UnitState = 'translated' | 'stale' | 'missing' | 'gave_up';

export const TITLE_UNIT = '@title';
export const fieldUnit = (name: string) => `@field:${name}`;

const unitHash = (type: string, text: string) =>
  createHash('sha256').update(`${type}\n${text}`).digest('hex').slice(0, 16);

export const storedBlocks = (doc: Pick<ContentDocRow, 'blocks'>) => parseJson<StoredBlock[]>(doc.blocks, []);
export const docFields = (doc: Pick<ContentDocRow, 'fields'>) => parseJson<Record<string, string>>(doc.fields, {});

/** Every unit of the document's current source, blocks first in document order. */
export function unitsOf(doc: ContentDocRow): Unit[] {
  const text = doc.text ?? '';
  const units: Unit[] = storedBlocks(doc).map((b) => ({
    id: b.id,
    kind: 'block',
    type: b.type,
    text: text.slice(b.start, b.end),
    hash: b.hash,
  }));
  units.push({ id: TITLE_UNIT, kind: 'title', type: 'title', text: doc.title, hash: unitHash('title', doc.title) });
  for (const [name, value] of Object.entries(docFields(doc)).sort(([a], [b]) => (a < b ? -1 : 1)))
    units.push({ id: fieldUnit(name), kind: 'field', type: 'field', text: value, hash: unitHash('field', value) });
  return units;
}

export function unitState(u: Pick<Unit, 'hash'>, row: ContentUnitRow | undefined): UnitState {
  if (!row) return 'missing';
  if (row.source_hash === u.hash) return bool(row.gave_up) ? 'gave_up' : row.text == null ? 'missing' : 'translated';
  return row.text == null ? 'missing' : 'stale';
}

/** The document's translations into `lang` (or every language), by language and unit id. */
export async function readUnits(
  db: Db,
  projectId: string,
  docId: string,
  lang?: string,
): Promise<Map<string, Map<string, ContentUnitRow>>> {
  const q = db('content_units').where({ project_id: projectId, doc_id: docId });
  if (lang) q.andWhere({ lang });
  const byLang = new Map<string, Map<string, ContentUnitRow>>();
  for (const r of await q) {
    let m = byLang.get(r.lang);
    if (!m) byLang.set(r.lang, (m = new Map<string, ContentUnitRow>()));
    m.set(r.unit_id, r);
  }
  return byLang;
}

export async function readDoc(db: Db, projectId: string, docId: string): Promise<ContentDocRow | undefined> {
  return db('content_docs').where({ project_id: projectId, doc_id: docId }).first();
}

export async function requireDoc(db: Db, projectId: string, docId: string): Promise<ContentDocRow> {
  const doc = await readDoc(db, projectId, docId);
  if (!doc) throw notFound(`No document ${docId} in this project.`);
  return doc;
}

export const revisionId = (doc: Pick<ContentDocRow, 'revision'>) => `r_${doc.revision}`;

/** Marks a change a publish could see (source, translations, stages): the document is pending again. */
export async function touchDoc(trx: Db, projectId: string, docId: string, now: number): Promise<void> {
  await trx('content_docs')
    .where({ project_id: projectId, doc_id: docId })
    .update({ state_rev: trx.raw('state_rev + 1'), updated_at: now });
}

/** Makes sure the document language's row exists (a first run, stage or edit creates it), in the caller's transaction. */
export async function ensureLangRow(
  trx: Db,
  key: { project_id: string; doc_id: string; lang: string },
  now: number,
): Promise<void> {
  await insertOrKeep(
    trx,
    'content_langs',
    { ...key, stage: null, run_hold_mc: 0, updated_at: now },
    ['project_id', 'doc_id', 'lang'],
    'lang',
  );
}
