// Reading stored check results (migration 028 `cell_checks`): beside the cells of the key list and the key read,
// as the key filter's `check` and `severity`, as the public list for CI (spec: `listCheckResults`), and as the
// severities the publish counts and, when the project asks, leaves out.
import type { Knex } from 'knex';
import type { Db } from '../../infra/db.js';
import { chunks, parseJson } from '../../infra/db.js';
import { invalidArgument } from '../../infra/errors.js';
import type { Severity } from '../../../packages/core/src/checks/index.js';
import { idsOf, type CheckResult } from './compute.js';
import { checkState, checking } from './settings.js';

/** The stored results of `keyIds` in `langs`, by `keyId|lang` (cells that pass every check are absent). */
export async function storedChecks(db: Db, keyIds: number[], langs: string[]): Promise<Map<string, CheckResult[]>> {
  const out = new Map<string, CheckResult[]>();
  if (!keyIds.length || !langs.length) return out;
  for (const part of chunks(keyIds))
    for (const r of await db('cell_checks')
      .whereIn('key_id', part)
      .whereIn('lang', langs)
      .select('key_id', 'lang', 'results'))
      out.set(`${r.key_id}|${r.lang}`, parseJson<CheckResult[]>(r.results, []));
  return out;
}

/** The severity column a filter reads. */
const COUNT_COLUMN: Record<Severity, string> = { error: 'c.errors', warning: 'c.warnings', info: 'c.infos' };

/** LIKE with `!` as the escape character (check ids hold no wildcard, but a filter is input). */
const like = (text: string) => text.replace(/[!%_]/g, (c) => `!${c}`);

/** `c` (a cell_checks alias) has a result of `check` and/or of `severity`. */
function resultClause(w: Knex.QueryBuilder, f: { check?: string; severity?: Severity }): void {
  if (f.check !== undefined && f.severity !== undefined)
    w.whereRaw("c.ids LIKE ? ESCAPE '!'", [`%|${like(f.check)}:${f.severity}|%`]);
  else if (f.check !== undefined) w.whereRaw("c.ids LIKE ? ESCAPE '!'", [`%|${like(f.check)}:%`]);
  else if (f.severity !== undefined) w.where(COUNT_COLUMN[f.severity], '>', 0);
}

/**
 * Keys (`k`, a keys alias) with a stored result of `check` and/or `severity` on a cell of `langs` or on their source
 * (`baseLang`): the key list's filter (spec `KeyFilter`). One index probe per key (the primary key starts with key_id).
 */
export function whereChecked(
  db: Db,
  q: Knex.QueryBuilder,
  f: { check?: string; severity?: Severity },
  langs: string[],
  baseLang: string,
): void {
  if (f.check === undefined && f.severity === undefined) return;
  q.whereExists(
    db('cell_checks as c')
      .whereRaw('c.key_id = k.id')
      .whereIn('c.lang', [...langs, baseLang])
      .where((w) => {
        resultClause(w, f);
      })
      .select(db.raw('1')),
  );
}

/**
 * Of the cells `(keyId, lang)` a bulk approval would move, those a check reports an error for, with those checks'
 * ids: what it leaves out and answers in `refused`.
 */
export async function errorCells(db: Db, keyIds: number[], langs: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const part of chunks(keyIds))
    for (const r of await db('cell_checks')
      .whereIn('key_id', part)
      .whereIn('lang', langs)
      .where('errors', '>', 0)
      .select('key_id', 'lang', 'ids'))
      out.set(`${r.key_id}|${r.lang}`, idsOf(r.ids, 'error'));
  return out;
}

/** Bits of a cell's severities, as the publish reads them (stream.ts). */
const MASK: Record<Severity, number> = { error: 1, warning: 2, info: 4 };

