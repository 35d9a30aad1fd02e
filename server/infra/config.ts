// Every setting of README "Configuration", read once from the environment.
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns';
import { availableParallelism } from 'node:os';
import path from 'node:path';

export type EngineName = 'pseudo' | 'openai' | 'none';

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
  openai: { baseUrl?: string; apiKey?: string; model?: string };
  workers: 'inline' | 'off';
  webhookAllowPrivate: boolean;
  /**
   * WEBHOOK_CA_FILE: a PEM file of certificate authorities the webhook sender trusts beside the system's (a
   * receiver behind a private CA; the tests' self-signed one). Nothing else in the service uses it.
   */
  webhookCaFile?: string;
  /**
   * WEBHOOK_DNS_SERVERS: the DNS servers webhook hosts are resolved with (comma-separated `ip` or `ip:port`, an IPv6
   * one as `[ip]:port`); empty for the system's (/etc/resolv.conf). server/domain/webhooks/resolver.ts.
   */
  webhookDnsServers: string[];
  /** WEBHOOK_DNS_TIMEOUT_MS: how long a webhook host's lookup may take before it counts as not resolving. */
  webhookDnsTimeoutMs: number;
  logLevel: string;
  /** Quiet time after a project's last content change before its publish is prepared (publish/prepare.ts). */
  prepareDelayMs: number;
  /** Worker threads for the publisher's CPU-heavy steps (server/domain/publish/pool.ts); 0 runs them on the event loop. */
  publishThreads: number;
  /** Snapshots of at most this many keys are gated and rendered inline, without a thread's start (pool.ts). */
  publishInlineKeys: number;
  /** How long a content push's text may take to parse on its thread before the push is refused (content/parse-pool.ts). */
  contentParseDeadlineMs: number;
}

function flag(v: string | undefined): boolean {
  return v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
}

function int(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return n;
}

/** WEBHOOK_DNS_SERVERS as a list, refused at start when c-ares cannot read an entry (not at the first lookup). */
function dnsServers(v: string | undefined): string[] {
  const list = (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  try {
    new Resolver().setServers(list);
  } catch {
    throw new Error(
      `WEBHOOK_DNS_SERVERS must list ip or ip:port entries ([ip]:port for IPv6), got ${JSON.stringify(v)}`,
    );
  }
  return list;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int('PORT', env.PORT, 8080);
  const deliveryPort = int('DELIVERY_PORT', env.DELIVERY_PORT, 8081);
  const host = env.HOST || '127.0.0.1';
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const engine = (env.TRANSLATION_ENGINE || 'pseudo') as EngineName;
  if (!['pseudo', 'openai', 'none'].includes(engine))
    throw new Error(`TRANSLATION_ENGINE must be pseudo, openai or none`);
  const workers = (env.WORKERS || 'inline') as Config['workers'];
  if (!['inline', 'off'].includes(workers)) throw new Error('WORKERS must be inline or off');
  const local = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    port,
    deliveryPort,
    host,
    dataDir,
    databaseUrl: env.DATABASE_URL || `sqlite://${path.join(dataDir, 'service.db')}`,
    objectStore: env.OBJECT_STORE || `file://${path.join(dataDir, 'objects')}`,
    s3: { endpoint: env.S3_ENDPOINT, region: env.S3_REGION, forcePathStyle: flag(env.S3_FORCE_PATH_STYLE) },
    publicApiUrl: (env.PUBLIC_API_URL || `http://${local}:${port}/v1`).replace(/\/$/, ''),
    publicDeliveryUrl: (env.PUBLIC_DELIVERY_URL || `http://${local}:${deliveryPort}/v1`).replace(/\/$/, ''),
    publicAppUrl: (env.PUBLIC_APP_URL || `http://${local}:${port}`).replace(/\/$/, ''),
    adminToken: env.ADMIN_TOKEN || randomBytes(24).toString('base64url'),
    adminTokenGenerated: !env.ADMIN_TOKEN,
    translationEngine: engine,
    openai: { baseUrl: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY, model: env.OPENAI_MODEL },
    workers,
    webhookAllowPrivate: flag(env.WEBHOOK_ALLOW_PRIVATE),
    webhookCaFile: env.WEBHOOK_CA_FILE || undefined,
    webhookDnsServers: dnsServers(env.WEBHOOK_DNS_SERVERS),
    webhookDnsTimeoutMs: Math.max(1, int('WEBHOOK_DNS_TIMEOUT_MS', env.WEBHOOK_DNS_TIMEOUT_MS, 5000)),
    logLevel: env.LOG_LEVEL || 'info',
    prepareDelayMs: int('PREPARE_DELAY_MS', env.PREPARE_DELAY_MS, 5_000),
    // One core stays with the event loop.
    publishThreads: int('PUBLISH_THREADS', env.PUBLISH_THREADS, Math.max(1, availableParallelism() - 1)),
    publishInlineKeys: int('PUBLISH_INLINE_KEYS', env.PUBLISH_INLINE_KEYS, 2_000),
    contentParseDeadlineMs: int('CONTENT_PARSE_DEADLINE_MS', env.CONTENT_PARSE_DEADLINE_MS, 10_000),
  };
}
