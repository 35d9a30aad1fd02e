// POST /translate (spec: `translateUnits`): register units by content token, carry copy-edited keys over, mark the
// (key, language) pairs with no value as pending, hold the estimate and queue one fill job.
import { contentChanged } from '../../domain/project/revision.js';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../infra/db.js';
import { bool, chunks, insertOrKeep, isUniqueViolation } from '../../infra/db.js';
import { ApiError } from '../../infra/errors.js';
import type { JobQueue } from '../../infra/jobs.js';
import type { Handler } from '../pipeline.js';
import type { OperationBudget } from '../../infra/approval.js';
import { withRequestRecord, type RequestScope } from '../../infra/requests.js';
import { previewBatch } from '../../domain/operations/previews.js';
import { cellStates, type CellState } from '../../domain/catalog/cells.js';
import { holdRefusal, keyLimitRefusal, pairCost, readCredit } from '../../domain/billing/credits.js';
import {
  baseName,
  contentToken,
  DEFAULT_NAMESPACE,
  freeNames,
  namespacedCtx,
  orderedForms,
  type Forms,
} from '../../domain/catalog/keys.js';
import {
  BUDGET_EXHAUSTED,
  enqueueFill,
  insertMarkers,
  sqliteStatements,
  type SqlitePrepare,
} from '../../domain/fill/queue.js';
import { resolveTargets } from '../../domain/catalog/targets.js';
import {
  markOutdated,
  outdatedMode,
  retireForRetranslation,
  retranslatesItself,
} from '../../domain/catalog/outdated.js';
import { fillFromMemory, preTranslations, type MemoryFill } from '../../domain/memory/pretranslate.js';
import type { Match } from '../../domain/memory/lookup.js';
import { formsToIcu } from '../../../packages/core/src/icu.js';
import type { KeyRow, ProjectRow } from '../../infra/tables.js';
import { checkContext } from '../../domain/checks/context.js';
import { checkKeys } from '../../domain/checks/store.js';
import { sourceWarnings } from '../../domain/checks/warnings.js';
import type { components } from '../../../generated/openapi.js';

type TranslateUnit = components['schemas']['TranslateUnit'];

interface Unit {
  source: string; // ICU message (plural forms are composed into one plural message)
  forms: Forms | null;
  ctx: string | null;
  token: string;
  key?: string;
  previousToken?: string;
  previousSource?: string;
  previousCtx?: string;
}

/** A key as a push reads it: the columns keysByTokens selects, and ctx where the whole row was read. */
type StoredKey = Pick<
  KeyRow,
  'id' | 'name' | 'token' | 'enabled' | 'source_verified' | 'source' | 'forms' | 'created_by'
> &
  Partial<Pick<KeyRow, 'ctx'>>;

interface UnitResult {
  key: string;
  token: string;
  outcome: 'created' | 'matched' | 'carriedOver' | 'contended';
  translated: string[];
  pending: string[];
  gated?: true;
  disabled?: true;
  budgetExhausted?: true;
}

/** A unit as validated against TranslateUnit: exactly one of `source` and `forms`; its token salted for its namespace. */
function prepare(u: TranslateUnit, namespace: string): Unit {
  const forms = u.forms ? orderedForms(u.forms) : null;
  const source = u.forms ? null : u.source;
  const ctx = u.ctx ?? null;
  return {
    source: forms ? formsToIcu(forms) : source!,
    forms,
    ctx,
    token: contentToken(source, forms, namespacedCtx(namespace, ctx)),
    key: u.key,
    previousToken: u.previousToken,
    previousSource: u.previousSource,
    previousCtx: u.previousCtx,
  };
}

async function chunked<T, R>(items: T[], fn: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (const part of chunks(items)) out.push(...(await fn(part)));
  return out;
}

const keysByTokens = (db: Db, projectId: string, tokens: string[]) =>
  chunked(tokens, (c) =>
    db('keys')
      .where('project_id', projectId)
      .whereIn('token', c)
      .select('id', 'name', 'token', 'enabled', 'source_verified', 'source', 'forms', 'created_by'),
  );

