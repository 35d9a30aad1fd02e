// POST /publish and POST /versions/{versionId}/restore (spec: `publishVersion`, `restoreVersion`): the work is in
// run.ts, which the dashboard's internal routes share.
import type { Handler } from '../pipeline.js';
import { publishProject, restoreProjectVersion } from '../../domain/publish/run.js';
import { previewPublish as preview } from '../../domain/publish/diff.js';

export const publishVersion: Handler<'publishVersion'> = (ctx) =>
  publishProject(ctx.app, ctx.project, ctx.body ?? {}).then(({ minted, version }) =>
    minted ? { status: 201 as const, body: version } : { status: 200 as const, body: version },
  );

export const restoreVersion: Handler<'restoreVersion'> = (ctx) =>
  restoreProjectVersion(ctx.app, ctx.project, ctx.params.versionId).then((version) => ({
    status: 201,
    body: version,
  }));

/** What a publish would change (spec: `previewPublish`), as the dashboard's publish page computes it. */
export const previewPublish: Handler<'previewPublish'> = async (ctx) => ({
  body: await preview(ctx.app, ctx.project, ctx.query, ctx.query.cap),
});
