// Every background job kind and sweep the service runs. Groups add theirs here, each with its retry policy
// (server/infra/jobs.ts RetryPolicy) when the defaults do not fit: DEFAULT_RETRY for jobs, SWEEP_RETRY for sweeps.
import type { App } from '../infra/app.js';
import type { Db } from '../infra/db.js';
import { CONTENT_RUN_JOB, type RunPayload } from '../domain/content/run.js';
import { runContent } from '../domain/content/runner.js';
import { sweepIdempotencyKeys } from '../infra/idempotency.js';
import { sweepFinishedJobs } from '../infra/jobs.js';
import { sweepDailyCounts } from '../domain/billing/quotas.js';
import { sweepRateWindows } from '../infra/ratelimit.js';
import { sweepRequestRecords } from '../infra/requests.js';
import { sweepOperations } from '../domain/operations/sweep.js';
import { repairManifests } from '../domain/publish/manifest.js';
import { prepareDue } from '../domain/publish/prepare.js';
import { runFill, type FillPayload } from '../domain/fill/fill.js';
import { WEBHOOK_ATTEMPTS, WEBHOOK_DELIVER_JOB } from '../domain/webhooks/events.js';
import { deliverAttempt, RETRY_BACKOFF_MS, type DeliverPayload } from '../domain/webhooks/deliver.js';
import { sweepDeliveryLog } from '../domain/webhooks/sweep.js';
import { sweepSessions } from '../domain/users/sessions.js';
import { sweepThrottle } from '../domain/users/throttle.js';
import { runRecheck } from '../domain/checks/recheck.js';
import { runTermsRecheck, TERMS_RECHECK_JOB, type TermsRecheckPayload } from '../domain/checks/terms.js';
import { RECHECK_JOB, type RecheckPayload } from '../domain/checks/settings.js';
import { CHECK_KEYS_JOB, runCheckKeys, type CheckKeysPayload } from '../domain/checks/store.js';

/** A job's project, read from the row its payload names (run-due scoped to a project, server/infra/jobs.ts). */
const projectOfRow =
  (table: 'fill_jobs' | 'webhook_deliveries', column: 'id') =>
  async (db: Db, id: unknown): Promise<string | null> =>
    (await db(table).where(column, String(id)).first<{ project_id: string } | undefined>('project_id'))?.project_id ??
    null;
const fillProject = projectOfRow('fill_jobs', 'id');
const deliveryProject = projectOfRow('webhook_deliveries', 'id');

export function registerJobs(app: App): void {
  app.jobs.register<FillPayload>(
    'fill',
    (ctx) => runFill(app, ctx),
    {},
    (p, db) => fillProject(db, p.jobId),
  );
  app.jobs.registerSweep('sweep.rate_windows', 5 * 60_000, ({ db, now }) => sweepRateWindows(db, now));
  app.jobs.registerSweep('sweep.request_records', 60_000, ({ db, now }) => sweepRequestRecords(db, now));
  app.jobs.registerSweep(
    'sweep.operations',
    60_000,
    ({ db, now }) => sweepOperations(db, now),
    {},
    ({ db, now, projectId }) => sweepOperations(db, now, projectId),
  );
  app.jobs.registerSweep(
    'sweep.prepare_publish',
    2_000,
    ({ now }) => prepareDue(app, now),
    {},
    ({ now, projectId }) => prepareDue(app, now, projectId),
  );
  // A webhook delivery's retry schedule is its job's (docs/guides/webhooks.md): six attempts, then `failed`.
  app.jobs.register<DeliverPayload>(
    WEBHOOK_DELIVER_JOB,
    (ctx) => deliverAttempt(app, ctx),
    { maxAttempts: WEBHOOK_ATTEMPTS, backoffMs: RETRY_BACKOFF_MS },
    (p, db) => deliveryProject(db, p.deliveryId),
  );
  app.jobs.registerSweep('sweep.webhook_deliveries', 10 * 60_000, ({ db }) => sweepDeliveryLog(db));
  // The dashboard's expired sessions and quiet sign-in throttle rows (server/domain/users/).
  app.jobs.registerSweep('sweep.dashboard_sessions', 10 * 60_000, ({ db, now }) => sweepSessions(db, now));
  app.jobs.registerSweep('sweep.signin_throttle', 10 * 60_000, ({ db, now }) => sweepThrottle(db, now));
  app.jobs.register<RunPayload>(
    CONTENT_RUN_JOB,
    (ctx) => runContent(app, ctx),
    {},
    (p) => Promise.resolve(p.projectId),
  );
  // A project's re-check after its check settings changed (server/domain/checks/recheck.ts): it resumes where a
  // failed attempt stopped, so the default retries lose no work.
  app.jobs.register<RecheckPayload>(
    RECHECK_JOB,
    (ctx) => runRecheck(app, ctx),
    {},
    (p) => Promise.resolve(p.projectId),
  );
  // The checks a large write left to the queue (server/domain/checks/store.ts): each transaction is a few keys'.
  app.jobs.register<CheckKeysPayload>(
    CHECK_KEYS_JOB,
    (ctx) => runCheckKeys(app.db, ctx),
    {},
    (p) => Promise.resolve(p.projectId),
  );
  // The keys whose sources use a term that changed (server/domain/checks/terms.ts): checked again, a few a transaction.
  app.jobs.register<TermsRecheckPayload>(
    TERMS_RECHECK_JOB,
    (ctx) => runTermsRecheck(app.db, ctx),
    {},
    (p) => Promise.resolve(p.projectId),
  );
  app.jobs.registerSweep('sweep.idempotency_keys', 10 * 60_000, ({ db, now }) => sweepIdempotencyKeys(db, now));
  app.jobs.registerSweep('sweep.finished_jobs', 60 * 60_000, ({ db, now }) => sweepFinishedJobs(db, now));
  app.jobs.registerSweep('sweep.daily_counts', 60 * 60_000, ({ db, now }) => sweepDailyCounts(db, now));
  app.jobs.registerSweep(
    'sweep.manifests',
    10_000,
    async ({ db }) => {
      await repairManifests(db, app.objects, manifestFailed(app));
    },
    {},
    ({ db, projectId }) => repairManifests(db, app.objects, manifestFailed(app), projectId),
  );
}

/** A manifest the store still refuses is logged and left to the next sweep. */
const manifestFailed = (app: App) => (err: unknown, projectId: string) =>
  app.log.warn({ err, projectId }, 'writing a manifest failed');

/** Catches every manifest up with its project's current version, as a process starts (a crash may have left one behind). */
export function repairOnStart(app: App): Promise<void> {
  return repairManifests(app.db, app.objects, manifestFailed(app)).then(
    () => undefined,
    (err) => app.log.warn({ err }, 'manifest repair failed'),
  );
}
