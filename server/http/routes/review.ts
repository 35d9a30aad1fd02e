// The review side of keys (internal API): one key across languages with its gate verdicts and history,
// a value checked without saving, review states and switches over a filtered set, and the captured keys' review.
// Reviewers may read, check, mark reviewed or approved, and review captured keys; switching keys and buying fills
// are the owners' (spec x-roles, enforced by the pipeline).
import type { FormatId } from '../../../packages/core/src/catalog.js';
import { renderLanguage } from '../../../packages/core/src/delivery.js';
import { gateCell } from '../../../packages/core/src/gates.js';
import { lengthLimit } from '../../../packages/core/src/checks/cell.js';
import { metaMaxLength } from '../../domain/fill/context.js';
import { configuredFormats, markupPolicy } from '../../domain/project/projects.js';
import { contentChanged } from '../../domain/project/revision.js';
import type { Db } from '../../infra/db.js';
import { bool, chunks, parseJson } from '../../infra/db.js';
import { ApiError, invalidArgument, notFound } from '../../infra/errors.js';
import { translatorLangs, type Handler } from '../pipeline.js';
import type { KeyRow, ProjectRow } from '../../infra/tables.js';
import { toSnapshotKey } from '../../domain/catalog/live.js';
import { resolveTargets } from '../../domain/catalog/targets.js';
import { cellGate } from '../../domain/catalog/gate.js';
import { readCredit } from '../../domain/billing/credits.js';
import { actorOf, recordHistory, type HistoryRow } from '../../domain/catalog/history.js';
import {
  filteredKeys,
  filterLanguage,
  pageCells,
  targetLanguages,
  type KeyFilter,
} from '../../domain/catalog/keyfilter.js';
import { queueBulkFill, type BulkFillResult } from '../../domain/fill/bulk.js';
import { rememberAfter } from '../../domain/memory/entries.js';
import { outdatedSources } from '../../domain/catalog/outdated.js';
import { errorCells, storedChecks } from '../../domain/checks/read.js';
import { checkTranslation } from '../../domain/checks/compute.js';
import { checkContext } from '../../domain/checks/context.js';

const HISTORY_SHOWN = 200;
/** Cells a bulk approval lists as refused at most (`refusedTotal` counts all). */
const REFUSED_SHOWN = 50;

async function keyByRef(db: Db, projectId: string, ref: string): Promise<KeyRow> {
  const key = await db('keys')
    .where({ project_id: projectId })
    .andWhere((w) => {
      w.where('name', ref).orWhere('token', ref);
    })
    // A name in several namespaces reads the default namespace's key (`''` sorts first); the dashboard links a
    // named namespace's keys by their token, which is unique per project.
    .orderBy('namespace')
    .first();
  if (!key) throw notFound('No key with this name or token.');
  return key;
}

/** What the project's output formats (and the i18next bundle) would write in a documented fallback for the cell. */
function formatWarnings(p: ProjectRow, key: KeyRow, lang: string, value: string, status: string): string[] {
  try {
    const snapshot = {
      baseLang: p.base_lang,
      languages: [lang],
      keys: [toSnapshotKey(key, { [lang]: { value, status } })],
      catalogs: {},
    };
    const r = renderLanguage(snapshot, lang, configuredFormats(p) as FormatId[]);
    return [...r.bundle.labels, ...r.files.flatMap((f) => f.file.labels)];
  } catch (e) {
    // A value the renderers cannot read at all is the gates' to report.
    return [`not rendered: ${(e as Error).message}`];
  }
}

export const internalGetKey: Handler<'internalGetKey'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const key = await keyByRef(db, p.id, ctx.params.key);
  const targets = await targetLanguages(db, p);
  const id = Number(key.id);
  const listed = (await pageCells(db, [id], targets)).get(id) ?? [];
  const sourceChecks = (await storedChecks(db, [id], [p.base_lang])).get(`${id}|${p.base_lang}`);
  const extra = new Map(
    (
      await db('translations')
        .where({ key_id: id })
        .whereIn('lang', targets)
        .select('lang', 'conflict_value', 'updated_at', 'status', 'value', 'outdated_at')
    ).map((r) => [r.lang, r]),
  );
  // The source each outdated value was written for, shown beside the current one.
  const before = await outdatedSources(
    db,
    id,
    [...extra.values()]
      .filter((r) => r.outdated_at != null && r.status !== 'pending')
      .map((r) => ({ lang: r.lang, at: Number(r.outdated_at) })),
  );
  const history = await db('translation_history as h')
    .leftJoin('dashboard_users as u', 'u.id', 'h.actor')
    .where('h.key_id', id)
    .orderBy('h.id', 'desc')
    .limit(HISTORY_SHOWN)
    .select<
      Array<{
        lang: string;
        value: string | null;
        status: string;
        origin: string | null;
        actor: string;
        created_at: number;
        name: string | null;
      }>
    >('h.lang', 'h.value', 'h.status', 'h.origin', 'h.actor', 'h.created_at', 'u.name');
  return {
    body: {
      ...translatorLangs(ctx.actor),
      key: key.name,
      ...(key.namespace ? { namespace: key.namespace } : {}),
      token: key.token,
      source: key.source,
      forms: parseJson(key.forms, null),
      ctx: key.ctx,
      enabled: bool(key.enabled),
      sourceVerified: bool(key.source_verified),
      captured: bool(key.captured),
      comment: key.comment ?? null,
      // The limit the fill gives the engine (server/domain/fill/context.ts) and the max-length check reads.
      maxLength: lengthLimit(metaMaxLength(key.meta ?? null), key.comment, key.ctx),
      ...(sourceChecks ? { sourceChecks } : {}),
      baseLang: p.base_lang,
      cells: listed.map((c) => {
        const row = extra.get(c.lang);
        const withValue = c.value != null;
        return {
          ...c,
          gate: withValue ? cellGate(key.source, c.value!, c.lang, c.origin === 'import', markupPolicy(p)) : {},
          formatWarnings: withValue ? formatWarnings(p, key, c.lang, c.value!, c.status) : [],
          conflictValue: row?.conflict_value ?? null,
          updatedAt: row ? new Date(Number(row.updated_at)).toISOString() : null,
          ...(c.outdated && before.has(c.lang) ? { outdatedSource: before.get(c.lang)! } : {}),
        };
      }),
      history: history.map((h) => ({
        lang: h.lang,
        value: h.value,
        status: h.status,
        origin: h.origin,
        by: h.actor,
        byName: h.name ?? null,
        at: new Date(Number(h.created_at)).toISOString(),
      })),
    },
  };
};

