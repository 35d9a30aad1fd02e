// The key editor's machine suggestion (spec/internal.yaml `internalSuggestTranslation`): one cell asked of the
// engine as a fill asks it (fill.ts translateOne), shown to the person and never stored. It is paid as a fill
// is: the pair's cost held first (refused as a push's hold is), charged when the engine gave a value that passes
// the gate, released otherwise, so a suggestion never costs more than its estimate and a failed one costs nothing.
import type { App } from '../../infra/app.js';
import { parseJson } from '../../infra/db.js';
import { EngineUnavailableError } from '../../infra/engines/types.js';
import { Refusal } from '../../infra/errors.js';
import type { KeyRow, ProjectRow } from '../../infra/tables.js';
import { charge, hold, pairCost, readCredit, release } from '../billing/credits.js';
import { translateOne } from './fill.js';

interface Suggestion {
  lang: string;
  estimatedCredits: number;
  chargedCredits: number;
  balance?: number;
  value?: string;
  score?: number;
  reason?: string;
  problem?: string;
}

export async function suggestTranslation(
  app: App,
  project: ProjectRow,
  key: KeyRow,
  lang: string,
  dryRun: boolean,
): Promise<Suggestion> {
  const { db } = app;
  const cost = pairCost(key.source, parseJson<Record<string, string> | null>(key.forms, null));
  if (dryRun) {
    const { available } = await readCredit(db, project.workspace_id);
    return { lang, estimatedCredits: cost, chargedCredits: 0, balance: available };
  }
  await db.transaction((trx) => hold(trx, project.workspace_id, cost));
  let answer: Awaited<ReturnType<typeof translateOne>>;
  try {
    answer = await translateOne(
      { app, engine: app.engine!, baseLang: project.base_lang, project },
      Number(key.id),
      lang,
    );
  } catch (err) {
    await db.transaction((trx) => release(trx, project.workspace_id, cost));
    if (err instanceof EngineUnavailableError)
      throw new Refusal('unavailable', `The engine is unavailable: ${err.message}. Nothing was charged.`);
    throw err;
  }
  if ('problem' in answer) {
    await db.transaction((trx) => release(trx, project.workspace_id, cost));
    return { lang, estimatedCredits: cost, chargedCredits: 0, problem: answer.problem };
  }
  const paid = await db.transaction((trx) => charge(trx, project.workspace_id, cost, cost));
  if (!paid) {
    // Credits were taken away while the engine answered: the value is not shown, and nothing is charged.
    await db.transaction((trx) => release(trx, project.workspace_id, cost));
    return { lang, estimatedCredits: cost, chargedCredits: 0, problem: 'the balance no longer covers it' };
  }
  return {
    lang,
    estimatedCredits: cost,
    chargedCredits: cost,
    value: answer.value,
    score: answer.score / 1000,
    reason: answer.reason,
  };
}
