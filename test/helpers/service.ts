// Starts a real service for one test file: its own database (a SQLite file, or a fresh MySQL database when the
// suite runs with TEST_DB=mysql), real HTTP on free loopback ports, workers off (tests drive jobs through
// POST /internal/v1/jobs/run-due), and SDK clients whose every response is checked against the spec.
import type { DestinationStream } from '../../server/infra/log.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import type { Middleware } from 'openapi-fetch';
import { routes } from '../../generated/routes.js';
import { startService, type Service } from '../../server/app/app.js';
import { loadConfig } from '../../server/infra/config.js';
import { injectFetch } from '../../server/http/inject-fetch.js';
import { responseValidator } from '../../server/http/validation.js';
import {
  createClient,
  createInternalClient,
  type ApiClient,
  type InternalClient,
} from '../../packages/client/src/index.js';
import type { operations as InternalOps } from '../../generated/internal.js';
import { copyMysqlTemplate, copySqliteTemplate } from './template-db.js';

/** The scopes a key may hold, as the internal API's key creation takes them. */
type KeyScopes = InternalOps['internalCreateApiKey']['requestBody']['content']['application/json']['scopes'];

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/**
 * The tests' password cost (PASSWORD_SCRYPT_N), the cheapest: the tests sign in hundreds of times, and what a hash
 * is made of is the same at any cost (test/service/dashboard.test.ts checks a hash at the default cost too).
 */
export const TEST_SCRYPT_N = 1024;

interface TestDb {
  url: string;
  drop: () => Promise<void>;
}

/**
 * A database of its own for this test file: a copy of the run's migrated template when `npm test` made one
 * (test/helpers/template-db.ts), else empty (the service migrates it on start). `empty`: never the template, for
 * a test that runs the migrations itself.
 */
