// Where the re-check's slices, and a large fill's values, are checked: on worker threads (CHECK_THREADS of them), so
// a project's re-check or fill never holds the event loop that answers every tenant; with 0 threads, on the event
// loop a few milliseconds at a time (store.ts inSlices).
import { Piscina } from 'piscina';
import { BACKGROUND_NICE } from '../../infra/threads.js';
import { rowsOfKey, type CheckRow } from './compute.js';
import { inSlices } from './store.js';
import type { SliceInput } from './tasks.js';

let pool: Piscina | null = null;

function poolOf(threads: number): Piscina {
  if (pool && pool.options.maxThreads === threads) return pool;
  void pool?.destroy();
  pool = new Piscina({
    filename: new URL('./worker.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: threads,
    // A re-check runs slices back to back; a thread idle for a while is let go.
    idleTimeout: 30_000,
    niceIncrement: BACKGROUND_NICE,
  });
  return pool;
}

/** The rows of one slice: on the threads, or inline in small steps when `threads` is 0. */
export async function checkSliceOn(threads: number, input: SliceInput): Promise<CheckRow[]> {
  if (threads > 0) return (await poolOf(threads).run(input)) as CheckRow[];
  const byKey = input.keys.map(() => [] as Array<{ lang: string; value: string }>);
  for (const [i, lang, value] of input.cells) byKey[i].push({ lang, value });
  const keys = input.keys.map((k, i) => ({ k, cells: byKey[i] }));
  return (await inSlices(keys, ({ k, cells }) => rowsOfKey(input.ctx, k, cells, input.withSource ?? true))).flat();
}
