// GET /versions (spec: listVersions): the published versions for API keys (`glossa versions`).
import type { Handler } from '../pipeline.js';
import { listProjectVersions } from '../../domain/publish/version-list.js';

export const listVersions: Handler<'listVersions'> = async (ctx) => {
  const project = ctx.project;
  return { body: await listProjectVersions(ctx.app.db, project) };
};
