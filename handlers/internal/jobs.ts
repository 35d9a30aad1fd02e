import type { Handler } from '../platform/pipeline.js';

export const internalRunDueJobs: Handler = async (ctx) => {
  const now = ctx.body?.now ? Date.parse(ctx.body.now) : Date.now();
  return { body: await ctx.app.jobs.runDue(now) };
};
