// The commands of `glossa` (main.ts parses the arguments): push, wait, pull, publish, status, versions.
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import stableStringify from 'fast-json-stable-stringify';
import { unzipSync } from 'fflate';
import { baseValueOf, isTranslatable, type CatalogValue, type FormatId } from '../../core/src/catalog.js';
import { REGISTRY } from '../../core/src/formats/index.js';
import {
  batchManifest,
  previewSync,
  previewTranslate,
  sync,
  translate,
  type ApiClient,
  type SyncRequest,
  type TranslateRequest,
  type TranslateUnit,
} from '../../client/src/index.js';
import type { Config, FileMapping } from './config.js';
import { CliError, EXIT } from './errors.js';
import { expandTemplate, insideRoot, writeIfChanged } from './files.js';
import {
  baseOnlyLeftOut,
  keepXcstringsLanguages,
  languagesOutsideProject,
  refuseUnseenValues,
  type PlannedFile,
} from './local.js';
import type { Output } from './output.js';
import { sleep } from './http.js';
import { readState, writeState } from './state.js';
import { retranslateOutdated } from './outdated.js';
import { sourceWarningLines } from './check.js';
import { leverageLines, memoryLeverage } from './memory.js';
import { firstLangs, importThenSync, importThenTranslate, planImports, uploadTranslations } from './imports.js';

export interface Ctx {
  cfg: Config;
  api: ApiClient;
  out: Output;
  /** How long an agent key waits for a person's decision (ms); 0: print the link and exit 3. */
  approvalTimeoutMs: number;
  pollMs: number;
  /**
   * Sends a person to the operation's approval page: the CLI prints the link, the MCP server (mcp.ts) asks its
   * client for a URL-mode elicitation. Throws to stop waiting (a person declined to open it).
   */
  onApproval?: (op: { operation_id: string; approval_url: string }) => Promise<void>;
  /** Told once the person approved (the MCP server ends its elicitation). */
  onApproved?: (op: { operation_id: string }) => Promise<void>;
  /** Told at each poll while a person decides (the MCP server's progress notifications). */
  onWaiting?: (message: string, progress: number, total: number) => Promise<void>;
  /** The caller gave up (an MCP call cancelled or timed out, the CLI interrupted): stop waiting, send nothing more. */
  signal?: AbortSignal;
  /** An API client not bound to `signal`: withdraws the operation a run asked for once it is interrupted. */
  cleanupApi?: ApiClient;
}

interface ErrorBody {
  error?: string;
  message?: string;
  [k: string]: unknown;
}

/** A failed answer as the CLI ends on it: 409 fill_incomplete is exit 4, anything else exit 1. */
export function failed(what: string, status: number, body: unknown): CliError {
  const e = (body ?? {}) as ErrorBody;
  const code = e.error ?? 'error';
  let msg = `${what}: ${status} ${code}${e.message ? `: ${e.message}` : ''}`;
  if (status === 500) msg += ' (the write may have committed; rerunning the command is safe)';
  if (status === 409 && code === 'fill_incomplete')
    return new CliError(EXIT.incomplete, `${msg} (pending ${String(e.pending)}, exhausted ${String(e.exhausted)})`, e);
  return new CliError(EXIT.failure, msg, e);
}

/** The service's replay of a requestId's first answer (spec: `RequestId`, `Glossa-Replayed`). */
export const replayed = (res: Response) => res.headers.get('glossa-replayed') === 'true';

export const isAuthorizationRequired = (status: number, body: unknown) =>
  status === 403 && (body as ErrorBody | undefined)?.error === 'authorization_required';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** A requestId derived from what is sent: the same content sends the same id, so a rerun replays, never repeats. */
export const contentRequestId = (body: object) => `glossa-${sha256(stableStringify(body)).slice(0, 40)}`;
/**
 * Sends a body under its content-derived requestId; if the service answers `409 request_expired` (the same content
 * was sent more than 24 hours ago, so the first answer is gone), sends it again under that id and today's date:
 * registering is deduplicated by content, so the resend matches what exists and charges nothing new.
 */
export async function unexpired<B extends { requestId?: string }, A extends { response: Response; error?: unknown }>(
  ctx: Ctx,
  body: B,
  send: (b: B) => Promise<A>,
): Promise<A> {
  const r = await send(body);
  if (r.response.status !== 409 || (r.error as ErrorBody | undefined)?.error !== 'request_expired') return r;
  const day = new Date().toISOString().slice(0, 10).replace(/-/g, '');
  const requestId = `${body.requestId}-d${day}`;
  ctx.out.note(`${body.requestId} expired (sent over 24 hours ago); sending the same content as ${requestId}`);
  return send({ ...body, requestId });
}

// ------------------------------------------------------------------ operations (agent keys)

interface Operation {
  operation_id: string;
  state: string;
  approval_url: string;
}

/**
 * Withdraws an operation nobody will use any more (the call that asked was abandoned, or the person declined to
 * open its page): it leaves the person's queue and no approval given later spends anything
 * (spec: `cancelOperation`). Best effort: a failure here changes nothing the caller reports.
 */
export async function cancelOperation(api: ApiClient, operationId: string): Promise<boolean> {
  try {
    const r = await api.POST('/operations/{operationId}/cancel', { params: { path: { operationId } } });
    return r.response.ok;
  } catch {
    return false;
  }
}

/**
 * Creates the operation that covers what the key was refused (`403 authorization_required`), or finds the
 * equivalent one a person already approved (a rerun after approval: `createOperation` reuses it), and waits for the
 * decision. The state is read before the timeout is, so `--approval-timeout 0` after an approval goes on. Ends with
 * exit 3 on denial, expiry or no decision in time (the operation then stays pending: approving it and running the
 * command again goes on without asking again).
 */
