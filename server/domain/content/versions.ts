// Content versions: what a publish freezes of a document, and reading it back (listing, pull). A version holds the
// source text with its blocks' offsets and, per target language, the translated units: the raw text of a
// language is reassembled from them on read (blocks.ts assemble), so a version stores each text once.
import type { Db } from '../../infra/db.js';
import { parseJson } from '../../infra/db.js';
import type { ContentDocRow, ContentLangRow, ContentUnitRow, ContentVersionRow } from '../../infra/tables.js';
import { assemble } from './revisions.js';
import { docFields, fieldUnit, storedBlocks, TITLE_UNIT, unitState, unitsOf, type StoredBlock } from './store.js';

export type Stage = 'translated' | 'reviewed' | 'approved';

export interface LangSnapshot {
  source: 'translated' | 'fallback';
  stage?: Stage;
  title?: string;
  fields?: Record<string, string>;
  /** Block id to translated block text. */
  blocks?: Record<string, string>;
}

export interface Snapshot {
  docId: string;
  externalId: string | null;
  title: string;
  format: ContentDocRow['format'];
  baseLang: string;
  sourceFields: Record<string, string>;
  text: string;
  blocks: StoredBlock[];
  langs: Record<string, LangSnapshot>;
}

/** What the listing shows of a version, stored beside it. */
export interface Summary {
  title: string;
  format: ContentDocRow['format'];
  externalId: string | null;
  publishedAt: string;
  langs: Array<{ code: string; source: 'translated' | 'fallback'; stage?: Stage; title?: string }>;
}

/**
 * The document as a publish now would freeze it into `targets`. A language is served translated only when every
 * unit (blocks, title, fields) is translated from the current source: half a document is never served.
 */
export function snapshotOf(
  doc: ContentDocRow,
  targets: readonly string[],
  units: Map<string, Map<string, ContentUnitRow>>,
  langs: Map<string, ContentLangRow>,
): Snapshot {
  const all = unitsOf(doc);
  const out: Record<string, LangSnapshot> = {};
  for (const lang of targets) {
    const rows = units.get(lang) ?? new Map<string, ContentUnitRow>();
    if (!all.every((u) => unitState(u, rows.get(u.id)) === 'translated')) {
      out[lang] = { source: 'fallback' };
      continue;
    }
    const fields: Record<string, string> = {};
    for (const name of Object.keys(docFields(doc))) fields[name] = rows.get(fieldUnit(name))!.text!;
    const blocks: Record<string, string> = {};
    for (const u of all) if (u.kind === 'block') blocks[u.id] = rows.get(u.id)!.text!;
    out[lang] = {
      source: 'translated',
      stage: langs.get(lang)?.stage ?? 'translated',
      title: rows.get(TITLE_UNIT)!.text!,
      fields,
      blocks,
    };
  }
  return {
    docId: doc.doc_id,
    externalId: doc.external_id,
    title: doc.title,
    format: doc.format,
    baseLang: doc.base_lang,
    sourceFields: docFields(doc),
    text: doc.text ?? '',
    blocks: storedBlocks(doc),
    langs: out,
  };
}

export function summaryOf(s: Snapshot, publishedAt: number): Summary {
  return {
    title: s.title,
    format: s.format,
    externalId: s.externalId,
    publishedAt: new Date(publishedAt).toISOString(),
    langs: Object.entries(s.langs).map(([code, l]) =>
      l.source === 'translated'
        ? { code, source: l.source, stage: l.stage, title: l.title }
        : { code, source: l.source },
    ),
  };
}

/** The text of `lang` in a version: the translation reassembled, or the source for the base language and fallbacks. */
export function textOf(s: Snapshot, lang: string): string {
  const blocks = s.langs[lang]?.blocks;
  if (!blocks) return s.text;
  const parsed = s.blocks.map((b) => ({ ...b, text: s.text.slice(b.start, b.end) }));
  return assemble(s.text, parsed, (i) => blocks[s.blocks[i].id]);
}

/** The blocks of `lang` in a version, in document order. */
export function blocksOf(s: Snapshot, lang: string): Array<{ id: string; type: string; text: string }> {
  const blocks = s.langs[lang]?.blocks;
  return s.blocks.map((b) => ({ id: b.id, type: b.type, text: blocks?.[b.id] ?? s.text.slice(b.start, b.end) }));
}

export const parseSnapshot = (row: Pick<ContentVersionRow, 'snapshot'>) =>
  parseJson<Snapshot>(row.snapshot, null as never);

export async function readVersion(
  db: Db,
  projectId: string,
  docId: string,
  versionId: string,
): Promise<ContentVersionRow | undefined> {
  return db('content_versions').where({ project_id: projectId, doc_id: docId, version_id: versionId }).first();
}

/** The next version name of the project's content today: `YYYY.MM.DD.N`, N from 1 (UTC day). */
export async function nextVersionId(trx: Db, projectId: string, now: number): Promise<string> {
  const day = new Date(now).toISOString().slice(0, 10).replaceAll('-', '.');
  const rows = await trx('content_versions')
    .where({ project_id: projectId })
    .andWhere('version_id', 'like', `${day}.%`)
    .distinct('version_id');
  const n = rows.reduce((max, r) => Math.max(max, Number(r.version_id.slice(day.length + 1))), 0);
  return `${day}.${n + 1}`;
}
