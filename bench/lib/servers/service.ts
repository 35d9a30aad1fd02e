// The real service on embedded defaults (SQLite in a temp folder), with projects and keys seeded beforehand by
// bench/lib/seed.ts in a process of its own (see there why).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startThreads } from '../../../server/domain/publish/pool.js';
import { startService } from '../../../server/app/app.js';
import { loadConfig } from '../../../server/infra/config.js';
import { SEED, type ServiceInfo } from '../servers.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'glossa-bench-'));
const env = { ...process.env, DATA_DIR: dataDir, SEED_OUT: path.join(dataDir, 'seed.json') };
execFileSync(process.execPath, ['--import', 'tsx', SEED], { env, stdio: 'inherit' });
const { projects } = JSON.parse(readFileSync(env.SEED_OUT, 'utf8')) as Pick<ServiceInfo, 'projects'>;
const config = loadConfig({
  ...env,
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  // BENCH_WORKERS=inline: job workers in this process (the default service), for scenarios that measure them.
  WORKERS: process.env.BENCH_WORKERS === 'inline' ? 'inline' : 'off',
  ADMIN_TOKEN: 'bench',
});
const service = await startService(config, { port: 0, deliveryPort: 0 });
// As `npm start` does.
startThreads(config.publishThreads);
const base = `http://127.0.0.1:${service.main.info.port}/v1`;
const info: ServiceInfo = {
  base,
  projects,
  adminUrl: base.replace('/v1', '/internal/v1'),
  databaseUrl: config.databaseUrl,
  objectsDir: config.objectStore.replace('file://', ''),
  delivery: `http://127.0.0.1:${service.delivery.info.port}/v1`,
};
console.log(`READY ${JSON.stringify(info)}`);
process.once('SIGINT', () => process.exit(0));