export async function approved(ctx: Ctx, body: Record<string, unknown>): Promise<Operation> {
  const created = await ctx.api.POST('/operations', { body: body as never });
  if (!created.data) throw failed('create operation', created.response.status, created.error);
  const op = created.data as Operation;
  if (op.state === 'approved') {
    ctx.out.note(`Operation ${op.operation_id} is approved already; going on.`);
    return op;
  }
  if (op.state !== 'pending_approval')
    throw new CliError(EXIT.approval, `Operation ${op.operation_id} was ${op.state}.`, op);
  if (ctx.onApproval) await ctx.onApproval(op);
  else {
    ctx.out.note(`Approval needed: ${op.approval_url}`);
    ctx.out.line(`approval_url ${op.approval_url}`);
  }
  const notYet = () =>
    new CliError(
      EXIT.approval,
      ctx.approvalTimeoutMs <= 0
        ? `Operation ${op.operation_id} awaits approval at ${op.approval_url}; once a person approves it, run the command again.`
        : `Operation ${op.operation_id} was not decided within ${Math.round(ctx.approvalTimeoutMs / 1000)} s; approve it at ${op.approval_url} and run the command again.`,
      { operation_id: op.operation_id, approval_url: op.approval_url, state: 'pending_approval' },
    );
  const started = Date.now();
  const until = started + ctx.approvalTimeoutMs;
  try {
    for (;;) {
      const r = await ctx.api.GET('/operations/{operationId}', {
        params: { path: { operationId: op.operation_id } },
      });
      if (!r.data) throw failed('read operation', r.response.status, r.error);
      const state = r.data.state;
      if (state === 'approved') {
        ctx.out.note(`Operation ${op.operation_id} approved.`);
        await ctx.onApproved?.(op);
        return r.data;
      }
      if (state !== 'pending_approval')
        throw new CliError(EXIT.approval, `Operation ${op.operation_id} was ${state}.`, r.data);
      if (Date.now() >= until) throw notYet();
      await ctx.onWaiting?.(
        `Waiting for a person to approve operation ${op.operation_id} at ${op.approval_url}`,
        Math.round((Date.now() - started) / 1000),
        Math.round(ctx.approvalTimeoutMs / 1000),
      );
      await sleep(Math.min(ctx.pollMs, Math.max(0, until - Date.now())), ctx.signal);
      if (ctx.signal?.aborted) throw new CliError(EXIT.approval, 'Interrupted.');
    }
  } catch (e) {
    if (!ctx.signal?.aborted) throw e;
    // Nobody waits for this decision any more: withdrawn, it leaves the person's queue and an approval given
    // later spends nothing.
    const withdrawn = ctx.cleanupApi && (await cancelOperation(ctx.cleanupApi, op.operation_id));
    throw new CliError(
      EXIT.approval,
      `Interrupted while waiting for approval; operation ${op.operation_id} ${withdrawn ? 'is withdrawn' : 'still awaits approval'}.`,
      { operation_id: op.operation_id, state: withdrawn ? 'cancelled' : 'pending_approval' },
    );
  }
}

// ------------------------------------------------------------------ push

function abs(ctx: Ctx, p: string) {
  return path.resolve(ctx.cfg.dir, p);
}

function readSource(ctx: Ctx, m: FileMapping): string {
  try {
    return readFileSync(abs(ctx, m.source), 'utf8');
  } catch (e) {
    throw new CliError(EXIT.usage, `Cannot read ${m.source}: ${(e as Error).message}`);
  }
}

const KEY = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

function unitOf(fileKey: string, v: CatalogValue, ctxText: string | null | undefined): TranslateUnit {
  const key = KEY.test(fileKey) && fileKey.length <= 255 ? { key: fileKey } : {};
  const c = ctxText ? { ctx: ctxText } : {};
  if (v.kind === 'plural') return { ...key, ...c, forms: v.forms as TranslateUnit['forms'] } as TranslateUnit;
  return { ...key, ...c, source: v.text };
}

/** The units of a file that is not a syncable catalog: each entry's base value. */
function unitsOf(ctx: Ctx, m: FileMapping): TranslateUnit[] {
  const text = readSource(ctx, m);
  let catalog;
  try {
    catalog = REGISTRY[m.format].module.parse(text);
  } catch (e) {
    throw new CliError(EXIT.usage, `${m.source} is not a valid ${m.format} file: ${(e as Error).message}`);
  }
  const units: TranslateUnit[] = [];
  for (const e of catalog.entries) {
    if (!isTranslatable(e)) continue;
    const v = baseValueOf(e, m.format);
    if (v) units.push(unitOf(e.fileKey, v, e.ctx));
  }
  return units;
}

/**
 * A mapping pushed as the whole catalog of its namespace (a sync, so keys gone from the file are disabled: the
 * prune): every mapping with a namespace, and a syncable catalog without one. The rest go through translate.
 */
const syncedWhole = (m: FileMapping) => m.namespace !== undefined || REGISTRY[m.format].syncable;

interface PushOptions {
  dryRun: boolean;
  onConflict?: 'server' | 'file';
  /** Only the syncable catalogs (`sync`) or only the other files (`translate`); default both. */
  only?: 'sync' | 'translate';
  /** Then queue the project's outdated values again (outdated.ts). */
  retranslateOutdated?: boolean;
  /** Upload the translation files beside the base files (imports.ts); a first push (no state yet) does anyway. */
  importTranslations?: boolean;
}

const BATCH = 500;

/**
 * The keys a sync disables (its file is the project's whole catalog, so a key pushed another way is disabled too),
 * by name, and how to bring them back: a silent count hid hundreds.
 */
