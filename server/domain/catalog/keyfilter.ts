// The key list's filter (spec `KeyFilter`, internalListKeys' query): one SQL query over `keys` with EXISTS clauses
// on the key's cells (translations' primary key starts with key_id, so each is an index probe), shared by the list,
// its count and the bulk actions. A cell's status is read from its row: no row is `missing`, a pending marker with
// a failure reason is `failed` (a job's claim clears the reason), any other marker `pending`.
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { FormatId } from '../../../packages/core/src/catalog.js';
import { keysWithWarnings } from '../../../packages/core/src/delivery.js';
import { gateCell, gateImported } from '../../../packages/core/src/gates.js';
import { configuredFormats, listLanguages, markupPolicy } from '../project/projects.js';
import { normalizeLanguage } from '../project/languages.js';
import { contentRev } from '../project/revision.js';
import { chunks, type Db } from '../../infra/db.js';
import { invalidArgument, notFound } from '../../infra/errors.js';
import type { ProjectRow } from '../../infra/tables.js';
import { liveSnapshot } from './live.js';
import { aiScoreOf } from './cells.js';
import { valueIcuOk } from './file.js';
import type { CheckResult } from '../checks/compute.js';
import { storedChecks, whereChecked } from '../checks/read.js';

type CellStatus = 'missing' | 'pending' | 'failed' | 'translated' | 'reviewed' | 'approved';
export type Origin = 'ai' | 'memory' | 'import' | 'edit';

/** The list's status filter (spec `KeyStatusFilter`): a cell status, or `outdated` (migration 026, any status). */
export type StatusFilter = CellStatus | 'outdated';

export interface KeyFilter {
  q?: string;
  lang?: string;
  status?: StatusFilter;
  origin?: Origin;
  changedSince?: string;
  disabled?: boolean;
  captured?: boolean;
  conflicts?: boolean;
  refusals?: boolean;
  warnings?: boolean;
  /** The keys of one namespace (`''`: the default one). */
  namespace?: string;
  /** Keys with a stored result of this check (server/domain/checks/read.ts), on a cell or the source. */
  check?: string;
  /** Keys with a stored result of this severity. */
  severity?: 'error' | 'warning' | 'info';
  /** Keys with an AI value (still the fill's) scored below this, 0 to 1 (translations.ai_score, migration 030). */
  aiScoreBelow?: number;
  /** Only these keys, by token: the rows a person selected in the dashboard's grid. */
  tokens?: string[];
}

/** The project's live target languages, in code order. */
export async function targetLanguages(db: Db, p: ProjectRow): Promise<string[]> {
  return (await listLanguages(db, p.id))
    .map((l) => l.code)
    .filter((c) => c !== p.base_lang)
    .sort();
}

/** The filter's language, normalized and held to the project's targets. */
export function filterLanguage(lang: string | undefined, targets: string[]): string | undefined {
  if (lang === undefined) return undefined;
  const code = normalizeLanguage(lang);
  if (!targets.includes(code)) throw invalidArgument(`${code} is not a target language of this project.`);
  return code;
}

/** The status of a stored cell (a translations row), or `missing` when there is none. */
function cellStatus(row: { status: string; fail_reason?: string | null } | undefined): CellStatus {
  if (!row) return 'missing';
  if (row.status === 'pending') return row.fail_reason ? 'failed' : 'pending';
  return row.status as CellStatus;
}

/** SQL for `t` (a translations alias) having `status`. */
function statusClause(w: Knex.QueryBuilder, status: Exclude<StatusFilter, 'missing'>) {
  if (status === 'outdated') w.whereNotNull('t.outdated_at');
  else if (status === 'failed') w.where('t.status', 'pending').whereNotNull('t.fail_reason');
  else if (status === 'pending') w.where('t.status', 'pending').whereNull('t.fail_reason');
  else w.where('t.status', status);
}

/** LIKE with `!` as the escape character (one character in both dialects' string syntax). */
const likePattern = (q: string) => `%${q.replace(/[!%_]/g, (c) => `!${c}`)}%`;

/**
 * Key ids worked out from a project's whole content (every cell gated, or every language rendered), kept per
 * `key` until the project's content revision moves: paging through such a list, or repeating it, costs one read.
 * Least recently used entries go first (lru-cache), a few projects' worth.
 */
const idsByRevision = new LRUCache<string, { rev: number; ids: number[] }>({ max: 40 });

