// File mappings: a template's placeholders in each platform's spelling, and atomic writes of changed files only,
// never outside the project's root (the folder of the config file).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bcp47, platformLocale } from '../../core/src/languages.js';
import { CliError, EXIT } from './errors.js';

/**
 * `file` resolved against `root`, refused unless it lies inside it. Every path the CLI writes passes here: parts of
 * them come from the server (language codes, which a hostile server or proxy could spell `../../x` or `/etc/x`) and
 * from the config's templates and language map.
 */
export function insideRoot(root: string, file: string): string {
  const base = path.resolve(root);
  const dest = path.resolve(base, file);
  const rel = path.relative(base, dest);
  if (file.includes('\0') || rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel))
    throw new CliError(
      EXIT.failure,
      `Refusing to write ${JSON.stringify(file)}: it is outside the project folder ${base}. Nothing was written.`,
    );
  return dest;
}

/** `{locale}` BCP 47 (`pt-BR`), `{android}` (`pt-rBR`), `{apple}` (`pt-BR`), `{posix}` (`pt_BR`). */
export function expandTemplate(template: string, code: string): string {
  return template
    .replaceAll('{locale}', bcp47(code))
    .replaceAll('{android}', platformLocale(code, 'android'))
    .replaceAll('{apple}', platformLocale(code, 'apple'))
    .replaceAll('{posix}', platformLocale(code, 'posix'));
}

/**
 * Writes `bytes` to `file` (inside `root`) through a temporary file and a rename, unless the file already holds them.
 */
export function writeIfChanged(root: string, name: string, bytes: Uint8Array): boolean {
  const file = insideRoot(root, name);
  if (existsSync(file)) {
    const old = readFileSync(file);
    if (Buffer.compare(old, bytes) === 0) return false;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  writeFileSync(tmp, bytes);
  renameSync(tmp, file);
  return true;
}
