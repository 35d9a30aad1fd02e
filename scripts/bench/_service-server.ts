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
// BENCH_SEED_KEYS: fill the first project with that many keys, translated into every language (setup, not measured).
const seed = Number(process.env.BENCH_SEED_KEYS ?? 0);
if (seed) {
  const { projectId } = projects[0];
  const langs = (process.env.BENCH_LANGS ?? 'de').split(',');
  const now = Date.now();
  const keys = Array.from({ length: seed }, (_, i) => ({
    project_id: projectId, name: `screen_${Math.floor(i / 100)}.label_${i}`, token: `seed${i}`.padEnd(32, 'x'), source: `Label number ${i} for {name}`,
    forms: null, ctx: null, enabled: true, source_verified: true, captured: false, created_by: 'seed', source_updated_at: now, created_at: now, updated_at: now,
  }));
  for (let i = 0; i < keys.length; i += 400) await db('keys').insert(keys.slice(i, i + 400));
  const ids = (await db('keys').where({ project_id: projectId }).select('id')).map((r) => Number(r.id));
  const cells = ids.flatMap((id, i) => langs.map((lang) => ({ key_id: id, lang, project_id: projectId, value: `${lang} ${i} für {name}`, status: 'translated', origin: 'ai', job_id: null, updated_at: now })));
  for (let i = 0; i < cells.length; i += 400) await db('translations').insert(cells.slice(i, i + 400));
  await db('projects').where({ id: projectId }).update({ output_formats: JSON.stringify((process.env.BENCH_FORMATS ?? 'json').split(',')) });
}
const base = `http://127.0.0.1:${service.main.info.port}/v1`;
console.log(`READY ${JSON.stringify({ base, projects, adminUrl: base.replace('/v1', '/internal/v1'), databaseUrl: config.databaseUrl, objectsDir: config.objectStore.replace('file://', ''), delivery: `http://127.0.0.1:${service.delivery.info.port}/v1` })}`);
process.once('SIGINT', () => process.exit(0));
