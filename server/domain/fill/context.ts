// What the engine is told about each key beside its source (docs/guides/translation.md, "What the engine is told"):
// the comment the developers left in the synced catalog, the length limit, the termbase entries the source uses,
// and the keys its name puts beside it; and, once per batch, the project's and the language's style guide.
import { lengthLimit } from '../../../packages/core/src/checks/cell.js';
import type { Db } from '../../infra/db.js';
import type { Knex } from 'knex';
import { dialectOf, parseJson } from '../../infra/db.js';
import type { ItemTerm } from '../../infra/engines/types.js';
import type { ProjectRow } from '../../infra/tables.js';
import { fillInstructionsOf } from '../project/projects.js';
import { termsUsed } from '../terms/glossary.js';
import type { TermView } from '../terms/store.js';

/** A key as the fill reads it (keys table). */
interface FillKey {
  id: number;
  name: string;
  namespace: string;
  source: string;
  ctx: string | null;
  comment: string | null;
  meta: string | null;
}

/** What an item of the key carries besides its source, whatever the language. */
export interface KeyContext {
  comment: string | null;
  maxLength: number | null;
  terms: TermView[];
  related: Array<{ key: string; source: string }>;
}

/** Keys beside a key, at most; each source cut to RELATED_CHARS: context, not a second item to pay for in full. */
const RELATED_MAX = 5;
const RELATED_CHARS = 160;
/** Comments longer than this are cut: a catalog's comment may hold a whole paragraph of notes. */
const COMMENT_CHARS = 1_000;

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** A key's `maxLength` as a synced catalog's metadata may carry it, else null. */
export function metaMaxLength(meta: string | null): number | null {
  const m = parseJson<Record<string, unknown> | null>(meta, null);
  const n = m && typeof m === 'object' ? m.maxLength : undefined;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** Name prefixes whose siblings one statement reads: a compound SELECT of this many parts (SQLite allows 500). */
const PREFIXES_PER_QUERY = 100;

/**
 * The keys whose name is a prefix and one more segment (`settings.account.title` beside `settings.account.save`),
 * in the namespace, for every prefix of `groups` at once: one statement, a UNION ALL of one range of the unique index
 * (project_id, namespace, name) per prefix, each limited on its own (a flat group of thousands of keys reads 20
 * rows). `.` < name < `/` bounds the names that start with `prefix.` ('/' follows '.' in ASCII), so no LIKE pattern
 * has to be escaped. By group index.
 */
async function siblings(db: Db, projectId: string, groups: Array<{ namespace: string; prefix: string }>) {
  const out = new Map<number, Array<{ name: string; source: string }>>();
  for (let from = 0; from < groups.length; from += PREFIXES_PER_QUERY) {
    const parts = groups.slice(from, from + PREFIXES_PER_QUERY).map((g, i) =>
      db('keys')
        .where({ project_id: projectId, namespace: g.namespace })
        .andWhere('name', '>', `${g.prefix}.`)
        .andWhere('name', '<', `${g.prefix}/`)
        .andWhere('enabled', true)
        .orderBy('name')
        .limit(4 * RELATED_MAX)
        .select(db.raw('? as grp', [from + i]), 'name', 'source')
        .toSQL(),
    );
    // MySQL takes each part in parentheses (as derived tables MariaDB materialises each, several times slower);
    // SQLite takes no parentheses in a compound SELECT, but a part with its own LIMIT as a subquery.
    const mysql = dialectOf(db) === 'mysql';
    const sql = parts.map((q, i) => (mysql ? `(${q.sql})` : `SELECT * FROM (${q.sql}) AS g${i}`)).join(' UNION ALL ');
    const answer: unknown = await db.raw(
      sql,
      parts.flatMap((q) => q.bindings as Knex.Value[]),
    );
    // Knex hands back mysql2's [rows, fields], and SQLite's rows.
    const rows = (mysql ? (answer as [unknown])[0] : answer) as Array<{
      grp: number | string;
      name: string;
      source: string;
    }>;
    for (const r of rows) {
      const g = Number(r.grp);
      if (r.name.slice(groups[g].prefix.length + 1).includes('.')) continue;
      const list = out.get(g);
      if (list) list.push({ name: r.name, source: r.source });
      else out.set(g, [{ name: r.name, source: r.source }]);
    }
  }
  for (const list of out.values()) list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

/** Each key's context (by id); `related` reads every key's siblings in one statement (per 100 name prefixes). */
export async function keyContexts(db: Db, project: ProjectRow, keys: FillKey[]): Promise<Map<number, KeyContext>> {
  const out = new Map<number, KeyContext>();
  const used = await termsUsed(
    db,
    project,
    keys.map((k) => k.source),
  );
  const groups: Array<{ namespace: string; prefix: string }> = [];
  const groupOf = new Map<string, number>();
  const keyGroup = keys.map((k) => {
    const dot = k.name.lastIndexOf('.');
    if (dot <= 0) return -1;
    const prefix = k.name.slice(0, dot);
    const id = `${k.namespace}\0${prefix}`;
    let g = groupOf.get(id);
    if (g === undefined) {
      groupOf.set(id, (g = groups.length));
      groups.push({ namespace: k.namespace, prefix });
    }
    return g;
  });
  const byGroup = groups.length ? await siblings(db, project.id, groups) : new Map<number, never[]>();
  for (const [n, k] of keys.entries()) {
    const related: KeyContext['related'] = (byGroup.get(keyGroup[n]) ?? [])
      .filter((r) => r.name !== k.name)
      .slice(0, RELATED_MAX)
      .map((r) => ({ key: r.name, source: cut(r.source, RELATED_CHARS) }));
    out.set(Number(k.id), {
      comment: k.comment ? cut(k.comment, COMMENT_CHARS) : null,
      maxLength: lengthLimit(metaMaxLength(k.meta), k.comment, k.ctx),
      terms: used[n],
      related,
    });
  }
  return out;
}

/** A key's terms as an item into `lang` carries them: the required translation into that language, if any. */
export function itemTerms(terms: TermView[], lang: string): ItemTerm[] {
  return terms.map((t) => ({
    source: t.text,
    targets: t.translations[lang] === undefined ? [] : [t.translations[lang]],
    caseSensitive: t.caseSensitive,
    forbidden: t.forbidden,
    nonTranslatable: t.nonTranslatable,
    abbreviation: t.abbreviation,
    description: t.description,
  }));
}

/** The style guide for a batch into `lang`: the project's text, then the language's (or its base language's). */
export function instructionsFor(project: Pick<ProjectRow, 'fill_instructions'>, lang: string): string | undefined {
  const guide = fillInstructionsOf(project);
  if (!guide) return undefined;
  const own = guide.languages?.[lang] ?? guide.languages?.[lang.split('-')[0]];
  const parts = [guide.project, own ? `For ${lang}: ${own}` : undefined].filter((s): s is string => !!s);
  return parts.length ? parts.join('\n\n') : undefined;
}
