// A word's stem per language, so a term matches its inflected forms (accounts, account's; Konten; comptes): the
// Snowball stemmers (snowball-stemmers) for the languages Snowball covers, a light stemmer for Polish (polish.ts),
// and the lower-cased word itself for any other language (exact matching, case aside). Stems are remembered per
// language, a bounded number of them: a termbase and the strings it is matched against repeat their words.
import { createRequire } from 'node:module';
import { stemPolish } from './polish.js';

// Snowball's 850 kB of stemmers load with the first term matched, not with every process that imports this module
// (every service, worker thread and test): loading them took some 100 ms of CPU
// (docs/decisions/0035-modules-loaded-on-first-use.md).
const require = createRequire(import.meta.url);
let snowball: typeof import('snowball-stemmers') | undefined;

/** Snowball's algorithm per primary language subtag. */
const SNOWBALL: Record<string, string> = {
  ar: 'arabic',
  ca: 'catalan',
  cs: 'czech',
  da: 'danish',
  de: 'german',
  en: 'english',
  es: 'spanish',
  eu: 'basque',
  fi: 'finnish',
  fr: 'french',
  ga: 'irish',
  hu: 'hungarian',
  hy: 'armenian',
  it: 'italian',
  nb: 'norwegian',
  nl: 'dutch',
  nn: 'norwegian',
  no: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sl: 'slovene',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
};

/** Past this many distinct words a language's memory of stems starts again (a bound, not a cache policy). */
const REMEMBERED = 50_000;

export type Stem = (lowerCaseWord: string) => string;

const stemmers = new Map<string, Stem>();

/** The primary subtag of a language code (`pt-BR` → `pt`, `zh_Hant` → `zh`), lower case. */
export const baseLanguage = (lang: string): string => lang.split(/[-_]/)[0].toLowerCase();

function make(base: string): Stem {
  if (base === 'pl') return stemPolish;
  const algorithm = SNOWBALL[base];
  if (!algorithm) return (w) => w;
  snowball ??= require('snowball-stemmers') as typeof import('snowball-stemmers');
  const stemmer = snowball.newStemmer(algorithm);
  // Russian writes ё or е for the same word (счёт, счет); Snowball's Russian expects е.
  if (base === 'ru') return (w) => stemmer.stem(w.replaceAll('ё', 'е'));
  return (w) => stemmer.stem(w);
}

/** The stemmer of `lang`: a lower-case word in, its stem out (never empty: a word stemmed to nothing is itself). */
export function stemmerFor(lang: string): Stem {
  const base = baseLanguage(lang);
  let s = stemmers.get(base);
  if (s) return s;
  const raw = make(base);
  let memory = new Map<string, string>();
  s = (word) => {
    let out = memory.get(word);
    if (out === undefined) {
      out = raw(word) || word;
      if (memory.size >= REMEMBERED) memory = new Map();
      memory.set(word, out);
    }
    return out;
  };
  stemmers.set(base, s);
  return s;
}
