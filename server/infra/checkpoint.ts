// SQLite's checkpoints off the event loop. A checkpoint copies the pages of the write-ahead log into the database
// file and syncs both; run by the writer's commit (auto-checkpoint), it held the event loop 26-40 ms every 4,000
// pages (16 MB of WAL), the longest stalls of a large re-check (bench/checks-recheck.ts at 2,000,000 cells: the
// loop's longest delay 68-108 ms with them, 40 ms with no checkpoint at all). A thread of the process
// (checkpoint-worker.mjs) checkpoints every file that took a few MB of writes, a few times a second, so the
// writer's own auto-checkpoint (db.ts WAL_CHECKPOINT_PAGES, kept as the bound of the WAL) finds little to copy.
// The thread starts only when some file's WAL first passes WATCH_BYTES: a process that writes little never has it
// (docs/decisions/0036-background-work-below-the-event-loop.md).
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { BACKGROUND_NICE } from './threads.js';

/** WAL bytes from which a file is checkpointed by the thread (a thousand 4 KiB pages). */
const WATCH_BYTES = 4 * 1024 * 1024;
/** How often the main thread looks at a WAL's size until it passes WATCH_BYTES. */
const LOOK_MS = 1_000;
/** How often the thread checkpoints the files it watches. */
const CHECKPOINT_MS = 250;

let thread: Worker | null = null;

function checkpointThread(): Worker {
  if (!thread) {
    thread = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), {
      workerData: { nice: BACKGROUND_NICE, intervalMs: CHECKPOINT_MS },
    });
    // Never what keeps the process alive; a thread that died is started again for the next file.
    thread.unref();
    thread.on('error', () => (thread = null));
    thread.on('exit', () => (thread = null));
  }
  return thread;
}

/**
 * Hands `file`'s checkpoints to the thread once its WAL has grown past WATCH_BYTES, until `close` (the connection's
 * own close, which this wraps) is called.
 */
export function checkpointOffLoop(conn: { close(): void }, file: string): void {
  let watched = false;
  const look = setInterval(() => {
    let size = 0;
    try {
      size = statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    } catch {
      // Unreadable for now (its folder moved, a permission): looked at again in a second, never a crash.
    }
    if (size < WATCH_BYTES) return;
    clearInterval(look);
    watched = true;
    checkpointThread().postMessage({ watch: file });
  }, LOOK_MS).unref();
  const close = conn.close.bind(conn);
  conn.close = () => {
    clearInterval(look);
    if (watched) thread?.postMessage({ forget: file });
    close();
  };
}