export const internalCheckTranslation: Handler<'internalCheckTranslation'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const key = await keyByRef(db, p.id, ctx.params.key);
  const lang = filterLanguage(ctx.body.lang, await targetLanguages(db, p))!;
  // What a save through the editor stores is a person's edit: every gate applies.
  const gate = gateCell(key.source, ctx.body.value, lang, markupPolicy(p));
  return {
    body: {
      lang,
      ok: Object.keys(gate).length === 0,
      gate,
      formatWarnings: formatWarnings(p, key, lang, ctx.body.value, 'translated'),
      checks: checkTranslation(await checkContext(db, p.id), { ...key, id: Number(key.id) }, lang, ctx.body.value),
    },
  };
};

/** The ids of every key the filter matches, in order. */
async function matchingIds(db: Db, p: ProjectRow, filter: KeyFilter, targets: string[]) {
  const { query, lang } = await filteredKeys(db, p, filter, targets);
  const ids = (await query.orderBy('k.id').select('k.id')).map((r: { id: number }) => Number(r.id));
  return { ids, lang };
}

export const internalBulkReviewKeys: Handler<'internalBulkReviewKeys'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const targets = await targetLanguages(db, p);
  const filter: KeyFilter = ctx.body.filter;
  const { ids, lang } = await matchingIds(db, p, filter, targets);
  const actLang = ctx.body.lang !== undefined ? filterLanguage(ctx.body.lang, targets) : lang;
  const langs = actLang ? [actLang] : targets;
  const to = ctx.body.action === 'approve' ? 'approved' : 'reviewed';
  const from = ctx.body.action === 'approve' ? ['translated', 'reviewed'] : ['translated'];
  // `outdated` is a filter over every status with a value (the cells are also of those statuses).
  const statuses = filter.status && filter.status !== 'outdated' ? from.filter((s) => s === filter.status) : from;
  // Cells already at the target status whose source changed since: the action confirms them for the new source
  // (clears outdated, server/domain/catalog/outdated.ts). Not when the filter names another status.
  const confirm = !filter.status || filter.status === 'outdated' ? [to] : [];
  const onlyOutdated = filter.status === 'outdated';
  const actor = actorOf(ctx.actor);
  const now = Date.now();
  let affected = 0;
  const moved: Array<{ keyId: number; lang: string }> = [];
  // An approval leaves out the cells a check reports an error for (server/domain/checks/), and names them.
  const approving = ctx.body.action === 'approve';
  const refused: Array<{ keyId: number; lang: string; checks: string[] }> = [];
  if (statuses.length && langs.length && ids.length)
    await db.transaction(async (trx) => {
      for (const part of chunks(ids)) {
        const cells = (withErrors = false) => {
          const q = trx('translations')
            .whereIn('key_id', part)
            .whereIn('lang', langs)
            .where((w) => {
              w.whereIn('status', statuses);
              if (confirm.length)
                w.orWhere((o) => {
                  o.whereIn('status', confirm).whereNotNull('outdated_at');
                });
            });
          if (onlyOutdated) q.whereNotNull('outdated_at');
          if (approving) {
            const errors = trx('cell_checks as c')
              .whereRaw('c.key_id = translations.key_id')
              .whereRaw('c.lang = translations.lang')
              .where('c.errors', '>', 0)
              .select(trx.raw('1'));
            if (withErrors) q.whereExists(errors);
            else q.whereNotExists(errors);
          }
          return q;
        };
        if (approving) {
          const blocked = await cells(true).select('key_id', 'lang');
          const why = blocked.length ? await errorCells(trx, part, langs) : new Map<string, string[]>();
          for (const b of blocked)
            refused.push({ keyId: Number(b.key_id), lang: b.lang, checks: why.get(`${b.key_id}|${b.lang}`) ?? [] });
        }
        const rows = await cells().select('key_id', 'lang', 'value', 'origin');
        if (!rows.length) continue;
        const history: HistoryRow[] = rows.map((r) => ({
          project_id: p.id,
          key_id: Number(r.key_id),
          lang: r.lang,
          value: r.value,
          status: to,
          origin: r.origin,
          actor,
          created_at: now,
        }));
        affected += await cells().update({ status: to, outdated_at: null, updated_at: now });
        await recordHistory(trx, history);
        moved.push(...rows.map((r) => ({ keyId: Number(r.key_id), lang: r.lang })));
      }
      if (affected) await contentChanged(trx, p.id, now);
    });
  await rememberAfter(db, ctx.app.log, p, moved);
  if (!refused.length) return { body: { affected } };
  const listed = refused.slice(0, REFUSED_SHOWN);
  const names = new Map(
    (
      await db('keys')
        .whereIn(
          'id',
          listed.map((r) => r.keyId),
        )
        .select('id', 'name')
    ).map((k) => [Number(k.id), k.name]),
  );
  return {
    body: {
      affected,
      refused: listed.map((r) => ({ key: names.get(r.keyId) ?? '', lang: r.lang, checks: r.checks })),
      refusedTotal: refused.length,
    },
  };
};