function disabledLines(
  out: Output,
  source: string,
  d: { disabledOrphans: number; disabledKeys?: string[] },
  dryRun: boolean,
) {
  if (!d.disabledOrphans) return;
  const names = d.disabledKeys ?? [];
  const more = d.disabledOrphans - names.length;
  out.line(
    `  ${dryRun ? 'would disable' : 'disabled'} (not in ${source}): ${names.join(', ')}${more > 0 ? `${names.length ? ', ' : ''}and ${more} more` : ''}`,
  );
  out.line(
    `  a disabled key is left out of versions and fills; it comes back when ${source} carries it again and is pushed, or when an owner enables it in the dashboard (Keys, Disabled: disabled only, bulk action Enable keys). Pushing it through /translate does not enable it.`,
  );
}

export async function push(ctx: Ctx, o: PushOptions) {
  const { cfg, api, out } = ctx;
  const state = readState(cfg.dir);
  const tokens: string[] = [];
  const report: Record<string, unknown>[] = [];
  const units: TranslateUnit[] = [];
  /** What an agent key was refused and must pay for: sent after one approval (pushDeferred). */
  const deferred: Deferred[] = [];
  const mapped = cfg.files.filter((m) => !o.only || (o.only === 'sync') === syncedWhole(m));
  // The translations beside the base files go in before their languages are queued (imports.ts).
  const imports = o.importTranslations || Object.keys(state).length === 0 ? await planImports(ctx, mapped) : null;
  const filesOf = (m: FileMapping) => imports?.files.filter((f) => f.mapping === m) ?? [];
  for (const m of cfg.files) {
    if (o.only && (o.only === 'sync') !== syncedWhole(m)) continue;
    if (!syncedWhole(m)) {
      // Pushed as units, the file is not the whole catalog of anything: what it drops stays enabled.
      out.verbose(
        `${m.source}: pushed as units; a string deleted from it is not disabled. Give its mapping a "namespace" to make it the whole catalog of one (docs/guides/cli.md).`,
      );
      units.push(...unitsOf(ctx, m));
      continue;
    }
    const text = readSource(ctx, m);
    await noteOutsideLanguages(ctx, m, text);
    const held = imports?.held.filter((l) => filesOf(m).some((f) => f.lang === l)) ?? [];
    const body: SyncRequest = {
      contentBase64: Buffer.from(text, 'utf8').toString('base64'),
      format: m.format,
      fileName: path.basename(m.source),
      ...(o.onConflict ? { onConflict: o.onConflict } : {}),
      ...(state.snapshotAt ? { pulledAt: state.snapshotAt } : {}),
      ...(held.length && !o.dryRun ? { fillExcept: held } : {}),
      ...(m.namespace !== undefined ? { namespace: m.namespace } : {}),
    };
    if (o.dryRun) {
      const r = await previewSync(api, cfg.projectId, body);
      if (!r.data) throw failed(`sync preview of ${m.source}`, r.response.status, r.error);
      const d = r.data;
      out.line(
        `${m.source}: would create ${d.created}, update ${d.updatedSources} sources, disable ${d.disabledOrphans} orphans; estimate ${d.estimatedCredits} mc; ${d.conflictsTotal} conflicts`,
      );
      for (const c of d.conflicts ?? []) out.line(`  conflict ${JSON.stringify(c)}`);
      disabledLines(out, m.source, d, true);
      sourceWarningLines(out, d);
      report.push({ file: m.source, sync: d });
      if (filesOf(m).length) report.push(...(await uploadTranslations(ctx, filesOf(m), true)));
      continue;
    }
    const sent = { ...body, requestId: contentRequestId(body) };
    out.verbose(`sync ${m.source} requestId ${sent.requestId}`);
    let r = await unexpired(ctx, sent, (b) => sync(api, cfg.projectId, b));
    if (!r.data && isAuthorizationRequired(r.response.status, r.error)) {
      const preview = await previewSync(api, cfg.projectId, body);
      if (!preview.data) throw failed(`sync preview of ${m.source}`, preview.response.status, preview.error);
      if (preview.data.estimatedCredits > 0) {
        // Sent under the run's one operation, with every other paid batch of every file (pushDeferred).
        deferred.push({
          kind: 'sync',
          mapping: m,
          body,
          sha: (preview.data as { batchSha256?: string }).batchSha256!,
          units: catalogEntries(m, text),
          mc: preview.data.estimatedCredits,
        });
        continue;
      }
      r = await sync(api, cfg.projectId, { ...body, requestId: freeRequestId(sent.requestId) });
    }
    if (!r.data) throw failed(`sync of ${m.source}`, r.response.status, r.error);
    await synced(ctx, m, body, r.data, filesOf(m), tokens, report, replayed(r.response));
  }
  const translateFiles = imports?.files.filter((f) => !syncedWhole(f.mapping)) ?? [];
  // While the files' languages wait for their import, the first batches name every other AI language (maybe none).
  const langs = imports && translateFiles.length && !o.dryRun ? { langs: firstLangs(imports) } : {};
  if (units.length) {
    const batches: TranslateRequest[] = [];
    for (let i = 0; i < units.length; i += BATCH) batches.push({ units: units.slice(i, i + BATCH), ...langs });
    if (o.dryRun) {
      let credits = 0;
      let refused = 0;
      let balance: number | undefined;
      const outcomes: Record<string, number> = {};
      const skipped = { gated: 0, disabled: 0 };
      for (const [i, b] of batches.entries()) {
        const r = await previewTranslate(api, cfg.projectId, b);
        if (!r.data) throw failed(`translate preview of batch ${i + 1}`, r.response.status, r.error);
        credits += r.data.estimatedCredits;
        balance = r.data.balance;
        if (!r.data.accepted) refused++;
        for (const u of r.data.units ?? []) outcomes[u.outcome] = (outcomes[u.outcome] ?? 0) + 1;
        skipped.gated += r.data.skippedGated ?? 0;
        skipped.disabled += r.data.skippedDisabled ?? 0;
        sourceWarningLines(out, r.data);
        report.push({ batch: i, units: b.units.length, preview: r.data });
      }
      const split = [
        `would create ${outcomes.created ?? 0}`,
        `match ${(outcomes.matched ?? 0) + (outcomes.carriedOver ?? 0)}`,
        ...(skipped.gated ? [`skip ${skipped.gated} gated`] : []),
        ...(skipped.disabled ? [`skip ${skipped.disabled} disabled`] : []),
      ].join(', ');
      out.line(`${units.length} units in ${batches.length} batches: ${split}; estimate ${credits} mc`);
      out.line(
        '  pushed as units: keys of the project missing from these files are kept (no orphans are disabled); give a mapping a "namespace" to make its file the whole catalog',
      );
      const orphans = await unitOrphans(ctx, units);
      orphanLines(out, orphans);
      report.push({ orphans });
      if (refused)
        out.line(
          `  would be refused: ${refused} of ${batches.length} batches do not fit the balance (${balance ?? '?'} mc) or the plan's key limit`,
        );
    } else {
      for (let i = 0; i < batches.length; i++) {
        const b = batches[i];
        const sent = { ...b, requestId: contentRequestId(b) };
        out.verbose(`translate batch ${i + 1}/${batches.length} requestId ${sent.requestId}`);
        let r = await unexpired(ctx, sent, (b) => translate(api, cfg.projectId, b));
        if (!r.data && isAuthorizationRequired(r.response.status, r.error)) {
          const p = await previewTranslate(api, cfg.projectId, b);
          if (!p.data) throw failed(`translate preview of batch ${i + 1}`, p.response.status, p.error);
          if (p.data.estimatedCredits > 0) {
            deferred.push({
              kind: 'translate',
              index: i,
              batch: b,
              sha: p.data.batchSha256 ?? '',
              mc: p.data.estimatedCredits,
            });
            continue;
          }
          // Nothing to pay for (a rerun whose first answer was this refusal): sent again, free, under a new id.
          r = await translate(api, cfg.projectId, { ...b, requestId: freeRequestId(sent.requestId) });
        }
        if (!r.data) throw failed(`translate batch ${i + 1}`, r.response.status, r.error);
        if (r.data.trackingToken) tokens.push(r.data.trackingToken);
        out.progress('push', i + 1, batches.length);
        const again = replayed(r.response);
        report.push({
          batch: i,
          units: b.units.length,
          result: summarize(r.data),
          ...(again ? { replayed: true } : {}),
        });
        out.line(
          again
            ? `batch ${i + 1}/${batches.length}: unchanged since the same push ran (replayed); nothing created or charged now`
            : `batch ${i + 1}/${batches.length}: ${describe(r.data)}`,
        );
        sourceWarningLines(out, r.data);
      }
    }
  }
  if (deferred.length) await pushDeferred(ctx, deferred, filesOf, tokens, report);
  if (imports && translateFiles.length) {
    if (o.dryRun) report.push(...(await uploadTranslations(ctx, translateFiles, true)));
    else tokens.push(...(await importThenTranslate(ctx, imports, translateFiles, units, report)));
  }
  if (o.retranslateOutdated) {
    const again = await retranslateOutdated(ctx, o.dryRun);
    if (again.token) tokens.push(again.token);
    report.push(again.report);
  }
  // What the memory would fill at no charge of what is still to translate (memory.ts); a remark, never a failure.
  const leverage = o.dryRun ? await memoryLeverage(ctx).catch(() => null) : null;
  if (leverage) for (const line of leverageLines(leverage as never)) out.line(line);
  if (!o.dryRun) writeState(cfg.dir, { trackingTokens: tokens });
  out.result({ ok: true, dryRun: o.dryRun, trackingTokens: tokens, report, ...(leverage ? { memory: leverage } : {}) });
  return EXIT.ok;
}

