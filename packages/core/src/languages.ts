// Language codes (spec: addLanguage): BCP 47, stored lowercase with hyphens (`PT_BR` → `pt-br`). The one normaliser of
// the service; server/domain/project/languages.ts turns its refusal into the API's 400.

/** A code with `_` read as `-` and outer spaces dropped: the form every other reading starts from. */
const hyphenated = (code: string) => code.trim().replace(/_/g, '-');

/**
 * A code compared loosely, as files spell it (`pt_BR` = `pt-br`): lowercase with hyphens, never refused, never
 * rewritten further. The formats match a file's language keys with it, which may be anything a file holds.
 */
export const languageKey = (code: string): string => hyphenated(code).toLowerCase();

/** The stored form of a language code (Intl's canonical BCP 47, lowercase), or null when it is not one. */
export function canonicalLanguage(code: string): string | null {
  let canonical: string[];
  try {
    canonical = Intl.getCanonicalLocales(hyphenated(code));
  } catch {
    return null;
  }
  return canonical.length === 1 ? canonical[0].toLowerCase() : null;
}

/** Same language and script: `en` matches `en-us` and `en-latn`, `zh-hant` does not match `zh-hans`. */
export function sameLanguageAndScript(a: string, b: string): boolean {
  const la = new Intl.Locale(a).maximize();
  const lb = new Intl.Locale(b).maximize();
  return la.language === lb.language && la.script === lb.script;
}

/** A stored code in canonical BCP 47 casing (`pt-br` → `pt-BR`, `zh-hans` → `zh-Hans`): what manifests and bundles name. */
export function bcp47(code: string): string {
  try {
    return Intl.getCanonicalLocales(hyphenated(code))[0] ?? code;
  } catch {
    return code;
  }
}

/**
 * A language as each platform spells it: `android` the resource qualifier (`pt-rBR`, `b+zh+Hans` for anything but
 * language and region), `apple` the `.lproj` name (`pt-BR`, `zh-Hans`), `posix` gettext's and Flutter's (`pt_BR`).
 */
export function platformLocale(code: string, platform: 'android' | 'apple' | 'posix'): string {
  const tag = bcp47(code);
  if (platform === 'apple') return tag;
  if (platform === 'posix') return tag.replace(/-/g, '_');
  let loc: Intl.Locale;
  try {
    loc = new Intl.Locale(tag);
  } catch {
    return tag;
  }
  const subtags = tag.split('-');
  // aapt2 reads `ll-rRR` only for a two-letter language with a two-letter or numeric region and nothing else.
  if (subtags.length === 1 && loc.language.length === 2) return loc.language;
  if (subtags.length === 2 && loc.language.length === 2 && loc.region) return `${loc.language}-r${loc.region}`;
  return `b+${subtags.join('+')}`;
}