async function idsAtRevision(db: Db, p: ProjectRow, key: string, work: () => Promise<Iterable<number>>) {
  const rev = await contentRev(db, p.id);
  const hit = idsByRevision.get(key);
  if (hit && hit.rev === rev) return hit.ids;
  const ids = [...(await work())].sort((a, b) => a - b);
  idsByRevision.set(key, { rev, ids });
  return ids;
}

/** Keys with a cell the publish gates refuse. */
function refusedKeyIds(db: Db, p: ProjectRow, targets: string[]): Promise<number[]> {
  return idsAtRevision(db, p, `refusals|${p.id}|${targets.join(',')}`, async () => {
    const rows = await db('translations as t')
      .join('keys as k', 'k.id', 't.key_id')
      .where('t.project_id', p.id)
      .whereIn('t.lang', targets)
      .whereNot('t.status', 'pending')
      .whereNotNull('t.value')
      .select('t.key_id', 't.lang', 't.value', 't.origin', 'k.source');
    const ids = new Set<number>();
    const policy = markupPolicy(p);
    for (const r of rows as Array<{
      key_id: number;
      lang: string;
      value: string;
      origin: string | null;
      source: string;
    }>) {
      const id = Number(r.key_id);
      if (ids.has(id)) continue;
      const refused =
        r.origin === 'import'
          ? Object.keys(gateImported(r.source, r.value, valueIcuOk({ kind: 'text', text: r.value }), policy)).length > 0
          : Object.keys(gateCell(r.source, r.value, r.lang, policy)).length > 0;
      if (refused) ids.add(id);
    }
    return ids;
  });
}

/**
 * Keys with a cell some configured format writes in a documented fallback: the first use after a change renders
 * the languages (as a publish would).
 */
function warnedKeyIds(db: Db, p: ProjectRow, langs: string[]): Promise<number[]> {
  const formats = configuredFormats(p) as FormatId[];
  return idsAtRevision(db, p, `warnings|${p.id}|${langs.join(',')}|${formats.join(',')}`, async () => {
    const names = keysWithWarnings(await liveSnapshot(db, p.id), langs, formats);
    const ids: number[] = [];
    for (const slice of chunks([...names]))
      ids.push(...(await db('keys').where({ project_id: p.id }).whereIn('name', slice).pluck('id')).map(Number));
    return ids;
  });
}

/** `k.id` in (or, `inList` false, not in) `ids`: integers we read, written as a literal list (no parameter limit). */
function whereIdIn(q: Knex.QueryBuilder, ids: number[], inList: boolean) {
  const list = ids.map((id) => String(Math.trunc(id))).join(', ');
  if (ids.length) q.whereRaw(`k.id ${inList ? '' : 'NOT '}IN (${list})`);
  else if (inList) q.whereRaw('1 = 0');
}

/**
 * `keys as k` of the project matching `f` (no columns selected, no order). `targets`: the project's target
 * languages; `lang`: the filter's, normalized.
 */
