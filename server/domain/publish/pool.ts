// Where the publisher's CPU-heavy tasks (tasks.ts) run: on worker threads, so a large publish, restore or pull
// never holds the event loop that answers every other tenant's requests (a cold publish of 10,000 keys x
// 20 languages once stalled `GET /pricing` for 1.5 s). PUBLISH_THREADS=0 runs them inline, on the event loop.
import { Piscina } from 'piscina';
import { BACKGROUND_NICE } from '../../infra/threads.js';
import { TASKS, type TaskName } from './tasks.js';

type Input<T extends TaskName> = Parameters<(typeof TASKS)[T]>[0];
type Output<T extends TaskName> = ReturnType<(typeof TASKS)[T]>;

let pool: Piscina | null = null;

function poolOf(threads: number, keep = 0): Piscina {
  if (pool && pool.options.maxThreads === threads) return pool;
  void pool?.destroy();
  pool = new Piscina({
    filename: new URL('./worker.mjs', import.meta.url).href,
    minThreads: keep,
    maxThreads: threads,
    // A publish runs tasks back to back; a thread that waits a while for the next one saves its start-up.
    idleTimeout: 30_000,
    niceIncrement: BACKGROUND_NICE,
  });
  return pool;
}

/**
 * Where a task over a snapshot of `keys` keys runs: inline when one language of it is small enough not to hold the
 * event loop for long (PUBLISH_INLINE_KEYS: the default 2,000 keys gate and render in about 40 ms), sparing small
 * projects a thread's start; on the threads otherwise.
 */
export const threadsFor = (opts: { threads: number; inlineKeys: number }, keys: number) =>
  keys <= opts.inlineKeys ? 0 : opts.threads;

/** Runs a task on the publisher's threads (`threads` of them; 0: inline). */
export function runTask<T extends TaskName>(threads: number, task: T, input: Input<T>): Promise<Output<T>> {
  if (threads === 0) {
    try {
      return Promise.resolve((TASKS[task] as (i: Input<T>) => Output<T>)(input));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
  return poolOf(threads).run({ task, input }) as Promise<Output<T>>;
}

/**
 * Starts the threads now and keeps them for the life of the process. A thread's start loads the publisher's modules
 * through tsx's loader (about a second of CPU on this project's bench machine, most of it the loader thread's
 * round trips), which a lazily started pool charged to the first large publish after every idle half minute.
 * `npm start`, `npm run worker` and the bench's servers call it at boot; tests start threads on demand.
 */
export function startThreads(threads: number): void {
  if (threads > 0) poolOf(threads, threads);
}

/** How many tasks the threads have run in this process (what shows a publish went through them). */
export const threadTasksRun = () => pool?.completed ?? 0;
