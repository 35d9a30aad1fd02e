// One language's run of one document: the `content.run` job (server/app/jobs.ts), started by run.ts. Units go to the
// engine with their inline markup and placeholders protected (inline.ts); an answer that does not restore to the
// source's shape is sent once more, and a unit that fails again is given up on (kept out of publishes until a run
// with `force` retries it). Everything the run made is written in one fenced transaction with its charge: the
// credits of the units translated, the rest of the hold released.
import { LRUCache } from 'lru-cache';
import type { App } from '../../infra/app.js';
import type { Db } from '../../infra/db.js';
import { EngineUnavailableError, type TranslationItem } from '../../infra/engines/types.js';
import { LeaseLost, type JobContext } from '../../infra/jobs.js';
import type { ContentDocRow, ContentUnitRow } from '../../infra/tables.js';
import { charge, release } from '../billing/credits.js';
import type { protectBlock, Protected } from './inline.js';
import { prescan } from './prescan.js';
import { qualityReport, seoReport, type UnitOutcome } from './reports.js';
import { readDoc, readUnits, touchDoc, unitsOf, type Unit } from './store.js';
import { unitsCost, unitsToTranslate, type RunPayload } from './run.js';

/** The format a unit's text is written in: blocks in the document's, title and fields as plain text. */
const formatOf = (doc: ContentDocRow, u: Unit) => (u.kind === 'block' ? doc.format : 'plaintext');

/**
 * A unit's protected form depends only on its format, type and text, not on the language: the runs of one
 * document into ten languages parse each block once, not ten times (bench "content run").
 */
const guards = new LRUCache<string, Protected>({ max: 20_000 });

function guardOf(doc: ContentDocRow, u: Unit, protect: typeof protectBlock): Protected {
  const format = formatOf(doc, u);
  const key = `${format}\n${u.type}\n${u.hash}`;
  let guard = guards.get(key);
  if (!guard) guards.set(key, (guard = protect(format, u.type, u.text)));
  return guard;
}

/** Sends `units` through the engine, in batches of its size; returns each unit's restored text or its error. */
async function translateUnits(
  app: App,
  doc: ContentDocRow,
  lang: string,
  units: Array<{ unit: Unit; guard: Protected }>,
): Promise<Map<string, { text?: string; error?: string }>> {
  const engine = app.engine!;
  const out = new Map<string, { text?: string; error?: string }>();
  for (let i = 0; i < units.length; i += engine.maxBatch) {
    const batch = units.slice(i, i + engine.maxBatch);
    const items: TranslationItem[] = batch.map(({ unit, guard }) => ({
      id: unit.id,
      key: `${doc.doc_id}/${unit.id}`,
      ctx: unit.kind === 'block' ? `${doc.format} ${unit.type}` : unit.kind,
      source: guard.message,
      sourceLang: doc.base_lang,
      targetLang: lang,
      // A document's base text is served as it is, so a unit may keep exactly the markup its source has.
      markup: { sourceShips: true },
    }));
    const outcomes = await engine.translate(items);
    for (const [k, o] of outcomes.entries()) {
      const { unit, guard } = batch[k];
      if (o.value === undefined) {
        out.set(unit.id, { error: o.error ?? 'no translation' });
        continue;
      }
      const restored = guard.restore(o.value);
      out.set(unit.id, 'text' in restored ? { text: restored.text } : { error: restored.error });
    }
  }
  return out;
}

/** Ends the run: releases its hold and frees the language, writing nothing else. */
async function abandon(db: Db, ctx: JobContext<RunPayload>, note: string | null): Promise<void> {
  const p = ctx.payload;
  await db.transaction(async (trx) => {
    await ctx.fence(trx);
    await release(trx, p.workspaceId, p.holdMc);
    await trx('content_langs')
      .where({ project_id: p.projectId, doc_id: p.docId, lang: p.lang, run_id: p.runId })
      .update({
        run_id: null,
        run_hold_mc: 0,
        updated_at: ctx.now,
        ...(note ? { report: JSON.stringify({ error: note }) } : {}),
      });
  });
}