/** Keys listed by name in a dry run's orphan lines; the counts count all. */
const ORPHANS_NAMED = 20;
/** Pages of the project's keys a dry run reads for its orphans (200 keys each). */
const ORPHAN_PAGES = 50;

interface UnitOrphans {
  /** Enabled keys of the default namespace that no file pushed as units carries: kept by this push. */
  kept: string[];
  keptTotal: number;
  /** The project has more keys than the dry run read: `keptTotal` is at least this. */
  partial?: true;
}

/**
 * The translate path's orphans: the enabled keys of the default namespace (where units go) that the file no longer
 * carries. A push of units disables none of them (only a sync, the whole catalog of a namespace, does; and a config
 * of several files gives each its own namespace, config.ts), so the dry run names them as kept: what a "namespace"
 * mapping would disable, and what a deleted string leaves behind.
 */
async function unitOrphans(ctx: Ctx, units: TranslateUnit[]): Promise<UnitOrphans> {
  const carried = new Set(units.map((u) => u.key).filter((k): k is string => k !== undefined));
  const kept: string[] = [];
  let total = 0;
  let offset = 0;
  let pages = 0;
  for (; pages < ORPHAN_PAGES; pages++) {
    const r = await ctx.api.GET('/projects/{projectId}/keys', {
      params: { path: { projectId: ctx.cfg.projectId }, query: { namespace: '', limit: 200, offset } },
    });
    if (!r.data) throw failed('list keys', r.response.status, r.error);
    for (const k of r.data.keys) if (!carried.has(k.key)) kept.push(k.key);
    offset += r.data.keys.length;
    total = r.data.total;
    if (!r.data.keys.length || offset >= total) break;
  }
  return {
    kept: kept.slice(0, ORPHANS_NAMED),
    keptTotal: kept.length,
    ...(offset < total ? { partial: true as const } : {}),
  };
}

