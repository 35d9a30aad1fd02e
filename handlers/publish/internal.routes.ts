// The dashboard's publish routes (spec/internal.yaml): the publish preview, publish, versions, a diff between two
// versions, and restore. Publish and restore are the public ones' work (run.ts) for a person; the pipeline lets
// only owners call them (no x-roles), and reviewers read.
import { getProject } from '../config/projects.js';
import { parseJson } from '../platform/db.js';
import type { Handler } from '../platform/pipeline.js';
import { diffVersions, previewPublish } from './diff.js';
import { publishProject, restoreProjectVersion } from './run.js';

const VERSIONS_LISTED = 200;

export const internalPreviewPublish: Handler<'internalPreviewPublish'> = async (ctx) => {
  const project = await getProject(ctx.app.db, ctx.params.projectId);
  const q = ctx.query;
  return { body: await previewPublish(ctx.app, project, q, q.cap) };
};

export const internalPublish: Handler<'internalPublish'> = (ctx) =>
  publishProject(ctx.app, ctx.params.projectId, ctx.body ?? {});

export const internalRestoreVersion: Handler<'internalRestoreVersion'> = (ctx) =>
  restoreProjectVersion(ctx.app, ctx.params.projectId, ctx.params.versionId);

export const internalListVersions: Handler<'internalListVersions'> = async (ctx) => {
  const { db } = ctx.app;
  const project = await getProject(db, ctx.params.projectId);
  const rows = await db('versions')
    .where({ project_id: project.id })
    .orderBy('day', 'desc')
    .orderBy('seq', 'desc')
    .limit(VERSIONS_LISTED + 1)
    .select('id', 'label', 'snapshot_at', 'key_count', 'languages', 'formats', 'restored_from');
  const current = project.current_version;
  return {
    body: {
      currentVersion: current,
      truncated: rows.length > VERSIONS_LISTED,
      versions: rows.slice(0, VERSIONS_LISTED).map((v) => ({
        versionId: v.id,
        label: v.label,
        snapshotAt: new Date(Number(v.snapshot_at)).toISOString(),
        keyCount: Number(v.key_count),
        languages: parseJson<Array<{ code: string }>>(v.languages, []).map((l) => l.code),
        formats: parseJson<string[]>(v.formats, []),
        restoredFrom: v.restored_from,
        current: v.id === current,
      })),
    },
  };
};

export const internalDiffVersions: Handler<'internalDiffVersions'> = async (ctx) => {
  const project = await getProject(ctx.app.db, ctx.params.projectId);
  return {
    body: await diffVersions(ctx.app, project, ctx.query.from ?? 'previous', ctx.query.to ?? 'current', ctx.query.cap),
  };
};
