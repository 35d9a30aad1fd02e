// Publishing and restoring a version of a project: what POST /publish and POST /versions/{versionId}/restore do
// (spec: `publishVersion`, `restoreVersion`), for the public routes (routes.ts) and the dashboard's internal ones
// (internal.routes.ts). Neither depends on who calls: an agent key's operation is checked by the pipeline around it.
import { randomBytes } from 'node:crypto';
import type { FormatId } from '../../../packages/core/src/catalog.js';
import { markupPolicy } from '../project/projects.js';
import type { ProjectRow } from '../../infra/tables.js';
import { bool } from '../../infra/db.js';
import { conflict } from '../../infra/errors.js';
import type { App } from '../../infra/app.js';
import type { components } from '../../../generated/openapi.js';

type PublishResult = components['schemas']['PublishResult'];
import { defaultParams, exhaustedOf, type GateSummary, type PublishParams } from './build.js';
import { openVersion, storedSnapshot } from './parts-store.js';
import { runTask, threadsFor } from './pool.js';
import { preparedFor, type Prepared } from './prepare.js';
import { deleteStaged } from './store.js';
import {
  buildSnapshot,
  collisionsOf,
  publishEnv,
  refuseCollisions,
  renderSnapshot,
  reusableFor,
  type BuiltSnapshot,
  type PublishEnv,
} from './stream.js';
import { mergeListed, type RecheckOutput } from './tasks.js';
import { checkContext } from '../checks/context.js';
import { liveCellsOf } from '../checks/read.js';
import {
  checkDailyCap,
  currentVersion,
  mintVersion,
  PreparedStale,
  type MintContent,
  resolveVersion,
  storeRefusal,
  unapprovedOf,
  versionView,
  type MintInput,
} from './versions.js';

/** What a publish would mint, from the live content or from the prepared publish, before the refusals. */
interface Candidate {
  digest: string;
  gates: GateSummary;
  /** Called once every refusal has passed (rendering is the expensive part of a live publish). */
  mint: () => Promise<Omit<MintInput, 'project' | 'label' | 'restoredFrom'>>;
  /** Refusals only the live content needs checked (a prepared publish never has collisions). */
  check?: () => Promise<void>;
  /** After the mint, minted or not: its staged objects are copied or worthless. */
  done?: () => Promise<void>;
}

const newToken = () => randomBytes(12).toString('hex');

/**
 * Deletes a publish's staged objects once its mint is over. A store that refuses the delete (full, read-only) leaves
 * them under `prepared/`, outside what delivery serves; the publish's answer stands.
 */
async function dropStaged(env: PublishEnv, projectId: string, token: string): Promise<void> {
  try {
    await deleteStaged(env.objects, projectId, token);
  } catch (err) {
    env.log.warn({ err, projectId, token }, 'deleting staged objects failed');
  }
}

function liveCandidate(env: PublishEnv, project: ProjectRow, built: BuiltSnapshot, formats: FormatId[]): Candidate {
  const token = newToken();
  return {
    digest: built.digest,
    gates: built.gates,
    check: async () => refuseCollisions(await collisionsOf(env, built, formats)),
    // Rendered and staged before the mint's transaction, which then holds the database only while objects are copied.
    mint: async () => ({
      digest: built.digest,
      keyCount: built.head.keys.length,
      baseLang: built.head.baseLang,
      languages: built.head.languages,
      formats,
      unapproved: built.unapproved,
      content: {
        staged: {
          token,
          index: await renderSnapshot(
            env,
            project.id,
            token,
            storedSnapshot(env.db, project.id, built.head, built.keys),
            formats,
            await reusableFor(env, project.id, built.head, formats),
          ),
        },
        headBody: built.body,
      },
    }),
    done: () => dropStaged(env, project.id, token),
  };
}

function preparedCandidate(p: Prepared, formats: FormatId[]): Candidate {
  const s = p.summary;
  return {
    digest: p.digest,
    gates: s,
    mint: () =>
      Promise.resolve({
        digest: p.digest,
        keyCount: s.keyCount,
        baseLang: s.baseLang,
        languages: s.languages,
        formats,
        unapproved: s.unapproved,
        content: { prepared: p.source },
      }),
  };
}