/**
 * The key a copy edit names: by its previous token (live or in history), or by previous source and ctx; only a key
 * of the push's namespace is carried over.
 */
async function findPrevious(db: Db, projectId: string, u: Unit, namespace: string): Promise<StoredKey | undefined> {
  const tokens = [
    u.previousToken,
    u.previousSource !== undefined
      ? contentToken(u.previousSource, null, namespacedCtx(namespace, u.previousCtx ?? u.ctx))
      : undefined,
  ].filter(Boolean) as string[];
  for (const t of tokens) {
    const live = await db('keys').where({ project_id: projectId, token: t, namespace }).first();
    if (live) return live;
    const hist = await db('key_history')
      .where({ project_id: projectId, token: t })
      .orderBy('id', 'desc')
      .first('key_id');
    if (hist) return db('keys').where({ id: hist.key_id, namespace }).first();
  }
  return undefined;
}

interface Plan {
  project: ProjectRow;
  namespace: string;
  /** The request's units, in order (results[i] is units[i]'s). */
  units: Unit[];
  targets: string[];
  results: UnitResult[];
  /** Units to insert as new keys (index into results). */
  creates: Array<{ i: number; unit: Unit; name: string }>;
  carries: Array<{ i: number; unit: Unit; key: StoredKey }>;
  /**
   * Keys a `retranslate` project fills again because a unit naming them by `key` changes their source (not a copy
   * edit, which names the previous token or source): their engine values are queued again.
   */
  retranslateKeys: Set<number>;
  /** Keys (by unit index) whose languages are to be filled. */
  fillable: Array<{ i: number; keyId: number | null; unit: Unit }>;
  /** [unit index, index of its first occurrence] for units repeated within the request. */
  duplicates: Array<[number, number]>;
  skippedGated: number;
  skippedDisabled: number;
  /**
   * Pre-translations (server/domain/memory/pretranslate.ts): the memory's trusted match of 100 or 101 for a unit's
   * language, by `unitIndex|lang`. Such a pair is filled at no charge instead of queued.
   */
  memory: Map<string, Match>;
}

