// POST /publish and POST /versions/{versionId}/restore (spec: `publishVersion`, `restoreVersion`): the work is in
// run.ts, which the dashboard's internal routes share.
import type { Handler } from '../platform/pipeline.js';
import { publishProject, restoreProjectVersion } from './run.js';

export const publishVersion: Handler<'publishVersion'> = (ctx) =>
  publishProject(ctx.app, ctx.params.projectId, ctx.body ?? {});

export const restoreVersion: Handler<'restoreVersion'> = (ctx) =>
  restoreProjectVersion(ctx.app, ctx.params.projectId, ctx.params.versionId);