function orphanLines(out: Output, o: UnitOrphans) {
  const names = (keys: string[], total: number) =>
    `${keys.join(', ')}${total > keys.length ? ` and ${total - keys.length}${o.partial ? '+' : ''} more` : ''}`;
  if (o.keptTotal)
    out.line(
      `  orphans: ${o.keptTotal}${o.partial ? '+' : ''} keys of the project are in none of these files, and stay enabled: ${names(o.kept, o.keptTotal)}`,
    );
  else out.line('  orphans: none (every key of the project is in these files)');
}

/** A multi-language file's languages the project has not: left out of the push and kept by a pull, said on stderr. */
async function noteOutsideLanguages(ctx: Ctx, m: FileMapping, text: string) {
  if (!REGISTRY[m.format].multiLanguage) return;
  const meta = await ctx.api.GET('/projects/{projectId}/meta', { params: { path: { projectId: ctx.cfg.projectId } } });
  // Only a remark: the push itself reports what goes wrong with the project.
  if (!meta.data) return;
  const outside = languagesOutsideProject(
    m.format,
    text,
    meta.data.languages.map((l) => l.code),
  );
  if (outside.length)
    ctx.out.note(
      `${m.source}: ${outside.join(', ')} ${outside.length === 1 ? 'is not a language' : 'are not languages'} of the project: the push leaves ${outside.length === 1 ? 'it' : 'them'} out and a pull keeps ${outside.length === 1 ? 'it' : 'them'} in the file (add ${outside.length === 1 ? 'it' : 'them'} to the project to translate ${outside.length === 1 ? 'it' : 'them'} there).`,
    );
}

type Translated = { units: Array<{ outcome: string }>; estimatedCredits: number; trackingToken: string | null };

function summarize(d: Translated) {
  const outcomes: Record<string, number> = {};
  for (const u of d.units) outcomes[u.outcome] = (outcomes[u.outcome] ?? 0) + 1;
  return { outcomes, estimatedCredits: d.estimatedCredits, trackingToken: d.trackingToken };
}

function describe(d: Translated) {
  const s = summarize(d);
  return `${Object.entries(s.outcomes)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')}; ${d.estimatedCredits} mc${d.trackingToken ? `; tracking ${d.trackingToken}` : ''}`;
}

/** A batch an agent key was refused: a whole catalog (sync) or a translate batch, with its preview. */
type Deferred =
  | { kind: 'sync'; mapping: FileMapping; body: SyncRequest; sha: string; units: number; mc: number }
  | { kind: 'translate'; index: number; batch: TranslateRequest; sha: string; mc: number };

/** The entries of a catalog file: a sync batch's `unit_count` (the service parses it when this cannot). */
function catalogEntries(m: FileMapping, text: string): number {
  try {
    return Math.max(1, REGISTRY[m.format].module.parse(text).entries.length);
  } catch {
    return 1;
  }
}

/**
 * The id a body is sent under again when its first answer was a refusal that no longer holds (`403
 * authorization_required` recorded under the content's id, and nothing to pay for now): derived, so a rerun replays
 * it as well.
 */
export const freeRequestId = (requestId: string) => contentRequestId({ free: requestId });

/** A sync's answer: printed, reported, and the held languages' files imported (imports.ts). */
async function synced(
  ctx: Ctx,
  m: FileMapping,
  body: SyncRequest,
  d: NonNullable<Awaited<ReturnType<typeof sync>>['data']>,
  files: Parameters<typeof importThenSync>[1],
  tokens: string[],
  report: Record<string, unknown>[],
  again = false,
) {
  const { out } = ctx;
  if (d.trackingToken) tokens.push(d.trackingToken);
  report.push({ file: m.source, sync: d, ...(again ? { replayed: true } : {}) });
  if (again) {
    // The first answer again, byte for byte: its counts are what that push did, not this one.
    out.line(`${m.source}: unchanged since the same push ran (replayed); nothing created or charged now`);
    return;
  }
  out.line(
    `${m.source}: ${d.created} created, ${d.updatedSources} sources updated, ${d.matchedSources} matched, ${d.disabledOrphans} orphans disabled, ${d.conflictsTotal} conflicts; ${d.estimatedCredits} mc`,
  );
  if (d.adopted)
    out.line(
      `  ${d.adopted} keys moved into namespace ${m.namespace ?? ''} with their translations (nothing is translated or charged again)`,
    );
  disabledLines(out, m.source, d, false);
  sourceWarningLines(out, d);
  if (files.length) {
    const token = await importThenSync(ctx, files, body, report);
    if (token) tokens.push(token);
  }
}

/**
 * Agent keys: every batch of the run that costs (each file's sync, each translate batch) in one manifest, so one
 * approval covers the run; batches naming other languages (imports.ts holds some back) need an operation of their
 * own, since an operation covers one set of languages (gate.ts). Then exactly those batches are sent.
 */
