// Wires configuration, database, job queue and servers into one running service.
import type Hapi from '@hapi/hapi';
import { registerJobs, repairOnStart } from './jobs.js';
import { buildServers } from './servers.js';
import { startEventLoopMonitor } from '../http/metrics.js';
import type { Config } from '../infra/config.js';
import { migrate, openDb } from '../infra/db.js';
import { createEngine } from '../infra/engines/index.js';
import { createObjectStore } from '../infra/object-store.js';
import { JobQueue } from '../infra/jobs.js';
import { createLogger, type DestinationStream } from '../infra/log.js';
import type { App } from '../infra/app.js';
import { operationGate } from '../domain/operations/gate.js';

export interface Service {
  app: App;
  main: Hapi.Server;
  delivery: Hapi.Server;
  stop(): Promise<void>;
}

export async function createApp(config: Config, logDestination?: DestinationStream): Promise<App> {
  const db = openDb(config.databaseUrl);
  await migrate(db);
  const log = createLogger(config.logLevel, logDestination);
  const jobs = new JobQueue(db, { log });
  const app: App = {
    db,
    config,
    jobs,
    engine: createEngine(config),
    objects: await createObjectStore(config),
    log,
    operations: operationGate,
  };
  registerJobs(app);
  return app;
}

/**
 * Starts the service. `port`/`deliveryPort` override the configured ports (tests pass 0 for a free port);
 * a configured DELIVERY_PORT of 0 turns the delivery origin off. `listen: false` builds for server.inject only.
 * `logDestination`: where log lines go instead of standard output.
 */
export async function startService(
  config: Config,
  opts: { listen?: boolean; port?: number; deliveryPort?: number; logDestination?: DestinationStream } = {},
): Promise<Service> {
  startEventLoopMonitor();
  const app = await createApp(config, opts.logDestination);
  const { main, delivery } = await buildServers(app, opts);
  const listen = opts.listen ?? true;
  if (listen) {
    await main.start();
    if (config.deliveryPort !== 0 || opts.deliveryPort !== undefined) await delivery.start();
  } else {
    await main.initialize();
    await delivery.initialize();
  }
  const stopWorkers = config.workers === 'inline' ? app.jobs.start() : async () => {};
  const repaired = repairOnStart(app);
  return {
    app,
    main,
    delivery,
    async stop() {
      await repaired;
      await stopWorkers();
      await main.stop();
      await delivery.stop();
      await app.db.destroy();
    },
  };
}
