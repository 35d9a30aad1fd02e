// What a publish would freeze: the live content through the publish rules (spec: `publishVersion`). Shared by POST /publish
// and by the prepared publish (prepare.ts), so both give the same snapshot for the same content and flags.
import type { FormatId } from '../../publisher/catalog.js';
import { yieldTurn } from '../../publisher/delivery.js';
import { capList, gateCell, REJECTED_CAP, rejectionLabel as label } from '../../publisher/gates.js';
import type { Snapshot, SnapshotCell } from '../../publisher/snapshot.js';
import { readLive, toSnapshotKey } from './live.js';
import { valueIcuOk } from '../sync/file.js';
import type { ProjectRow } from '../platform/tables.js';
import { bool, type Db } from '../platform/db.js';
import { liveJobIds } from '../translate/cells.js';
import { projectFormats, type Unapproved } from './versions.js';

/** The flags that decide a snapshot, and the formats it is rendered in. */
export interface PublishParams {
  mode: 'skip' | 'source';
  approvedOnly: boolean;
  formats: FormatId[];
}

/** The flags a publish takes when it names none (spec: `PublishRequest`), and the effective output formats (`addOutputFormat`). */
export async function defaultParams(db: Db, project: ProjectRow): Promise<PublishParams> {
  const ws = await db('workspaces').where({ id: project.workspace_id }).first('require_approval');
  return {
    mode: project.mode === 'a' ? 'skip' : 'source',
    approvedOnly: bool(ws!.require_approval),
    formats: await projectFormats(db, project),
  };
}

export const sameParams = (a: PublishParams, b: PublishParams) =>
  a.mode === b.mode && a.approvedOnly === b.approvedOnly && a.formats.join() === b.formats.join();

/** The publish gates; a value imported from the team's own file is theirs verbatim: only its ICU syntax counts. */
export function cellGate(source: string, value: string, lang: string, imported: boolean) {
  if (imported) return valueIcuOk({ kind: 'text', text: value }) ? {} : { icu: 'invalid ICU syntax' };
  return gateCell(source, value, lang);
}

export interface Built {
  snapshot: Snapshot;
  /** Cells left out: missing, pending, unapproved when only approved ones count, or refused by a gate. */
  pending: number;
  /** Pending markers by the job that holds them (job id, or 0 for none): exhausted unless that job is live. */
  markersByJob: Record<string, number>;
  icuRejected: string[];
  markupRejected: string[];
}

export async function buildSnapshot(
  db: Db,
  projectId: string,
  params: Pick<PublishParams, 'mode' | 'approvedOnly'>,
): Promise<Built> {
  const live = await readLive(db, projectId);
  type Row = (typeof live.rows)[number];
  const rowsByKey = new Map<number, Map<string, Row>>();
  for (const r of live.rows) {
    const id = Number(r.key_id);
    let byLang = rowsByKey.get(id);
    if (!byLang) rowsByKey.set(id, (byLang = new Map<string, Row>()));
    byLang.set(r.lang, r);
  }
  const noRows = new Map<string, Row>();
  const out: Built = {
    snapshot: { baseLang: live.baseLang, languages: live.languages, keys: [], catalogs: live.catalogs },
    pending: 0,
    markersByJob: {},
    icuRejected: [],
    markupRejected: [],
  };
  const keys = out.snapshot.keys;
  for (const [i, k] of live.keys.entries()) {
    // A turn for other work every thousand keys (the gates are the slow part).
    if (i % 1000 === 999) await yieldTurn();
    const cells: Record<string, SnapshotCell> = {};
    const rows = rowsByKey.get(Number(k.id)) ?? noRows;
    for (const lang of live.languages) {
      const r = rows.get(lang);
      if (r?.status === 'pending') {
        const job = String(r.job_id ?? 0);
        out.markersByJob[job] = (out.markersByJob[job] ?? 0) + 1;
      } else if (r && r.value != null && (!params.approvedOnly || r.status === 'approved')) {
        const gate = cellGate(k.source, r.value, lang, r.origin === 'import');
        if (gate.icu) out.icuRejected.push(label(k.name, lang));
        else if (gate.markup) out.markupRejected.push(label(k.name, lang));
        else {
          const cell: SnapshotCell = { value: r.value, status: r.status };
          if (r.origin === 'import') cell.imported = true;
          cells[lang] = cell;
          continue;
        }
      }
      out.pending++;
      if (params.mode === 'source') cells[lang] = { value: k.source, status: 'source', fallback: true };
    }
    keys.push(toSnapshotKey(k, cells));
  }
  return out;
}

/** What the refusals and the answer of a publish need of a build: counts, and the refused cells capped. */
export interface GateSummary {
  pending: number;
  markersByJob: Record<string, number>;
  icuRejected: string[];
  icuRejectedTotal: number;
  markupRejected: string[];
  markupRejectedTotal: number;
}

export const gateSummary = (b: Built): GateSummary => ({
  pending: b.pending,
  markersByJob: b.markersByJob,
  icuRejected: capList(b.icuRejected),
  icuRejectedTotal: b.icuRejected.length,
  markupRejected: capList(b.markupRejected),
  markupRejectedTotal: b.markupRejected.length,
});

/** How many of the pending markers no live job will fill any more. */
export async function exhaustedOf(db: Db, markersByJob: Record<string, number>): Promise<number> {
  const jobs = Object.keys(markersByJob)
    .map(Number)
    .filter((id) => id !== 0);
  const live = await liveJobIds(db, jobs);
  let exhausted = 0;
  for (const [job, n] of Object.entries(markersByJob)) if (!live.has(Number(job))) exhausted += n;
  return exhausted;
}

/** A snapshot's cells that were not approved: the first ones as `key [lang]` (what a 409 lists), and how many. */
export function unapprovedIn(snapshot: Snapshot): Unapproved {
  const unapproved: Unapproved = { listed: [], total: 0 };
  for (const k of snapshot.keys) {
    for (const lang in k.cells) {
      if (k.cells[lang].status === 'approved') continue;
      if (unapproved.total++ < REJECTED_CAP) unapproved.listed.push(label(k.name, lang));
    }
  }
  return unapproved;
}
