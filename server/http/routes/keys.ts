// Keys as the dashboard reviews them: switch on/off, verify or edit the source, edit or review translations, list,
// and ask again for the fills that failed.
import { unsafeMarkup } from '../../../packages/core/src/markup.js';
import { contentChanged } from '../../domain/project/revision.js';
import { markupPolicy } from '../../domain/project/projects.js';
import { normalizeLanguage } from '../../domain/project/languages.js';
import type { Knex } from 'knex';
import type { Db } from '../../infra/db.js';
import { bool, dialectOf, isUniqueViolation, parseJson, retryContended } from '../../infra/db.js';
import { ApiError, conflict, invalidArgument, notFound, Refusal } from '../../infra/errors.js';
import { bytes } from '../../infra/objects.js';
import { translatorLangs, type Handler } from '../pipeline.js';
import type { KeyRow, ProjectRow, TranslationRow } from '../../infra/tables.js';
import { cellStates } from '../../domain/catalog/cells.js';
import { editSource } from '../../domain/catalog/source-edit.js';
import { addComment, deleteComment, listComments } from '../../domain/catalog/comments.js';
import {
  addScreenshot,
  decodeImage,
  deleteScreenshot,
  listScreenshots,
  readScreenshot,
} from '../../domain/catalog/screenshots.js';
import { actorOf, recordHistory } from '../../domain/catalog/history.js';
import { filteredKeys, filterLanguage, pageCells, targetLanguages } from '../../domain/catalog/keyfilter.js';
import { pairCost, readCredit } from '../../domain/billing/credits.js';
import { enqueueFill } from '../../domain/fill/queue.js';
import { suggestTranslation } from '../../domain/fill/suggest.js';
import { resolveTargets } from '../../domain/catalog/targets.js';
import { rememberAfter } from '../../domain/memory/entries.js';
import { preTranslatePairs } from '../../domain/memory/pretranslate.js';
import { checkTranslation } from '../../domain/checks/compute.js';
import { checkContext } from '../../domain/checks/context.js';
import { checkCells } from '../../domain/checks/store.js';
import { storedChecks } from '../../domain/checks/read.js';

async function keyByRef(db: Db, projectId: string, ref: string) {
  const key = await db('keys')
    .where({ project_id: projectId })
    .andWhere((w) => {
      w.where('name', ref).orWhere('token', ref);
    })
    // As review.ts `keyByRef`: the default namespace's key first; a named namespace's is linked by its token.
    .orderBy('namespace')
    .first();
  if (!key) throw notFound('No key with this name or token.');
  return key;
}

export const internalUpdateKey: Handler<'internalUpdateKey'> = async (ctx) => {
  const { db, jobs } = ctx.app;
  const p = ctx.project;
  const key = await keyByRef(db, p.id, ctx.params.key);
  const now = Date.now();
  const { enabled, sourceVerified, source, copyEdit, sourceBase } = ctx.body;
  if (source === undefined && (copyEdit !== undefined || sourceBase !== undefined))
    throw invalidArgument('copyEdit and sourceBase go with source.');
  const row: Record<string, unknown> = { updated_at: now };
  // A person's switch settles what a sync switched off (migration 018).
  if (enabled !== undefined) Object.assign(row, { enabled, sync_disabled_at: null, sync_disabled_by: null });
  if (sourceVerified !== undefined) row.source_verified = sourceVerified;
  const aiLangs = source === undefined ? [] : await resolveTargets(db, p, undefined);
  const edited = await db.transaction(async (trx) => {
    // The source first: it marks the source verified, which an explicit `sourceVerified` then settles.
    const out =
      source === undefined
        ? undefined
        : await editSource(
            trx,
            p,
            key,
            { source, copyEdit: copyEdit ?? false, base: sourceBase },
            aiLangs,
            now,
            actorOf(ctx.actor),
          );
    await trx('keys').where({ id: key.id }).update(row);
    await contentChanged(trx, p.id, now);
    return out;
  });
  const body = {
    key: key.name,
    token: edited?.token ?? key.token,
    enabled: enabled ?? bool(key.enabled),
    sourceVerified: sourceVerified ?? (edited ? true : bool(key.source_verified)),
  };
  if (!edited) return { body };
  // Values the engine made are asked for again as a push's would be; a refused hold leaves them pending for the
  // next fill (a push, a sync, the bulk translate action) rather than refusing the person's edit.
  let trackingToken: string | null = null;
  let queued: boolean | undefined;
  if (edited.retired.length) {
    const cost = pairCost(source!, null);
    queued = true;
    try {
      trackingToken =
        (
          await db.transaction((trx) =>
            enqueueFill(
              trx,
              jobs,
              p,
              edited.retired.map((c) => ({ ...c, cost })),
              Date.now(),
            ),
          )
        )?.trackingToken ?? null;
    } catch (err) {
      if (!(err instanceof Refusal && (err.code === 'insufficient_credits' || err.code === 'spend_cap_exceeded')))
        throw err;
      queued = false;
    }
  }
  return {
    body: {
      ...body,
      source: source!,
      outdated: edited.outdated,
      trackingToken,
      ...(queued === undefined ? {} : { queued }),
    },
  };
};

