// The translation memory's routes (spec: getMemorySuggestions, getMemoryLeverage, exportMemory, importMemory; the
// dashboard's internalMemorySuggestions, internalMemoryLeverage): suggestions for a source, the leverage analysis of
// the pairs still to translate, and the memory as TMX. The memory itself is server/domain/memory/.
import { normalizeLanguage } from '../../domain/project/languages.js';
import { listLanguages } from '../../domain/project/projects.js';
import { suggest, type Match } from '../../domain/memory/lookup.js';
import { leverage } from '../../domain/memory/leverage.js';
import { invalidArgument } from '../../infra/errors.js';
import type { Db } from '../../infra/db.js';
import type { ProjectRow } from '../../infra/tables.js';
import type { Handler } from '../pipeline.js';
import { EXACT } from '../../domain/memory/score.js';
import { exportTmx, importTmx } from '../../domain/memory/tmx.js';
import { Readable } from 'node:stream';

const DEFAULT_LIMIT = 5;
const DEFAULT_MIN_SCORE = 50;

interface SuggestionQuery {
  lang: string;
  source: string;
  ctx?: string;
  key?: string;
  limit?: number;
  minScore?: number;
}

const view = (m: Match) => ({
  score: m.score,
  source: m.source,
  target: m.target,
  ctx: m.ctx,
  origin: m.origin,
  status: m.status,
  project: m.projectId,
  key: m.key,
  preTranslates: m.trusted && m.score >= EXACT,
  updatedAt: new Date(m.updatedAt).toISOString(),
});

async function suggestions(db: Db, p: ProjectRow, q: SuggestionQuery) {
  const lang = normalizeLanguage(q.lang);
  if (lang === p.base_lang) throw invalidArgument(`lang: ${lang} is the base language, not a target.`);
  const matches = await suggest(
    db,
    p,
    { source: q.source, ctx: q.ctx ?? null, key: q.key ?? null, lang },
    { limit: q.limit ?? DEFAULT_LIMIT, minScore: q.minScore ?? DEFAULT_MIN_SCORE },
  );
  return { body: { lang, matches: matches.map(view) } };
}

/** The languages of `langs` (comma-separated), each a live target of the project; absent, all of them. */
async function targetsOf(db: Db, p: ProjectRow, langs: string | undefined): Promise<string[]> {
  const live = (await listLanguages(db, p.id)).map((l) => l.code);
  if (langs === undefined) return live;
  const out: string[] = [];
  for (const raw of langs.split(',')) {
    const code = normalizeLanguage(raw.trim());
    if (!live.includes(code))
      throw invalidArgument(
        code === p.base_lang
          ? `langs: ${code} is the base language, not a target.`
          : `langs: ${code} is not a language of this project.`,
      );
    if (!out.includes(code)) out.push(code);
  }
  return out;
}

async function analysis(db: Db, p: ProjectRow, langs: string | undefined) {
  const result = await leverage(db, p, await targetsOf(db, p, langs));
  const sum = (f: (l: (typeof result.langs)[number]) => number) => result.langs.reduce((n, l) => n + f(l), 0);
  return {
    body: {
      preTranslate: result.preTranslate,
      threshold: result.threshold,
      languages: result.langs,
      totals: {
        pairs: sum((l) => l.pairs),
        credits: sum((l) => l.credits),
        savedCredits: sum((l) => l.savedCredits),
        unanalysed: sum((l) => l.unanalysed),
      },
    },
  };
}

export const getMemorySuggestions: Handler<'getMemorySuggestions'> = (ctx) =>
  suggestions(ctx.app.db, ctx.project, ctx.query as SuggestionQuery);

export const internalMemorySuggestions: Handler<'internalMemorySuggestions'> = (ctx) =>
  suggestions(ctx.app.db, ctx.project, ctx.query as SuggestionQuery);

export const getMemoryLeverage: Handler<'getMemoryLeverage'> = (ctx) =>
  analysis(ctx.app.db, ctx.project, ctx.query.langs);

export const internalMemoryLeverage: Handler<'internalMemoryLeverage'> = (ctx) =>
  analysis(ctx.app.db, ctx.project, ctx.query.langs);

export const exportMemory: Handler<'exportMemory'> = (ctx) => ({
  // A stream of the file as it is read (server/domain/memory/tmx.ts): Hapi sends it chunk by chunk. The spec's
  // type for the body is the text it becomes.
  body: Readable.from(exportTmx(ctx.app.db, ctx.project, ctx.query.scope), { objectMode: false }) as unknown as string,
  type: 'application/x-tmx+xml; charset=utf-8',
  headers: { 'Content-Disposition': 'attachment; filename="memory.tmx"', 'Cache-Control': 'no-store' },
});

export const importMemory: Handler<'importMemory'> = async (ctx) => ({
  body: await importTmx(ctx.app.db, ctx.project, ctx.body),
});