async function pushDeferred(
  ctx: Ctx,
  deferred: Deferred[],
  filesOf: (m: FileMapping) => Parameters<typeof importThenSync>[1],
  tokens: string[],
  report: Record<string, unknown>[],
) {
  const { api, cfg, out } = ctx;
  const groups = new Map<string, Deferred[]>();
  for (const d of deferred) {
    const langs = d.kind === 'translate' && d.batch.langs ? [...d.batch.langs].sort().join(',') : '*';
    groups.set(langs, [...(groups.get(langs) ?? []), d]);
  }
  for (const group of groups.values()) {
    const unitsOfBatch = (d: Deferred) => (d.kind === 'sync' ? d.units : d.batch.units.length);
    const manifest = await batchManifest(group.map((d) => ({ sha256: d.sha, unit_count: unitsOfBatch(d) })));
    const mc = group.reduce((n, d) => n + d.mc, 0);
    const langs = group[0].kind === 'translate' ? group[0].batch.langs : undefined;
    const op = await approved(ctx, {
      action: 'translate',
      max_credits: Math.max(1, Math.ceil(mc / 1000)),
      scope: {
        project_id: cfg.projectId,
        ...(langs ? { langs } : {}),
        unit_count: group.reduce((n, d) => n + unitsOfBatch(d), 0),
        ...manifest,
      },
    });
    const attemptId = randomUUID();
    for (const [i, d] of group.entries()) {
      if (ctx.signal?.aborted) throw new CliError(EXIT.failure, 'The call was cancelled; nothing more was sent.');
      const under = { operationId: op.operation_id, attemptId, batchIndex: i, batchSha256: d.sha };
      if (d.kind === 'sync') {
        const body = { ...d.body, ...under };
        const r = await sync(api, cfg.projectId, { ...body, requestId: contentRequestId(body) });
        if (!r.data) throw failed(`sync of ${d.mapping.source} under ${op.operation_id}`, r.response.status, r.error);
        await synced(ctx, d.mapping, d.body, r.data, filesOf(d.mapping), tokens, report);
        continue;
      }
      const body = { ...d.batch, ...under };
      const r = await translate(api, cfg.projectId, { ...body, requestId: contentRequestId(body) });
      if (!r.data) throw failed(`translate batch ${d.index + 1} under ${op.operation_id}`, r.response.status, r.error);
      if (r.data.trackingToken) tokens.push(r.data.trackingToken);
      report.push({ batch: d.index, operationId: op.operation_id, result: summarize(r.data) });
      out.line(`batch ${d.index + 1} (operation ${op.operation_id}): ${describe(r.data)}`);
    }
  }
}

// ------------------------------------------------------------------ wait

const FINAL = new Set(['done', 'failed', 'aborted_no_credits', 'cancelled']);

export async function wait(ctx: Ctx, o: { tokens?: string[]; timeoutMs: number; strict: boolean }) {
  const { cfg, api, out } = ctx;
  const tokens = o.tokens?.length ? o.tokens : (readState(cfg.dir).trackingTokens ?? []);
  const until = Date.now() + o.timeoutMs;
  const results: Array<{ trackingToken: string; status: string; summary: Record<string, number> }> = [];
  for (const token of tokens) {
    let lastLine = '';
    for (;;) {
      const r = await api.GET('/projects/{projectId}/translations', {
        params: { path: { projectId: cfg.projectId }, query: { trackingToken: token } },
      });
      if (!r.data) throw failed(`poll ${token}`, r.response.status, r.error);
      const d = r.data as {
        status: string;
        summary: { total: number; translated: number; pending: number; failed: number };
      };
      out.progress(token, d.summary.translated + d.summary.failed, d.summary.total);
      const line = `${token}: ${d.status}, ${d.summary.translated}/${d.summary.total} translated, ${d.summary.failed} failed`;
      if (!out.tty && line !== lastLine) out.line(line);
      lastLine = line;
      if (FINAL.has(d.status)) {
        results.push({ trackingToken: token, status: d.status, summary: d.summary });
        break;
      }
      if (Date.now() >= until)
        throw new CliError(EXIT.failure, `${token} not finished within ${o.timeoutMs / 1000} s (${d.status}).`);
      await ctx.onWaiting?.(line, d.summary.translated + d.summary.failed, d.summary.total);
      await sleep(ctx.pollMs, ctx.signal);
      if (ctx.signal?.aborted) throw new CliError(EXIT.failure, 'The call was cancelled.');
    }
    // A terminal's bar is erased at the end: each job's outcome stays as a line.
    if (out.tty) out.line(lastLine);
  }
  out.clearBar();
  const failedPairs = results.reduce((n, r) => n + r.summary.failed, 0);
  const bad = results.filter((r) => r.status !== 'done');
  out.result({ ok: bad.length === 0 && !(o.strict && failedPairs > 0), jobs: results, failedPairs });
  if (!tokens.length) out.line('Nothing to wait for.');
  if (failedPairs) out.line(`${failedPairs} pairs failed to translate (see glossa status).`);
  if (bad.length)
    throw new CliError(EXIT.failure, bad.map((r) => `${r.trackingToken} ended ${r.status}`).join('; '), results);
  if (o.strict && failedPairs) throw new CliError(EXIT.incomplete, `${failedPairs} pairs failed.`, results);
  return EXIT.ok;
}

// ------------------------------------------------------------------ pull

/** A language code as the API spells them (`de`, `pt-br`, `zh-hans`): never a path. */
const LANGUAGE_CODE = /^[A-Za-z0-9]{1,8}(?:[-_][A-Za-z0-9]{1,8}){0,7}$/;

