// POST /publish and POST /versions/{versionId}/restore (spec: `publishVersion`, `restoreVersion`).
import type { FormatId } from '../../publisher/catalog.js';
import { renderDelivery } from '../../publisher/delivery.js';
import { capList, rejectionLabel as label } from '../../publisher/gates.js';
import { serializeSnapshot } from '../../publisher/snapshot.js';
import { getProject } from '../config/projects.js';
import type { ProjectRow } from '../platform/tables.js';
import { bool } from '../platform/db.js';
import { conflict } from '../platform/errors.js';
import type { ReplyOf } from '../platform/contract.js';
import type { Ctx, Handler } from '../platform/pipeline.js';
import { collisionCheck } from './pull.js';
import {
  buildSnapshot,
  cellGate,
  defaultParams,
  exhaustedOf,
  gateSummary,
  unapprovedIn,
  type Built,
  type GateSummary,
  type PublishParams,
} from './build.js';
import { preparedFor, type Prepared } from './prepare.js';
import {
  checkDailyCap,
  currentVersion,
  loadSnapshot,
  mintVersion,
  PreparedStale,
  type MintContent,
  resolveVersion,
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
  check?: () => void;
}

function liveCandidate(built: Built, formats: FormatId[]): Candidate {
  const { snapshot } = built;
  const serialized = serializeSnapshot(snapshot);
  return {
    digest: serialized.digest,
    gates: gateSummary(built),
    check: () => collisionCheck(snapshot, formats),
    mint: async () => ({
      digest: serialized.digest,
      keyCount: snapshot.keys.length,
      baseLang: snapshot.baseLang,
      languages: snapshot.languages,
      formats,
      // Rendered before the mint's transaction, which then holds the database only while objects are written.
      unapproved: unapprovedIn(snapshot),
      content: { body: serialized.body, rendered: await renderDelivery(snapshot, formats) },
    }),
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

/** The fallbacks of a version's files (publisher/delivery.ts); a prepared publish from before they were kept has none. */
function warningsOf(content: MintContent) {
  const index = 'rendered' in content ? content.rendered : content.prepared.index;
  return { formatWarnings: index.formatWarnings ?? [], formatWarningsTotal: index.formatWarningsTotal ?? 0 };
}

/** The refusals in their documented order, then the mint. */
async function publishCandidate(
  ctx: Ctx<'publishVersion'>,
  project: ProjectRow,
  c: Candidate,
): Promise<ReplyOf<'publishVersion'>> {
  const { db } = ctx.app;
  const b = ctx.body ?? {};
  const g = c.gates;
  if (b.require_complete === true) {
    const exhausted = await exhaustedOf(db, g.markersByJob);
    if (g.pending > 0 || exhausted > 0 || g.icuRejectedTotal || g.markupRejectedTotal) {
      throw conflict(
        'fill_incomplete',
        `${g.pending} cells are incomplete and ${exhausted} fill markers are exhausted.`,
        {
          pending: g.pending,
          exhausted,
          refused: { icu: g.icuRejectedTotal, markup: g.markupRejectedTotal },
        },
      );
    }
  }
  c.check?.();
  const current = await currentVersion(db, project);
  if (b.skipIfIdentical === true && current && current.digest === c.digest) {
    return { status: 200, body: versionView(current, UNCHANGED) };
  }
  await checkDailyCap(db, project.id, Date.now());
  // skipIfIdentical again under the publish lock: of concurrent identical publishes, one mints.
  const minted = await c.mint();
  const v = await mintVersion(db, ctx.app.objects, {
    ...minted,
    project,
    label: b.label ?? null,
    restoredFrom: null,
    skipIfIdentical: b.skipIfIdentical === true,
  });
  if (v.unchanged) return { status: 200, body: versionView(v.row, UNCHANGED) };
  return {
    status: 201,
    body: versionView(v.row, {
      icuRejected: g.icuRejected,
      icuRejectedTotal: g.icuRejectedTotal,
      markupRejected: g.markupRejected,
      markupRejectedTotal: g.markupRejectedTotal,
      ...warningsOf(minted.content),
    }),
  };
}

export const publishVersion: Handler<'publishVersion'> = async (ctx) => {
  const { db } = ctx.app;
  const b = ctx.body ?? {};
  const project = await getProject(db, ctx.params.projectId);
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
      return await publishCandidate(ctx, project, preparedCandidate(prepared, formats));
    } catch (err) {
      // Replaced or outdated between the choice and the mint: nothing was minted; publish the live content.
      if (!(err instanceof PreparedStale)) throw err;
    }
  }
  return publishCandidate(ctx, project, liveCandidate(await buildSnapshot(db, project.id, params), formats));
};

export const restoreVersion: Handler<'restoreVersion'> = async (ctx) => {
  const { db } = ctx.app;
  const project = await getProject(db, ctx.params.projectId);
  const from = await resolveVersion(db, project, ctx.params.versionId);
  const ws = await db('workspaces').where({ id: project.workspace_id }).first('require_approval');
  if (bool(ws!.require_approval) && !bool(from.all_approved)) {
    const { listed, total } = unapprovedOf(from);
    throw conflict('version_not_approved', `Version ${from.id} holds cells that were not approved.`, {
      unapproved: listed,
      unapproved_total: total,
    });
  }
  await checkDailyCap(db, project.id, Date.now());
  const snapshot = await loadSnapshot(db, project.id, from.id);
  // Copied verbatim; today's gates only warn about what they would refuse.
  const icu: string[] = [];
  const markup: string[] = [];
  for (const k of snapshot.keys) {
    for (const [lang, c] of Object.entries(k.cells)) {
      if (c.fallback) continue;
      const gate = cellGate(k.source, c.value, lang, c.imported === true);
      if (gate.icu) icu.push(label(k.name, lang));
      else if (gate.markup) markup.push(label(k.name, lang));
    }
  }
  const formats = JSON.parse(from.formats) as FormatId[];
  const serialized = serializeSnapshot(snapshot);
  const rendered = await renderDelivery(snapshot, formats);
  const v = await mintVersion(db, ctx.app.objects, {
    project,
    digest: serialized.digest,
    keyCount: snapshot.keys.length,
    baseLang: snapshot.baseLang,
    languages: snapshot.languages,
    formats,
    label: from.label,
    restoredFrom: from.id,
    unapproved: unapprovedOf(from),
    content: { body: serialized.body, rendered },
  });
  return {
    status: 201,
    body: versionView(v.row, {
      restoredFrom: from.id,
      formatWarnings: rendered.formatWarnings,
      formatWarningsTotal: rendered.formatWarningsTotal,
      icuRejected: capList(icu),
      icuRejectedTotal: icu.length,
      markupRejected: capList(markup),
      markupRejectedTotal: markup.length,
    }),
  };
};
