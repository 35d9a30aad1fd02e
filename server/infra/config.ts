// The service's settings: environment variables only, read once at start. Each variable is declared once, in
// `variables` below, with its type, default, constraints and one line of documentation; `npm run generate` writes
// the table of docs/operations/configuration.md from the same declarations (docs/decisions/0015-configuration-schema.md).
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';

export type EngineName = 'pseudo' | 'openai' | 'none';

/** What loadConfig returns: the variables parsed, with the defaults that derive from others filled in. */
export interface Config {
  port: number;
  deliveryPort: number;
  host: string;
  dataDir: string;
  databaseUrl: string;
  objectStore: string;
  s3: { endpoint?: string; region?: string; forcePathStyle: boolean };
  publicApiUrl: string;
  publicDeliveryUrl: string;
  publicAppUrl: string;
  adminToken: string;
  adminTokenGenerated: boolean;
  translationEngine: EngineName;
  openai: { baseUrl?: string; apiKey?: string; model?: string; images: boolean };
  workers: 'inline' | 'off';
  webhookAllowPrivate: boolean;
  /** WEBHOOK_CA_FILE: read by the webhook sender only (server/domain/webhooks/deliver.ts). */
  webhookCaFile?: string;
  /** WEBHOOK_DNS_SERVERS as a list; empty for the system's (server/domain/webhooks/resolver.ts). */
  webhookDnsServers: string[];
  webhookDnsTimeoutMs: number;
  logLevel: string;
  prepareDelayMs: number;
  /** 0 runs the publisher's steps on the event loop (server/domain/publish/pool.ts). */
  publishThreads: number;
  publishInlineKeys: number;
  /** 0 runs a project's re-check on the event loop (server/domain/checks/pool.ts). */
  checkThreads: number;
  contentParseDeadlineMs: number;
  /** The first dashboard owner `npm start` creates; its rules are the users' (server/domain/users/users.ts). */
  dashboardOwner: { email?: string; password?: string };
  /** scrypt's cost N for the password hashes made from now on (server/domain/users/users.ts). */
  passwordScryptN: number;
}

/** A variable's documentation: one line, and its default in words where no literal value says it. */
interface VariableDoc {
  description: string;
  shownDefault?: string;
}

/** The documentation of each declared variable, read by the table generator (scripts/config-table.ts). */
export const variableDocs = z.registry<VariableDoc>();

function documented<S extends z.ZodType>(schema: S, description: string, shownDefault?: string): S {
  variableDocs.add(schema, { description, shownDefault });
  return schema;
}

const NON_NEGATIVE = 'must be a non-negative integer';
const count = () =>
  z.coerce.number({ error: NON_NEGATIVE }).int({ error: NON_NEGATIVE }).min(0, { error: NON_NEGATIVE });

const POWER_OF_TWO = 'must be a power of two from 1024 to 1048576';

/** `1`, `true`, `yes`, `on` (any case) and their opposites; anything else is refused rather than read as off. */
const flag = () =>
  z
    .stringbool({
      truthy: ['1', 'true', 'yes', 'on'],
      falsy: ['0', 'false', 'no', 'off'],
      error: 'must be 1, true, yes or on, or 0, false, no or off',
    })
    .default(false);

/** Comma-separated DNS servers, refused at start when c-ares cannot read an entry (not at the first lookup). */
const dnsServers = () =>
  z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine(
      (list) => {
        try {
          new Resolver().setServers(list);
          return true;
        } catch {
          return false;
        }
      },
      { error: 'must list ip or ip:port entries ([ip]:port for IPv6)' },
    );

