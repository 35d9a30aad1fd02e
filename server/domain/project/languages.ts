// Language codes as the API takes them: packages/core/src/languages.ts normalises, a code that is not BCP 47 is a 400.
import { canonicalLanguage } from '../../../packages/core/src/languages.js';
import { invalidArgument } from '../../infra/errors.js';

export function normalizeLanguage(input: string): string {
  const code = canonicalLanguage(input);
  if (code === null) throw invalidArgument(`"${input}" is not a BCP 47 language code.`);
  return code;
}
