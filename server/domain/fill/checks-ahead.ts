// The quality checks of a large fill's values, computed before the transactions that store them, on the check
// threads (server/domain/checks/pool.ts): checking is most of a fill's CPU (about 60 µs a value against 140 µs for
// everything else), and on the event loop it left a second core idle. The writes use these results where nothing
// they depend on changed meanwhile (server/domain/checks/store.ts AheadChecks); a small fill checks inline, as every
// other writer does, and so never starts a thread.
import type { App } from '../../infra/app.js';
import type { KeyInput } from '../checks/compute.js';
import { checkContext } from '../checks/context.js';
import { checkSliceOn } from '../checks/pool.js';
import type { AheadChecks } from '../checks/store.js';

/** Pending pairs of a read from which its values are checked ahead, on the threads. */
export const AHEAD_MIN_PAIRS = 1_000;

/** A value to store: its key, language and text. */
export interface AheadValue {
  keyId: number;
  lang: string;
  value: string;
}

/**
 * Starts checking each write's values on the check threads, one write after another: one thread checks while the
 * event loop writes, so the loop keeps a core of its own for the writes and for other requests (with every thread
 * busy at once, the fill took longer and other requests waited more: bench/fill-stall.ts). One promise per write,
 * undefined where the check threads failed (the write then checks inline). None when the check threads are off.
 */
export async function checkAhead(
  app: App,
  projectId: string,
  keys: ReadonlyMap<number, KeyInput>,
  writes: AheadValue[][],
): Promise<Array<Promise<AheadChecks | undefined>> | undefined> {
  const threads = app.config.checkThreads;
  if (threads <= 0) return undefined;
  const ctx = await checkContext(app.db, projectId);
  let previous: Promise<unknown> = Promise.resolve();
  return writes.map((values) => {
    const used = new Map<number, KeyInput>();
    const index = new Map<number, number>();
    const cells: Array<[number, string, string]> = [];
    for (const v of values) {
      const key = keys.get(v.keyId);
      if (!key || v.lang === ctx.baseLang) continue;
      if (!index.has(v.keyId)) {
        index.set(v.keyId, index.size);
        used.set(v.keyId, key);
      }
      cells.push([index.get(v.keyId)!, v.lang, v.value]);
    }
    const input = { ctx, keys: [...used.values()], cells, withSource: false };
    const checked = previous.then(() => checkSliceOn(threads, input));
    previous = checked.catch(() => undefined);
    return checked.then(
      (found) => {
        const byCell = new Map(found.map((r) => [`${r.key_id}|${r.lang}`, r]));
        const rows: AheadChecks['rows'] = new Map();
        for (const v of values)
          if (used.has(v.keyId))
            rows.set(`${v.keyId}|${v.lang}`, { value: v.value, row: byCell.get(`${v.keyId}|${v.lang}`) ?? null });
        return { rev: ctx.rev, termsStamp: ctx.termsStamp, keys: used, rows };
      },
      (err: unknown) => {
        app.log.warn({ err, projectId }, 'checking fill values on the check threads failed; they are checked inline');
        return undefined;
      },
    );
  });
}
