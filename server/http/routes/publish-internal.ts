// The dashboard's publish routes (spec/internal.yaml): the publish preview, publish, versions, a diff between two
// versions, and restore. Publish and restore are the public ones' work (run.ts) for a person; the pipeline lets
// only owners call them (no x-roles), and reviewers read.
import type { Handler } from '../pipeline.js';
import { diffVersions, previewPublish } from '../../domain/publish/diff.js';
import { publishProject, restoreProjectVersion } from '../../domain/publish/run.js';
import { listProjectVersions } from '../../domain/publish/version-list.js';

export const internalPreviewPublish: Handler<'internalPreviewPublish'> = async (ctx) => {
  const project = ctx.project;
  const q = ctx.query;
  return { body: await previewPublish(ctx.app, project, q, q.cap) };
};

export const internalPublish: Handler<'internalPublish'> = (ctx) =>
  publishProject(ctx.app, ctx.project, ctx.body ?? {}).then(({ minted, version }) =>
    minted ? { status: 201 as const, body: version } : { status: 200 as const, body: version },
  );

export const internalRestoreVersion: Handler<'internalRestoreVersion'> = (ctx) =>
  restoreProjectVersion(ctx.app, ctx.project, ctx.params.versionId).then((version) => ({
    status: 201,
    body: version,
  }));

export const internalListVersions: Handler<'internalListVersions'> = async (ctx) => {
  const project = ctx.project;
  return { body: await listProjectVersions(ctx.app.db, project) };
};

export const internalDiffVersions: Handler<'internalDiffVersions'> = async (ctx) => {
  const project = ctx.project;
  return {
    body: await diffVersions(ctx.app, project, ctx.query.from ?? 'previous', ctx.query.to ?? 'current', ctx.query.cap),
  };
};
