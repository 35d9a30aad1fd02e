// The termbase's rows (migration 029): a project's own terms and its workspace's, which every project of the
// workspace with the term's base language uses (docs/guides/terms.md, "Project and workspace terms"). Reads, writes
// and the API's view of a term; the routes (server/http/routes/terms.ts) only call these.
import { createHash } from 'node:crypto';
import type { PartOfSpeech } from '../../../packages/core/src/terms/entry.js';
import type { Db } from '../../infra/db.js';
import { bool, newId } from '../../infra/db.js';
import { invalidArgument, notFound } from '../../infra/errors.js';
import type { ProjectRow, TermRow } from '../../infra/tables.js';
import { listLanguages } from '../project/projects.js';
import { normalizeLanguage } from '../project/languages.js';

export type TermScope = 'project' | 'workspace';

/** A term as the API answers it (spec: `Term`). */
export interface TermView {
  termId: string;
  scope: TermScope;
  lang: string;
  text: string;
  description: string | null;
  partOfSpeech: PartOfSpeech | null;
  forbidden: boolean;
  nonTranslatable: boolean;
  caseSensitive: boolean;
  abbreviation: boolean;
  translations: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

/** The fields a create or an import writes (spec: `TermCreateRequest` without `scope`). */
export interface TermFields {
  text: string;
  description?: string | null;
  partOfSpeech?: PartOfSpeech | null;
  forbidden?: boolean;
  nonTranslatable?: boolean;
  caseSensitive?: boolean;
  abbreviation?: boolean;
  translations?: Record<string, string>;
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

function termView(row: TermRow, translations: Record<string, string>): TermView {
  return {
    termId: row.id,
    scope: row.project_id === null ? 'workspace' : 'project',
    lang: row.lang,
    text: row.text,
    description: row.description,
    partOfSpeech: row.part_of_speech as PartOfSpeech | null,
    forbidden: bool(row.forbidden),
    nonTranslatable: bool(row.non_translatable),
    caseSensitive: bool(row.case_sensitive),
    abbreviation: bool(row.abbreviation),
    translations,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** What an import matches an entry by: its text (case aside), its meaning and whether it is forbidden. */
export function identityOf(text: string, description: string | null | undefined, forbidden: boolean): string {
  const key = `${text.normalize('NFC').trim().toLowerCase()}\u0000${description ?? ''}\u0000${forbidden ? 1 : 0}`;
  return createHash('sha256').update(key).digest('hex');
}

const searchOf = (text: string, description: string | null, translations: Record<string, string>) =>
  [text, description ?? '', ...Object.values(translations)].join('\n').toLowerCase();

/** The terms `project` uses: its own, and its workspace's in its base language. */
export function visibleTerms(db: Db, project: ProjectRow, scope?: TermScope) {
  return db('terms').where((w) => {
    if (scope !== 'workspace') w.orWhere('project_id', project.id);
    if (scope !== 'project')
      w.orWhere((x) => {
        x.whereNull('project_id').where({ workspace_id: project.workspace_id, lang: project.base_lang });
      });
  });
}

/** Translations of the terms `ids`, as term id → (language → text), languages in order. */
export async function translationsOf(db: Db, ids: readonly string[]): Promise<Map<string, Record<string, string>>> {
  const out = new Map<string, Record<string, string>>();
  for (const id of ids) out.set(id, {});
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db('term_translations')
      .whereIn('term_id', ids.slice(i, i + 500))
      .orderBy(['term_id', 'lang']);
    for (const r of rows) out.get(r.term_id)![r.lang] = r.text;
  }
  return out;
}

/** A term `project` uses, or 404. */
async function readTerm(db: Db, project: ProjectRow, termId: string): Promise<TermRow> {
  const row = await visibleTerms(db, project).andWhere({ id: termId }).first();
  if (!row) throw notFound('No such term in this project or its workspace.');
  return row;
}

export async function termById(db: Db, project: ProjectRow, termId: string): Promise<TermView> {
  const row = await readTerm(db, project, termId);
  return termView(row, (await translationsOf(db, [row.id])).get(row.id)!);
}

/** LIKE with `!` as the escape character (server/domain/catalog/keyfilter.ts does the same). */
const likePattern = (q: string) => `%${q.replace(/[!%_]/g, (c) => `!${c}`)}%`;

interface TermFilter {
  q?: string;
  lang?: string;
  scope?: TermScope;
  offset?: number;
  limit?: number;
}

export async function listTerms(db: Db, project: ProjectRow, f: TermFilter) {
  const offset = f.offset ?? 0;
  const limit = f.limit ?? 50;
  const base = visibleTerms(db, project, f.scope);
  if (f.q) base.andWhereRaw("search LIKE ? ESCAPE '!'", [likePattern(f.q.toLowerCase())]);
  if (f.lang !== undefined) {
    const lang = normalizeLanguage(f.lang);
    base.whereExists((x) => {
      x.select(db.raw('1')).from('term_translations').whereRaw('term_translations.term_id = terms.id').where({ lang });
    });
  }
  const [{ n }] = await base.clone().count({ n: '*' });
  const rows = await base
    .orderBy([{ column: 'text' }, { column: 'id' }])
    .offset(offset)
    .limit(limit);
  const translations = await translationsOf(
    db,
    rows.map((r) => r.id),
  );
  return { terms: rows.map((r) => termView(r, translations.get(r.id)!)), total: Number(n), offset, limit };
}

/**
 * Translations as stored: codes normalized (`addLanguage`'s rule), none in the term's own language, each at most once,
 * and for a project's term only into the project's target languages.
 */
async function checkTranslations(
  db: Db,
  project: ProjectRow,
  scope: TermScope,
  given: Record<string, string>,
): Promise<Record<string, string>> {
  const targets = scope === 'project' ? new Set((await listLanguages(db, project.id)).map((l) => l.code)) : null;
  const out: Record<string, string> = {};
  for (const [code, text] of Object.entries(given)) {
    const lang = normalizeLanguage(code);
    if (lang === project.base_lang) throw invalidArgument(`translations: ${lang} is the term's own language.`);
    if (Object.hasOwn(out, lang)) throw invalidArgument(`translations: ${lang} is named twice.`);
    if (targets && !targets.has(lang))
      throw invalidArgument(
        `translations: ${lang} is not a target language of this project (a workspace term may have any language).`,
      );
    if (!text.trim()) throw invalidArgument(`translations: the ${lang} translation is empty.`);
    out[lang] = text;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The row of a new term of `project` (or of its workspace), with its translations already checked. */
export function newTermRow(project: ProjectRow, scope: TermScope, f: TermFields, now: number): TermRow {
  const translations = f.translations ?? {};
  const forbidden = f.forbidden ?? false;
  return {
    id: newId('term'),
    workspace_id: project.workspace_id,
    project_id: scope === 'project' ? project.id : null,
    lang: project.base_lang,
    text: f.text.trim(),
    description: f.description?.trim() || null,
    part_of_speech: f.partOfSpeech ?? null,
    forbidden,
    non_translatable: f.nonTranslatable ?? false,
    case_sensitive: f.caseSensitive ?? false,
    abbreviation: f.abbreviation ?? false,
    search: searchOf(f.text.trim(), f.description?.trim() || null, translations),
    identity: identityOf(f.text, f.description?.trim() || null, forbidden),
    created_at: now,
    updated_at: now,
  };
}

const translationRows = (termId: string, translations: Record<string, string>) =>
  Object.entries(translations).map(([lang, text]) => ({ term_id: termId, lang, text }));

/**
 * What a termbase write does in its own transaction beside the change, given the scope and the texts (old and new) it
 * touched: the re-check of the keys using them (server/domain/checks/terms.ts) is queued if and only if the write
 * commits. The caller passes it, since the checks sit above the termbase in the domain's order.
 */
export type TermWriteHook = (trx: Db, scope: TermScope, texts: string[]) => Promise<void>;

export async function createTerm(
  db: Db,
  project: ProjectRow,
  scope: TermScope,
  f: TermFields,
  onWrite?: TermWriteHook,
): Promise<TermView> {
  const translations = await checkTranslations(db, project, scope, f.translations ?? {});
  const row = newTermRow(project, scope, { ...f, translations }, Date.now());
  await db.transaction(async (trx) => {
    await trx('terms').insert(row);
    if (Object.keys(translations).length) await trx('term_translations').insert(translationRows(row.id, translations));
    await onWrite?.(trx, scope, [row.text]);
  });
  return termView(row, translations);
}

/** Writes `change` (the fields given) over a stored term, its translations replaced when given. */
export async function writeTerm(
  db: Db,
  row: TermRow,
  change: Partial<TermFields>,
  current: Record<string, string>,
  now: number,
): Promise<{ row: TermRow; translations: Record<string, string> }> {
  const next: TermRow = { ...row };
  if (change.text !== undefined) next.text = change.text.trim();
  if (change.description !== undefined) next.description = change.description?.trim() || null;
  if (change.partOfSpeech !== undefined) next.part_of_speech = change.partOfSpeech;
  if (change.forbidden !== undefined) next.forbidden = change.forbidden;
  if (change.nonTranslatable !== undefined) next.non_translatable = change.nonTranslatable;
  if (change.caseSensitive !== undefined) next.case_sensitive = change.caseSensitive;
  if (change.abbreviation !== undefined) next.abbreviation = change.abbreviation;
  const translations = change.translations ?? current;
  next.search = searchOf(next.text, next.description, translations);
  next.identity = identityOf(next.text, next.description, bool(next.forbidden));
  next.updated_at = now;
  const { id, ...columns } = next;
  await db('terms').where({ id }).update(columns);
  if (change.translations) {
    await db('term_translations').where({ term_id: id }).delete();
    if (Object.keys(translations).length) await db('term_translations').insert(translationRows(id, translations));
  }
  return { row: next, translations };
}

export async function updateTerm(
  db: Db,
  project: ProjectRow,
  termId: string,
  change: Partial<TermFields>,
  onWrite?: TermWriteHook,
): Promise<TermView> {
  const row = await readTerm(db, project, termId);
  const scope: TermScope = row.project_id === null ? 'workspace' : 'project';
  const checked =
    change.translations === undefined ? undefined : await checkTranslations(db, project, scope, change.translations);
  return db.transaction(async (trx) => {
    const current = (await translationsOf(trx, [row.id])).get(row.id)!;
    const out = await writeTerm(trx, row, { ...change, translations: checked }, current, Date.now());
    await onWrite?.(trx, scope, [row.text, out.row.text]);
    return termView(out.row, out.translations);
  });
}

export async function deleteTerm(db: Db, project: ProjectRow, termId: string, onWrite?: TermWriteHook): Promise<void> {
  const row = await readTerm(db, project, termId);
  await db.transaction(async (trx) => {
    await trx('term_translations').where({ term_id: row.id }).delete();
    await trx('terms').where({ id: row.id }).delete();
    await onWrite?.(trx, row.project_id === null ? 'workspace' : 'project', [row.text]);
  });
}

/** Every term `project` uses (or those of one scope), with translations, by text: exports and matching read them. */
export async function allTerms(db: Db, project: ProjectRow, scope?: TermScope): Promise<TermView[]> {
  const rows = await visibleTerms(db, project, scope).orderBy([{ column: 'text' }, { column: 'id' }]);
  const translations = await translationsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => termView(r, translations.get(r.id)!));
}