export async function testDatabase(opts: { empty?: boolean } = {}): Promise<TestDb> {
  const template = opts.empty ? undefined : process.env.TEST_TEMPLATE_DB;
  if (process.env.TEST_DB === 'mysql') {
    const base = process.env.MYSQL_URL;
    if (!base) throw new Error('TEST_DB=mysql needs MYSQL_URL');
    const name = `glossa_t_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = knexFactory({ client: 'mysql2', connection: base });
    await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    await admin.destroy();
    if (template) await copyMysqlTemplate(base, template, name);
    const u = new URL(base);
    u.pathname = `/${name}`;
    return {
      url: u.toString(),
      async drop() {
        const k = knexFactory({ client: 'mysql2', connection: base });
        await k.raw(`DROP DATABASE IF EXISTS \`${name}\``);
        await k.destroy();
      },
    };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-test-'));
  const file = path.join(dir, 'service.db');
  if (template) copySqliteTemplate(template, file);
  return {
    url: `sqlite://${file}`,
    drop() {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

const byMethodPath = (internal: boolean) =>
  new Map(routes.filter((r) => (r.origin === 'internal') === internal).map((r) => [`${r.method} ${r.path}`, r]));
const PUBLIC_ROUTES = byMethodPath(false);
const INTERNAL_ROUTES = byMethodPath(true);

/** Fails the call when a response's status is not documented for its operation or its JSON body breaks the schema. */
export function specCheck(internal = false): Middleware {
  const table = internal ? INTERNAL_ROUTES : PUBLIC_ROUTES;
  return {
    async onResponse({ request, response, schemaPath }) {
      const route = table.get(`${request.method} ${schemaPath}`);
      if (!route) throw new Error(`spec check: ${request.method} ${schemaPath} is not in the spec`);
      const status = response.status;
      if (!route.statuses.includes(String(status))) {
        const text = await response.clone().text();
        throw new Error(
          `spec check: ${route.operationId} answered ${status}, which the spec does not document: ${text.slice(0, 300)}`,
        );
      }
      const validator = responseValidator(route.operationId, status);
      if (!validator || request.method === 'HEAD') return undefined;
      const body = (await response.clone().json()) as unknown;
      if (!validator(body)) {
        throw new Error(
          `spec check: ${route.operationId} ${status} body breaks the spec: ${JSON.stringify(validator.errors?.slice(0, 3))} body=${JSON.stringify(body).slice(0, 500)}`,
        );
      }
      return undefined;
    },
  };
}

export interface TestService {
  service: Service;
  baseUrl: string;
  internalUrl: string;
  deliveryUrl: string;
  admin: InternalClient;
  client(apiKey?: string): ApiClient;
  stop(): Promise<void>;
}

export async function startTestService(
  env: Record<string, string> = {},
  dbUrl?: string,
  opts: { logDestination?: DestinationStream } = {},
): Promise<TestService & { dropDb?: () => Promise<void> }> {
  const db = dbUrl ? undefined : await testDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'glossa-test-data-'));
  const config = loadConfig({
    DATABASE_URL: dbUrl ?? db!.url,
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    WORKERS: 'off',
    PASSWORD_SCRYPT_N: String(TEST_SCRYPT_N),
    LOG_LEVEL: 'silent',
    ...env,
  });
  const service = await startService(config, { port: 0, deliveryPort: 0, logDestination: opts.logDestination });
  // An idle keep-alive socket is closed by the client (undici: after 4 s), never by the server under it: with the
  // server's 5 s default, a loaded machine's late timers let the server close a socket the test's next fetch (or
  // the CLI's) had just taken, and the fetch failed.
  for (const server of [service.main, service.delivery]) server.listener.keepAliveTimeout = 65_000;
  const baseUrl = `http://127.0.0.1:${service.main.info.port}/v1`;
  const internalUrl = `http://127.0.0.1:${service.main.info.port}/internal/v1`;
  const deliveryUrl = `http://127.0.0.1:${service.delivery.info.port}/v1`;
  // The SDK clients call the main server in-process (server.inject, server/http/inject-fetch.ts): the same
  // pipeline without a socket. Tests of what sockets do (delivery, CORS, keep-alive, raw bytes, timeouts) reach
  // `baseUrl` with fetch or a socket of their own.
  const inProcess = injectFetch(service.main);
  return {
    service,
    baseUrl,
    internalUrl,
    deliveryUrl,
    admin: createInternalClient({
      baseUrl: internalUrl,
      adminToken: ADMIN_TOKEN,
      fetch: inProcess,
      middleware: [specCheck(true)],
    }),
    client: (apiKey?: string) => createClient({ baseUrl, apiKey, fetch: inProcess, middleware: [specCheck()] }),
    dropDb: db?.drop,
    async stop() {
      await service.stop();
      await db?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestProject {
  projectId: string;
  workspaceId: string;
  apiKey: string;
  client: ApiClient;
}

/** A workspace, a project and a key with the given scopes, made through the internal API. */
export async function createTestProject(
  svc: TestService,
  opts: {
    baseLang?: string;
    languages?: Array<{ code: string; fillMode?: 'ai' | 'manual' }>;
    scopes?: KeyScopes;
    creditsMc?: number;
    mode?: 'a' | 'b';
    /** Content documents switched on (ProjectCreate `contentEnabled`). */
    contentEnabled?: boolean;
  } = {},
): Promise<TestProject> {
  const ws = await svc.admin.POST('/workspaces', {
    body: { name: 'Test workspace', creditsMc: opts.creditsMc ?? 1_000_000 },
  });
  if (!ws.data) throw new Error(`workspace: ${JSON.stringify(ws.error)}`);
  const p = await svc.admin.POST('/projects', {
    body: {
      workspaceId: ws.data.workspaceId,
      name: 'Test project',
      baseLang: opts.baseLang ?? 'en',
      languages: opts.languages ?? [{ code: 'de' }, { code: 'fr' }],
      mode: opts.mode,
      contentEnabled: opts.contentEnabled,
    },
  });
  if (!p.data) throw new Error(`project: ${JSON.stringify(p.error)}`);
  const apiKey = await createTestKey(svc, p.data.projectId, opts.scopes ?? ['admin']);
  return { projectId: p.data.projectId, workspaceId: ws.data.workspaceId, apiKey, client: svc.client(apiKey) };
}

export async function createTestKey(
  svc: TestService,
  projectId: string,
  scopes: KeyScopes,
  requiresOperationApproval = false,
): Promise<string> {
  const k = await svc.admin.POST('/projects/{projectId}/api-keys', {
    params: { path: { projectId } },
    body: { scopes, requiresOperationApproval },
  });
  if (!k.data) throw new Error(`key: ${JSON.stringify(k.error)}`);
  return k.data.apiKey;
}

/** POST /publish with `incompleteMode: skip` (a key without a value is left out, not baked from the source). */
export async function publishSkipping(p: TestProject): Promise<string> {
  const v = await p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
    body: { incompleteMode: 'skip' },
  });
  if (!v.data) throw new Error(JSON.stringify(v.error));
  return v.data.versionId;
}

/** A published version's file as text (GET /translations?version=…&format=…&lang=…); anything but 200 throws. */
export async function pullText(
  svc: TestService,
  p: TestProject,
  version: string,
  format: string,
  lang: string,
): Promise<string> {
  const r = await fetch(
    `${svc.baseUrl}/projects/${p.projectId}/translations?${new URLSearchParams({ version, format, lang })}`,
    { headers: { authorization: `Bearer ${p.apiKey}` } },
  );
  if (r.status !== 200) throw new Error(`pull ${format} ${lang}: ${r.status} ${await r.text()}`);
  return r.text();
}