/** Every environment variable the service reads, in the order of the configuration table. Unset and empty are alike. */
export const variables = z.object({
  PORT: documented(count().default(8080), 'main API (`/v1/...`), internal API (`/internal/v1/...`) and the dashboard'),
  DELIVERY_PORT: documented(
    count().default(8081),
    'delivery origin (`/v1/health`, manifests, bundles); `0` turns it off',
  ),
  HOST: documented(z.string().default('127.0.0.1'), 'listen address'),
  DATA_DIR: documented(z.string().default('./data'), 'where the embedded defaults live'),
  DATABASE_URL: documented(
    z.string().optional(),
    'or `mysql://user:pass@host:3306/db` (MySQL 8, MariaDB 10.6+)',
    '`sqlite://$DATA_DIR/service.db`',
  ),
  OBJECT_STORE: documented(
    z.string().optional(),
    "or `s3://bucket/prefix` with `S3_ENDPOINT`, `S3_REGION`, `S3_FORCE_PATH_STYLE` and the AWS SDK's credential variables",
    '`file://$DATA_DIR/objects`',
  ),
  S3_ENDPOINT: documented(z.string().optional(), 'an S3-compatible endpoint (MinIO, R2, ...) instead of AWS', 'AWS'),
  S3_REGION: documented(
    z.string().optional(),
    "the bucket's region; without it, `AWS_REGION`, else `us-east-1` when `S3_ENDPOINT` is set",
    "the AWS SDK's",
  ),
  S3_FORCE_PATH_STYLE: documented(
    flag(),
    'path-style bucket addresses (`endpoint/bucket/key`), for S3-compatible stores that need them',
  ),
  PUBLIC_API_URL: documented(
    z.string().optional(),
    "the main API's address clients see (`{base_url}`); a trailing `/` is dropped, and a `HOST` of `0.0.0.0` or `::` reads as `127.0.0.1` in these defaults",
    '`http://$HOST:$PORT/v1`',
  ),
  PUBLIC_DELIVERY_URL: documented(
    z.string().optional(),
    "the delivery origin's address clients see (`{delivery_url}`, `GET /meta`'s `deliveryUrl`): a CDN in front of it",
    '`http://$HOST:$DELIVERY_PORT/v1`',
  ),
  PUBLIC_APP_URL: documented(
    z.string().optional(),
    "the dashboard's address (`{app_url}`, an operation's `approval_url`); an `https` one makes its cookies `__Host-`",
    '`http://$HOST:$PORT`',
  ),
  ADMIN_TOKEN: documented(z.string().optional(), 'bearer token of the internal API', 'generated and printed'),
  TRANSLATION_ENGINE: documented(
    z.enum(['pseudo', 'openai', 'none'], { error: 'must be pseudo, openai or none' }).default('pseudo'),
    '`pseudo`, `openai` (any OpenAI-compatible endpoint: `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_MODEL`) or `none`',
  ),
  OPENAI_BASE_URL: documented(
    z.string().optional(),
    'with `TRANSLATION_ENGINE=openai` (needed): the endpoint, e.g. `http://127.0.0.1:11434/v1`',
    'none',
  ),
  OPENAI_API_KEY: documented(z.string().optional(), 'with `TRANSLATION_ENGINE=openai`: its bearer token', 'none'),
  OPENAI_MODEL: documented(z.string().optional(), 'with `TRANSLATION_ENGINE=openai` (needed): the model', 'none'),
  OPENAI_IMAGES: documented(
    flag(),
    "with `TRANSLATION_ENGINE=openai`: the model reads images, so a fill sends each key's first screenshot with it",
  ),
  WORKERS: documented(
    z.enum(['inline', 'off'], { error: 'must be inline or off' }).default('inline'),
    '`inline` runs job workers in the API process; `off` leaves them to `npm run worker`',
  ),
  WEBHOOK_ALLOW_PRIVATE: documented(
    flag(),
    'lets webhooks target loopback/private addresses (local development only); metadata addresses stay refused',
  ),
  WEBHOOK_DNS_SERVERS: documented(
    dnsServers(),
    'DNS servers webhook hosts are resolved with, `ip` or `ip:port` (`[ip]:port` for IPv6), comma-separated; `/etc/hosts` is not read (`localhost` is loopback)',
    "the system's (`/etc/resolv.conf`)",
  ),
  WEBHOOK_DNS_TIMEOUT_MS: documented(
    // 0 would time every lookup out before it starts: the least is 1.
    count()
      .default(5000)
      .transform((n) => Math.max(1, n)),
    "how long a webhook host's lookup may take before the host counts as not resolving",
  ),
  WEBHOOK_CA_FILE: documented(
    z.string().optional(),
    "a PEM file of extra certificate authorities the webhook sender trusts beside the system's (a receiver behind a private CA; the tests' own CA). Only the sender uses it; `NODE_EXTRA_CA_CERTS` works too, process-wide",
    'none',
  ),
  LOG_LEVEL: documented(
    z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        error: 'must be fatal, error, warn, info, debug, trace or silent',
      })
      .default('info'),
    'pino level; `silent` for none, `debug` adds a line per request (id, method, path, status, ms). Headers are never logged.',
  ),
  PREPARE_DELAY_MS: documented(
    count().default(5000),
    "how long a project's content must stay unchanged before its publish is prepared in the background (the prepared publish, [publishing guide](../guides/publishing.md))",
  ),
  PUBLISH_THREADS: documented(
    count().optional(),
    'worker threads that gate and render publishes, prepares, restores and version pulls; `0` runs them on the event loop',
    'cores − 1, at least 1',
  ),
  PUBLISH_INLINE_KEYS: documented(
    count().default(2000),
    "projects of at most this many keys are gated and rendered on the event loop: one language takes under 50 ms, less than a thread's start",
  ),
  CHECK_THREADS: documented(
    count().optional(),
    "worker threads that re-check a project after its check settings change, and check a large AI fill's values before they are stored ([checks guide](../guides/checks.md)); a project of at most `PUBLISH_INLINE_KEYS` keys, or every one with `0`, on the event loop",
    'cores, at least 1',
  ),
  CONTENT_PARSE_DEADLINE_MS: documented(
    count().default(10_000),
    "how long a content push's text may take to parse on its thread before the push is refused `413 document_too_large` ([content guide](../guides/content.md), limits)",
  ),
  DASHBOARD_EMAIL: documented(
    z.string().optional(),
    'the first dashboard owner, which `npm start` creates when no dashboard user exists; see the [dashboard guide](../guides/dashboard.md)',
    '`owner@glossa.local`',
  ),
  DASHBOARD_PASSWORD: documented(
    z.string().optional(),
    "that owner's password, at least 12 characters",
    'generated and printed once',
  ),
  PASSWORD_SCRYPT_N: documented(
    z.coerce
      .number({ error: POWER_OF_TWO })
      .int({ error: POWER_OF_TWO })
      .min(2 ** 10, { error: POWER_OF_TWO })
      .max(2 ** 20, { error: POWER_OF_TWO })
      .refine((n) => (n & (n - 1)) === 0, { error: POWER_OF_TWO })
      .default(2 ** 15),
    "scrypt's cost N for new dashboard passwords; each doubling doubles the time and memory of a sign-in (32768: 32 MiB, some 50 ms of one core). A stored hash keeps the cost it was made with, so a change never locks anyone out",
  ),
});

