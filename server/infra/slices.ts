// Large reads in slices. better-sqlite3 runs a statement synchronously: one SELECT of 50,000 rows holds the event
// loop for every tenant of the process for tens of milliseconds. Read by ascending id, a slice at a time, each
// slice a short statement with a turn for other work between them (bench/publish-stall.ts).
import type { Knex } from 'knex';

/**
 * Rows per statement. A language's cells are read through the (project_id, lang, key_id) index, each row a lookup
 * into the table: 5,000 of them took 39-45 ms at 20,000 keys x 40 languages, about the whole of the publish's
 * stall budget (50 ms); 1,000 take 4-7 ms, for about a tenth of a millisecond more per statement.
 */
const SLICE = 1_000;

/**
 * Every row `query` selects, read in slices of SLICE ordered by `column` (an indexed integer that only grows):
 * `query(after)` is the statement for the rows whose `column` is greater than `after`.
 */
export async function readInSlices<Row extends object>(
  column: string,
  query: (after: number) => Knex.QueryBuilder,
): Promise<Row[]> {
  const out: Row[] = [];
  for (let after = -1; ;) {
    const rows = (await query(after).andWhere(column, '>', after).orderBy(column).limit(SLICE)) as Row[];
    for (const r of rows) out.push(r);
    if (rows.length < SLICE) return out;
    after = Number((rows[rows.length - 1] as Record<string, unknown>)[column]);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