/** The cell as it now is and who made its last recorded change: what a refused stale save shows beside its own. */
async function cellNow(db: Db, keyId: number, lang: string, row: TranslationRow) {
  const last = await db('translation_history as h')
    .leftJoin('dashboard_users as u', 'u.id', 'h.actor')
    .where({ 'h.key_id': keyId, 'h.lang': lang })
    .orderBy('h.id', 'desc')
    .first<{ actor: string; name: string | null } | undefined>('h.actor', 'u.name');
  return {
    value: row.value,
    status: row.status,
    origin: row.origin,
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
    by: last?.actor ?? null,
    byName: last?.name ?? null,
  };
}

/** The instant of a `baseUpdatedAt`: null for a cell that had no row, undefined when the edit names no base. */
function baseInstant(base: string | null | undefined): number | null | undefined {
  if (base == null) return base;
  const at = Date.parse(base);
  if (!Number.isFinite(at)) throw invalidArgument('baseUpdatedAt must be a date-time.');
  return at;
}

/**
 * A cell's language named in the path, normalized: only one the project translates into (one never added, or
 * removed, holds no cell), else `404` and nothing is done.
 */
async function pathLanguage(db: Db, p: ProjectRow, raw: string): Promise<string> {
  const lang = normalizeLanguage(raw);
  if (!(await targetLanguages(db, p)).includes(lang))
    throw notFound(`${raw} is not a language of this project; nothing was done.`);
  return lang;
}

