// Outdated translations (migration 026, docs/decisions/0019-outdated-translations.md): a cell whose key's source
// changed after its value was written. It keeps its value (and keeps being served) but counts as not done in
// completeness (completeness.ts, the publish's `require_complete`), until an edit, a review state, an imported
// value or a new fill clears it. Re-translating retires the value into the cell's history and turns the cell into a
// pending marker the fill queue claims (server/domain/fill/retranslate.ts).
import type { Db } from '../../infra/db.js';
import { chunks } from '../../infra/db.js';
import type { ProjectRow, TranslationRow } from '../../infra/tables.js';
import { recordHistory } from './history.js';
import { checkCells } from '../checks/store.js';

/** What a changed source does to its translations (the project setting `outdatedMode`, internalUpdateProject). */
type OutdatedMode = 'keep' | 'retranslate';

export const outdatedMode = (p: Pick<ProjectRow, 'outdated_mode'>): OutdatedMode =>
  p.outdated_mode === 'retranslate' ? 'retranslate' : 'keep';

/** The history status of a value taken out of its cell to be translated again (KeyDetail `history`). */
const RETIRED = 'outdated';

/**
 * Cells a `retranslate` project queues again as soon as their source changes: the engine's own values. A value a
 * person wrote, imported or signed off stays (marked outdated) until a person decides.
 */
export const retranslatesItself = (row: Pick<TranslationRow, 'status' | 'origin'>): boolean =>
  row.status === 'translated' && (row.origin === 'ai' || row.origin === 'memory');

/**
 * Marks every cell with a value of `keyIds` outdated: their source changed at `now`. A cell already outdated keeps
 * the instant of the first change (the source its value was made for is the one replaced then).
 */
export async function markOutdated(trx: Db, projectId: string, keyIds: number[], now: number): Promise<void> {
  for (const part of chunks(keyIds))
    await trx('translations')
      .where('project_id', projectId)
      .whereIn('key_id', part)
      .whereNot('status', 'pending')
      .whereNotNull('value')
      .whereNull('outdated_at')
      .update({ outdated_at: now });
}

/**
 * Takes the values of `cells` out to be translated again: each value is recorded in the cell's history (status
 * `outdated`, by `actor`), and the cell becomes a pending marker that no job holds yet (the caller queues it in the
 * same transaction). Cells without a value are left alone. Returns the cells retired.
 */
export async function retireForRetranslation(
  trx: Db,
  projectId: string,
  cells: Array<{ keyId: number; lang: string }>,
  now: number,
  actor: string,
): Promise<Array<{ keyId: number; lang: string }>> {
  const byLang = new Map<string, number[]>();
  for (const c of cells) {
    const ids = byLang.get(c.lang);
    if (ids) ids.push(c.keyId);
    else byLang.set(c.lang, [c.keyId]);
  }
  const retired: Array<{ keyId: number; lang: string }> = [];
  for (const [lang, ids] of byLang)
    for (const part of chunks(ids)) {
      const rows = await trx('translations')
        .where({ project_id: projectId, lang })
        .whereIn('key_id', part)
        .whereNot('status', 'pending')
        .whereNotNull('value')
        .select<Array<Pick<TranslationRow, 'key_id' | 'value' | 'origin'>>>('key_id', 'value', 'origin');
      if (!rows.length) continue;
      await recordHistory(
        trx,
        rows.map((r) => ({
          project_id: projectId,
          key_id: Number(r.key_id),
          lang,
          value: r.value,
          status: RETIRED,
          origin: r.origin,
          actor,
          created_at: now,
        })),
      );
      await trx('translations')
        .where({ project_id: projectId, lang })
        .whereIn(
          'key_id',
          rows.map((r) => Number(r.key_id)),
        )
        .update({
          value: null,
          status: 'pending',
          origin: null,
          job_id: null,
          fail_reason: null,
          fail_token: null,
          outdated_at: null,
          updated_at: now,
        });
      retired.push(...rows.map((r) => ({ keyId: Number(r.key_id), lang })));
    }
  // A pending marker has no value, so no check results.
  await checkCells(
    trx,
    projectId,
    retired.map((c) => ({ ...c, value: null })),
    undefined,
    now,
  );
  return retired;
}

/**
 * The source each outdated cell of a key was made for: the key's source replaced at or after the cell was marked
 * (key_history), by language. The editor shows it beside the current source.
 */
export async function outdatedSources(
  db: Db,
  keyId: number,
  marked: Array<{ lang: string; at: number }>,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!marked.length) return out;
  const history = await db('key_history')
    .where({ key_id: keyId })
    .orderBy('replaced_at')
    .orderBy('id')
    .select<Array<{ source: string; replaced_at: number | string }>>('source', 'replaced_at');
  for (const m of marked) {
    const h = history.find((r) => Number(r.replaced_at) >= m.at);
    if (h) out.set(m.lang, h.source);
  }
  return out;
}