export const internalBulkKeys: Handler<'internalBulkKeys'> = async (ctx) => {
  const { db, engine, jobs } = ctx.app;
  const p = ctx.project;
  const targets = await targetLanguages(db, p);
  const filter: KeyFilter = ctx.body.filter;
  const action = ctx.body.action;
  if (ctx.body.dryRun && (action === 'disable' || action === 'enable'))
    throw invalidArgument(`dryRun applies to retry, retranslate and translate, not ${action}.`);
  if (action !== 'disable' && action !== 'enable' && !engine)
    throw new ApiError(
      503,
      'unavailable',
      'No translation engine is configured (TRANSLATION_ENGINE=none); nothing was queued.',
    );
  const { ids, lang } = await matchingIds(db, p, filter, targets);
  const now = Date.now();
  if (action === 'disable' || action === 'enable') {
    const enabled = action === 'enable';
    let affected = 0;
    await db.transaction(async (trx) => {
      for (const part of chunks(ids))
        affected += await trx('keys')
          .whereIn('id', part)
          .where('enabled', !enabled)
          // A person's switch settles what a sync switched off (migration 018).
          .update({ enabled, updated_at: now, sync_disabled_at: null, sync_disabled_by: null });
      if (affected) await contentChanged(trx, p.id, now);
    });
    return { body: { affected } };
  }
  // retry, retranslate, translate: cells of the AI-filled languages, of keys a push would fill.
  const actLang = ctx.body.lang !== undefined ? filterLanguage(ctx.body.lang, targets) : lang;
  const aiLangs = new Set(await resolveTargets(db, p, undefined));
  const langs = (actLang ? [actLang] : targets).filter((l) => aiLangs.has(l));
  let out: BulkFillResult & { balance: number } = {
    affected: 0,
    fromMemory: 0,
    trackingToken: null,
    estimate: 0,
    balance: 0,
  };
  try {
    await db.transaction(async (trx) => {
      const queued = await queueBulkFill(trx, jobs, p, action, ids, langs, now, actorOf(ctx.actor));
      // The read keeps the workspace row current within the hold's transaction, as the single-key retry does.
      out = { ...queued, balance: (await readCredit(trx, p.workspace_id, now, true)).available };
      // A dry run is the request itself, undone: the same claims, memory matches and hold say what it would do.
      if (ctx.body.dryRun) throw new DryRun();
    });
  } catch (e) {
    if (!(e instanceof DryRun)) throw e;
    out.trackingToken = null;
  }
  return {
    body: {
      affected: out.affected,
      trackingToken: out.trackingToken,
      estimatedCredits: out.estimate,
      balance: out.balance,
      ...(out.fromMemory ? { fromMemory: out.fromMemory } : {}),
    },
  };
};

/** Thrown to undo a dry run's transaction. */
class DryRun extends Error {}

export const internalReviewCaptured: Handler<'internalReviewCaptured'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const now = Date.now();
  const names = [...new Set(ctx.body.keys)];
  const change =
    ctx.body.action === 'accept'
      ? { captured: false, source_verified: true, updated_at: now }
      : { enabled: false, updated_at: now };
  let affected = 0;
  await db.transaction(async (trx) => {
    affected = await trx('keys')
      .where({ project_id: p.id, captured: true, enabled: true })
      .whereIn('name', names)
      .update(change);
    if (affected) await contentChanged(trx, p.id, now);
  });
  return { body: { affected } };
};

/** Keys group (spec: `getKey`): the key page's read, for a key of the project (`key:<api key id>` in the history). */
export const getKey: Handler<'getKey'> = (ctx) => internalGetKey(ctx) as never;
