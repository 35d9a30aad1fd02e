// What every handler, job and sweep is given: the service's shared parts, built once by server/app/app.ts.
import type { OperationGate } from './approval.js';
import type { Config } from './config.js';
import type { Db } from './db.js';
import type { TranslationEngine } from './engines/types.js';
import type { JobQueue } from './jobs.js';
import type { Logger } from './log.js';
import type { ObjectStore } from './objects.js';

/** Every address `host` resolves to (IPv4 and IPv6), as the webhook sender will see them. */
export type HostResolver = (host: string) => Promise<string[]>;

export interface App {
  db: Db;
  config: Config;
  jobs: JobQueue;
  /** Null when TRANSLATION_ENGINE=none: translate answers 503 unavailable. */
  engine: TranslationEngine | null;
  /** Where published files, bundles and manifests go (OBJECT_STORE). */
  objects: ObjectStore;
  log: Logger;
  /** The operation checks (server/domain/operations/gate.ts); without them no operationId names an operation. */
  operations?: OperationGate;
  /**
   * How webhook hosts are resolved (server/domain/webhooks/urls.ts); the system resolver when unset. Tests set their own
   * to make a name resolve to a public address at creation and to 127.0.0.1 at delivery.
   */
  webhookResolver?: HostResolver;
}
