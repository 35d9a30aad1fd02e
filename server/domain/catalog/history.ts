// The history of every translation cell's value and status (migration 014 `translation_history`): who changed it
// (a dashboard user id, `ai`, `import`, `sync` or `admin`) and when. The dashboard's editor shows it with a diff of
// each value against the one before it, and reverts by saving an older value. Writers add rows in the transaction
// that changes the cell: internalPutTranslation (a person or the admin token), the bulk review states, the AI fill
// (fill.ts, one INSERT … SELECT per stored slice) and imported values (writeImported: a sync's file, POST /imports).
import type { Db } from '../../infra/db.js';
import { chunks, dialectOf } from '../../infra/db.js';
import { checkCells } from '../checks/store.js';

const HISTORY_COLUMNS = 'project_id, key_id, lang, value, status, origin, actor, created_at';

export interface HistoryRow {
  project_id: string;
  key_id: number;
  lang: string;
  value: string | null;
  status: string;
  origin: string | null;
  actor: string;
  created_at: number;
}

/** Who a dashboard or admin-token call acts as: the person's user id, else `admin`. */
export const actorOf = (actor: { userId: string } | undefined): string => actor?.userId ?? 'admin';

export async function recordHistory(trx: Db, rows: HistoryRow[]): Promise<void> {
  for (const part of chunks(rows)) await trx('translation_history').insert(part);
}

/**
 * History rows copied from the cells as they now are: `key_id IN keyIds` of `langs`, stored with `origin` at `now`
 * (the rows a bulk write just changed). One statement per slice of keys.
 */
export async function recordCellsAsStored(
  trx: Db,
  projectId: string,
  keyIds: number[],
  langs: string[],
  where: { origin?: string; updatedAt: number },
  actor: string,
): Promise<void> {
  for (const part of chunks(keyIds)) {
    const select = trx('translations')
      .where({ project_id: projectId, updated_at: where.updatedAt })
      .whereIn('key_id', part)
      .whereIn('lang', langs)
      .whereNotNull('value')
      .select(
        'project_id',
        'key_id',
        'lang',
        'value',
        'status',
        'origin',
        trx.raw('? AS actor', [actor]),
        trx.raw('? AS created_at', [where.updatedAt]),
      );
    if (where.origin) select.andWhere('origin', where.origin);
    if (dialectOf(trx) === 'mysql') {
      // Read, then inserted: on MySQL an INSERT ... SELECT locks the rows it reads and holds the table's AUTO-INC
      // lock while it reads them, and a transaction that holds a cell and inserts a history row of its own (an
      // editor's save, a push's pre-translation) then deadlocks with it.
      const rows = (await select) as unknown as HistoryRow[];
      for (const slice of chunks(rows)) await trx('translation_history').insert(slice);
      continue;
    }
    const q = select.toSQL().toNative();
    await trx.raw(`INSERT INTO translation_history (${HISTORY_COLUMNS}) ${q.sql}`, q.bindings);
  }
}

/**
 * Stores imported values (origin `import`, status `translated`) verbatim over whatever the cells held, and records
 * each in the history under `actor`: a sync's file (sync rule 3) and `POST /imports` write them alike. A value a
 * file brings is written for the source as it is now, so it is not outdated (outdated.ts), and a conflict it
 * settles is cleared. Their quality-check results are stored with them.
 */
export async function writeImported(
  trx: Db,
  projectId: string,
  values: Array<{ keyId: number; lang: string; value: string }>,
  actor: string,
  now: number,
): Promise<void> {
  const rows = values.map((v) => ({
    key_id: v.keyId,
    lang: v.lang,
    project_id: projectId,
    value: v.value,
    status: 'translated',
    origin: 'import',
    job_id: null,
    updated_at: now,
    conflict_value: null,
    outdated_at: null,
  }));
  for (const part of chunks(rows))
    await trx('translations')
      .insert(part)
      .onConflict(['key_id', 'lang'])
      .merge(['value', 'status', 'origin', 'job_id', 'updated_at', 'conflict_value', 'outdated_at']);
  await recordHistory(
    trx,
    rows.map((r) => ({
      project_id: projectId,
      key_id: r.key_id,
      lang: r.lang,
      value: r.value,
      status: r.status,
      origin: r.origin,
      actor,
      created_at: now,
    })),
  );
  // Their check results, as stored now (server/domain/checks/store.ts).
  await checkCells(trx, projectId, values, undefined, now);
}
