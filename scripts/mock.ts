// `npm run mock`: a Prism mock of the public API, at the addresses the service answers. The service mounts the
// main API and the delivery routes under `/v1` (server/app/servers.ts), while spec/openapi.yaml writes its paths
// relative to the `/v1` server URL, and Prism's mock matches paths only (it has no base-path option). So the
// mock serves a copy of the spec, written to a temporary folder at start, whose paths carry the `/v1` prefix:
// `GET /v1/projects/{projectId}/...`, `GET /v1/pricing`, and the delivery origin's `GET /v1/health`,
// `/v1/projects/{projectId}/manifest` and `/v1/projects/{projectId}/bundles/...` on the same port, so one
// address is both `{base_url}` and `{delivery_url}` (`http://127.0.0.1:4010/v1`). The spec itself is only read.
//
//   npm run mock                     # 127.0.0.1:4010
//   npm run mock -- -p 4020 --dynamic  # any other prism-cli `mock` option is passed on
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The prefix the service mounts the public API and the delivery routes under (server/app/servers.ts `PREFIX`). */
export const PREFIX = '/v1';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** An OpenAPI document as far as this rewrite reads it: path items of operations that may name servers. */
type Spec = Record<string, unknown> & { paths?: Record<string, Record<string, unknown>> };

/**
 * The document Prism serves: every path under `/v1`, and `servers` naming the mock's own origin (the
 * operation-level servers of the delivery routes are dropped: both origins are this one address).
 */
export function mockDocument(spec: Spec, origin: string): Spec {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [p, item] of Object.entries(spec.paths ?? {})) {
    const { servers: _s, ...rest } = item;
    for (const m of METHODS) {
      const operation = rest[m] as { servers?: unknown } | undefined;
      if (operation?.servers) {
        const { servers: _os, ...op } = operation;
        rest[m] = op;
      }
    }
    paths[PREFIX + p] = rest;
  }
  return { ...spec, servers: [{ url: origin, description: 'Prism mock of the main and the delivery origin.' }], paths };
}

function option(args: string[], names: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    for (const n of names) {
      if (args[i] === n) return args[i + 1];
      if (args[i].startsWith(`${n}=`)) return args[i].slice(n.length + 1);
    }
  }
  return undefined;
}

function main() {
  const args = process.argv.slice(2);
  const port = option(args, ['-p', '--port']);
  const host = option(args, ['-h', '--host']);
  const extra = [...(port ? [] : ['-p', '4010']), ...(host ? [] : ['-h', '127.0.0.1'])];
  const origin = `http://${host ?? '127.0.0.1'}:${port ?? '4010'}`;

  const spec = YAML.parse(readFileSync(path.join(root, 'spec/openapi.yaml'), 'utf8')) as Spec;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-mock-'));
  const file = path.join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(mockDocument(spec, origin), null, 2));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });

  const prismCli = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');
  const prism = spawn(process.execPath, [prismCli, 'mock', ...extra, ...args, file], { cwd: root, stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => prism.kill(sig));
  prism.on('exit', (code, signal) => {
    cleanup();
    process.exit(code ?? (signal ? 0 : 1));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
