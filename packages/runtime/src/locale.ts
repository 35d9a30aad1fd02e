// Locale matching: an app's locale (`pt_BR`, `zh-hant-tw`, `en-US-u-ca-gregory`) to one of the project's languages,
// case-insensitively, along the BCP 47 fallback chain. Subtags are dropped from the right (`pt-BR` → `pt`), never
// past a script subtag (`zh-Hant-TW` → `zh-Hant`, not `zh`: Traditional readers are not shown Simplified, nor
// `sr-Latn` readers Cyrillic), and extensions (`-u-…`, `-x-…`) are ignored. An explicit map is consulted at every
// step first (`{'zh-TW': 'zh-Hant', nb: 'no'}`). Nothing matching: the base language.

/** The chain of tags tried for `locale`, longest first: `zh-Hant-TW` → `zh-Hant-TW`, `zh-Hant`. */
export function localeChain(locale: string): string[] {
  const parts: string[] = [];
  for (const p of locale.split(/[-_]/)) {
    if (p.length < 2) break;
    parts.push(p);
  }
  const chain: string[] = [];
  // A script subtag (four letters, second place) is kept: the chain stops at language-script.
  const min = /^[a-z]{4}$/i.test(parts[1] ?? '') ? 2 : 1;
  for (let n = parts.length; n >= min; n--) chain.push(parts.slice(0, n).join('-'));
  return chain;
}

/**
 * The language of `codes` that `locale` is shown in: the first tag of its chain, mapped through `map` when the map
 * names it, that is one of `codes` (case-insensitively); else `base`.
 */
export function matchLocale(
  locale: string,
  codes: readonly string[],
  base: string | undefined,
  map: Record<string, string> = {},
): string | undefined {
  const lower = (s: string) => s.toLowerCase();
  const find = (tag: string | undefined) => (tag ? codes.find((c) => lower(c) === lower(tag)) : undefined);
  const mapped = (tag: string) => {
    for (const k in map) if (lower(k) === lower(tag)) return map[k];
  };
  for (const tag of localeChain(locale)) {
    const hit = find(mapped(tag)) ?? find(tag);
    if (hit) return hit;
  }
  return find(base) ?? base;
}