/** The severities each cell of one language holds (a bit per severity, MASK), by key id: what a publish counts. */
export async function severityMasks(db: Db, projectId: string, lang: string): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (let after = -1; ;) {
    const rows = await db('cell_checks')
      .where({ project_id: projectId, lang })
      .andWhere('key_id', '>', after)
      .orderBy('key_id')
      .limit(5_000)
      .select('key_id', 'errors', 'warnings', 'infos');
    for (const r of rows)
      out.set(
        Number(r.key_id),
        (r.errors > 0 ? MASK.error : 0) | (r.warnings > 0 ? MASK.warning : 0) | (r.infos > 0 ? MASK.info : 0),
      );
    if (rows.length < 5_000) return out;
    after = Number(rows[rows.length - 1].key_id);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * The live project's cells of one language, by the index of a key of a version's head (a live key of the same
 * namespace, name and source): a restore counts a copied value equal to the live one by the live one's results.
 */
export interface LiveCells {
  value: Array<string | null>;
  checks: Uint8Array;
}

/** For a version's keys (`head`), a reader of the live cells of each of its languages (LiveCells). */
export async function liveCellsOf(
  db: Db,
  projectId: string,
  head: { keys: ReadonlyArray<{ name: string; source: string; namespace?: string }> },
): Promise<(lang: string) => Promise<LiveCells>> {
  const live = new Map<string, { id: number; source: string }>();
  for (const k of await db('keys').where({ project_id: projectId }).select('id', 'name', 'namespace', 'source'))
    live.set(`${k.namespace ?? ''}\u0000${k.name}`, { id: Number(k.id), source: k.source });
  const indexOf = new Map<number, number>();
  head.keys.forEach((k, i) => {
    const l = live.get(`${k.namespace ?? ''}\u0000${k.name}`);
    if (l && l.source === k.source) indexOf.set(l.id, i);
  });
  return async (lang) => {
    const value = new Array<string | null>(head.keys.length).fill(null);
    const checks = new Uint8Array(head.keys.length);
    const masks = await severityMasks(db, projectId, lang);
    for (let after = -1; ;) {
      const rows = await db('translations')
        .where({ project_id: projectId, lang })
        .andWhere('key_id', '>', after)
        .whereNot('status', 'pending')
        .orderBy('key_id')
        .limit(1_000)
        .select('key_id', 'value');
      for (const r of rows) {
        const i = indexOf.get(Number(r.key_id));
        if (i === undefined) continue;
        value[i] = r.value;
        checks[i] = masks.get(Number(r.key_id)) ?? 0;
      }
      if (rows.length < 1_000) break;
      after = Number(rows[rows.length - 1].key_id);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return { value, checks };
  };
}

/** Whether the project leaves out of a publish the cells a check reports an error for (its settings). */
export async function blocksPublishOnErrors(db: Db, projectId: string): Promise<boolean> {
  return (await checkState(db, projectId)).settings.blockPublishOnErrors === true;
}

// ---------------------------------------------------------------------------------------------------------------
// The public list (spec: `listCheckResults`).

interface ListQuery {
  lang?: string;
  severity?: Severity;
  check?: string;
  cursor?: string;
  limit?: number;
}

/** Where a page starts: the cell (key id, language) and how many of its results the pages before showed. */
interface Cursor {
  k: number;
  l: string;
  n: number;
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify([c.k, c.l, c.n]), 'utf8').toString('base64url');

function decodeCursor(text: string): Cursor {
  try {
    const v = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(v) &&
      v.length === 3 &&
      Number.isSafeInteger(v[0]) &&
      (v[0] as number) >= 0 &&
      typeof v[1] === 'string' &&
      v[1].length <= 35 &&
      Number.isSafeInteger(v[2]) &&
      (v[2] as number) >= 0
    )
      return { k: v[0] as number, l: v[1], n: v[2] as number };
  } catch {
    // answered below
  }
  throw invalidArgument('cursor is not a cursor of this list; start again without it.');
}

/** Cells read per statement while a page fills. */
const READ_SLICE = 500;

interface CheckFailure extends CheckResult {
  key: string;
  namespace?: string;
  lang: string;
  text: string;
}

/**
 * One page of the project's results: of enabled, non-captured keys, in the languages `langs` (the target languages
 * and the base language, or the one asked for), in (key id, language) order, `limit` results at a time.
 */
export async function listResults(
  db: Db,
  project: { id: string; base_lang: string },
  langs: string[],
  q: ListQuery,
): Promise<{
  results: CheckFailure[];
  totals: Record<Severity, number>;
  nextCursor: string | null;
  checking: boolean;
}> {
  const limit = q.limit ?? 100;
  const start = q.cursor !== undefined ? decodeCursor(q.cursor) : null;
  const base = () =>
    db('cell_checks as c')
      .join('keys as k', 'k.id', 'c.key_id')
      .where('c.project_id', project.id)
      .where('k.enabled', true)
      .where('k.captured', false)
      .whereIn('c.lang', langs);
  const filtered = () =>
    base().where((w) => {
      resultClause(w, { check: q.check, severity: q.severity });
    });
  const results: CheckFailure[] = [];
  let next: Cursor | null = null;
  // Where the next read starts: at the cursor's cell (part of its results may be left), then after the last cell read.
  let from: { k: number; l: string; inclusive: boolean } | null = start ? { ...start, inclusive: true } : null;
  outer: for (;;) {
    const page = filtered()
      .leftJoin('translations as t', (j) => {
        j.on('t.key_id', '=', 'c.key_id').andOn('t.lang', '=', 'c.lang');
      })
      .orderBy('c.key_id')
      .orderBy('c.lang')
      .limit(READ_SLICE);
    if (from) {
      const f = from;
      page.where((w) => {
        w.where('c.key_id', '>', f.k).orWhere((o) => {
          o.where('c.key_id', f.k).andWhere('c.lang', f.inclusive ? '>=' : '>', f.l);
        });
      });
    }
    const rows = await page.select<
      Array<{
        key_id: number;
        lang: string;
        results: string;
        name: string;
        namespace: string | null;
        source: string;
        value: string | null;
      }>
    >('c.key_id', 'c.lang', 'c.results', 'k.name', 'k.namespace', 'k.source', 't.value');
    for (const r of rows) {
      const keyId = Number(r.key_id);
      const skip = start && keyId === start.k && r.lang === start.l ? start.n : 0;
      const all = parseJson<CheckResult[]>(r.results, []).filter(
        (x) =>
          (q.check === undefined || x.check === q.check) && (q.severity === undefined || x.severity === q.severity),
      );
      for (let i = skip; i < all.length; i++) {
        if (results.length === limit) {
          next = { k: keyId, l: r.lang, n: i };
          break outer;
        }
        const x = all[i];
        results.push({
          key: r.name,
          ...(r.namespace ? { namespace: r.namespace } : {}),
          lang: r.lang,
          ...x,
          text: x.field === 'key' ? r.name : x.field === 'source' ? r.source : (r.value ?? ''),
        });
      }
    }
    if (rows.length < READ_SLICE) break;
    const last = rows[rows.length - 1];
    from = { k: Number(last.key_id), l: last.lang, inclusive: false };
  }
  // Cells and sources with at least one result of each severity, under `lang` and `check` (not `severity`).
  const count = async (severity: Severity) => {
    const [row] = await base()
      .where((w) => {
        resultClause(w, { check: q.check, severity });
      })
      .count({ n: '*' });
    return Number(row.n);
  };
  const totals = { error: await count('error'), warning: await count('warning'), info: await count('info') };
  return {
    results,
    totals,
    nextCursor: next ? encodeCursor(next) : null,
    checking: checking(await checkState(db, project.id)),
  };
}
