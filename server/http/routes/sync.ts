// POST /sync (spec: `syncCatalog`, `SyncRequest`): a whole catalog file in, as one transaction. The file is the project's whole
// catalog: keys it lacks are disabled, keys it carries again are re-enabled; sources and imported translations
// are applied where they changed; values the project produced or a person signed off are kept (or overwritten
// with onConflict: file) and reported; pairs with no value anywhere are queued for the AI fill.
import { REGISTRY } from '../../../packages/core/src/formats/index.js';
import { capList, gateImported, rejectionLabel } from '../../../packages/core/src/gates.js';
import { contentChanged } from '../../domain/project/revision.js';
import { markupPolicy } from '../../domain/project/projects.js';
import type { ProjectRow } from '../../infra/tables.js';
import type { Approval } from '../../infra/approval.js';
import type { Db } from '../../infra/db.js';
import { chunks, isUniqueViolation, lockProject, retryContended } from '../../infra/db.js';
import { parseInstant } from '../../infra/instant.js';
import type { Handler } from '../pipeline.js';
import { withRequestRecord, type RequestScope } from '../../infra/requests.js';
import { holdRefusal, keyLimitRefusal, readCredit } from '../../domain/billing/credits.js';
import { enqueueFill, insertMarkers } from '../../domain/fill/queue.js';
import { writeImported } from '../../domain/catalog/history.js';
import { markOutdated, retireForRetranslation } from '../../domain/catalog/outdated.js';
import { previewBatch } from '../../domain/operations/previews.js';
import { readSyncFile } from '../../domain/catalog/file.js';
import { fillPairs, planSync, type SyncPlan } from '../../domain/sync/plan.js';
import { DEFAULT_NAMESPACE } from '../../domain/catalog/keys.js';
import type { JobQueue } from '../../infra/jobs.js';
import { fillFromMemory, preTranslations } from '../../domain/memory/pretranslate.js';
import { rememberCells } from '../../domain/memory/entries.js';
import type { Match } from '../../domain/memory/lookup.js';
import { checkContext } from '../../domain/checks/context.js';
import { checkKeys } from '../../domain/checks/store.js';
import { sourceWarnings } from '../../domain/checks/warnings.js';

const MAX_CONFLICT_ROWS = 50;
const MAX_DISABLED_NAMES = 50;

/**
 * The file's cells whose markup the publish gates will refuse as unsafe (packages/core/src/gates.ts `gateImported`, the rule
 * the publish applies to imported values; the base language's source against itself).
 */
function unsafeCells(plan: SyncPlan, project: ProjectRow): string[] {
  const policy = markupPolicy(project);
  const base = project.base_lang;
  const out: string[] = [];
  for (const ep of plan.entries) {
    const source = ep.source.icu;
    if (gateImported(source, source, true, policy).markup) out.push(rejectionLabel(ep.name, base));
    for (const [lang, cell] of ep.cells)
      if (gateImported(source, cell.icu, true, policy).markup) out.push(rejectionLabel(ep.name, lang));
  }
  return out;
}

function result(
  plan: SyncPlan,
  project: ProjectRow,
  extra: { estimatedCredits: number; balance: number; trackingToken: string | null },
  namespace: string | undefined,
) {
  const unsafe = unsafeCells(plan, project);
  return {
    ...plan.counts,
    disabledKeys: plan.orphanNames.slice(0, MAX_DISABLED_NAMES),
    ...extra,
    conflicts: plan.conflicts.slice(0, MAX_CONFLICT_ROWS),
    conflictsTotal: plan.conflicts.length,
    diagnostics: plan.diagnostics,
    ...(unsafe.length ? { markupUnsafe: capList(unsafe), markupUnsafeTotal: unsafe.length } : {}),
    ...(namespace ? { adopted: plan.adopted } : {}),
  };
}

