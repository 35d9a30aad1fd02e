// Finding a termbase's terms in a text in one pass, however many terms there are: each word of the text becomes the
// symbol of its stem (stem.ts), each term the string of its words' symbols, and one Aho–Corasick automaton
// (modern-ahocorasick) over those strings finds every term, inflected or not (accounts, account's), multi-word terms
// included, in time that grows with the text, not with the termbase. Beside it, a term matched by its exact words
// (an abbreviation: `PIN` is not `pins`; a name kept as it is) runs through a second automaton over the words as
// written, and a term that words do not describe (Chinese, Japanese, Thai, Korean, which are not written with spaces
// between words, or `C++`, `.NET`) through a third over the characters, case folded unless the term is case
// sensitive. Symbols are code points of the supplementary private use planes: one grapheme each for the automaton,
// two UTF-16 units each, so a hit's offset is its first word's index times two. An index is built once for a termbase
// and a language and then reused for every text (docs/decisions/0026-termbase.md).
import AhoCorasick from 'modern-ahocorasick';
import { baseLanguage, stemmerFor, type Stem } from './stem.js';
import { foldSameLength, tokenize, UNSPACED, WORD_CHAR, type Token } from './tokens.js';

/** One term to find: its text in the index's language and how it matches. */
export interface TermPattern {
  text: string;
  /** Case counts: `Apple` is not `apple` (inflected forms still match: `Apples`). */
  caseSensitive?: boolean;
  /** Only its exact words match (an abbreviation, a name kept as it is): no inflection, and case counts. */
  exact?: boolean;
}

/** Where a pattern (its index in the list the index was built from) occurs in a text: UTF-16 offsets, end excluded. */
interface TermHit {
  pattern: number;
  start: number;
  end: number;
}

/** Supplementary private use planes 15 and 16, but the last code point, which stands for every unknown word. */
const FIRST_SYMBOL = 0xf0000;
const LAST_SYMBOL = 0x10fffc;
const UNKNOWN = String.fromCodePoint(0x10fffd);

