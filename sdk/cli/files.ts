// File mappings: a template's placeholders in each platform's spelling, and atomic writes of changed files only.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bcp47, platformLocale } from '../../publisher/languages.js';

/** `{locale}` BCP 47 (`pt-BR`), `{android}` (`pt-rBR`), `{apple}` (`pt-BR`), `{posix}` (`pt_BR`). */
export function expandTemplate(template: string, code: string): string {
  return template
    .replaceAll('{locale}', bcp47(code))
    .replaceAll('{android}', platformLocale(code, 'android'))
    .replaceAll('{apple}', platformLocale(code, 'apple'))
    .replaceAll('{posix}', platformLocale(code, 'posix'));
}

/** Writes `bytes` to `file` through a temporary file and a rename, unless the file already holds them. */
export function writeIfChanged(file: string, bytes: Uint8Array): boolean {
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
