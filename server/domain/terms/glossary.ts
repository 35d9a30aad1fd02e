// The termbase at work: where a project's terms occur in a source (the editor's highlight, spec:
// `internalMatchTerms`) and the terms the check engine's glossary check holds a translation to
// (packages/core/src/checks/rules/translation.ts, `terms` of its input). Both build on the project's terms as one list,
// remembered per project until a term of it changes (its count or latest change moves), so the matcher's index
// (packages/core/src/terms/matcher.ts) is built once and not per request or per cell.
import { LRUCache } from 'lru-cache';
import type { Term } from '../../../packages/core/src/checks/types.js';
import { leftmostLongest, TermIndex } from '../../../packages/core/src/terms/matcher.js';
import type { Db } from '../../infra/db.js';
import type { ProjectRow } from '../../infra/tables.js';
import { normalizeLanguage } from '../project/languages.js';
import { allTerms, visibleTerms, type TermView } from './store.js';

interface Glossary {
  stamp: string;
  terms: TermView[];
  index?: TermIndex;
  /** The check engine's terms per target language: one list each, so its own indexes are remembered with it. */
  forChecks: Map<string, Term[]>;
}

const glossaries = new LRUCache<string, Glossary>({ max: 200 });

/** What moves when a term the project uses is added, changed or deleted. */
async function stampOf(db: Db, project: ProjectRow): Promise<string> {
  const [r] = (await visibleTerms(db, project).count({ n: '*' }).max({ latest: 'updated_at' })) as unknown as Array<{
    n: number | string;
    latest: number | string | null;
  }>;
  return `${project.workspace_id}:${project.base_lang}:${Number(r.n)}:${Number(r.latest ?? 0)}`;
}

async function glossaryOf(db: Db, project: ProjectRow): Promise<Glossary> {
  const stamp = await stampOf(db, project);
  const known = glossaries.get(project.id);
  if (known?.stamp === stamp) return known;
  const g: Glossary = { stamp, terms: await allTerms(db, project), forChecks: new Map() };
  glossaries.set(project.id, g);
  return g;
}

function indexOf(g: Glossary, project: ProjectRow): TermIndex {
  g.index ??= new TermIndex(
    g.terms.map((t) => ({ text: t.text, caseSensitive: t.caseSensitive, exact: t.abbreviation })),
    project.base_lang,
  );
  return g.index;
}

/** The terms of `project` found in `text`, left to right, not overlapping, with the translation into `lang`. */
export async function matchTerms(db: Db, project: ProjectRow, text: string, lang?: string) {
  const target = lang === undefined ? undefined : normalizeLanguage(lang);
  const g = await glossaryOf(db, project);
  return leftmostLongest(indexOf(g, project).find(text)).map((h) => {
    const term = g.terms[h.pattern];
    const translation = target === undefined ? undefined : (term.translations[target] ?? null);
    return { start: h.start, end: h.end, term, ...(translation === undefined ? {} : { translation }) };
  });
}

/**
 * The `terms` of the check engine's input for translations of `project` into `lang` (packages/core/src/checks
 * types.ts `Term`): the same list object for every cell until the termbase changes.
 */
export async function checkTermsFor(db: Db, project: ProjectRow, lang: string): Promise<Term[]> {
  return termsForLanguage(await glossaryOf(db, project), lang);
}

/** checkTermsFor for several languages, the termbase's stamp read once (the checks' context, every language). */
export async function checkTermsForMany(
  db: Db,
  project: ProjectRow,
  langs: string[],
): Promise<{ stamp: string; terms: Record<string, Term[]> }> {
  const g = await glossaryOf(db, project);
  const terms: Record<string, Term[]> = {};
  if (g.terms.length) for (const lang of langs) terms[lang] = termsForLanguage(g, lang);
  return { stamp: `${project.id}:${g.stamp}`, terms };
}

function termsForLanguage(g: Glossary, lang: string): Term[] {
  const target = normalizeLanguage(lang);
  let terms = g.forChecks.get(target);
  if (!terms) {
    terms = g.terms.map((t) => ({
      source: t.text,
      targets: t.translations[target] === undefined ? [] : [t.translations[target]],
      caseSensitive: t.caseSensitive,
      forbidden: t.forbidden,
      nonTranslatable: t.nonTranslatable,
      abbreviation: t.abbreviation,
    }));
    g.forChecks.set(target, terms);
  }
  return terms;
}

/**
 * Every term `text` uses, overlapping ones too, and with each the other terms of the same text (`account` of a bank
 * and of a user; a forbidden translation beside the required one): what the AI fill tells its engine
 * (server/domain/fill/context.ts), as the glossary check holds the answer to them together.
 */
export async function termsUsed(db: Db, project: ProjectRow, texts: readonly string[]): Promise<TermView[][]> {
  // One read of the termbase's stamp for all the texts (a fill asks for a whole batch of keys).
  const g = await glossaryOf(db, project);
  if (!g.terms.length) return texts.map(() => []);
  const index = indexOf(g, project);
  const same = (t: TermView) => t.text.normalize('NFC').trim().toLowerCase();
  return texts.map((text) => {
    const hits = index.find(text);
    if (!hits.length) return [];
    const used = new Set(hits.map((h) => same(g.terms[h.pattern])));
    return g.terms.filter((t) => used.has(same(t)));
  });
}