export async function filteredKeys(db: Db, p: ProjectRow, f: KeyFilter, targets: string[]) {
  const lang = filterLanguage(f.lang, targets);
  const langs = lang ? [lang] : targets;
  const q = db('keys as k').where('k.project_id', p.id);
  if (f.disabled !== undefined) q.andWhere('k.enabled', !f.disabled);
  if (f.captured !== undefined) q.andWhere('k.captured', f.captured);
  if (f.namespace !== undefined) q.andWhere('k.namespace', f.namespace);
  if (f.tokens !== undefined) q.whereIn('k.token', f.tokens);
  const cell = (extra: (w: Knex.QueryBuilder) => void) =>
    db('translations as t')
      .whereRaw('t.key_id = k.id')
      .whereIn('t.lang', langs)
      .where((w) => {
        extra(w);
      })
      .select(db.raw('1'));
  if (f.q !== undefined) {
    const pattern = likePattern(f.q);
    q.andWhere((w) => {
      w.whereRaw("k.name LIKE ? ESCAPE '!'", [pattern])
        .orWhereRaw("k.source LIKE ? ESCAPE '!'", [pattern])
        .orWhereExists(
          cell((c) => {
            c.whereRaw("t.value LIKE ? ESCAPE '!'", [pattern]);
          }),
        );
    });
  }
  if (f.status === 'missing') {
    if (lang)
      q.whereNotExists(db('translations as t').whereRaw('t.key_id = k.id').where('t.lang', lang).select(db.raw('1')));
    else if (langs.length)
      q.whereRaw(
        '(SELECT COUNT(*) FROM translations t WHERE t.key_id = k.id AND t.lang IN (' +
          langs.map(() => '?').join(', ') +
          ')) < ?',
        [...langs, langs.length],
      );
    else q.whereRaw('1 = 0');
  } else if (f.status || f.origin) {
    q.whereExists(
      cell((c) => {
        if (f.status) statusClause(c, f.status as Exclude<StatusFilter, 'missing'>);
        if (f.origin) c.where('t.origin', f.origin);
      }),
    );
  }
  if (f.aiScoreBelow !== undefined) {
    const below = Math.round(f.aiScoreBelow * 1000);
    q.whereExists(
      cell((c) => {
        c.where('t.origin', 'ai').whereNot('t.status', 'pending').where('t.ai_score', '<', below);
      }),
    );
  }
  if (f.conflicts !== undefined) {
    const has = cell((c) => {
      c.whereNotNull('t.conflict_value');
    });
    if (f.conflicts) q.whereExists(has);
    else q.whereNotExists(has);
  }
  if (f.changedSince !== undefined) {
    const v = await db('versions').where({ project_id: p.id, id: f.changedSince }).first('snapshot_at');
    if (!v) throw notFound(`No version ${f.changedSince} in this project.`);
    const at = Number(v.snapshot_at);
    q.andWhere((w) => {
      w.where('k.source_updated_at', '>', at).orWhereExists(
        db('translations as t').whereRaw('t.key_id = k.id').where('t.updated_at', '>', at).select(db.raw('1')),
      );
    });
  }
  if (f.refusals !== undefined) whereIdIn(q, await refusedKeyIds(db, p, langs), f.refusals);
  if (f.warnings !== undefined) whereIdIn(q, await warnedKeyIds(db, p, langs), f.warnings);
  whereChecked(db, q, f, langs, p.base_lang);
  return { query: q, lang, langs };
}

interface ListedCell {
  lang: string;
  status: CellStatus;
  value: string | null;
  origin: Origin | null;
  failed: string | null;
  conflict: boolean;
  /** Set only when true: the spec's cell reads carry it only then. */
  outdated?: true;
  /** The stored check results of the value; absent when it passes every check. */
  checks?: CheckResult[];
  /** An AI value's score, 0 to 1, and its reason (cells.ts aiScoreOf). */
  aiScore?: number;
  aiReason?: string;
  /** The cell's version (its row's `updated_at`), the base of an edit; null for a cell with no row. */
  updatedAt: string | null;
}

/** Every target language's cell of each key of a page, in `targets` order: one query for the page. */
export async function pageCells(db: Db, keyIds: number[], targets: string[]): Promise<Map<number, ListedCell[]>> {
  const out = new Map<number, ListedCell[]>();
  if (!keyIds.length) return out;
  interface Row {
    key_id: number;
    lang: string;
    value: string | null;
    status: string;
    origin: Origin | null;
    fail_reason: string | null;
    conflict: number | string;
    outdated_at: number | string | null;
    ai_score: number | null;
    ai_reason: string | null;
    updated_at: number | string;
  }
  const rows = await db('translations')
    .whereIn('key_id', keyIds)
    .whereIn('lang', targets)
    .select<Row[]>(
      'key_id',
      'lang',
      'value',
      'status',
      'origin',
      'fail_reason',
      'outdated_at',
      'ai_score',
      'ai_reason',
      'updated_at',
      db.raw('CASE WHEN conflict_value IS NULL THEN 0 ELSE 1 END AS conflict'),
    );
  const byCell = new Map(rows.map((r) => [`${r.key_id}|${r.lang}`, r]));
  const checks = await storedChecks(db, keyIds, targets);
  for (const id of keyIds)
    out.set(
      id,
      targets.map((lang) => {
        const r = byCell.get(`${id}|${lang}`);
        const status = cellStatus(r);
        return {
          lang,
          status,
          value: r && r.status !== 'pending' ? r.value : null,
          origin: r && r.status !== 'pending' ? r.origin : null,
          failed: status === 'failed' ? r!.fail_reason : null,
          conflict: r ? Number(r.conflict) === 1 : false,
          ...(r && r.status !== 'pending' && r.outdated_at != null ? { outdated: true as const } : {}),
          ...(r ? aiScoreOf(r) : {}),
          ...(r && r.status !== 'pending' && checks.has(`${id}|${lang}`)
            ? { checks: checks.get(`${id}|${lang}`)! }
            : {}),
          updatedAt: r ? new Date(Number(r.updated_at)).toISOString() : null,
        };
      }),
    );
  return out;
}
