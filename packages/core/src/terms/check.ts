// What the glossary check (packages/core/src/checks/rules/translation.ts) holds a translation to, with the termbase's
// matcher (matcher.ts): where the source uses a term, in any inflected form, the translation uses one of the term's
// translations, in any inflected form of the target language; a forbidden term's translations appear in no form;
// a term kept as it is (a brand or product name) appears in the translation exactly as the source writes it. Terms
// with the same text (`account` of a bank, `account` of a user) are one requirement: any of their translations
// will do. The indexes are built once per list of terms and language and remembered with the list, so the check
// engine, given the same list for every cell of a project, matches each cell in one pass (bench/terms-match.ts).
import type { Span, Term } from '../checks/types.js';
import { TermIndex, type TermPattern } from './matcher.js';

interface GlossaryFinding {
  message: string;
  /** Where in the target text a forbidden translation stands. */
  spans: Span[];
}

/** A target-side pattern's term, and whether it is the term itself kept as it is. */
interface Owner {
  term: number;
  kept: boolean;
}

interface Indexes {
  sources: Map<string, TermIndex>;
  targets: Map<string, { index: TermIndex; owners: Owner[] }>;
}

const built = new WeakMap<readonly Term[], Indexes>();

function indexesOf(terms: readonly Term[]): Indexes {
  let i = built.get(terms);
  if (!i) built.set(terms, (i = { sources: new Map(), targets: new Map() }));
  return i;
}

const patternOf = (text: string, t: Term): TermPattern => ({
  text,
  caseSensitive: t.caseSensitive === true,
  exact: t.abbreviation === true,
});

function sourceIndex(terms: readonly Term[], lang: string): TermIndex {
  const { sources } = indexesOf(terms);
  let index = sources.get(lang);
  if (!index)
    sources.set(
      lang,
      (index = new TermIndex(
        terms.map((t) => patternOf(t.source, t)),
        lang,
      )),
    );
  return index;
}

function targetIndex(terms: readonly Term[], lang: string) {
  const { targets } = indexesOf(terms);
  let entry = targets.get(lang);
  if (!entry) {
    const patterns: TermPattern[] = [];
    const owners: Owner[] = [];
    terms.forEach((t, term) => {
      for (const target of t.targets) {
        patterns.push(patternOf(target, t));
        owners.push({ term, kept: false });
      }
      if (t.nonTranslatable) {
        patterns.push({ text: t.source, exact: true });
        owners.push({ term, kept: true });
      }
    });
    targets.set(lang, (entry = { index: new TermIndex(patterns, lang), owners }));
  }
  return entry;
}

const quoted = (xs: readonly string[]) => xs.map((x) => `“${x}”`).join(' or ');

/** What the translation `target` of `source` does against `terms`; nothing when it follows every term it meets. */
export function glossaryFindings(
  terms: readonly Term[],
  source: string,
  target: string,
  sourceLang: string,
  targetLang: string,
): GlossaryFinding[] {
  if (!terms.length) return [];
  const hits = sourceIndex(terms, sourceLang).find(source);
  if (!hits.length) return [];
  // The terms the source uses, grouped by their text (one requirement per text), in order of first use.
  const groups = new Map<string, number[]>();
  for (const h of hits) {
    const key = terms[h.pattern].source.normalize('NFC').trim().toLowerCase();
    const group = groups.get(key) ?? [];
    if (!group.includes(h.pattern)) group.push(h.pattern);
    groups.set(key, group);
  }
  const { index, owners } = targetIndex(terms, targetLang);
  const present = new Map<number, Span[]>();
  const kept = new Set<number>();
  for (const h of index.find(target)) {
    const owner = owners[h.pattern];
    if (owner.kept) kept.add(owner.term);
    else present.set(owner.term, [...(present.get(owner.term) ?? []), { start: h.start, end: h.end }]);
  }
  const out: GlossaryFinding[] = [];
  for (const group of groups.values()) {
    for (const i of group.filter((g) => terms[g].forbidden && present.has(g))) {
      const spans = present.get(i)!;
      out.push({
        message: `“${target.slice(spans[0].start, spans[0].end)}” is not to be used for “${terms[i].source}”`,
        spans,
      });
    }
    const keep = group.filter((g) => terms[g].nonTranslatable);
    const required = group.filter((g) => !terms[g].forbidden && !terms[g].nonTranslatable && terms[g].targets.length);
    if (keep.some((g) => kept.has(g)) || required.some((g) => present.has(g))) continue;
    if (keep.length) {
      out.push({ message: `“${terms[keep[0]].source}” is kept as it is, not translated`, spans: [] });
      continue;
    }
    if (required.length) {
      const first = terms[required[0]];
      const wanted = [...new Set(required.flatMap((g) => terms[g].targets))];
      out.push({ message: `“${first.source}” is translated as ${quoted(wanted)}`, spans: [] });
    }
  }
  return out;
}
