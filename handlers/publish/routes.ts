// POST /publish and POST /versions/{versionId}/restore (API.md 2.8, 4.4), and version file pulls.
import type { FormatId } from '../../publisher/catalog.js';
import { findCollisions } from '../../publisher/collisions.js';
import { CONTENT_TYPES, renderFile } from '../../publisher/delivery.js';
import { capList, gateCell, REJECTED_CAP, rejectionLabel as label } from '../../publisher/gates.js';
import { valueIcuOk } from '../sync/file.js';
import { readLive, serializeSnapshot, toSnapshotKey, type Snapshot, type SnapshotCell } from '../../publisher/snapshot.js';
import { normalizeLanguage } from '../config/languages.js';
import { getProject, type ProjectRow } from '../config/projects.js';
import { bool } from '../platform/db.js';
import { ApiError, conflict, invalidArgument, notFound, operationNotFound } from '../platform/errors.js';
import type { Ctx, Handler } from '../platform/pipeline.js';
import { liveJobIds } from '../translate/cells.js';
import { checkDailyCap, currentVersion, loadSnapshot, mintVersion, projectFormats, resolveVersion, unapprovedOf, versionView, type Unapproved } from './versions.js';


/** Refuses what an agent key may not do without an approved operation (operations come with their issue). */
function refuseAgent(ctx: Ctx) {
  if (ctx.body?.operationId !== undefined) throw operationNotFound();
  if (ctx.principal!.requiresOperationApproval) throw new ApiError(403, 'authorization_required', 'This agent key needs an approved operation to publish or roll back.');
}

/** The publish gates; a value imported from the team's own file is theirs verbatim: only its ICU syntax counts. */
function cellGate(source: string, value: string, lang: string, imported: boolean) {
  if (imported) return valueIcuOk({ kind: 'text', text: value }) ? {} : { icu: 'invalid ICU syntax' };
  return gateCell(source, value, lang);
}

function collisionCheck(snapshot: Snapshot, formats: FormatId[]) {
  const groups = findCollisions(snapshot, formats);
  if (groups.length) throw conflict('export_collision', 'Keys collapse to one name in a configured output format.', { groups });
}

export const publishVersion: Handler = async (ctx) => {
  const { db } = ctx.app;
  const b = ctx.body ?? {};
  const project = await getProject(db, ctx.params.projectId);
  refuseAgent(ctx);
  const formats = await projectFormats(db, project);
  if (b.requiredOutputFormat !== undefined && !formats.includes(b.requiredOutputFormat)) {
    throw conflict('output_format_conflict', `${b.requiredOutputFormat} is not a configured output format (${formats.join(', ') || 'none'}).`);
  }
  const ws = await db('workspaces').where({ id: project.workspace_id }).first('require_approval');
  const approvedOnly = b.approvedOnly === true || bool(ws.require_approval);
  const mode = b.incompleteMode ?? (project.mode === 'a' ? 'skip' : 'source');

  const live = await readLive(db, project.id);
  const liveJobs = await liveJobIds(db, live.rows.filter((r) => r.status === 'pending' && r.job_id != null).map((r) => Number(r.job_id)));
  const rowsByKey = new Map<number, Map<string, (typeof live.rows)[number]>>();
  for (const r of live.rows) {
    const id = Number(r.key_id);
    let byLang = rowsByKey.get(id);
    if (!byLang) rowsByKey.set(id, (byLang = new Map()));
    byLang.set(r.lang, r);
  }
  const noRows = new Map<string, (typeof live.rows)[number]>();

  let pending = 0;
  let exhausted = 0;
  const icuRejected: string[] = [];
  const markupRejected: string[] = [];
  const keys = live.keys.map((k) => {
    const cells: Record<string, SnapshotCell> = {};
    const rows = rowsByKey.get(Number(k.id)) ?? noRows;
    for (const lang of live.languages) {
      const r = rows.get(lang);
      let ok = false;
      if (r && r.status !== 'pending' && r.value != null && (!approvedOnly || r.status === 'approved')) {
        const gate = cellGate(k.source, r.value, lang, r.origin === 'import');
        if (gate.icu) icuRejected.push(label(k.name, lang));
        else if (gate.markup) markupRejected.push(label(k.name, lang));
        else {
          const cell: SnapshotCell = { value: r.value, status: r.status };
          if (r.origin === 'import') cell.imported = true;
          cells[lang] = cell;
          ok = true;
        }
      }
      if (ok) continue;
      pending++;
      // A marker no live job will fill any more.
      if (r?.status === 'pending' && !(r.job_id != null && liveJobs.has(Number(r.job_id)))) exhausted++;
      if (mode === 'source') cells[lang] = { value: k.source, status: 'source', fallback: true };
    }
    return toSnapshotKey(k, cells);
  });
  if (b.require_complete === true && (pending > 0 || exhausted > 0 || icuRejected.length || markupRejected.length)) {
    throw conflict('fill_incomplete', `${pending} cells are incomplete and ${exhausted} fill markers are exhausted.`, {
      pending, exhausted, refused: { icu: icuRejected.length, markup: markupRejected.length },
    });
  }
  const snapshot: Snapshot = { baseLang: live.baseLang, languages: live.languages, keys, catalogs: live.catalogs };
  collisionCheck(snapshot, formats);
  const current = await currentVersion(db, project);
  const serialized = serializeSnapshot(snapshot);
  if (b.skipIfIdentical === true && current && current.digest === serialized.digest) {
    return { status: 200, body: versionView(current, { unchanged: true, icuRejected: [], icuRejectedTotal: 0, markupRejected: [], markupRejectedTotal: 0 }) };
  }
  await checkDailyCap(db, project.id, Date.now());
  const unapproved: Unapproved = { listed: [], total: 0 };
  for (const k of keys) {
    for (const lang in k.cells) {
      if (k.cells[lang].status === 'approved') continue;
      if (unapproved.total++ < REJECTED_CAP) unapproved.listed.push(label(k.name, lang));
    }
  }
  const v = await mintVersion(db, ctx.app.objects, { project, snapshot, serialized, formats, label: b.label ?? null, restoredFrom: null, unapproved });
  return {
    status: 201,
    body: versionView(v, { icuRejected: capList(icuRejected), icuRejectedTotal: icuRejected.length, markupRejected: capList(markupRejected), markupRejectedTotal: markupRejected.length }),
  };
};

