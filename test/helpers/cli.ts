// Runs the `glossa` CLI in-process (packages/cli/src/main.ts's run) with captured, non-terminal output.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { run } from '../../packages/cli/src/main.js';
import { entryArgs } from './entry.js';

/**
 * `node` arguments running the executable (packages/cli/src/bin.ts), from any working folder. The built bin
 * (dist/glossa.js) is what test/e2e/standalone/packages.test.ts installs and runs.
 */
export const BIN_ARGS = entryArgs(path.resolve('packages/cli/src/bin.ts'));

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

class Capture extends Writable {
  text = '';
  isTTY = false;
  override _write(chunk: Buffer, _enc: string, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

export async function glossa(
  args: string[],
  opts: { cwd: string; env?: Record<string, string | undefined>; fetch?: typeof globalThis.fetch; tty?: boolean },
): Promise<CliRun> {
  const stdout = new Capture();
  const stderr = new Capture();
  stdout.isTTY = stderr.isTTY = Boolean(opts.tty);
  const code = await run(args, {
    cwd: opts.cwd,
    env: { GLOSSA_BACKOFF_MS: '20', ...opts.env },
    stdout,
    stderr,
    fetch: opts.fetch,
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** A folder holding the given files (paths relative to it). */
export function repo(files: Record<string, string | object>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-cli-'));
  for (const [name, content] of Object.entries(files)) {
    const f = path.join(dir, name);
    mkdirSync(path.dirname(f), { recursive: true });
    writeFileSync(f, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  }
  return dir;
}

/** The CLI tests' two usual file entries: ICU JSON beside the config, and Android XML in values-{android}/. */
const JSON_FILE = { source: 'en.json', format: 'json', template: '{locale}.json' };
export const ANDROID_FILE = { source: 'strings.xml', format: 'android_xml', template: 'values-{android}/strings.xml' };

/** A glossa.config.json for `projectId` of the service at `baseUrl`, with `files` (by default, JSON_FILE). */
export const glossaConfig = (baseUrl: string, projectId: string, files: object[] = [JSON_FILE]) => ({
  baseUrl,
  projectId,
  files,
});