export async function pull(ctx: Ctx, o: { version: string; force?: boolean }) {
  const { cfg, api, out } = ctx;
  const list = await api.GET('/projects/{projectId}/versions', { params: { path: { projectId: cfg.projectId } } });
  if (!list.data) throw failed('list versions', list.response.status, list.error);
  const id = o.version === 'current' ? list.data.currentVersion : o.version;
  const v = list.data.versions.find((x) => x.versionId === id);
  if (!id || !v) throw new CliError(EXIT.failure, `No version ${o.version} in project ${cfg.projectId}.`);
  const [base] = v.languages;
  const notLanguage = v.languages.find((l) => !LANGUAGE_CODE.test(l));
  if (notLanguage !== undefined)
    throw new CliError(
      EXIT.failure,
      `Version ${id} names a language ${JSON.stringify(notLanguage)} that is no language code; nothing was written.`,
    );
  const written: string[] = [];
  const unchanged: string[] = [];
  // Every file is placed first and each place checked to lie inside the project, then written: a refused path
  // leaves the project as it was.
  const planned: PlannedFile[] = [];
  const put = (dest: string, bytes: Uint8Array, format?: FormatId, lang?: string, namespace?: string) =>
    planned.push({ dest: insideRoot(cfg.dir, dest), bytes, format, lang, namespace });
  // Each mapping pulls its own namespace's files (spec: getTranslations `namespace`).
  const groups = [
    ...new Map(
      cfg.files.map((m) => [`${m.format}/${m.namespace ?? ''}`, { format: m.format, ns: m.namespace }]),
    ).values(),
  ];
  const exported = async (version: string, format: FormatId, ns?: string) => {
    const get = (namespace?: string) =>
      api.GET('/projects/{projectId}/translations', {
        params: {
          path: { projectId: cfg.projectId },
          query: { version, format, ...(namespace !== undefined ? { namespace } : {}) },
        },
        parseAs: 'arrayBuffer',
      });
    let r = await get(ns);
    // A namespace the version does not have yet: the project's keys were pushed before the config mapped several
    // files (or another way), so they are in the default namespace until the next push takes them in (a sync's
    // adoption, docs/decisions/0016-namespaces.md). Until then the mapping reads the default one, as before.
    if (!r.data && ns !== undefined && r.response.status === 404 && version === id) {
      out.note(`${id} has no namespace ${ns} yet (the next push moves its keys there); pulling the default namespace`);
      r = await get(undefined);
    }
    if (!r.data)
      throw failed(
        `pull ${format}${ns ? ` (namespace ${ns})` : ''}${version === id ? '' : ` of ${version}`}`,
        r.response.status,
        r.error,
      );
    return new Uint8Array(r.data);
  };
  // One request per format and namespace (a zip of every language, or the one multi-language file), all at once.
  const answers = await Promise.all(groups.map(({ format, ns }) => exported(id, format, ns)));
  for (const [fi, { format, ns }] of groups.entries()) {
    const maps = cfg.files.filter((m) => m.format === format && m.namespace === ns);
    if (REGISTRY[format].multiLanguage) {
      for (const m of maps) {
        const dest = insideRoot(cfg.dir, m.template ?? m.source);
        put(
          dest,
          format === 'xcstrings' ? keepXcstringsLanguages(out, cfg.dir, dest, answers[fi], v.languages) : answers[fi],
        );
      }
      continue;
    }
    const entries = unzipSync(answers[fi]);
    const info = REGISTRY[format];
    for (const lang of v.languages) {
      const isBase = lang === base;
      if (isBase && !cfg.includeBase) continue;
      const local = cfg.languageMap[lang] ?? lang;
      for (const m of maps) {
        const dest = expandTemplate(m.template!, local);
        const file = entries[info.path(lang, isBase)];
        if (!file) throw new CliError(EXIT.failure, `The ${format} export of ${id} has no file for ${lang}.`);
        put(dest, isBase ? file : baseOnlyLeftOut(cfg.dir, out, m, dest, file), format, lang, ns);
        const companion = info.companion && entries[info.companion.path(lang)];
        if (companion && dest.endsWith('.strings'))
          put(dest.replace(/\.strings$/, `.${info.companion!.extension}`), companion);
      }
    }
  }
  if (!o.force) await refuseUnseenValues(cfg.dir, planned, earlierVersions(ctx, list.data, id, exported));
  for (const { dest, bytes } of planned)
    (writeIfChanged(cfg.dir, dest, bytes) ? written : unchanged).push(path.relative(cfg.dir, dest));
  writeState(cfg.dir, { pulledVersion: id, snapshotAt: v.snapshotAt });
  for (const f of written) out.line(`wrote ${f}`);
  out.line(`${id}: ${written.length} files written, ${unchanged.length} unchanged`);
  out.result({ ok: true, version: id, snapshotAt: v.snapshotAt, written, unchanged });
  return EXIT.ok;
}

/** How many versions before the one pulled a pull compares local values with (beside the one it last pulled). */
const EARLIER = 5;

/**
 * Readers of one language's file in the versions a local value may have come from: the one the CLI last pulled
 * (`.glossa/state.json`), then the versions before `id` (a checkout whose state was not kept, or a value older than
 * the last pull). Each format's export is fetched once, when first asked for.
 */
function earlierVersions(
  ctx: Ctx,
  list: { versions: Array<{ versionId: string; languages: string[] }> },
  id: string,
  exported: (version: string, format: FormatId, ns?: string) => Promise<Uint8Array>,
) {
  const last = readState(ctx.cfg.dir).pulledVersion;
  const at = list.versions.findIndex((x) => x.versionId === id);
  const before = list.versions.slice(at + 1, at + 1 + EARLIER);
  const versions = [
    ...list.versions.filter((x) => x.versionId === last && last !== id),
    ...before.filter((x) => x.versionId !== last),
  ];
  return versions.map((ver) => {
    const zips = new Map<string, Promise<Record<string, Uint8Array> | null>>();
    return async (format: FormatId, lang: string, ns?: string) => {
      if (!ver.languages.includes(lang)) return null;
      let zip = zips.get(`${format}/${ns ?? ''}`);
      if (!zip) {
        // A version that cannot be read (or has no such namespace) explains nothing; the comparison goes on without it.
        zip = exported(ver.versionId, format, ns).then(
          (b) => unzipSync(b),
          () => null,
        );
        zips.set(`${format}/${ns ?? ''}`, zip);
      }
      return (await zip)?.[REGISTRY[format].path(lang, lang === ver.languages[0])] ?? null;
    };
  });
}

// ------------------------------------------------------------------ publish, status, versions

interface PublishOptions {
  label?: string;
  incompleteMode?: 'source' | 'skip' | 'hold';
  approvedOnly?: boolean;
  requireComplete?: boolean;
  requiredOutputFormat?: string;
  skipIfIdentical?: boolean;
  strict: boolean;
}

type PublishAnswer = {
  versionId: string;
  unchanged?: boolean;
  icuRejectedTotal?: number;
  markupRejectedTotal?: number;
};