/** Classifies every unit without writing anything. */
async function plan(
  db: Db,
  project: ProjectRow,
  targets: string[],
  units: Unit[],
  namespace: string = DEFAULT_NAMESPACE,
): Promise<Plan> {
  const existing = new Map(
    (await keysByTokens(db, project.id, [...new Set(units.map((u) => u.token))])).map((k) => [k.token, k]),
  );
  const results: UnitResult[] = [];
  const creates: Plan['creates'] = [];
  const carries: Plan['carries'] = [];
  const fillable: Plan['fillable'] = [];
  const seen = new Map<string, number>();
  const duplicates: Array<[number, number]> = [];
  let skippedGated = 0;
  let skippedDisabled = 0;
  const wantNames: Array<{ i: number; unit: Unit; base: string }> = [];
  for (const [i, unit] of units.entries()) {
    const dup = seen.get(unit.token);
    let key = existing.get(unit.token);
    let outcome: UnitResult['outcome'] = 'matched';
    if (dup !== undefined) {
      // The same unit twice in one request: one key, reported alike (copied once pairs are classified).
      results.push({ ...results[dup] });
      duplicates.push([i, dup]);
      continue;
    }
    seen.set(unit.token, i);
    if (!key) {
      const prev =
        unit.previousToken || unit.previousSource !== undefined
          ? await findPrevious(db, project.id, unit, namespace)
          : unit.key
            ? await db('keys').where({ project_id: project.id, namespace, name: unit.key }).first()
            : undefined;
      if (prev) {
        carries.push({ i, unit, key: prev });
        key = prev;
        outcome = 'carriedOver';
      } else {
        outcome = 'created';
      }
    }
    const r: UnitResult = { key: key?.name ?? '', token: unit.token, outcome, translated: [], pending: [] };
    results.push(r);
    if (outcome === 'created') {
      if (unit.key) creates.push({ i, unit, name: unit.key });
      else
        wantNames.push({ i, unit, base: baseName(unit.forms ? unit.forms.other : unit.source, unit.ctx, unit.token) });
    }
    if (key && !bool(key.enabled)) {
      r.disabled = true;
      skippedDisabled++;
      continue;
    }
    if (bool(project.auto_verify) && !(key && bool(key.source_verified))) {
      r.gated = true;
      skippedGated++;
    }
    fillable.push({ i, keyId: key ? Number(key.id) : null, unit });
  }
  const names = await freeNames(
    db,
    project.id,
    wantNames.map((w) => w.base),
    namespace,
  );
  wantNames.forEach((w, n) => creates.push({ i: w.i, unit: w.unit, name: names[n] }));
  for (const c of creates) results[c.i].key = c.name;
  const asked = fillable.filter((f) => !results[f.i].gated).flatMap((f) => targets.map((lang) => ({ f, lang })));
  const hits = await preTranslations(
    db,
    project,
    asked.map(({ f, lang }) => ({ source: f.unit.source, ctx: f.unit.ctx, key: results[f.i].key, lang })),
  );
  const memory = new Map([...hits].map(([n, m]) => [`${asked[n].f.i}|${asked[n].lang}`, m]));
  // Only keys this push fills: a switched-off or gated key keeps its value (marked outdated) until it is filled.
  const retranslateKeys = new Set(
    outdatedMode(project) === 'retranslate'
      ? carries
          .filter((c) => !isCopyEdit(c.unit) && !results[c.i].disabled && !results[c.i].gated)
          .map((c) => Number(c.key.id))
      : [],
  );
  return {
    project,
    namespace,
    units,
    targets,
    results,
    creates,
    carries,
    retranslateKeys,
    fillable,
    duplicates,
    skippedGated,
    skippedDisabled,
    memory,
  };
}

/**
 * A unit that names the key's previous token or source: the caller says the change is a copy edit (a typo, a
 * style fix), so the key's translations are carried over as current. A unit that only names its `key` with a new
 * source changes what the key says: its translations become outdated (server/domain/catalog/outdated.ts).
 */
const isCopyEdit = (u: Unit) => u.previousToken !== undefined || u.previousSource !== undefined;

/** Fills translated/pending per unit and returns the pairs to queue with their cost. */
function classifyPairs(p: Plan, states: Map<string, CellState>, keyIdOf: (i: number) => number | null) {
  const queue: Array<{ keyId: number; lang: string; cost: number }> = [];
  const fills: MemoryFill[] = [];
  let estimate = 0;
  for (const f of p.fillable) {
    const r = p.results[f.i];
    if (r.outcome === 'contended') continue;
    const keyId = keyIdOf(f.i);
    const cost = pairCost(f.unit.source, f.unit.forms);
    for (const lang of p.targets) {
      const s = keyId == null ? undefined : states.get(`${keyId}|${lang}`);
      // An earlier run under an operation left this pair unqueued when its budget ran out.
      if (s?.failed === BUDGET_EXHAUSTED) r.budgetExhausted = true;
      const again = keyId != null && p.retranslateKeys.has(keyId) && s?.value && retranslatesItself(s.row);
      if (s?.value && !again) r.translated.push(lang);
      else if (s?.liveJob) r.pending.push(lang);
      else if (!r.gated && p.memory.has(`${f.i}|${lang}`)) {
        // Pre-translated from the memory: a value at once, at no charge.
        r.translated.push(lang);
        if (keyId != null) fills.push({ keyId, lang, value: p.memory.get(`${f.i}|${lang}`)!.target });
      }
      // Its fill failed for a reason the same source will meet again: left alone until the source changes (a copy
      // edit read before its carry, as a dry run reads it, is a new source).
      else if (s?.stuck && r.outcome !== 'carriedOver') continue;
      else if (!r.gated) {
        r.pending.push(lang);
        estimate += cost;
        if (keyId != null) queue.push({ keyId, lang, cost });
      }
    }
  }
  for (const [i, first] of p.duplicates)
    p.results[i] = {
      ...p.results[first],
      translated: [...p.results[first].translated],
      pending: [...p.results[first].pending],
    };
  return { queue, estimate, fills };
}