/** The checks' errors and warnings on the file's sources and key names (spec `SourceWarning`). */
async function warningsOf(db: Db, project: ProjectRow, plan: SyncPlan) {
  return sourceWarnings(
    await checkContext(db, project.id),
    plan.entries.map((e) => ({ key: e.name, source: e.source.icu, comment: e.comment })),
  );
}

/** The plan without the AI fill of `fillExcept`'s languages (`SyncRequest.fillExcept`): they wait for an import. */
function withoutFill(plan: SyncPlan, fillExcept: string[] | undefined): SyncPlan {
  if (!fillExcept?.length) return plan;
  const except = new Set(fillExcept.map((l) => l.toLowerCase().replace(/_/g, '-')));
  return { ...plan, fillLangs: plan.fillLangs.filter((l) => !except.has(l)) };
}

/**
 * The pairs the fill would take that the memory pre-translates (server/domain/memory/pretranslate.ts), by
 * `name|lang`: filled at no charge, neither queued nor estimated.
 */
async function memoryHits(db: Db, plan: SyncPlan, project: ProjectRow): Promise<Map<string, Match>> {
  const all = fillPairs(plan, project, () => 0).pairs;
  const hits = await preTranslations(
    db,
    project,
    all.map((q) => ({ source: q.source, ctx: null, key: q.entry.name, lang: q.lang })),
  );
  return new Map([...hits].map(([n, m]) => [`${all[n].entry.name}|${all[n].lang}`, m]));
}

export const syncCatalog: Handler<'syncCatalog'> = async (ctx) => {
  const { db } = ctx.app;
  const project = ctx.project;
  const read = () => {
    const file = readSyncFile(ctx.body, project.base_lang);
    const opts = {
      onConflict: ctx.body.onConflict ?? 'server',
      pulledAt: ctx.body.pulledAt ? parseInstant(ctx.body.pulledAt, 'pulledAt') : null,
      baseOnly: !REGISTRY[file.format].multiLanguage,
      namespace: ctx.body.namespace,
    };
    return { ...file, opts };
  };
  const canFill = ctx.app.engine !== null;

  if (ctx.dryRun) {
    const { catalog, opts } = read();
    const plan = withoutFill(await planSync(db, project, catalog, opts), ctx.body.fillExcept);
    const fill = canFill
      ? fillPairs(plan, project, (e) => e.key?.id ?? null, await memoryHits(db, plan, project))
      : { planned: 0, estimate: 0, perLang: new Map<string, number>() };
    for (const d of plan.diagnostics) if (d.code === 'LANG_NOT_IN_FILE') d.plannedPairs = fill.perLang.get(d.lang) ?? 0;
    const credit = await readCredit(db, project.workspace_id);
    const keyRefusal = await keyLimitRefusal(db, project.workspace_id, plan.counts.created);
    const sha = await previewBatch(db, ctx.app.log, project.id, ctx.body, {
      sources: plan.entries.map((e) => e.source.icu),
      estimateMc: fill.estimate,
    });
    return {
      body: {
        ...result(
          plan,
          project,
          { estimatedCredits: fill.estimate, balance: credit.available, trackingToken: null },
          opts.namespace,
        ),
        accepted: !holdRefusal(credit, fill.estimate) && !keyRefusal,
        batchSha256: sha,
        ...(await warningsOf(db, project, plan)),
      },
    };
  }

  // The request record comes first: a refused file is recorded under the requestId too.
  return withRequestRecord(
    db,
    { keyId: ctx.principal!.keyId, projectId: project.id, body: ctx.body, approval: ctx.approval },
    'sync',
    async (scope) => {
      const { format, catalog, opts } = read();
      // Whole-catalog syncs of a project run one at a time (the file is the whole catalog: the last one wins whole,
      // as in any serial order); a deadlock with a push, or a key a push inserted first, is another try.
      return retryContended(
        () =>
          db.transaction(async (trx) => {
            await lockProject(trx, project.id, 'sync');
            return apply(trx, ctx.app.jobs, project, format, catalog, opts, {
              canFill,
              fillExcept: ctx.body.fillExcept,
              approval: ctx.approval,
              scope,
              bySync: ctx.body.fileName || format,
            });
          }),
        { retryOn: isUniqueViolation },
      );
    },
  );
};

