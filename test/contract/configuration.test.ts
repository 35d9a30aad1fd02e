// The environment variables (server/infra/config.ts): what loadConfig makes of them, how it refuses a bad one at
// start, and docs/operations/configuration.md's table being exactly what their declarations generate.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { loadConfig } from '../../server/infra/config.js';
import { CONFIGURATION_DOC, withConfigTable } from '../../scripts/config-table.js';

test('the configuration table is fresh: `npm run generate` would not change it', (t) => {
  const doc = readFileSync(CONFIGURATION_DOC, 'utf8');
  t.is(withConfigTable(doc), doc, 'run `npm run generate`');
});

test('the table lists every variable with a description', (t) => {
  const doc = readFileSync(CONFIGURATION_DOC, 'utf8');
  for (const name of ['PORT', 'WEBHOOK_DNS_SERVERS', 'PUBLISH_THREADS', 'DASHBOARD_PASSWORD'])
    t.regex(doc, new RegExp(`^\\| \`${name}\` +\\| [^|]+ \\| \\S`, 'm'), name);
});

test('defaults: unset and empty variables alike', (t) => {
  for (const env of [{}, { PORT: '', HOST: '', WORKERS: '', WEBHOOK_ALLOW_PRIVATE: '', ADMIN_TOKEN: '' }]) {
    const c = loadConfig(env);
    t.like(c, {
      port: 8080,
      deliveryPort: 8081,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      databaseUrl: `sqlite://${path.resolve('./data/service.db')}`,
      objectStore: `file://${path.resolve('./data/objects')}`,
      s3: { forcePathStyle: false },
      publicApiUrl: 'http://127.0.0.1:8080/v1',
      publicDeliveryUrl: 'http://127.0.0.1:8081/v1',
      publicAppUrl: 'http://127.0.0.1:8080',
      adminTokenGenerated: true,
      translationEngine: 'pseudo',
      workers: 'inline',
      webhookAllowPrivate: false,
      webhookDnsServers: [],
      webhookDnsTimeoutMs: 5000,
      logLevel: 'info',
      prepareDelayMs: 5000,
      publishInlineKeys: 2000,
      contentParseDeadlineMs: 10_000,
      passwordScryptN: 32_768,
    });
    t.true(c.adminToken.length >= 32);
    t.true(c.publishThreads >= 1);
    t.is(c.webhookCaFile, undefined);
  }
});

test('values: numbers, flags, lists, derived addresses', (t) => {
  const c = loadConfig({
    PORT: '9000',
    DELIVERY_PORT: '0',
    HOST: '0.0.0.0',
    DATA_DIR: '/srv/glossa',
    S3_FORCE_PATH_STYLE: 'TRUE',
    PUBLIC_APP_URL: 'https://glossa.example/',
    ADMIN_TOKEN: 'secret',
    WEBHOOK_ALLOW_PRIVATE: 'off',
    WEBHOOK_DNS_SERVERS: ' 1.1.1.1, [::1]:5353 ,',
    WEBHOOK_DNS_TIMEOUT_MS: '0',
    PUBLISH_THREADS: '0',
    DASHBOARD_EMAIL: 'lead@example.test',
    PASSWORD_SCRYPT_N: '1048576',
    UNRELATED: 'ignored',
  });
  t.like(c, {
    port: 9000,
    deliveryPort: 0,
    host: '0.0.0.0',
    databaseUrl: 'sqlite:///srv/glossa/service.db',
    s3: { forcePathStyle: true },
    publicApiUrl: 'http://127.0.0.1:9000/v1',
    publicDeliveryUrl: 'http://127.0.0.1:0/v1',
    publicAppUrl: 'https://glossa.example',
    adminToken: 'secret',
    adminTokenGenerated: false,
    webhookAllowPrivate: false,
    webhookDnsServers: ['1.1.1.1', '[::1]:5353'],
    webhookDnsTimeoutMs: 1,
    publishThreads: 0,
    dashboardOwner: { email: 'lead@example.test' },
    passwordScryptN: 2 ** 20,
  });
});

test('an invalid value is refused at start, naming the variable and the value', (t) => {
  const refusals: Array<[Record<string, string>, string]> = [
    [{ PORT: 'eighty' }, 'PORT must be a non-negative integer, got "eighty"'],
    [{ PREPARE_DELAY_MS: '-1' }, 'PREPARE_DELAY_MS must be a non-negative integer, got "-1"'],
    [{ PUBLISH_THREADS: '1.5' }, 'PUBLISH_THREADS must be a non-negative integer, got "1.5"'],
    [{ TRANSLATION_ENGINE: 'deepl' }, 'TRANSLATION_ENGINE must be pseudo, openai or none, got "deepl"'],
    [{ WORKERS: 'remote' }, 'WORKERS must be inline or off, got "remote"'],
    ...['1000', '512', '2097152', 'lots'].map((n): [Record<string, string>, string] => [
      { PASSWORD_SCRYPT_N: n },
      `PASSWORD_SCRYPT_N must be a power of two from 1024 to 1048576, got "${n}"`,
    ]),
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be fatal, error, warn, info, debug, trace or silent, got "loud"'],
    [
      { WEBHOOK_ALLOW_PRIVATE: 'sure' },
      'WEBHOOK_ALLOW_PRIVATE must be 1, true, yes or on, or 0, false, no or off, got "sure"',
    ],
    [
      { WEBHOOK_DNS_SERVERS: '1.1.1.1,resolver' },
      'WEBHOOK_DNS_SERVERS must list ip or ip:port entries ([ip]:port for IPv6), got "1.1.1.1,resolver"',
    ],
  ];
  for (const [env, message] of refusals) t.throws(() => loadConfig(env), { message }, JSON.stringify(env));
  t.throws(() => loadConfig({ PORT: 'x', WORKERS: 'y' }), {
    message: 'PORT must be a non-negative integer, got "x"\nWORKERS must be inline or off, got "y"',
  });
});