export const internalPutTranslation: Handler<'internalPutTranslation'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const key = await keyByRef(db, p.id, ctx.params.key);
  if (normalizeLanguage(ctx.params.lang) === p.base_lang)
    throw invalidArgument('Edit the base language through a push or sync.');
  const lang = await pathLanguage(db, p, ctx.params.lang);
  // A translator writes values in their languages; reviewing them is someone else's (spec: internalPutTranslation).
  if (ctx.actor?.role === 'translator') {
    if (!ctx.actor.langs?.includes(lang))
      throw new Refusal('forbidden', `You do not translate ${lang} in this project.`);
    if (ctx.body.value === undefined || (ctx.body.status ?? 'translated') !== 'translated')
      throw new Refusal('forbidden', 'A translator saves values as translated; a reviewer reviews them.');
  }
  const base = baseInstant(ctx.body.baseUpdatedAt);
  // Markup that would run in an app is refused here, not only at publish: nothing stored can ship it by accident.
  const unsafe = ctx.body.value === undefined ? null : unsafeMarkup(key.source, ctx.body.value, markupPolicy(p));
  if (unsafe) throw invalidArgument(`${unsafe}.`);
  const checks = await checkContext(db, p.id);
  // The cell is read inside the transaction that writes it (locked on MySQL; SQLite transactions are IMMEDIATE), so
  // the comparison with the editor's base and the write are one step; a row a concurrent save inserted first is
  // another try, which then compares with it.
  const saved = await retryContended(
    () =>
      db.transaction(async (trx) => {
        const q = trx('translations').where({ key_id: key.id, lang });
        if (dialectOf(trx) === 'mysql') q.forUpdate();
        const existing = await q.first();
        // A status alone moves an existing value; a pending cell has none to review yet.
        if (ctx.body.value === undefined && existing?.value == null) throw notFound('No translation to review yet.');
        const row = {
          value: (ctx.body.value ?? existing!.value) as string,
          status:
            ctx.body.status ??
            (ctx.body.value !== undefined
              ? 'translated'
              : (existing!.status as 'translated' | 'reviewed' | 'approved')),
          origin: (ctx.body.value !== undefined ? 'edit' : existing!.origin) as 'ai' | 'memory' | 'import' | 'edit',
          job_id: null,
          // Later than the version it replaces even within one millisecond, so every save is a new version.
          updated_at: Math.max(Date.now(), existing ? Number(existing.updated_at) + 1 : 0),
        };
        const changes = existing?.value !== row.value || existing?.status !== row.status;
        // A value a check reports an error for is not approved (server/domain/checks/, docs/guides/checks.md).
        if (changes && row.status === 'approved') {
          const errors = checkTranslation(checks, { ...key, id: Number(key.id) }, lang, row.value).filter(
            (r) => r.severity === 'error',
          );
          if (errors.length)
            throw conflict(
              'checks_failed',
              `A check reports an error (${[...new Set(errors.map((r) => r.check))].join(', ')}); fix the value before approving it.`,
              { checks: errors },
            );
        }
        // A save based on an older state of a cell that holds a value would overwrite what someone did since.
        const stale = base !== undefined && (existing ? Number(existing.updated_at) : null) !== base;
        if (stale && existing?.value != null && changes)
          throw conflict('edit_conflict', 'This translation changed since you opened it; nothing was saved.', {
            current: await cellNow(trx, Number(key.id), lang, existing),
          });
        const now = row.updated_at;
        // A person's save settles what a sync kept out of the cell, and confirms the value for the key's current
        // source (an outdated cell is current again: server/domain/catalog/outdated.ts).
        if (existing)
          await trx('translations')
            .where({ key_id: key.id, lang })
            .update({ ...row, conflict_value: null, outdated_at: null });
        else await trx('translations').insert({ key_id: key.id, lang, project_id: p.id, ...row });
        if (changes)
          await recordHistory(trx, [
            {
              project_id: p.id,
              key_id: Number(key.id),
              lang,
              value: row.value,
              status: row.status,
              origin: row.origin,
              actor: actorOf(ctx.actor),
              created_at: now,
            },
          ]);
        if (existing?.value !== row.value)
          await checkCells(trx, p.id, [{ keyId: Number(key.id), lang, value: row.value }], checks, now);
        await contentChanged(trx, p.id, now);
        return row;
      }),
    { retryOn: isUniqueViolation },
  );
  await rememberAfter(db, ctx.app.log, p, [{ keyId: Number(key.id), lang }]);
  return {
    body: {
      key: key.name,
      lang,
      status: saved.status,
      value: saved.value,
      origin: saved.origin,
      updatedAt: new Date(saved.updated_at).toISOString(),
    },
  };
};

/**
 * The list's order (internalListKeys `sort`), ties broken by creation. `updated` reads the `sortLang` cell's
 * version through the translations' primary key (key_id, lang): one probe per key, no join over languages.
 */
