// Shared pieces of the fill scenarios (bench/fill.ts, fill-stall.ts, scaleout.ts): is the fill done?
import { openDb } from '../../server/infra/db.js';

/** Translated cells and fill jobs not done in the database at `databaseUrl`. */
export async function fillState(databaseUrl: string): Promise<{ translated: number; open: number }> {
  const db = openDb(databaseUrl);
  try {
    const translated = Number(
      (await db('translations').where({ status: 'translated', origin: 'ai' }).count({ n: '*' }))[0].n,
    );
    const open = Number((await db('fill_jobs').whereNot({ status: 'done' }).count({ n: '*' }))[0].n);
    return { translated, open };
  } finally {
    await db.destroy();
  }
}

/** Every pair translated, every job done: a figure counts a finished fill only. */
export async function checkFilled(databaseUrl: string, pairs: number): Promise<void> {
  const { translated, open } = await fillState(databaseUrl);
  if (translated !== pairs || open)
    throw new Error(`fill incomplete: ${translated}/${pairs} translated, ${open} jobs open`);
}
