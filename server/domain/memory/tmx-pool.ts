// Where an imported TMX file is parsed: on a thread of its own, never on the event loop that answers every tenant's
// requests (a 50 MB file takes seconds to read, docs/decisions/0022-tmx.md "Figures"), as pushed content is
// (server/domain/content/parse-pool.ts, docs/decisions/0006-bounded-content-parsing.md). The pairs come back over a
// port in slices, each copied onto this thread in a turn of its own.
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { TmxPair, TmxParseInput, TmxParseOutput } from './tmx-parse.js';

let pool: Piscina | null = null;

function poolOf(): Piscina {
  pool ??= new Piscina({
    filename: new URL('./tmx-worker.mjs', import.meta.url).href,
    // Imports are rare: a thread is started for one and let go after a quiet minute.
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 60_000,
  });
  return pool;
}

/** Parses a TMX import on the parser thread: the outcome, and the pairs when the file was accepted. */
export async function parseTmxOffThread(
  input: Omit<TmxParseInput, 'port'>,
): Promise<{ out: TmxParseOutput; pairs: TmxPair[] }> {
  const { port1, port2 } = new MessageChannel();
  const pairs: TmxPair[] = [];
  let received = 0;
  let wanted = -1;
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
  port1.on('message', (slice: TmxPair[]) => {
    for (const p of slice) pairs.push(p);
    if (++received === wanted) done();
  });
  try {
    const out = (await poolOf().run(
      { ...input, port: port2 },
      // piscina's TransferList type no longer matches @types/node's postMessage overloads; a port is transferable.
      { transferList: [port2] as never },
    )) as TmxParseOutput;
    if (out.refused === null) {
      wanted = out.slices;
      if (received < wanted) await all;
    }
    return { out, pairs };
  } finally {
    port1.close();
  }
}
