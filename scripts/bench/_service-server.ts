// The real service on embedded defaults (SQLite in a temp folder), with a project and a key for the scenario.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '../../handlers/platform/apikeys.js';
import { startService } from '../../handlers/platform/app.js';
import { loadConfig } from '../../handlers/platform/config.js';
import { createProject } from '../../handlers/internal/projects.js';
import { createWorkspace } from '../../handlers/internal/workspaces.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'glossa-bench-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', WORKERS: 'off', ADMIN_TOKEN: 'bench' });
const service = await startService(config, { port: 0, deliveryPort: 0 });
const { db } = service.app;
const ws = await createWorkspace(db, { name: 'bench', creditsMc: 1_000_000_000 });
// Load is spread over many projects, as on a shared server, so the real 120/minute limit stays in force
// without any scenario hitting it.
const projects = [];
for (let i = 0; i < Number(process.env.BENCH_PROJECTS ?? 1); i++) {
  const languages = (process.env.BENCH_LANGS ?? 'de').split(',').map((code) => ({ code }));
  const project = await createProject(db, { workspaceId: ws.workspaceId, name: `bench ${i}`, baseLang: 'en', languages });
  const key = await createApiKey(db, project.projectId, { scopes: (process.env.BENCH_SCOPES ?? 'read').split(',') as any });
  projects.push({ projectId: project.projectId, apiKey: key.apiKey });
}
const base = `http://127.0.0.1:${service.main.info.port}/v1`;
console.log(`READY ${JSON.stringify({ base, projects, adminUrl: base.replace('/v1', '/internal/v1'), databaseUrl: config.databaseUrl })}`);
process.once('SIGINT', () => process.exit(0));
