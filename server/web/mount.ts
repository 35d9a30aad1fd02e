// The dashboard: server-rendered pages on the main origin, outside /v1 and /internal/v1 (and outside the specs, which
// describe JSON APIs; the pages use in-process functions of the groups they show). server/app/servers.ts mounts them.
import type Hapi from '@hapi/hapi';
import type { App } from '../infra/app.js';
import { approvalRoutes } from './approve.js';
import { keyRoutes } from './keys.js';
import { gridRoutes } from './grid.js';
import { checkRoutes } from './checks.js';
import { fillRoutes } from './fill.js';
import { apiKeyRoutes } from './apikeys.js';
import { contentRoutes } from './content.js';
import { userRoutes } from './users-page.js';
import { webhookRoutes } from './webhooks.js';
import { assetRoutes } from './assets.js';
import { signinRoutes } from './signin.js';
import { projectRoutes } from './projects.js';
import { publishRoutes } from './publish.js';
import { versionRoutes } from './versions.js';
import { operationRoutes } from './operations.js';
import { termRoutes } from './terms.js';
import { settingsRoutes } from './settings.js';
import { registerDashboardAuth } from './auth.js';

/** Form posts: URL-encoded, small, and read by Hapi (these routes are not the API's pipeline). */
const FORM_PAYLOAD = {
  parse: true,
  output: 'data',
  allow: 'application/x-www-form-urlencoded',
  maxBytes: 16 * 1024,
  timeout: 10_000,
} as const;

const ownPayload = (route: Hapi.ServerRoute) =>
  typeof route.options === 'object' ? (route.options.payload ?? {}) : {};

/**
 * The dashboard's session strategy, cookies and CSRF checks (auth.ts), then its routes. Before the server's JSON
 * error answers (server/app/servers.ts): a refusal on a dashboard route is answered with a page.
 */
export async function mountDashboard(server: Hapi.Server, app: App): Promise<void> {
  await registerDashboardAuth(server, app);
  for (const route of [
    ...assetRoutes(),
    ...signinRoutes(app),
    ...approvalRoutes(app, server),
    ...keyRoutes(app, server),
    ...gridRoutes(server),
    ...checkRoutes(app, server),
    ...fillRoutes(app, server),
    ...apiKeyRoutes(app, server),
    ...webhookRoutes(app, server),
    ...userRoutes(app, server),
    ...contentRoutes(app, server),
    ...projectRoutes(app, server),
    ...publishRoutes(app, server),
    ...versionRoutes(app, server),
    ...operationRoutes(app, server),
    ...termRoutes(app, server),
    ...settingsRoutes(app, server),
  ]) {
    server.route({
      ...route,
      options: {
        ...route.options,
        // A malformed cookie of another site is not an error: the dashboard's own still count (auth.ts).
        state: { parse: true, failAction: 'ignore' },
        // A route that takes a file (screenshots.ts) names its own type and size over these.
        ...(route.method === 'POST' ? { payload: { ...FORM_PAYLOAD, ...ownPayload(route) } } : {}),
      },
    });
  }
}
