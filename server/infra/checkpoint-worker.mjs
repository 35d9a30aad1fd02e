// The SQLite checkpoint thread (checkpoint.ts): a connection of its own to each database file the process writes
// a lot to, and a PASSIVE checkpoint of each every CHECKPOINT_MS. PASSIVE never waits for a lock and never blocks
// the writer or a reader; an error (a full disk, a file removed under it) is left to the next pass, or to the
// writer's own auto-checkpoint.
import os from 'node:os';
import { setInterval } from 'node:timers';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

os.setPriority(workerData.nice);

/** Per file: its connection, and how many of the process's connections to it are watched (they close apart). */
const open = new Map();

parentPort.on('message', ({ watch, forget }) => {
  if (watch) {
    const known = open.get(watch);
    if (known) known.users++;
    else {
      try {
        open.set(watch, { db: new Database(watch, { fileMustExist: true }), users: 1 });
      } catch {
        // Gone already: nothing to checkpoint.
      }
    }
  }
  const known = forget && open.get(forget);
  if (known && --known.users === 0) {
    open.delete(forget);
    try {
      known.db.close();
    } catch {
      // Closing checkpoints once more; a failure there loses nothing the WAL does not still hold.
    }
  }
});

setInterval(() => {
  for (const { db } of open.values()) {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Left to the next pass.
    }
  }
}, workerData.intervalMs);
