// `npm start`: the whole service in one process on embedded defaults (docs/operations/configuration.md).
import { createApiKey } from '../server/http/apikeys.js';
import { startThreads } from '../server/domain/publish/pool.js';
import { startService } from '../server/app/app.js';
import { loadConfig } from '../server/infra/config.js';
import { createProject } from '../server/domain/project/projects.js';
import { createWorkspace } from '../server/domain/project/workspaces.js';
import { ensureFirstUser } from '../server/domain/users/users.js';

const config = loadConfig();
const service = await startService(config);
startThreads(config.publishThreads);
const { db } = service.app;

console.log(`Glossa API        ${config.publicApiUrl}`);
console.log(`Internal API      ${config.publicAppUrl}/internal/v1`);
console.log(`Dashboard         ${config.publicAppUrl}/signin`);
if (config.deliveryPort !== 0) console.log(`Delivery origin   ${config.publicDeliveryUrl}`);
console.log(`Database          ${config.databaseUrl.replace(/\/\/[^@/]*@/, '//***@')}`);
console.log(`Engine            ${config.translationEngine}; workers ${config.workers}`);
console.log(
  `Admin token       ${config.adminTokenGenerated ? config.adminToken + '  (generated; set ADMIN_TOKEN to keep one)' : '(from ADMIN_TOKEN)'}`,
);

// First start: a demo workspace and project, and a key with every scope (shown this once).
if (!(await db('workspaces').first('id'))) {
  const ws = await createWorkspace(db, { name: 'Demo workspace', creditsMc: 1_000_000 });
  const project = await createProject(db, {
    workspaceId: ws.workspaceId,
    name: 'Demo app',
    baseLang: 'en',
    languages: [{ code: 'de' }, { code: 'fr' }, { code: 'ja' }],
  });
  const key = await createApiKey(db, project.projectId, { scopes: ['admin'], name: 'demo' });
  console.log(`Demo project      ${project.projectId} (en → de, fr, ja; 1,000 credits)`);
  console.log(`Demo API key      ${key.apiKey}  (all scopes; shown once)`);
  console.log(
    `Try:  curl -H "Authorization: Bearer ${key.apiKey}" ${config.publicApiUrl}/projects/${project.projectId}/meta`,
  );
}

// First start: a dashboard owner (README "Dashboard and approvals"); a generated password is shown this once.
const owner = await ensureFirstUser(
  db,
  { DASHBOARD_EMAIL: config.dashboardOwner.email, DASHBOARD_PASSWORD: config.dashboardOwner.password },
  config.passwordScryptN,
);
if (owner)
  console.log(
    `Dashboard owner   ${owner.email}  ${owner.generatedPassword ? `password ${owner.generatedPassword}  (generated; shown once)` : '(password from DASHBOARD_PASSWORD)'}`,
  );

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void service.stop().then(() => process.exit(0));
  });
}
