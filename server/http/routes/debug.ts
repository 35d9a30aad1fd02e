import type { Handler } from '../pipeline.js';
import { processMetrics } from '../metrics.js';

export const internalDebugMetrics: Handler<'internalDebugMetrics'> = (ctx) =>
  Promise.resolve({ body: processMetrics(ctx.query.reset === true) });
