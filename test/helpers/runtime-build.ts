// The browser build of the runtime client (packages/runtime/src/index.ts): one minified ES2020 file, bundled by esbuild
// (the bundler tsx itself runs on), as an app's bundler would ship it. `iife` exposes the module as the global
// `Glossa` for a plain <script> tag (the Chromium test's page); `esm` is what the size budget is measured on.
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../packages/runtime/src/index.ts');

/** The minified browser build's text. */
export async function buildRuntime(format: 'esm' | 'iife' = 'esm'): Promise<string> {
  const out = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format,
    globalName: format === 'iife' ? 'Glossa' : undefined,
    platform: 'browser',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}

/** Minified and gzipped (level 9, as a CDN serves it), in bytes. */
export const gzippedSize = (code: string) => gzipSync(code, { level: 9 }).length;