export const restoreVersion: Handler = async (ctx) => {
  const { db } = ctx.app;
  const project = await getProject(db, ctx.params.projectId);
  refuseAgent(ctx);
  const from = await resolveVersion(db, project, ctx.params.versionId);
  const ws = await db('workspaces').where({ id: project.workspace_id }).first('require_approval');
  if (bool(ws.require_approval) && !bool(from.all_approved)) {
    const { listed, total } = unapprovedOf(from);
    throw conflict('version_not_approved', `Version ${from.id} holds cells that were not approved.`, { unapproved: listed, unapproved_total: total });
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
  const v = await mintVersion(db, ctx.app.objects, {
    project, snapshot, serialized: serializeSnapshot(snapshot), formats, label: from.label, restoredFrom: from.id, unapproved: unapprovedOf(from),
  });
  return {
    status: 201,
    body: versionView(v, { restoredFrom: from.id, icuRejected: capList(icu), icuRejectedTotal: icu.length, markupRejected: capList(markup), markupRejectedTotal: markup.length }),
  };
};

/** GET /translations?version=...&format=...&lang=...: a published version rendered as a file. */
export async function pullVersionFile(ctx: Ctx, project: ProjectRow) {
  const { db } = ctx.app;
  const v = await resolveVersion(db, project, ctx.query.version);
  const snapshot = await loadSnapshot(db, project.id, v.id);
  const formats = await projectFormats(db, project);
  const format = (ctx.query.format ?? formats[0]) as FormatId | undefined;
  if (!format) throw invalidArgument('Name a format: the project has no output formats configured.');
  const multi = format === 'xcstrings';
  if (!multi && ctx.query.lang === undefined) throw invalidArgument('lang is required for this format.');
  const lang = ctx.query.lang !== undefined ? normalizeLanguage(ctx.query.lang) : snapshot.baseLang;
  if (lang !== snapshot.baseLang && !snapshot.languages.includes(lang)) throw notFound(`Version ${v.id} has no ${lang}.`);
  collisionCheck(snapshot, [format]);
  return { body: renderFile(snapshot, format, lang), type: CONTENT_TYPES[format], headers: { 'Cache-Control': 'private, max-age=60' } };
}