export const translateUnits: Handler<'translateUnits'> = async (ctx) => {
  const { db, engine } = ctx.app;
  if (!engine)
    throw new ApiError(
      503,
      'unavailable',
      'No translation engine is configured (TRANSLATION_ENGINE=none); nothing was written.',
    );
  const { project } = ctx;
  const namespace = ctx.body.namespace ?? DEFAULT_NAMESPACE;
  const units = ctx.body.units.map((u) => prepare(u, namespace));
  if (ctx.dryRun) {
    const preview = await dryRun(
      db,
      await plan(db, project, await resolveTargets(db, project, ctx.body.langs), units, namespace),
    );
    const sha = await previewBatch(db, ctx.app.log, project.id, ctx.body, {
      sources: units.map((u) => u.source),
      estimateMc: preview.body.estimatedCredits,
    });
    return { body: { ...preview.body, batchSha256: sha } };
  }
  // The request record comes first: every refusal from here on is recorded under the requestId.
  return withRequestRecord(
    db,
    { keyId: ctx.principal!.keyId, projectId: project.id, body: ctx.body, approval: ctx.approval },
    'translate',
    async (scope) => {
      const p = await plan(db, project, await resolveTargets(db, project, ctx.body.langs), units, namespace);
      // An agent key may push for free; paid work needs a person's approval first. The estimate reads the
      // same plan the push then carries out.
      if (ctx.approval.guardsSpending) ctx.approval.spend(await estimateOf(db, p));
      return push(db, p, scope, ctx.app.jobs, ctx.approval.operation?.budget);
    },
  );
};

/**
 * What a plan's fill would cost, as a dry run counts it, over the keys that exist before the push; `classify`
 * fills the plan's results in (a dry run's answer), otherwise the plan is left as it was for the push to carry out.
 */
async function estimateOf(db: Db, plan: Plan, classify = false): Promise<number> {
  const p = classify
    ? plan
    : { ...plan, results: plan.results.map((r) => ({ ...r, translated: [...r.translated], pending: [...r.pending] })) };
  const existingIds = new Map(p.fillable.filter((f) => f.keyId != null).map((f) => [f.i, f.keyId]));
  const states = await cellStates(db, [...existingIds.values()] as number[], p.targets);
  return classifyPairs(p, states, (i) => existingIds.get(i) ?? null).estimate;
}

async function dryRun(db: Db, p: Plan) {
  const { project, targets } = p;
  const estimate = await estimateOf(db, p, true);
  const credit = await readCredit(db, project.workspace_id);
  const keyRefusal = await keyLimitRefusal(db, project.workspace_id, p.creates.length);
  return {
    body: {
      estimatedCredits: estimate,
      balance: credit.available,
      accepted: !holdRefusal(credit, estimate) && !keyRefusal,
      baseCode: project.base_lang,
      targetLangs: targets,
      units: p.results,
      skippedGated: p.skippedGated,
      skippedDisabled: p.skippedDisabled,
      ...(await warningsOf(db, p)),
    },
  };
}

/** The checks' errors and warnings on the request's sources (spec `SourceWarning`), each unit once. */
async function warningsOf(db: Db, p: Plan) {
  const repeated = new Set(p.duplicates.map(([i]) => i));
  return sourceWarnings(
    await checkContext(db, p.project.id),
    p.units.flatMap((u, i) => (repeated.has(i) ? [] : [{ key: p.results[i].key, source: u.source, ctx: u.ctx }])),
  );
}

