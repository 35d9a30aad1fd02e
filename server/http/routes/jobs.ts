import { parseInstant } from '../../infra/instant.js';
import type { Handler } from '../pipeline.js';

export const internalRunDueJobs: Handler<'internalRunDueJobs'> = async (ctx) => {
  const now = ctx.body?.now ? parseInstant(ctx.body.now, 'now') : Date.now();
  return { body: await ctx.app.jobs.runDue(now, ctx.body?.projectId) };
};
