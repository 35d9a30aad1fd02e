// Where pushed texts are parsed: on a thread of their own, never on the event loop that answers every tenant's
// requests, and under a deadline. Markdown costs tens of microseconds a character on dense markup (a 200,000
// character document takes seconds), and more than linearly on hostile shapes the pre-scan (prescan.ts) may not
// know; the deadline counts from the moment the thread starts the text, so a queue behind another push or a
// thread's start-up (tsx's loader, about a second) is not charged to it. A parse past its deadline stops its
// thread (piscina terminates a worker whose running task is aborted) and the push is refused.
import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ParseInput, ParseOutput } from './parse.js';

let pool: Piscina | null = null;

function poolOf(): Piscina {
  pool ??= new Piscina({
    filename: new URL('./parse-worker.mjs', import.meta.url).href,
    // One thread kept once started (a push after a quiet minute pays no start-up); more under load, leaving a
    // core to the event loop.
    minThreads: 1,
    maxThreads: Math.max(1, availableParallelism() - 1),
    idleTimeout: 60_000,
  });
  return pool;
}

/** Parses `input` on a parser thread; a parse that runs longer than `deadlineMs` is refused. */
export async function parseOffThread(input: ParseInput, deadlineMs: number): Promise<ParseOutput> {
  const abort = new AbortController();
  const { port1, port2 } = new MessageChannel();
  let timer: NodeJS.Timeout | undefined;
  port1.once('message', () => {
    timer = setTimeout(() => abort.abort(), deadlineMs);
  });
  try {
    return (await poolOf().run(
      { ...input, started: port2 },
      // piscina's TransferList type no longer matches @types/node's postMessage overloads; a port is transferable.
      { transferList: [port2] as never, signal: abort.signal },
    )) as ParseOutput;
  } catch (err) {
    if (!abort.signal.aborted) throw err;
    return {
      format: input.format ?? 'plaintext',
      refused: `the text took longer than ${deadlineMs / 1000} s to parse`,
    };
  } finally {
    clearTimeout(timer);
    port1.close();
  }
}