async function push(db: Db, p: Plan, scope: RequestScope, jobs: JobQueue, budget?: OperationBudget) {
  const { project } = p;
  const refusal = await keyLimitRefusal(db, project.workspace_id, p.creates.length);
  if (refusal) throw refusal;
  const pushId = randomBytes(12).toString('base64url');
  const now = Date.now();
  const keyIds = new Map<number, number>(); // unit index → key id
  for (const f of p.fillable) if (f.keyId != null) keyIds.set(f.i, f.keyId);

  // 1. Keys and pending markers. A unit that loses a race (its token or name taken meanwhile) writes nothing.
  const { queue, estimate } = await db.transaction(async (trx) => {
    /** Keys created or given a new source: their check results are stored (server/domain/checks/). */
    const written: number[] = [];
    if (p.creates.length) {
      const rows = p.creates.map((c): NewKey => ({
        project_id: project.id,
        namespace: p.namespace,
        name: c.name,
        token: c.unit.token,
        source: c.unit.source,
        forms: c.unit.forms ? JSON.stringify(c.unit.forms) : null,
        ctx: c.unit.ctx,
        enabled: true,
        source_verified: false,
        captured: false,
        created_by: pushId,
        source_updated_at: now,
        created_at: now,
        updated_at: now,
      }));
      const raw = await sqliteStatements(trx);
      const mine = raw ? insertKeysRaw(raw, rows) : await insertKeys(trx, project.id, rows, pushId);
      for (const c of p.creates) {
        const id = mine.get(c.unit.token);
        if (id !== undefined) {
          keyIds.set(c.i, id);
          written.push(id);
        } else markContended(p, c.i);
      }
    }
    const changedSources: number[] = [];
    for (const c of p.carries) {
      const n = await trx('keys')
        .where({ id: c.key.id, token: c.key.token })
        .update({
          token: c.unit.token,
          source: c.unit.source,
          forms: c.unit.forms ? JSON.stringify(c.unit.forms) : null,
          ctx: c.unit.ctx,
          source_updated_at: now,
          updated_at: now,
        })
        .catch((err) => {
          if (isUniqueViolation(err)) return 0;
          throw err;
        });
      if (n !== 1) {
        markContended(p, c.i);
        keyIds.delete(c.i);
        continue;
      }
      written.push(Number(c.key.id));
      await trx('key_history').insert({
        key_id: c.key.id,
        project_id: project.id,
        token: c.key.token,
        source: c.key.source,
        forms: c.key.forms,
        ctx: c.key.ctx ?? null,
        replaced_at: now,
      });
      if (!isCopyEdit(c.unit)) changedSources.push(Number(c.key.id));
    }
    await markOutdated(trx, project.id, changedSources, now);
    const again = changedSources.filter((id) => p.retranslateKeys.has(id));
    if (again.length) {
      const held = await cellStates(trx, again, p.targets);
      await retireForRetranslation(
        trx,
        project.id,
        [...held.values()]
          .filter((c) => c.value && retranslatesItself(c.row))
          .map((c) => ({ keyId: Number(c.row.key_id), lang: c.row.lang })),
        now,
        'sync',
      );
    }
    await checkKeys(trx, project.id, written, now);
    const states = await cellStates(trx, [...keyIds.values()], p.targets);
    const cls = classifyPairs(p, states, (i) => keyIds.get(i) ?? null);
    const markers = cls.queue.filter((q) => !states.has(`${q.keyId}|${q.lang}`));
    await insertMarkers(trx, project.id, markers, now);
    const filled = await fillFromMemory(trx, project, cls.fills, now);
    // A push of strings the project already holds writes nothing, and leaves the prepared publish standing.
    if (p.creates.length || p.carries.length || markers.length || filled.length)
      await contentChanged(trx, project.id, now);
    return cls;
  });

  const body = {
    trackingToken: null as string | null,
    estimatedCredits: estimate,
    balance: 0,
    baseCode: project.base_lang,
    targetLangs: p.targets,
    units: p.results,
    skippedGated: p.skippedGated,
    skippedDisabled: p.skippedDisabled,
    ...(await warningsOf(db, p)),
  };
  if (!queue.length) {
    body.balance = (await readCredit(db, project.workspace_id)).available;
    return { reply: { body }, trackingToken: null };
  }

  // 2. Claim, hold and queue in one transaction with the captured answer: a 402 rolls the claims back and
  // leaves the markers for the next push.
  const unreached: Array<{ keyId: number; lang: string }> = [];
  const queued = await db.transaction(async (trx) => {
    unreached.length = 0;
    const q = await enqueueFill(trx, jobs, project, queue, now, budget && { budget, unreached });
    if (unreached.length) markUnreached(p, keyIds, unreached);
    if (!q) return null;
    body.trackingToken = q.trackingToken;
    body.estimatedCredits = q.estimate;
    body.balance = (await readCredit(trx, project.workspace_id, now, true)).available;
    await scope.capture(trx, { body, trackingToken: q.trackingToken });
    // The markers now name this job, which decides whether a publish counts them exhausted.
    await contentChanged(trx, project.id, now);
    return q;
  });
  if (!queued) {
    body.estimatedCredits = 0;
    body.balance = (await readCredit(db, project.workspace_id)).available;
    return { reply: { body }, trackingToken: null };
  }
  return { reply: { body }, trackingToken: queued.trackingToken };
}

