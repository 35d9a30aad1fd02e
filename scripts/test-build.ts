// The tree `npm test` runs: a copy of the checkout (node_modules linked, not copied) with every TypeScript file of the
// code and the tests compiled beside itself to JavaScript by esbuild, once per run, so AVA's workers start on plain
// JavaScript instead of each one loading and transforming the same modules through tsx's loader hooks
// (docs/decisions/0020-tests-run-compiled.md has the measurement). The `.ts` files stay in the copy: child processes
// the tests start through tsx (the service in `test/helpers/process.ts`, the CLI's bin) and the coverage report's
// source maps read them.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';

/** Where the compiled tree keeps each test file's weight (its bytes of source) for the order AVA starts them in. */
export const WEIGHTS_FILE = 'test-weights.json';

/** What is compiled: every TypeScript file a test imports (`bench/` and the packages' built `dist/` are not). */
const COMPILED = /^(server|generated|test|scripts|packages\/[^/]+\/src)\/.*(?<!\.d)\.ts$/;
/** What is not copied: linked (node_modules) or of no use to a test. */
const SKIPPED = new Set(['node_modules', '.git', 'coverage']);

/**
 * AVA's settings for the compiled tree: the same as package.json's, on `.js` and without the tsx loader, and the
 * longest files first. AVA starts files in the order it found them, shallow folders first, which left the
 * browser and consumer-tool files (test/e2e/consumers, test/e2e/standalone, test/service/output) for last: the
 * lane ended on a few long files that mostly wait, with a core idle, after the other lanes had finished. Started
 * first they overlap the other lanes, and the lane ends on short files that keep both cores busy. Within a tier,
 * larger files first (a batch of files weighs what its members do: scripts/test-batches.ts).
 */
const AVA_CONFIG = `import { existsSync, readFileSync, statSync } from 'node:fs';

const TIERS = [/^test\\/e2e\\/(consumers|standalone)\\//, /^test\\/e2e\\//, /^test\\/service\\/output\\//, /^test\\/service\\//];
const tier = (f) => { const i = TIERS.findIndex((t) => t.test(f)); return i < 0 ? TIERS.length : i; };
const weights = existsSync('${WEIGHTS_FILE}') ? JSON.parse(readFileSync('${WEIGHTS_FILE}', 'utf8')) : {};
const size = (f) => weights[rel(f)] ?? statSync(f).size;
const rel = (f) => f.slice(process.cwd().length + 1).replaceAll('\\\\', '/');

export default {
  files: ['test/**/*.test.js'],
  nodeArguments: ['--enable-source-maps'],
  timeout: '3m',
  workerThreads: false,
  sortTestFiles: (a, b) => tier(rel(a)) - tier(rel(b)) || size(b) - size(a),
};
`;

/** Copies `root` to a folder of the system's temporary space, compiles it there and returns that folder. */
export async function testBuild(root: string): Promise<string> {
  const id = createHash('sha256').update(root).digest('hex').slice(0, 12);
  const dir = path.join(os.tmpdir(), `glossa-test-${id}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(root, dir, {
    recursive: true,
    filter: (src) => !SKIPPED.has(path.basename(src)) || path.dirname(src) !== root,
  });
  // Listed before node_modules is linked, which a recursive listing would walk.
  const entryPoints = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => COMPILED.test(f));
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  await build({
    absWorkingDir: dir,
    entryPoints,
    outdir: dir,
    outbase: dir,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Beside each file, not inside it: V8 reads every byte of a module's text when it compiles it, and Node caches
    // each module's map as it loads under coverage. Inline maps doubled the text of each of the ~500 modules every
    // worker loads (some 40 ms of CPU per worker, 100 ms under coverage).
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  delete pkg.ava;
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(path.join(dir, 'ava.config.mjs'), AVA_CONFIG);
  return dir;
}

/** A test file named as in the checkout (`test/x.test.ts`) as the compiled tree runs it. */
export const compiledName = (arg: string) => arg.replace(/\.ts$/, '.js');