const UNCHANGED = {
  unchanged: true,
  icuRejected: [] as string[],
  icuRejectedTotal: 0,
  markupRejected: [] as string[],
  markupRejectedTotal: 0,
  formatWarnings: [] as string[],
  formatWarningsTotal: 0,
};

/** The fallbacks of a version's files (packages/core/src/delivery.ts); a prepared publish from before they were kept has none. */
function warningsOf(content: MintContent) {
  const index = 'prepared' in content ? content.prepared.index : content.staged.index;
  return { formatWarnings: index.formatWarnings ?? [], formatWarningsTotal: index.formatWarningsTotal ?? 0 };
}

/** A publish's answer: the version, and whether this publish minted it (or found it unchanged). */
interface Published {
  minted: boolean;
  version: PublishResult;
}

/** The flags of a publish (spec: `PublishRequest`; the operation it runs under is the pipeline's). */
type PublishFlags = Omit<components['schemas']['PublishRequest'], 'operationId'>;

/** The refusals in their documented order, then the mint. */
async function publishCandidate(app: App, b: PublishFlags, project: ProjectRow, c: Candidate): Promise<Published> {
  const { db } = app;
  const g = c.gates;
  if (b.require_complete === true) {
    const exhausted = await exhaustedOf(db, g.markersByJob);
    const outdated = g.outdated ?? 0;
    const blocked = g.checksBlockedTotal ?? 0;
    if (g.pending > 0 || exhausted > 0 || outdated > 0 || g.icuRejectedTotal || g.markupRejectedTotal || blocked) {
      throw conflict(
        'fill_incomplete',
        `${g.pending} cells are incomplete and ${exhausted} fill markers are exhausted.` +
          (outdated ? ` ${outdated} values are outdated (their source changed since they were written).` : ''),
        {
          pending: g.pending,
          exhausted,
          refused: {
            icu: g.icuRejectedTotal,
            markup: g.markupRejectedTotal,
            // Only when the project blocks on check errors (spec: FillIncompleteError).
            ...(g.checksBlockedTotal !== undefined ? { checks: blocked } : {}),
          },
          // Only when there is one (spec: FillIncompleteError), so other refusals read as before.
          ...(outdated ? { outdated } : {}),
        },
      );
    }
  }
  await c.check?.();
  const current = await currentVersion(db, project);
  if (b.skipIfIdentical === true && current && current.digest === c.digest) {
    return { minted: false, version: versionView(current, UNCHANGED) };
  }
  await checkDailyCap(db, project.id, Date.now());
  // skipIfIdentical again under the publish lock: of concurrent identical publishes, one mints.
  let minted: Awaited<ReturnType<Candidate['mint']>>;
  let v: Awaited<ReturnType<typeof mintVersion>>;
  try {
    try {
      minted = await c.mint();
    } catch (err) {
      throw await storeRefusal(db, project, err);
    }
    v = await mintVersion(db, app.objects, {
      ...minted,
      project,
      label: b.label ?? null,
      restoredFrom: null,
      skipIfIdentical: b.skipIfIdentical === true,
    });
  } finally {
    await c.done?.();
  }
  if (v.unchanged) return { minted: false, version: versionView(v.row, UNCHANGED) };
  return {
    minted: true,
    version: versionView(v.row, {
      icuRejected: g.icuRejected,
      icuRejectedTotal: g.icuRejectedTotal,
      markupRejected: g.markupRejected,
      markupRejectedTotal: g.markupRejectedTotal,
      ...warningsOf(minted.content),
      ...checksOf(g),
    }),
  };
}

/** The answer's check counts and blocked cells (spec `PublishResult`), as far as the build counted them. */
function checksOf(g: GateSummary) {
  return {
    ...(g.checks ? { checks: g.checks } : {}),
    ...(g.checksBlocked !== undefined
      ? { checksBlocked: g.checksBlocked, checksBlockedTotal: g.checksBlockedTotal ?? g.checksBlocked.length }
      : {}),
  };
}

