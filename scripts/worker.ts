// `npm run worker`: a job worker process beside API processes started with WORKERS=off.
import { startThreads } from '../handlers/publish/pool.js';
import { createApp } from '../service/app.js';
import { loadConfig } from '../handlers/platform/config.js';

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