export async function publish(ctx: Ctx, o: PublishOptions) {
  const { cfg, api, out } = ctx;
  const body: Record<string, unknown> = {};
  if (o.label !== undefined) body.label = o.label;
  if (o.incompleteMode) body.incompleteMode = o.incompleteMode;
  if (o.approvedOnly !== undefined) body.approvedOnly = o.approvedOnly;
  if (o.requireComplete !== undefined) body.require_complete = o.requireComplete;
  if (o.requiredOutputFormat) body.requiredOutputFormat = o.requiredOutputFormat;
  if (o.skipIfIdentical !== undefined) body.skipIfIdentical = o.skipIfIdentical;
  const send = (b: Record<string, unknown>) =>
    api.POST('/projects/{projectId}/publish', { params: { path: { projectId: cfg.projectId } }, body: b });
  let r = await send(body);
  if (!r.data && isAuthorizationRequired(r.response.status, r.error)) {
    const scope: Record<string, unknown> = {
      project_id: cfg.projectId,
      approved_only: o.approvedOnly ?? false,
      require_complete: o.requireComplete ?? false,
    };
    if (o.incompleteMode) scope.incomplete_mode = o.incompleteMode;
    const op = await approved(ctx, { action: 'publish', scope });
    r = await send({ ...body, operationId: op.operation_id });
  }
  if (!r.data) throw failed('publish', r.response.status, r.error);
  const d = r.data as PublishAnswer;
  const refused = (d.icuRejectedTotal ?? 0) + (d.markupRejectedTotal ?? 0);
  out.line(d.unchanged ? `${d.versionId} unchanged (nothing new to publish)` : `published ${d.versionId}`);
  if (refused) out.line(`${refused} cells refused by the ICU and markup gates`);
  out.result({ ok: !(o.strict && refused), ...d });
  if (o.strict && refused) throw new CliError(EXIT.incomplete, `${refused} cells refused by the gates.`, d);
  return EXIT.ok;
}

export async function status(ctx: Ctx, o: { failIfIncomplete: boolean; gates: boolean }) {
  const { cfg, api, out } = ctx;
  const r = await api.GET('/projects/{projectId}/status', {
    params: { path: { projectId: cfg.projectId }, query: o.gates ? { gates: 'true' } : {} },
  });
  if (!r.data) throw failed('status', r.response.status, r.error);
  const d = r.data;
  out.line(`${d.keyCount} keys, base ${d.baseLang}, current version ${d.currentVersion ?? 'none'}`);
  for (const l of d.languages) {
    const done = l.translated + l.reviewed + l.approved;
    const pct = d.keyCount ? Math.floor((done / d.keyCount) * 100) : 100;
    out.line(
      `${l.code.padEnd(8)} ${String(pct).padStart(3)}%  ${done}/${d.keyCount} done, ${l.pending} pending, ${l.failed} failed, ${l.missing} missing${l.outdated ? `, ${l.outdated} outdated (source changed; glossa push --retranslate-outdated)` : ''}${l.complete ? '' : '  INCOMPLETE'}`,
    );
    const named = (l as { failedKeys?: Array<{ key: string; reason: string }> }).failedKeys ?? [];
    for (const f of named) out.line(`  failed ${f.key} [${l.code}]: ${f.reason}`);
    if (l.failed > named.length) out.line(`  and ${l.failed - named.length} more failed in ${l.code}`);
  }
  const refused = d.gates ? d.gates.icuRejectedTotal + d.gates.markupRejectedTotal : 0;
  if (d.gates) {
    out.line(`gates: ${d.gates.icuRejectedTotal} cells refused by ICU, ${d.gates.markupRejectedTotal} by markup`);
    for (const c of [...d.gates.icuRejected, ...d.gates.markupRejected]) out.line(`  refused ${c}`);
  }
  const incomplete = d.languages.filter((l) => !l.complete).map((l) => l.code);
  const bad = o.failIfIncomplete && (incomplete.length > 0 || refused > 0);
  out.result({ ok: !bad, ...d, incomplete });
  if (bad)
    throw new CliError(
      EXIT.incomplete,
      [
        incomplete.length ? `Incomplete: ${incomplete.join(', ')}.` : '',
        refused ? `${refused} cells refused by the gates.` : '',
      ]
        .filter(Boolean)
        .join(' '),
      d,
    );
  return EXIT.ok;
}

export async function versionsList(ctx: Ctx) {
  const { cfg, api, out } = ctx;
  const r = await api.GET('/projects/{projectId}/versions', { params: { path: { projectId: cfg.projectId } } });
  if (!r.data) throw failed('list versions', r.response.status, r.error);
  for (const v of r.data.versions)
    out.line(
      `${v.current ? '*' : ' '} ${v.versionId}  ${v.snapshotAt}  ${v.keyCount} keys  ${v.languages.join(',')}${v.label ? `  ${v.label}` : ''}${v.restoredFrom ? `  (restored from ${v.restoredFrom})` : ''}`,
    );
  out.result({ ok: true, ...r.data });
  return EXIT.ok;
}

export async function versionsRestore(ctx: Ctx, versionId: string) {
  const { cfg, api, out } = ctx;
  const send = (body: Record<string, unknown>) =>
    api.POST('/projects/{projectId}/versions/{versionId}/restore', {
      params: { path: { projectId: cfg.projectId, versionId } },
      body: body,
    });
  let r = await send({});
  if (!r.data && isAuthorizationRequired(r.response.status, r.error)) {
    const op = await approved(ctx, {
      action: 'rollback',
      scope: { project_id: cfg.projectId, from_version: 'current', to_version: versionId },
    });
    r = await send({ operationId: op.operation_id });
  }
  if (!r.data) throw failed(`restore ${versionId}`, r.response.status, r.error);
  out.line(`restored ${r.data.restoredFrom} as ${r.data.versionId}`);
  out.result({ ok: true, ...r.data });
  return EXIT.ok;
}
