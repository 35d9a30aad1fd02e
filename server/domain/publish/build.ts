// The rules a publish freezes its snapshot by (spec: `publishVersion`), and what its refusals need of a build.
// Shared by POST /publish and the prepared publish (prepare.ts), so both decide the same for the same content.
import type { FormatId } from '../../../packages/core/src/catalog.js';
import type { ProjectRow } from '../../infra/tables.js';
import { bool, type Db } from '../../infra/db.js';
import { liveJobIds } from '../catalog/cells.js';
import { projectFormats } from './versions.js';

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

/** What the refusals and the answer of a publish need of a build: counts, and the refused cells capped. */
export interface GateSummary {
  /** Cells left out: missing, pending, unapproved when only approved ones count, or refused by a gate. */
  pending: number;
  /** Pending markers by the job that holds them (job id, or 0 for none): exhausted unless that job is live. */
  markersByJob: Record<string, number>;
  icuRejected: string[];
  icuRejectedTotal: number;
  markupRejected: string[];
  markupRejectedTotal: number;
  /**
   * Cells taken in with a quality-check result of each severity (server/domain/checks/); absent in summaries
   * prepared before they were counted.
   */
  checks?: { error: number; warning: number; info: number };
  /** With the project's `blockPublishOnErrors`: the cells left out for a check error, capped, and their count. */
  checksBlocked?: string[];
  checksBlockedTotal?: number;
  /**
   * Values published whose source changed since they were written (server/domain/catalog/outdated.ts): served, but
   * not complete for `require_complete`. Absent in summaries prepared before it was counted.
   */
  outdated?: number;
}

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