function orderKeys(
  query: Knex.QueryBuilder,
  sort: string | undefined,
  sortLang: string | undefined,
  targets: string[],
) {
  const desc = sort?.startsWith('-') ? 'desc' : 'asc';
  if (sort === 'name' || sort === '-name') query.orderBy([{ column: 'k.name', order: desc }, 'k.namespace']);
  else if (sort === 'updated' || sort === '-updated') {
    const lang = filterLanguage(sortLang, targets);
    if (lang)
      query.orderByRaw(
        `(SELECT t.updated_at FROM translations t WHERE t.key_id = k.id AND t.lang = ?) ${desc === 'desc' ? 'DESC' : 'ASC'}`,
        [lang],
      );
    else query.orderBy('k.source_updated_at', desc);
  }
  query.orderBy('k.id', desc === 'desc' && sort !== '-name' ? 'desc' : 'asc');
}

export const internalListKeys: Handler<'internalListKeys'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const targets = await targetLanguages(db, p);
  // One selected row comes as a plain value of the query, several as an array.
  const tokens = ctx.query.tokens === undefined ? undefined : [ctx.query.tokens].flat();
  const { query } = await filteredKeys(db, p, { ...ctx.query, tokens }, targets);
  const offset = ctx.query.offset ?? 0;
  const limit = ctx.query.limit ?? 50;
  const [counted] = await query.clone().count({ n: '*' });
  const namespaces = (
    await db('keys').where('project_id', p.id).whereNot('namespace', '').distinct('namespace').orderBy('namespace')
  ).map((r) => r.namespace ?? '');
  const ordered = query.clone();
  orderKeys(ordered, ctx.query.sort, ctx.query.sortLang, targets);
  const rows = await ordered
    .offset(offset)
    .limit(limit)
    .select<KeyRow[]>(
      'k.id',
      'k.name',
      'k.token',
      'k.source',
      'k.forms',
      'k.ctx',
      'k.enabled',
      'k.source_verified',
      'k.captured',
      'k.namespace',
    );
  const cells = await pageCells(
    db,
    rows.map((r) => Number(r.id)),
    targets,
  );
  const sources = await storedChecks(
    db,
    rows.map((r) => Number(r.id)),
    [p.base_lang],
  );
  return {
    body: {
      ...translatorLangs(ctx.actor),
      total: Number(counted.n),
      offset,
      limit,
      langs: targets,
      keys: rows.map((k) => ({
        key: k.name,
        token: k.token,
        source: k.source,
        forms: parseJson(k.forms, null),
        ctx: k.ctx,
        enabled: bool(k.enabled),
        sourceVerified: bool(k.source_verified),
        captured: bool(k.captured),
        ...(k.namespace ? { namespace: k.namespace } : {}),
        ...(sources.has(`${k.id}|${p.base_lang}`) ? { sourceChecks: sources.get(`${k.id}|${p.base_lang}`)! } : {}),
        cells: cells.get(Number(k.id)) ?? [],
      })),
      ...(namespaces.length ? { namespaces } : {}),
    },
  };
};

/**
 * A person asks the engine again for the key's failed pairs. They are queued by the push's own path (enqueueFill:
 * the claim clears the failure, the estimate is held or refused with the push's 402), so a refused hold rolls back
 * and the pairs still read failed. Only failed pairs are queued: a retry never buys a translation that exists.
 */