/** `env` parsed through `variables`; a refusal names every invalid variable with its value, one per line. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const given: Record<string, string> = {};
  for (const name of variables.keyof().options) {
    const value = env[name];
    if (value) given[name] = value;
  }
  const parsed = variables.safeParse(given);
  if (!parsed.success) {
    const lines = new Map<string, string>();
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0]);
      if (!lines.has(name)) lines.set(name, `${name} ${issue.message}, got ${JSON.stringify(given[name])}`);
    }
    throw new Error([...lines.values()].join('\n'));
  }
  const v = parsed.data;
  const dataDir = path.resolve(v.DATA_DIR);
  const local = v.HOST === '0.0.0.0' || v.HOST === '::' ? '127.0.0.1' : v.HOST;
  const withoutSlash = (url: string) => url.replace(/\/$/, '');
  return {
    port: v.PORT,
    deliveryPort: v.DELIVERY_PORT,
    host: v.HOST,
    dataDir,
    databaseUrl: v.DATABASE_URL ?? `sqlite://${path.join(dataDir, 'service.db')}`,
    objectStore: v.OBJECT_STORE ?? `file://${path.join(dataDir, 'objects')}`,
    s3: { endpoint: v.S3_ENDPOINT, region: v.S3_REGION, forcePathStyle: v.S3_FORCE_PATH_STYLE },
    publicApiUrl: withoutSlash(v.PUBLIC_API_URL ?? `http://${local}:${v.PORT}/v1`),
    publicDeliveryUrl: withoutSlash(v.PUBLIC_DELIVERY_URL ?? `http://${local}:${v.DELIVERY_PORT}/v1`),
    publicAppUrl: withoutSlash(v.PUBLIC_APP_URL ?? `http://${local}:${v.PORT}`),
    adminToken: v.ADMIN_TOKEN ?? randomBytes(24).toString('base64url'),
    adminTokenGenerated: v.ADMIN_TOKEN === undefined,
    translationEngine: v.TRANSLATION_ENGINE,
    openai: { baseUrl: v.OPENAI_BASE_URL, apiKey: v.OPENAI_API_KEY, model: v.OPENAI_MODEL, images: v.OPENAI_IMAGES },
    workers: v.WORKERS,
    webhookAllowPrivate: v.WEBHOOK_ALLOW_PRIVATE,
    webhookCaFile: v.WEBHOOK_CA_FILE,
    webhookDnsServers: v.WEBHOOK_DNS_SERVERS,
    webhookDnsTimeoutMs: v.WEBHOOK_DNS_TIMEOUT_MS,
    logLevel: v.LOG_LEVEL,
    prepareDelayMs: v.PREPARE_DELAY_MS,
    // One core stays with the event loop.
    publishThreads: v.PUBLISH_THREADS ?? Math.max(1, availableParallelism() - 1),
    publishInlineKeys: v.PUBLISH_INLINE_KEYS,
    // The re-check is background work that waits on nothing: it may use every core, the event loop's statements
    // are a few milliseconds each (bench/checks-recheck.ts).
    checkThreads: v.CHECK_THREADS ?? Math.max(1, availableParallelism()),
    contentParseDeadlineMs: v.CONTENT_PARSE_DEADLINE_MS,
    dashboardOwner: { email: v.DASHBOARD_EMAIL, password: v.DASHBOARD_PASSWORD },
    passwordScryptN: v.PASSWORD_SCRYPT_N,
  };
}