async function apply(
  trx: Db,
  jobs: JobQueue,
  project: ProjectRow,
  format: string,
  catalog: Parameters<typeof planSync>[2],
  opts: Parameters<typeof planSync>[3],
  run: { canFill: boolean; fillExcept?: string[]; approval: Approval; scope: RequestScope; bySync: string },
) {
  const now = Date.now();
  const namespace = opts.namespace ?? DEFAULT_NAMESPACE;
  const plan = withoutFill(await planSync(trx, project, catalog, opts), run.fillExcept);
  const refusal = await keyLimitRefusal(trx, project.workspace_id, plan.counts.created);
  if (refusal) throw refusal;
  const memory = run.canFill ? await memoryHits(trx, plan, project) : new Map<string, Match>();
  if (run.approval.guardsSpending && run.canFill)
    run.approval.spend(fillPairs(plan, project, (e) => e.key?.id ?? null, memory).estimate);

  const ids = new Map<string, number>();
  for (const ep of plan.entries) if (ep.key) ids.set(ep.name, ep.key.id);
  const json = (v: unknown) => (v == null ? null : JSON.stringify(v));

  const creates = plan.entries.filter((e) => e.action === 'create');
  for (const part of chunks(creates)) {
    await trx('keys').insert(
      part.map((e) => ({
        project_id: project.id,
        ...(namespace === DEFAULT_NAMESPACE ? {} : { namespace }),
        name: e.name,
        token: e.token,
        source: e.source.icu,
        forms: json(e.source.forms),
        ctx: null,
        enabled: true,
        source_verified: false,
        captured: false,
        created_by: 'sync',
        source_updated_at: now,
        created_at: now,
        updated_at: now,
        file_key: e.fileKey,
        comment: e.comment,
        meta: json(e.meta),
      })),
    );
  }
  for (const part of chunks(creates)) {
    for (const r of await trx('keys')
      .where({ project_id: project.id, namespace })
      .whereIn(
        'name',
        part.map((e) => e.name),
      )
      .select('id', 'name'))
      ids.set(r.name, Number(r.id));
  }
  // A sync of an unchanged file writes nothing, and leaves the prepared publish standing.
  let changed = creates.length > 0 || plan.orphans.length > 0 || plan.writes.length > 0;
  const history: Array<Record<string, unknown>> = [];
  for (const e of plan.entries) {
    if (!e.key) continue;
    const row: Record<string, unknown> = {};
    if (e.action === 'update') {
      history.push({
        key_id: e.key.id,
        project_id: project.id,
        token: e.key.token,
        source: e.key.source,
        forms: e.key.forms,
        ctx: null,
        replaced_at: now,
      });
      Object.assign(row, { token: e.token, source: e.source.icu, forms: json(e.source.forms), source_updated_at: now });
    }
    if (e.reenable) Object.assign(row, { enabled: true, sync_disabled_at: null, sync_disabled_by: null });
    if (e.adopt) Object.assign(row, { namespace, token: e.token });
    if (e.key.fileKey !== e.fileKey) row.file_key = e.fileKey;
    if (e.key.comment !== e.comment) row.comment = e.comment;
    if (e.key.meta !== json(e.meta)) row.meta = json(e.meta);
    if (!Object.keys(row).length) continue;
    await trx('keys')
      .where({ id: e.key.id })
      .update({ ...row, updated_at: now });
    changed = true;
  }
  for (const part of chunks(history)) await trx('key_history').insert(part);
  // The translations of a changed source were made for the old one: outdated (the file's own values for the new
  // source, written below, are current again).
  await markOutdated(
    trx,
    project.id,
    plan.entries.filter((e) => e.action === 'update' && e.key).map((e) => e.key!.id),
    now,
  );
  // Keys created, or whose source or comment (a `[CHAR LIMIT]`) changed: their check results, values included.
  await checkKeys(
    trx,
    project.id,
    plan.entries
      .filter((e) => e.action === 'create' || (e.key && (e.action === 'update' || e.key.comment !== e.comment)))
      .map((e) => ids.get(e.name))
      .filter((id): id is number => id !== undefined),
    now,
  );
  // Recorded on the key, so the overview can say which keys a sync switched off, when, and how to bring them back.
  for (const part of chunks(plan.orphans))
    await trx('keys')
      .whereIn('id', part)
      .update({ enabled: false, updated_at: now, sync_disabled_at: now, sync_disabled_by: run.bySync });

  // Imported translations, stored verbatim: never re-translated or charged. The plan already decided which
  // stored values give way, so one bulk upsert writes them all.
  const imported = plan.writes.map((w) => ({ keyId: ids.get(w.entry.name)!, lang: w.lang, value: w.cell.icu }));
  await writeImported(trx, project.id, imported, 'sync', now);
  await rememberCells(trx, project, imported);
  // A translation the sync kept over the file's: the file's value waits on the cell for a person (key list filter).
  for (const c of plan.conflicts)
    if (c.kind === 'translation' && c.resolution === 'kept' && ids.has(c.key))
      await trx('translations')
        .where({ key_id: ids.get(c.key)!, lang: c.lang })
        .update({ conflict_value: c.fileValue ?? null });

  const meta = JSON.stringify({
    ...(catalog.meta ?? {}),
    sourceLanguage: catalog.sourceLanguage,
    languageSpellings: plan.languageSpellings,
  });
  const stored = await trx('project_catalogs').where({ project_id: project.id, format, namespace }).first('meta');
  if (stored?.meta !== meta) {
    await trx('project_catalogs')
      .insert({ project_id: project.id, format, namespace, meta, updated_at: now })
      .onConflict(['project_id', 'format', 'namespace'])
      .merge(['meta', 'updated_at']);
    changed = true;
  }

  let trackingToken: string | null = null;
  let estimatedCredits = 0;
  const unreached: Array<{ keyId: number; lang: string }> = [];
  if (run.canFill) {
    const { pairs } = fillPairs(plan, project, (e) => ids.get(e.name) ?? null, memory);
    const fills = [...memory]
      .map(([pair, m]) => {
        const cut = pair.lastIndexOf('|');
        return { keyId: ids.get(pair.slice(0, cut)), lang: pair.slice(cut + 1), value: m.target };
      })
      .filter((f): f is { keyId: number; lang: string; value: string } => f.keyId !== undefined);
    // A `retranslate` project's engine values of a changed source: taken out (kept in history) and queued again,
    // or filled from the memory.
    await retireForRetranslation(
      trx,
      project.id,
      [...pairs, ...fills].filter((q) => plan.retranslate.has(`${q.keyId}|${q.lang}`)),
      now,
      'sync',
    );
    await insertMarkers(trx, project.id, pairs, now);
    if ((await fillFromMemory(trx, project, fills, now)).length) changed = true;
    if (pairs.length) changed = true;
    const budget = run.approval.operation?.budget;
    const queued = await enqueueFill(trx, jobs, project, pairs, now, budget && { budget, unreached });
    if (queued) {
      trackingToken = queued.trackingToken;
      estimatedCredits = queued.estimate;
      changed = true;
    }
  }
  const balance = (await readCredit(trx, project.workspace_id, now, true)).available;
  const body = {
    ...result(plan, project, { estimatedCredits, balance, trackingToken }, opts.namespace),
    ...(run.approval.operation ? { budgetExhausted: unreached.length } : {}),
    ...(await warningsOf(trx, project, plan)),
  };
  if (trackingToken) await run.scope.capture(trx, { body, trackingToken });
  if (changed) await contentChanged(trx, project.id, now);
  return { reply: { body }, trackingToken };
}
