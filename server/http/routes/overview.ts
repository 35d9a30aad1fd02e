// Projects as the dashboard shows them (spec/internal.yaml): the list, and one project at a glance with the
// completeness of each target language, the workspace's credits, the current version and where it is delivered.
import { listLanguages } from '../../domain/project/projects.js';
import { grantedProjects } from '../../domain/users/grants.js';
import { bool } from '../../infra/db.js';
import type { Handler } from '../pipeline.js';
import type { ProjectRow } from '../../infra/tables.js';
import { completeness } from '../../domain/catalog/completeness.js';
import { readCredit } from '../../domain/billing/credits.js';
import { currentVersion, projectFormats } from '../../domain/publish/versions.js';

const PROJECTS_LISTED = 500;
const SYNC_DISABLED_LISTED = 20;

export const internalListProjects: Handler<'internalListProjects'> = async (ctx) => {
  const { db } = ctx.app;
  type Listed = Pick<
    ProjectRow,
    'id' | 'name' | 'base_lang' | 'workspace_id' | 'current_version' | 'content_enabled'
  > & {
    workspace_name: string;
  };
  const q = db('projects as p').join('workspaces as w', 'w.id', 'p.workspace_id').whereNull('p.deleted_at');
  // A translator sees the projects they translate in (server/domain/users/grants.ts).
  if (ctx.actor?.role === 'translator') q.whereIn('p.id', grantedProjects(db, ctx.actor.userId));
  const rows = await q
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

export const internalGetProjectOverview: Handler<'internalGetProjectOverview'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
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
  // Keys a sync switched off and nobody switched on again (migration 018), newest first.
  const syncDisabled = db('keys').where({ project_id: p.id, enabled: false }).whereNotNull('sync_disabled_at');
  const [disabledCount] = await syncDisabled.clone().count({ n: '*' });
  const disabled = await syncDisabled
    .clone()
    .orderBy('sync_disabled_at', 'desc')
    .orderBy('name')
    .limit(SYNC_DISABLED_LISTED)
    .select('name', 'sync_disabled_at', 'sync_disabled_by');
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
      syncDisabled: {
        total: Number(disabledCount.n),
        keys: disabled.map((k) => ({
          key: k.name,
          disabledAt: new Date(Number(k.sync_disabled_at)).toISOString(),
          bySync: k.sync_disabled_by ?? 'sync',
        })),
      },
    },
  };
};
