// GET /versions (spec: listVersions): the published versions for API keys (`glossa versions`).
import { getProject } from '../../domain/project/projects.js';
import type { Handler } from '../pipeline.js';
import { listProjectVersions } from '../../domain/publish/version-list.js';

export const listVersions: Handler<'listVersions'> = async (ctx) => {
  const project = await getProject(ctx.app.db, ctx.params.projectId);
  return { body: await listProjectVersions(ctx.app.db, project) };
};