/** Publishes the project's live content as a new version (spec: `publishVersion`). */
export async function publishProject(app: App, project: ProjectRow, b: PublishFlags): Promise<Published> {
  const { db } = app;
  const defaults = await defaultParams(db, project);
  const { formats } = defaults;
  if (b.requiredOutputFormat !== undefined && !formats.includes(b.requiredOutputFormat)) {
    throw conflict(
      'output_format_conflict',
      `${b.requiredOutputFormat} is not a configured output format (${formats.join(', ') || 'none'}).`,
    );
  }
  // `hold` degrades to `skip` (spec: `PublishRequest.incompleteMode`): one snapshot, and one prepared publish, for both.
  const mode = b.incompleteMode === undefined ? defaults.mode : b.incompleteMode === 'source' ? 'source' : 'skip';
  const params: PublishParams = { mode, approvedOnly: b.approvedOnly === true || defaults.approvedOnly, formats };
  const prepared = await preparedFor(db, project, params);
  if (prepared) {
    try {
      return await publishCandidate(app, b, project, preparedCandidate(prepared, formats));
    } catch (err) {
      // Replaced or outdated between the choice and the mint: nothing was minted; publish the live content.
      if (!(err instanceof PreparedStale)) throw err;
    }
  }
  const env = publishEnv(app);
  return publishCandidate(
    app,
    b,
    project,
    liveCandidate(env, project, await buildSnapshot(env, project.id, params), formats),
  );
}

/** Restores a version (an id, `current` or `previous`) as a new version (spec: `restoreVersion`). */
export async function restoreProjectVersion(
  app: App,
  project: ProjectRow,
  versionRef: string,
): Promise<PublishResult & { restoredFrom: string }> {
  const { db } = app;
  const from = await resolveVersion(db, project, versionRef);
  const ws = await db('workspaces').where({ id: project.workspace_id }).first('require_approval');
  if (bool(ws!.require_approval) && !bool(from.all_approved)) {
    const { listed, total } = unapprovedOf(from);
    throw conflict('version_not_approved', `Version ${from.id} holds cells that were not approved.`, {
      unapproved: listed,
      unapproved_total: total,
    });
  }
  await checkDailyCap(db, project.id, Date.now());
  const env = publishEnv(app);
  const stored = await openVersion(db, project.id, from.id);
  const { head } = stored;
  // Copied verbatim; today's gates only warn about what they would refuse, and today's checks are counted.
  const rechecks: RecheckOutput[] = [];
  const checks = await checkContext(db, project.id);
  const live = await liveCellsOf(db, project.id, head);
  for (const lang of head.languages)
    rechecks.push(
      await runTask(threadsFor(env, head.keys.length), 'recheckLanguage', {
        head: stored.ref,
        lang,
        part: (await stored.part(lang))!,
        origins: markupPolicy(project).origins,
        checkContext: checks,
        live: await live(lang),
      }),
    );
  const total = (f: (r: RecheckOutput) => number) => rechecks.reduce((n, r) => n + f(r), 0);
  const formats = JSON.parse(from.formats) as FormatId[];
  const token = newToken();
  let v: Awaited<ReturnType<typeof mintVersion>>;
  let content: MintContent & { staged: unknown };
  try {
    const reuse = await reusableFor(env, project.id, head, formats);
    content = { staged: { token, index: await renderSnapshot(env, project.id, token, stored, formats, reuse) } };
    v = await mintVersion(db, app.objects, {
      project,
      digest: from.digest,
      keyCount: head.keys.length,
      baseLang: head.baseLang,
      languages: head.languages,
      formats,
      label: from.label,
      restoredFrom: from.id,
      unapproved: unapprovedOf(from),
      content,
    });
  } catch (err) {
    throw await storeRefusal(db, project, err);
  } finally {
    await dropStaged(env, project.id, token);
  }
  return versionView(v.row, {
    restoredFrom: from.id,
    ...warningsOf(content),
    icuRejected: mergeListed(rechecks.map((r) => r.icu)),
    icuRejectedTotal: total((r) => r.icuTotal),
    markupRejected: mergeListed(rechecks.map((r) => r.markup)),
    markupRejectedTotal: total((r) => r.markupTotal),
    checks: {
      error: total((r) => r.checks.error),
      warning: total((r) => r.checks.warning),
      info: total((r) => r.checks.info),
    },
  });
}