export const internalRetryFill: Handler<'internalRetryFill'> = async (ctx) => {
  const { db, engine, jobs } = ctx.app;
  if (!engine)
    throw new ApiError(
      503,
      'unavailable',
      'No translation engine is configured (TRANSLATION_ENGINE=none); nothing was queued.',
    );
  const p = ctx.project;
  const key = await keyByRef(db, p.id, ctx.params.key);
  const targets = await resolveTargets(db, p, ctx.body?.langs);
  const body = {
    key: key.name,
    queued: [] as string[],
    trackingToken: null as string | null,
    estimatedCredits: 0,
    balance: 0,
  };
  // A push leaves these keys unfilled; a retry cannot do more than a push of the key would.
  const skip = !bool(key.enabled)
    ? { disabled: true as const }
    : bool(p.auto_verify) && !bool(key.source_verified)
      ? { gated: true as const }
      : null;
  if (skip) {
    body.balance = (await readCredit(db, p.workspace_id)).available;
    return { body: { ...body, ...skip } };
  }
  const keyId = Number(key.id);
  const cost = pairCost(key.source, parseJson<Record<string, string> | null>(key.forms, null));
  const now = Date.now();
  await db.transaction(async (trx) => {
    const cells = await cellStates(trx, [keyId], targets);
    const failedPairs = targets
      .filter((lang) => cells.get(`${keyId}|${lang}`)?.failed != null)
      .map((lang) => ({ keyId, lang, cost }));
    // What the memory holds at 100 or 101 is filled from it, at no charge; the rest is asked of the engine.
    const { filled, rest } = await preTranslatePairs(trx, p, failedPairs, now);
    if (filled.length) {
      Object.assign(body, { fromMemory: filled.map((q) => q.lang) });
      await contentChanged(trx, p.id, now);
    }
    const failed = rest.map((q) => q.lang);
    const q = await enqueueFill(trx, jobs, p, rest, now);
    if (q) {
      // A push claimed some of them meanwhile: they are in flight on its job, not on this one.
      const mine = new Set<string>(
        await trx('fill_pairs')
          .whereIn('job_id', trx('fill_jobs').where({ tracking_token: q.trackingToken }).select('id'))
          .pluck('lang'),
      );
      body.queued = failed.filter((lang) => mine.has(lang));
      body.trackingToken = q.trackingToken;
      body.estimatedCredits = q.estimate;
      // The markers now name this job, which decides whether a publish counts them exhausted.
      await contentChanged(trx, p.id, now);
    }
    body.balance = (await readCredit(trx, p.workspace_id, now, true)).available;
  });
  return { body };
};

// Keys group of the public API (spec: `searchKeys`, `putTranslation`; `getKey` is in review.ts): a translator's (or
// an agent's) work through a key, on the rows and rules of the dashboard's list and editor above. An edit through a
// key is recorded under `key:<api key id>` and never approves: approval stays a person's.

/** The dashboard's list without disabled and captured keys: what a publish takes, what a translator works on. */
export const searchKeys: Handler<'searchKeys'> = async (ctx) => {
  const r = await internalListKeys({ ...ctx, query: { ...ctx.query, disabled: false, captured: false } });
  // A cell's version is the dashboard grid's (an edit's base); the public list does not document it.
  const body = r.body as { keys: Array<{ cells: Array<{ updatedAt?: string | null }> }> };
  for (const k of body.keys) for (const c of k.cells) delete c.updatedAt;
  return r;
};

export const putTranslation: Handler<'putTranslation'> = async (ctx) => {
  if ((ctx.body as { status?: string }).status === 'approved')
    throw invalidArgument("Approval is a person's: mark it reviewed, and a person approves it in the dashboard.");
  const p = ctx.principal!;
  // Marking reviewed never moves an approved value down (as the dashboard's bulk review): it is answered as it is.
  if (ctx.body.value === undefined && ctx.body.status === 'reviewed') {
    const key = await keyByRef(ctx.app.db, ctx.project.id, ctx.params.key);
    const lang = normalizeLanguage(ctx.params.lang);
    const cell = await ctx.app.db('translations').where({ key_id: key.id, lang }).first('status', 'value', 'origin');
    if (cell?.status === 'approved' && cell.value != null)
      return {
        body: {
          key: key.name,
          lang,
          status: 'approved' as const,
          value: cell.value,
          origin: (cell.origin ?? 'edit') as 'ai' | 'memory' | 'import' | 'edit',
        },
      };
  }
  // The editor's save, as the key that made it (its history's `by`), never with a person's role.
  const saved = await internalPutTranslation({
    ...ctx,
    actor: { userId: `key:${p.keyId}`, name: `API key ${p.keyId}`, role: 'reviewer' },
  } as never);
  const { updatedAt: _version, ...body } = saved.body as { updatedAt?: string };
  return { body } as typeof saved;
};

