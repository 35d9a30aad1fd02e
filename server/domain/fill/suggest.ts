// The key editor's machine suggestion (spec/internal.yaml `internalSuggestTranslation`): one cell asked of the
// engine as a fill asks it (fill.ts translateOne), shown to the person and never stored. It costs what a fill of
// the pair costs: refused up front as a push's hold would be, and held and charged in one step only when the engine
// gave a value that passes the gate, so a suggestion never costs more than its estimate, a failed one costs nothing,
// and no hold is left behind by a process that stops while the engine answers.
import type { App } from '../../infra/app.js';
import { parseJson } from '../../infra/db.js';
import { EngineUnavailableError } from '../../infra/engines/types.js';
import { Refusal } from '../../infra/errors.js';
import type { KeyRow, ProjectRow } from '../../infra/tables.js';
import { charge, hold, holdRefusal, pairCost, readCredit } from '../billing/credits.js';
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
  // Refused before the engine is asked, as a push's hold would be (402).
  const refusal = holdRefusal(await readCredit(db, project.workspace_id), cost);
  if (refusal) throw refusal;
  let answer: Awaited<ReturnType<typeof translateOne>>;
  try {
    answer = await translateOne(
      { app, engine: app.engine!, baseLang: project.base_lang, project },
      Number(key.id),
      lang,
    );
  } catch (err) {
    if (err instanceof EngineUnavailableError)
      throw new Refusal('unavailable', `The engine is unavailable: ${err.message}. Nothing was charged.`);
    throw err;
  }
  if ('problem' in answer) return { lang, estimatedCredits: cost, chargedCredits: 0, problem: answer.problem };
  // Held and charged in one transaction once there is something to pay for: nothing stays held if the process
  // stops while the engine answers, and the hold's conditions (the balance, the spending cap) still apply.
  const paid = await db
    .transaction(async (trx) => {
      await hold(trx, project.workspace_id, cost);
      // Credits taken away since the hold: the transaction rolls back, the hold with it.
      if (!(await charge(trx, project.workspace_id, cost, cost)))
        throw new Refusal('billing_contended', 'The balance changed under this request.');
      return true;
    })
    .catch((err: unknown) => {
      if (err instanceof Refusal) return false;
      throw err;
    });
  if (!paid) return { lang, estimatedCredits: cost, chargedCredits: 0, problem: 'the balance no longer covers it' };
  return {
    lang,
    estimatedCredits: cost,
    chargedCredits: cost,
    value: answer.value,
    score: answer.score / 1000,
    reason: answer.reason,
  };
}
