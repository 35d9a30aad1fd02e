// One API process on the database the environment names (DATABASE_URL), nothing seeded: bench/scaleout.ts
// starts several beside `npm run worker` processes. Prints READY {base, adminUrl} once listening.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startThreads } from '../../../server/domain/publish/pool.js';
import { startService } from '../../../server/app/app.js';
import { loadConfig } from '../../../server/infra/config.js';

const config = loadConfig({
  ...process.env,
  DATA_DIR: process.env.DATA_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'glossa-bench-api-')),
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  ADMIN_TOKEN: 'bench',
});
const service = await startService(config, { port: 0, deliveryPort: 0 });
// As `npm start` does.
startThreads(config.publishThreads);
const base = `http://127.0.0.1:${service.main.info.port}/v1`;
console.log(`READY ${JSON.stringify({ base, adminUrl: base.replace('/v1', '/internal/v1') })}`);
process.once('SIGINT', () => {
  void service.stop().then(() => process.exit(0));
});
