// Every background job kind and sweep the service runs. Groups add theirs here.
import type { App } from './platform/pipeline.js';
import { sweepRateWindows } from './platform/ratelimit.js';
import { sweepRequestRecords } from './platform/requests.js';
import { prepareDue } from './publish/prepare.js';
import { runFill } from './translate/fill.js';

export function registerJobs(app: App): void {
  app.jobs.register('fill', (ctx) => runFill(app, ctx));
  app.jobs.registerSweep('sweep.rate_windows', 5 * 60_000, ({ db, now }) => sweepRateWindows(db, now));
  app.jobs.registerSweep('sweep.request_records', 60_000, ({ db, now }) => sweepRequestRecords(db, now));
  app.jobs.registerSweep('sweep.prepare_publish', 2_000, ({ now }) => prepareDue(app, now));
}
