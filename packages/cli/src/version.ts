// The CLI's version is its package's: package.json sits one folder up from both src/ and the built dist/, and npm
// ships it in every tarball.
import { readFileSync } from 'node:fs';

export const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
