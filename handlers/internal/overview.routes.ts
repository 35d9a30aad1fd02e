// Projects as the dashboard shows them (spec/internal.yaml): the list, and one project at a glance with the
// completeness of each target language, the workspace's credits, the current version and where it is delivered.
import { getProject, listLanguages } from '../config/projects.js';
import { bool, type Db } from '../platform/db.js';
import type { Handler } from '../platform/pipeline.js';
import type { ProjectRow } from '../platform/tables.js';
import { liveJobIds } from '../translate/cells.js';
import { readCredit } from '../translate/credits.js';
import { currentVersion, projectFormats } from '../publish/versions.js';

const PROJECTS_LISTED = 500;

export const internalListProjects: Handler<'internalListProjects'> = async (ctx) => {
  const { db } = ctx.app;
  type Listed = Pick<
    ProjectRow,
    'id' | 'name' | 'base_lang' | 'workspace_id' | 'current_version' | 'content_enabled'
  > & {
    workspace_name: string;
  };
  const rows = await db('projects as p')
    .join('workspaces as w', 'w.id', 'p.workspace_id')
    .whereNull('p.deleted_at')
    .orderBy('p.name')
    .orderBy('p.id')
    .limit(PROJECTS_LISTED + 1)
    .select<Listed[]>(
      'p.id',
      'p.name',
      'p.base_lang',
      'p.workspace_id',
      'w.name as workspace_name',
      'p.current_version',
      'p.content_enabled',
    );
  const listed = rows.slice(0, PROJECTS_LISTED);
  const langs = new Map<string, string[]>();
  if (listed.length)
    for (const l of await db('project_languages')
      .whereIn(
        'project_id',
        listed.map((p) => p.id),
      )
      .whereNull('removed_at')
      .orderBy('code')
      .select('project_id', 'code'))
      langs.set(l.project_id, [...(langs.get(l.project_id) ?? []), l.code]);
  return {
    body: {
      truncated: rows.length > PROJECTS_LISTED,
      projects: listed.map((p) => ({
        projectId: p.id,
        name: p.name,
        baseLang: p.base_lang,
        languages: langs.get(p.id) ?? [],
        workspaceId: p.workspace_id,
        workspaceName: p.workspace_name,
        currentVersion: p.current_version,
        contentEnabled: bool(p.content_enabled),
      })),
    },
  };
};

interface Completeness {
  missing: number;
  pending: number;
  failed: number;
  translated: number;
  reviewed: number;
  approved: number;
}

/**
 * Each target language's cells of the enabled keys by state: a pending marker whose last fill failed and that no
 * live job holds is `failed` (as the key reads of the translate group tell it), the keys with no cell `missing`.
 */
async function completeness(db: Db, p: ProjectRow, keys: number) {
  const rows = await db('translations as t')
    .join('keys as k', 'k.id', 't.key_id')
    .where({ 't.project_id': p.id, 'k.enabled': true, 'k.captured': false })
    .groupBy('t.lang', 't.status', 'f', 'fj')
    .select<
      Array<{ lang: string; status: string; fj: number | string | null; f: number | string; n: number | string }>
    >(
      't.lang',
      't.status',
      db.raw('CASE WHEN t.fail_reason IS NOT NULL THEN 1 ELSE 0 END AS f'),
      // The job matters only to a failed marker (is it queued again?): other cells are not grouped by it.
      db.raw("CASE WHEN t.status = 'pending' AND t.fail_reason IS NOT NULL THEN t.job_id ELSE NULL END AS fj"),
      db.raw('COUNT(*) AS n'),
    );
  const live = await liveJobIds(
    db,
    rows.filter((r) => r.status === 'pending' && Number(r.f) === 1 && r.fj != null).map((r) => Number(r.fj)),
  );
  const by = new Map<string, Completeness>();
  for (const r of rows) {
    const c = by.get(r.lang) ?? { missing: 0, pending: 0, failed: 0, translated: 0, reviewed: 0, approved: 0 };
    by.set(r.lang, c);
    const n = Number(r.n);
    if (r.status === 'pending') {
      const failed = Number(r.f) === 1 && !(r.fj != null && live.has(Number(r.fj)));
      c[failed ? 'failed' : 'pending'] += n;
    } else if (r.status === 'translated' || r.status === 'reviewed' || r.status === 'approved') c[r.status] += n;
  }
  for (const c of by.values())
    c.missing = Math.max(0, keys - c.pending - c.failed - c.translated - c.reviewed - c.approved);
  return (lang: string) =>
    by.get(lang) ?? { missing: keys, pending: 0, failed: 0, translated: 0, reviewed: 0, approved: 0 };
}

export const internalGetProjectOverview: Handler<'internalGetProjectOverview'> = async (ctx) => {
  const { db } = ctx.app;
  const p = await getProject(db, ctx.params.projectId);
  const keyCount = Number(
    (
      (await db('keys').where({ project_id: p.id, enabled: true, captured: false }).count({ n: '*' }).first()) as {
        n: number | string;
      }
    ).n,
  );
  const of = await completeness(db, p, keyCount);
  const ws = (await db('workspaces').where({ id: p.workspace_id }).first('name', 'require_approval'))!;
  const credit = await readCredit(db, p.workspace_id);
  const v = await currentVersion(db, p);
  return {
    body: {
      projectId: p.id,
      name: p.name,
      mode: p.mode,
      baseLang: p.base_lang,
      keyCount,
      languages: (await listLanguages(db, p.id)).map((l) => ({ code: l.code, fillMode: l.fill_mode, ...of(l.code) })),
      workspace: {
        workspaceId: p.workspace_id,
        name: ws.name,
        balanceMc: credit.balance,
        heldMc: credit.held,
        spendingCapMc: credit.spendingCap,
        spentThisMonthMc: credit.spent,
        requireApproval: bool(ws.require_approval),
      },
      currentVersion: v
        ? {
            versionId: v.id,
            label: v.label,
            snapshotAt: new Date(Number(v.snapshot_at)).toISOString(),
            keyCount: Number(v.key_count),
          }
        : null,
      // As the public project metadata names it (getProjectMeta): the custom domain, else the delivery origin.
      deliveryUrl: p.delivery_host
        ? `https://${p.delivery_host}/v1`
        : `${ctx.app.config.publicDeliveryUrl}/projects/${p.id}`,
      outputFormats: await projectFormats(db, p),
      contentEnabled: bool(p.content_enabled),
    },
  };
};