export const internalListKeyComments: Handler<'internalListKeyComments'> = async (ctx) => {
  const key = await keyByRef(ctx.app.db, ctx.project.id, ctx.params.key);
  return { body: await listComments(ctx.app.db, Number(key.id)) };
};

export const internalAddKeyComment: Handler<'internalAddKeyComment'> = async (ctx) => {
  const key = await keyByRef(ctx.app.db, ctx.project.id, ctx.params.key);
  return {
    status: 201,
    body: await addComment(ctx.app.db, ctx.project.id, Number(key.id), actorOf(ctx.actor), ctx.body),
  };
};

export const internalDeleteKeyComment: Handler<'internalDeleteKeyComment'> = async (ctx) => {
  const key = await keyByRef(ctx.app.db, ctx.project.id, ctx.params.key);
  // The admin token acts for the operator, as an owner does.
  const owner = !ctx.actor || ctx.actor.role === 'owner';
  await deleteComment(ctx.app.db, Number(key.id), ctx.params.commentId, actorOf(ctx.actor), owner);
  return { status: 204 };
};

export const internalListKeyScreenshots: Handler<'internalListKeyScreenshots'> = async (ctx) => {
  const key = await keyByRef(ctx.app.db, ctx.project.id, ctx.params.key);
  return { body: { screenshots: await listScreenshots(ctx.app.db, Number(key.id)) } };
};

export const internalAddKeyScreenshot: Handler<'internalAddKeyScreenshot'> = async (ctx) => {
  const { db, objects } = ctx.app;
  const key = await keyByRef(db, ctx.project.id, ctx.params.key);
  const input = { data: decodeImage(ctx.body.image), region: ctx.body.region };
  return {
    status: 201,
    body: await addScreenshot(db, objects, ctx.project.id, Number(key.id), actorOf(ctx.actor), input),
  };
};

export const internalGetKeyScreenshot: Handler<'internalGetKeyScreenshot'> = async (ctx) => {
  const key = await keyByRef(ctx.app.db, ctx.project.id, ctx.params.key);
  const image = await readScreenshot(ctx.app.db, ctx.app.objects, Number(key.id), ctx.params.screenshotId);
  return {
    // Checked when it was added (an image of a kept type): answered as stored.
    body: bytes(image.body),
    type: image.contentType,
    headers: {
      'Cache-Control': 'private, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
      // Opened on its own, the image is a document with nothing to run.
      'Content-Security-Policy': "default-src 'none'; sandbox",
    },
  };
};

export const internalDeleteKeyScreenshot: Handler<'internalDeleteKeyScreenshot'> = async (ctx) => {
  const key = await keyByRef(ctx.app.db, ctx.project.id, ctx.params.key);
  // The admin token acts for the operator, as an owner does.
  const owner = !ctx.actor || ctx.actor.role === 'owner';
  const { db, objects } = ctx.app;
  await deleteScreenshot(db, objects, Number(key.id), ctx.params.screenshotId, actorOf(ctx.actor), owner);
  return { status: 204 };
};

export const internalSuggestTranslation: Handler<'internalSuggestTranslation'> = async (ctx) => {
  const { db, engine } = ctx.app;
  if (!engine) throw new ApiError(503, 'unavailable', 'No translation engine is configured (TRANSLATION_ENGINE=none).');
  const p = ctx.project;
  const key = await keyByRef(db, p.id, ctx.params.key);
  const lang = await pathLanguage(db, p, ctx.params.lang);
  return { body: await suggestTranslation(ctx.app, p, key, lang, ctx.body?.dryRun === true) };
};
