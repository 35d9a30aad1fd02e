// The contract itself: the spec passes a real OpenAPI linter, generated/ is exactly what the spec produces,
// and every route the prose contract names (test/fixtures/contract/prose-routes.txt) is in the spec.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import YAML from 'yaml';
import { entryArgs } from '../helpers/entry.js';

const run = promisify(execFile);

/** How a promisified execFile rejects: what the command printed. */
interface RunError {
  stdout: string;
  stderr: string;
}

/** An operation of the spec, as far as these checks read it. */
interface Operation {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  'x-public'?: boolean;
  'x-scopes'?: string[];
  'x-origin'?: string;
}
/** Path items: operations by method (and `parameters`, which the checks skip). */
type Paths = Record<string, Record<string, Operation>>;
const root = path.resolve(import.meta.dirname, '../..');

test('both spec documents pass redocly lint', async (t) => {
  const { stdout, stderr } = await run(
    process.execPath,
    [path.join(root, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', 'spec/openapi.yaml', 'spec/internal.yaml'],
    {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  ).catch((e: RunError) => {
    t.fail(`${e.stdout}\n${e.stderr}`);
    return { stdout: '', stderr: '' };
  });
  t.regex(stdout + stderr, /valid/);
});

test('generated/ is fresh: regenerating gives identical files', async (t) => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'glossa-gen-'));
  try {
    await run(process.execPath, [...entryArgs(path.join(root, 'scripts/generate.ts')), '--out', out], { cwd: root });
    // The tree npm test runs (scripts/test-build.ts) holds each module's compiled `.js` and its map beside its `.ts`.
    const compiled = /\.js(\.map)?$/;
    const committed = readdirSync(path.join(root, 'generated'))
      .filter((f) => !(compiled.test(f) && existsSync(path.join(root, 'generated', f.replace(compiled, '.ts')))))
      .sort();
    t.deepEqual(readdirSync(out).sort(), committed);
    for (const f of committed)
      t.is(readFileSync(path.join(out, f), 'utf8'), readFileSync(path.join(root, 'generated', f), 'utf8'), f);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('every route of the prose contract is described, on the right origin', (t) => {
  const prose = readFileSync(path.join(root, 'test/fixtures/contract/prose-routes.txt'), 'utf8');
  const spec = YAML.parse(readFileSync(path.join(root, 'spec/openapi.yaml'), 'utf8')) as { paths: Paths };
  const described = new Set<string>();
  for (const [p, item] of Object.entries(spec.paths))
    for (const m of Object.keys(item)) described.add(`${m.toUpperCase()} ${p}`);
  const rows = [...prose.matchAll(/^(GET|POST|PUT|PATCH|DELETE|HEAD) (\S+)$/gm)].map((m) => [m[1], m[2]]);
  t.true(rows.length >= 25, `found ${rows.length} routes in test/fixtures/contract/prose-routes.txt`);
  const delivery: Record<string, string> = {
    '/manifest': '/projects/{projectId}/manifest',
    '/bundles/...': '/projects/{projectId}/bundles/{versionId}/{file}',
    '/meta': '/projects/{projectId}/meta',
    '/credential': '/projects/{projectId}/credential',
  };
  for (const [method, p] of rows) {
    const specPath =
      delivery[p] ??
      (p.startsWith('/projects/') || p.startsWith('/operations') || p === '/pricing' || p === '/health'
        ? p
        : `/projects/{projectId}${p}`);
    t.true(described.has(`${method} ${specPath}`), `${method} ${p} (as ${specPath})`);
  }
  for (const p of ['/health', '/projects/{projectId}/manifest', '/projects/{projectId}/bundles/{versionId}/{file}']) {
    t.is(spec.paths[p].get['x-origin'], 'delivery', p);
  }
  // Every operation: an operationId, one tag, and scopes unless public.
  for (const [p, item] of Object.entries(spec.paths)) {
    for (const [m, op] of Object.entries(item)) {
      if (!['get', 'head', 'post', 'put', 'patch', 'delete'].includes(m)) continue;
      t.truthy(op.operationId, `${m} ${p}`);
      t.is(op.tags?.length, 1, `${m} ${p} tags`);
      if (!op['x-public']) t.true(Array.isArray(op['x-scopes']) && op['x-scopes'].length > 0, `${m} ${p} x-scopes`);
      if (op['x-public']) t.deepEqual(op.security, [], `${m} ${p} security`);
    }
  }
});