export async function runContent(app: App, ctx: JobContext<RunPayload>): Promise<void> {
  const { db } = ctx;
  const p = ctx.payload;
  const doc = await readDoc(db, p.projectId, p.docId);
  const lang = await db('content_langs').where({ project_id: p.projectId, doc_id: p.docId, lang: p.lang }).first();
  // Deleted meanwhile, or this run is not the language's any more: nothing to write but the hold to give back.
  if (!doc || lang?.run_id !== p.runId) return abandon(db, ctx, null);
  if (!app.engine || doc.text == null) return abandon(db, ctx, 'no translation engine, or no text');
  const rows = (await readUnits(db, p.projectId, p.docId, p.lang)).get(p.lang) ?? new Map<string, ContentUnitRow>();
  const units = unitsToTranslate(unitsOf(doc), rows, p);
  // A unit is parsed here, on the event loop (inline.ts): one stored before the push's limits (prescan.ts) existed
  // and over them is given up on rather than parsed.
  const unparsable = new Map<string, string>();
  for (const u of units) {
    const why = prescan(formatOf(doc, u), u.text);
    if (why) unparsable.set(u.id, `the block cannot be parsed: ${why}`);
  }
  // The markup parsers load with the first run (revisions.ts says why).
  const { protectBlock } = await import('./inline.js');
  const todo = units
    .filter((u) => !unparsable.has(u.id))
    .map((unit) => ({ unit, guard: guardOf(doc, unit, protectBlock) }));
  let results: Map<string, { text?: string; error?: string }>;
  try {
    results = await translateUnits(app, doc, p.lang, todo);
    // One more try for the answers that broke markup or placeholders.
    const again = todo.filter(({ unit }) => results.get(unit.id)?.error !== undefined);
    if (again.length)
      for (const [id, r] of await translateUnits(app, doc, p.lang, again)) if (r.text !== undefined) results.set(id, r);
  } catch (err) {
    if (err instanceof LeaseLost) throw err;
    const permanent = err instanceof EngineUnavailableError && !err.retryable;
    // The engine as a whole failed: not the units' fault, so none is given up on. The queue tries the job again;
    // its last attempt (or a failure waiting will not fix) ends the run and gives its hold back.
    if (ctx.lastAttempt || permanent) await abandon(db, ctx, `the engine failed: ${(err as Error).message}`);
    if (permanent) return;
    throw err;
  }
  const outcomes: UnitOutcome[] = units.map((unit) =>
    unparsable.has(unit.id) ? { unit, error: unparsable.get(unit.id) } : { unit, ...results.get(unit.id) },
  );
  const translated = outcomes.filter((o) => o.text !== undefined);
  const chargeMc = unitsCost(translated.map((o) => o.unit));
  const now = Date.now();
  const report = { quality: qualityReport(outcomes), seo: seoReport(doc, rows, outcomes) };
  const paid = await db.transaction(async (trx) => {
    await ctx.fence(trx);
    // The balance went below the charge meanwhile (credits removed): nothing is written, the hold goes back.
    if (!(await charge(trx, p.workspaceId, chargeMc, p.holdMc, now))) return false;
    const key = { project_id: p.projectId, doc_id: p.docId, lang: p.lang };
    for (const o of outcomes) {
      const row =
        o.text !== undefined
          ? {
              ...key,
              unit_id: o.unit.id,
              source_hash: o.unit.hash,
              text: o.text,
              source_text: o.unit.text,
              gave_up: false,
              updated_at: now,
            }
          : {
              ...key,
              unit_id: o.unit.id,
              source_hash: o.unit.hash,
              // The text kept was made from an earlier source, and so is its recorded source.
              text: rows.get(o.unit.id)?.text ?? null,
              source_text: rows.get(o.unit.id)?.source_text ?? null,
              gave_up: true,
              updated_at: now,
            };
      await trx('content_units').insert(row).onConflict(['project_id', 'doc_id', 'lang', 'unit_id']).merge();
    }
    await trx('content_langs')
      .where({ ...key, run_id: p.runId })
      .update({
        run_id: null,
        run_hold_mc: 0,
        report: JSON.stringify(report),
        updated_at: now,
        // New text has not been reviewed: the language is back to `translated`.
        ...(translated.length ? { stage: 'translated' } : {}),
      });
    await touchDoc(trx, p.projectId, p.docId, now);
    return true;
  });
  if (!paid) await abandon(db, ctx, 'the balance no longer covered the run');
}
