// `npm run worker`: a job worker process beside API processes started with WORKERS=off.
import { startThreads } from '../server/domain/publish/pool.js';
import { createApp } from '../server/app/app.js';
import { loadConfig } from '../server/infra/config.js';

const app = await createApp(loadConfig());
startThreads(app.config.publishThreads);
const stop = app.jobs.start(250);
console.log(`worker ${app.jobs.workerId} polling ${app.config.databaseUrl.replace(/\/\/[^@/]*@/, '//***@')}`);
const keepAlive = setInterval(() => {}, 1 << 30);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stop()
      .then(() => app.db.destroy())
      .then(() => {
        clearInterval(keepAlive);
        process.exit(0);
      });
  });
}
