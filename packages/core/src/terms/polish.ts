// A light Polish stemmer: the case and number endings of nouns and adjectives stripped from a word's end, so the
// forms a termbase meets in running text (plik, pliku, plikiem, pliki, plików, plikom, plikami, plikach) share one
// stem. The Snowball stemmers the other languages use (stem.ts) have no Polish; Snowball's own Polish algorithm
// (Dmitry Shachnev's, in Snowball 3) is published on npm only inside WebAssembly builds that read their module from
// the file system, which the core may not (.dependency-cruiser.cjs `core-no-io`). So this is a documented suffix
// stripper in the manner of light stemmers: it never guesses a stem shorter than three letters, removes one ending
// (the longest that fits), and undoes the commonest consonant alternation an ending brings (faktura, fakturze:
// `rz` before `-e` is the `r` of the stem). It leaves verb forms and stem vowel changes (`ó`/`o`) alone: a glossary
// is mostly nouns, and a missed form only costs a match, never a wrong one (docs/guides/terms.md, "Languages").

/** Noun and adjective endings, longest first (the order they are tried in). */
const ENDINGS = [
  'owie',
  'ami',
  'ach',
  'owi',
  'iem',
  'ego',
  'emu',
  'ymi',
  'imi',
  'ych',
  'ich',
  'om',
  'em',
  'ów',
  'ej',
  'ie',
  'ą',
  'ę',
  'y',
  'i',
  'a',
  'u',
  'e',
  'o',
];

const MIN_STEM = 3;

/** The stem of one lower-case Polish word. */
export function stemPolish(word: string): string {
  const letters = [...word];
  for (const ending of ENDINGS) {
    const n = [...ending].length;
    if (letters.length - n < MIN_STEM || !word.endsWith(ending)) continue;
    let stem = letters.slice(0, letters.length - n).join('');
    // The locative and dative `-e`/`-ie` soften the stem's last consonant: fakturze → faktur, kobiecie → kobiet
    // is beyond a light stemmer, but `rz` → `r` is regular and frequent.
    if ((ending === 'e' || ending === 'ie') && stem.endsWith('rz') && [...stem].length > MIN_STEM)
      stem = stem.slice(0, -1);
    return stem;
  }
  return word;
}