/** Characters a term made of words may hold besides them; any other (`C++`, `.NET`, `R&D`) makes it a substring. */
const WORDY = /^[\p{L}\p{M}\p{N}\s'’-]*$/u;

interface WordPattern {
  index: number;
  /** The term's words as written (NFC), for the case check of a case-sensitive term. */
  words: string[];
}

function lowerCase(lang: string): (word: string) => string {
  const base = baseLanguage(lang);
  // Turkish and Azerbaijani dotless ı: `I` is `ı` there, `i` everywhere else.
  return base === 'tr' || base === 'az' ? (w) => w.toLocaleLowerCase(base) : (w) => w.toLowerCase();
}

/** Whether a text word written `actual` agrees in case with a term word written `wanted` over the letters they share. */
function sameCase(actual: string, wanted: string): boolean {
  const a = [...actual];
  const w = [...wanted];
  for (let i = 0; i < Math.min(a.length, w.length); i++) if (a[i] !== w[i]) return false;
  return true;
}

export class TermIndex {
  private readonly lower: (word: string) => string;
  private readonly stem: Stem;
  private readonly symbols = new Map<string, string>();
  private next = FIRST_SYMBOL;
  private readonly stemmed: AhoCorasick<WordPattern> | null;
  private readonly exactWords: AhoCorasick<WordPattern> | null;
  private readonly folded: AhoCorasick<number> | null;
  private readonly cased: AhoCorasick<number> | null;
  private readonly caseSensitive: boolean[];

  constructor(patterns: readonly TermPattern[], lang: string) {
    this.lower = lowerCase(lang);
    this.stem = stemmerFor(lang);
    this.caseSensitive = patterns.map((p) => p.caseSensitive === true || p.exact === true);
    const stemmed: Array<{ pattern: string; data: WordPattern }> = [];
    const exact: Array<{ pattern: string; data: WordPattern }> = [];
    const folded: Array<{ pattern: string; data: number }> = [];
    const cased: Array<{ pattern: string; data: number }> = [];
    patterns.forEach((p, index) => {
      const text = p.text.normalize('NFC').trim();
      if (!text) return;
      const words = tokenize(text);
      if (UNSPACED.test(text) || !WORDY.test(text) || !words.length) {
        // Characters, not words: case folded unless case counts.
        if (this.caseSensitive[index]) cased.push({ pattern: text, data: index });
        else folded.push({ pattern: foldSameLength(text), data: index });
        return;
      }
      const data = { index, words: words.map((w) => w.text) };
      if (p.exact) exact.push({ pattern: words.map((w) => this.symbol(`=${w.text}`, true)).join(''), data });
      else stemmed.push({ pattern: words.map((w) => this.symbol(this.stemKey(w), true)).join(''), data });
    });
    this.stemmed = stemmed.length ? new AhoCorasick(stemmed) : null;
    this.exactWords = exact.length ? new AhoCorasick(exact) : null;
    this.folded = folded.length ? new AhoCorasick(folded) : null;
    this.cased = cased.length ? new AhoCorasick(cased) : null;
  }

  private stemKey(w: Token): string {
    return `~${this.stem(this.lower(w.text))}`;
  }

  /** The symbol of a word's key; a text's word no term has is UNKNOWN. */
  private symbol(key: string, add: boolean): string {
    let s = this.symbols.get(key);
    if (s !== undefined) return s;
    if (!add) return UNKNOWN;
    if (this.next > LAST_SYMBOL) throw new RangeError('too many distinct words in one termbase to index them');
    s = String.fromCodePoint(this.next++);
    this.symbols.set(key, s);
    return s;
  }

  /** Every occurrence of every pattern in `text`, by start, the longest first where several start together. */
  find(text: string): TermHit[] {
    const hits: TermHit[] = [];
    if (this.stemmed || this.exactWords) {
      const words = tokenize(text);
      if (this.stemmed) {
        const line = words.map((w) => this.symbol(this.stemKey(w), false)).join('');
        for (const m of this.stemmed.search(line)) {
          const from = m.start / 2;
          const to = m.end / 2;
          const p = m.data!;
          if (this.caseSensitive[p.index] && !p.words.every((w, i) => sameCase(words[from + i].text, w))) continue;
          hits.push({ pattern: p.index, start: words[from].start, end: words[to - 1].end });
        }
      }
      if (this.exactWords) {
        const line = words.map((w) => this.symbol(`=${w.text}`, false)).join('');
        for (const m of this.exactWords.search(line))
          hits.push({ pattern: m.data!.index, start: words[m.start / 2].start, end: words[m.end / 2 - 1].end });
      }
    }
    if (this.folded) this.substrings(this.folded, foldSameLength(text), text, hits);
    if (this.cased) this.substrings(this.cased, text, text, hits);
    return hits.sort((a, b) => a.start - b.start || b.end - a.end || a.pattern - b.pattern);
  }

  /**
   * Substring hits, kept where they do not cut a word: an edge of the hit that is a letter or digit of a spaced
   * script must not have another beside it (`C++` in `C++11` is found, `NET` in `NETWORK` is not); in the unspaced
   * scripts any position is a word's edge.
   */
  private substrings(ac: AhoCorasick<number>, haystack: string, text: string, hits: TermHit[]) {
    for (const m of ac.search(haystack)) {
      const first = String.fromCodePoint(text.codePointAt(m.start)!);
      const last = text.slice(m.end - 1, m.end);
      const before = text.slice(Math.max(0, m.start - 2), m.start);
      const after = text.slice(m.end, m.end + 2);
      if (cuts(first, [...before].pop()) || cuts(last, after ? String.fromCodePoint(after.codePointAt(0)!) : undefined))
        continue;
      hits.push({ pattern: m.data!, start: m.start, end: m.end });
    }
  }
}

/** Whether a hit whose edge character is `edge` cuts a word that goes on with `neighbour`. */
function cuts(edge: string, neighbour: string | undefined): boolean {
  if (neighbour === undefined || UNSPACED.test(edge) || !WORD_CHAR.test(edge)) return false;
  return WORD_CHAR.test(neighbour) && !UNSPACED.test(neighbour);
}

/** Hits that do not overlap, for highlighting: from the left, the longest of those starting at the same place. */
export function leftmostLongest(hits: readonly TermHit[]): TermHit[] {
  const out: TermHit[] = [];
  let end = 0;
  for (const h of hits) {
    if (h.start < end) continue;
    out.push(h);
    end = h.end;
  }
  return out;
}
