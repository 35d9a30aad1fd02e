// Every background job kind and sweep the service runs. Groups add theirs here.
import type { App } from './platform/pipeline.js';
import { sweepRateWindows } from './platform/ratelimit.js';

export function registerJobs(app: App): void {
  app.jobs.registerSweep('sweep.rate_windows', 5 * 60_000, ({ db, now }) => sweepRateWindows(db, now));
}
