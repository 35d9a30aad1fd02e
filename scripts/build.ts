// `npm run build [core|client|runtime|cli ...]`: each package of packages/ to JavaScript in its dist/ (gitignored),
// as docs/decisions/0013-client-packages.md describes. core, client and runtime: tsc (ESM and .d.ts, with the
// package's tsconfig.build.json). runtime also as browser files (esbuild, minified ES2020: ESM, and an IIFE exposing
// the global `Glossa` for a plain <script> tag). cli: one esbuild bundle of src/bin.ts with packages/core and
// packages/client and every npm package it imports inside, so the tarball installs alone with no dependency (the
// MCP SDK and zod alone would install over 20 MB); package.json lists what it bundles as devDependencies, and
// dist/THIRD-PARTY-LICENSES.txt carries their licences.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = (name: string, ...rest: string[]) => path.join(ROOT, 'packages', name, ...rest);
const ALL = ['core', 'client', 'runtime', 'cli'];

function tsc(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const tscBin = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const child = spawn(process.execPath, [tscBin, '-p', pkg(name, 'tsconfig.build.json')], { stdio: 'inherit' });
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`tsc for packages/${name} exited ${code}`)),
    );
  });
}

async function runtimeBrowser() {
  for (const [format, file] of [
    ['esm', 'glossa-runtime.min.js'],
    ['iife', 'glossa-runtime.iife.min.js'],
  ] as const)
    await build({
      entryPoints: [pkg('runtime', 'src/index.ts')],
      outfile: pkg('runtime', 'dist', file),
      bundle: true,
      minify: true,
      format,
      globalName: format === 'iife' ? 'Glossa' : undefined,
      platform: 'browser',
      target: 'es2020',
      logLevel: 'warning',
    });
}

async function cli() {
  const out = await build({
    entryPoints: [pkg('cli', 'src/bin.ts')],
    outfile: pkg('cli', 'dist/glossa.js'),
    // The metafile's paths are relative to this, whichever folder the build runs from (npm runs prepack in the
    // package's).
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // The CommonJS packages inside (ajv, iconv-lite, ...) call require() for Node's modules; an ES module has none.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as glossaCreateRequire } from 'node:module';\nconst require = glossaCreateRequire(import.meta.url);",
    },
    metafile: true,
    logLevel: 'warning',
  });
  const external = Object.values(out.metafile.outputs)
    .flatMap((o) => o.imports)
    .filter((i) => i.external && !i.path.startsWith('node:') && !builtinModules.includes(i.path))
    .map((i) => i.path);
  if (external.length)
    throw new Error(`the CLI bundle imports ${external.join(', ')}: only Node's own modules may stay outside`);
  const inside = bundledPackages(out.metafile);
  const declared = Object.keys(
    (JSON.parse(readFileSync(pkg('cli', 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
      .devDependencies,
  );
  const direct = new Set(inside.map((p) => p.name));
  const unused = declared.filter((d) => !direct.has(d));
  if (unused.length)
    throw new Error(`packages/cli/package.json devDependencies not in the bundle: ${unused.join(', ')}`);
  writeFileSync(pkg('cli', 'dist/THIRD-PARTY-LICENSES.txt'), notices(inside));
}

interface Bundled {
  name: string;
  version: string;
  license: string;
  dir: string;
}

/** The npm packages whose code the bundle holds, each once, from esbuild's list of inputs. */
function bundledPackages(meta: Metafile): Bundled[] {
  const dirs = new Set<string>();
  for (const input of Object.keys(meta.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(m[1]);
  }
  return [...dirs]
    .map((d) => {
      const dir = path.resolve(ROOT, d);
      const p = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
        license?: string;
      };
      return { name: p.name, version: p.version, license: p.license ?? 'see the package', dir };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The licence of every bundled package, as their licences ask copies to carry them. */
function notices(packages: Bundled[]): string {
  const parts = packages.map((p) => {
    const file = readdirSync(p.dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
    const text = file ? readFileSync(path.join(p.dir, file), 'utf8').trim() : `License: ${p.license}`;
    return `${p.name}@${p.version} (${p.license})\n\n${text}\n`;
  });
  return `dist/glossa.js bundles the following packages.\n\n${parts.join(`\n${'-'.repeat(78)}\n\n`)}`;
}

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
for (const name of wanted) if (!ALL.includes(name)) throw new Error(`no package ${name} (one of ${ALL.join(', ')})`);
const started = Date.now();
for (const name of wanted) rmSync(pkg(name, 'dist'), { recursive: true, force: true });
await Promise.all(
  wanted.map(async (name) => {
    if (name === 'cli') return cli();
    await tsc(name);
    if (name === 'runtime') await runtimeBrowser();
  }),
);
// On stderr: `npm pack --json` runs this as prepack, and its stdout must stay the JSON.
console.error(`built ${wanted.join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