type NewKey = Pick<
  KeyRow,
  | 'project_id'
  | 'namespace'
  | 'name'
  | 'token'
  | 'source'
  | 'forms'
  | 'ctx'
  | 'created_by'
  | 'source_updated_at'
  | 'created_at'
  | 'updated_at'
> & {
  enabled: boolean;
  source_verified: boolean;
  captured: boolean;
};

/** The keys inserted, by token; a row whose token or name another push took meanwhile is not among them. */
async function insertKeys(trx: Db, projectId: string, rows: NewKey[], pushId: string): Promise<Map<string, number>> {
  for (const part of chunks(rows)) await insertOrKeep(trx, 'keys', part, [], 'id');
  const mine = await keysByTokens(
    trx,
    projectId,
    rows.map((r) => r.token),
  );
  return new Map(mine.filter((k) => k.created_by === pushId).map((k) => [k.token, Number(k.id)]));
}

const KEY_COLUMNS = [
  'project_id',
  'namespace',
  'name',
  'token',
  'source',
  'forms',
  'ctx',
  'enabled',
  'source_verified',
  'captured',
  'created_by',
  'source_updated_at',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof NewKey>;
const KEY_SQL = `INSERT INTO keys (${KEY_COLUMNS.join(', ')}) VALUES (${KEY_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING RETURNING id`;

/** insertKeys on SQLite: one prepared statement whose RETURNING says which rows went in, so nothing is read back. */
function insertKeysRaw(raw: SqlitePrepare, rows: NewKey[]): Map<string, number> {
  const insert = raw(KEY_SQL);
  const mine = new Map<string, number>();
  for (const r of rows) {
    // better-sqlite3 binds no booleans: Knex would have written them as 0/1.
    const [row] = insert.all(
      ...KEY_COLUMNS.map((c) => {
        const v = r[c];
        return typeof v === 'boolean' ? Number(v) : v;
      }),
    ) as Array<{ id: number }>;
    if (row) mine.set(r.token, Number(row.id));
  }
  return mine;
}

/** Units with a pair the operation's budget did not reach. */
function markUnreached(p: Plan, keyIds: Map<number, number>, unreached: Array<{ keyId: number }>) {
  const keys = new Set(unreached.map((u) => u.keyId));
  for (const [i, keyId] of keyIds) if (keys.has(keyId)) p.results[i].budgetExhausted = true;
  for (const [i, first] of p.duplicates) if (p.results[first].budgetExhausted) p.results[i].budgetExhausted = true;
}

function markContended(p: Plan, i: number) {
  const r = p.results[i];
  r.outcome = 'contended';
  r.translated = [];
  r.pending = [];
  delete r.gated;
  delete r.disabled;
}
