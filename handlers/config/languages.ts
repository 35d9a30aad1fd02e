// Language codes: BCP 47, stored lowercase with hyphens (`PT_BR` → `pt-br`), API.md 2.11.
import { invalidArgument } from '../platform/errors.js';

export function normalizeLanguage(input: string): string {
  const candidate = input.trim().replace(/_/g, '-');
  let canonical: string[];
  try {
    canonical = Intl.getCanonicalLocales(candidate);
  } catch {
    throw invalidArgument(`"${input}" is not a BCP 47 language code.`);
  }
  if (canonical.length !== 1) throw invalidArgument(`"${input}" is not a BCP 47 language code.`);
  return canonical[0].toLowerCase();
}

/** Same language and script: `en` matches `en-us` and `en-latn`, `zh-hant` does not match `zh-hans`. */
export function sameLanguageAndScript(a: string, b: string): boolean {
  const la = new Intl.Locale(a).maximize();
  const lb = new Intl.Locale(b).maximize();
  return la.language === lb.language && la.script === lb.script;
}
