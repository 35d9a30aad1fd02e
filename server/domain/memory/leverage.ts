// The leverage analysis (spec: getMemoryLeverage, internalMemoryLeverage): for each language asked, the pairs of the
// project's enabled keys that have no value, counted by the band (score.ts BANDS) of their best match, with what
// they would cost the AI fill; the 101 and 100 bands are what pre-translation fills at no charge (savedCredits).
// A band of 100 or 101 counts only a match that may pre-translate (score.ts trusted); an engine's unreviewed value
// of the same source counts as 99, the reference it is.
import type { Db } from '../../infra/db.js';
import { chunks, parseJson } from '../../infra/db.js';
import type { ProjectRow } from '../../infra/tables.js';
import { pairCost } from '../billing/credits.js';
import { BANDS, bandOf, EXACT, type Band } from './score.js';
import { exactMatches, matchesForKeys, type KeyQuery } from './lookup.js';
import { memoryScope, memorySettings } from './settings.js';

/** Keys whose fuzzy bands are measured (one full-text query each); the pairs of the keys past them are `unanalysed`. */
const FUZZY_KEYS = 2_000;

interface BandCount {
  band: Band;
  pairs: number;
  credits: number;
}

interface LanguageLeverage {
  lang: string;
  /** Pairs with no value. */
  pairs: number;
  credits: number;
  bands: BandCount[];
  /** What the 101 and 100 bands would have cost the AI fill. */
  savedCredits: number;
  /** Pairs without an exact match whose keys came after the first FUZZY_KEYS that needed a fuzzy lookup. */
  unanalysed: number;
}

interface Leverage {
  langs: LanguageLeverage[];
  preTranslate: boolean;
  threshold: number;
}

const KEY_SLICE = 500;

export async function leverage(db: Db, p: ProjectRow, langs: string[]): Promise<Leverage> {
  const settings = memorySettings(p);
  const counts = new Map(
    langs.map((lang) => [
      lang,
      {
        lang,
        pairs: 0,
        credits: 0,
        bands: new Map<Band, BandCount>(BANDS.map((band) => [band, { band, pairs: 0, credits: 0 }])),
        unanalysed: 0,
      },
    ]),
  );
  const count = (lang: string, band: Band, credits: number) => {
    const c = counts.get(lang)!;
    c.pairs++;
    c.credits += credits;
    const b = c.bands.get(band)!;
    b.pairs++;
    b.credits += credits;
  };
  const reads = memoryScope(p) !== null;
  let fuzzyKeys = 0;
  let after = 0;
  for (;;) {
    const keys = await db('keys')
      .where({ project_id: p.id, enabled: true })
      .andWhere('id', '>', after)
      .orderBy('id')
      .limit(KEY_SLICE)
      .select('id', 'name', 'source', 'forms', 'ctx');
    if (!keys.length) break;
    after = Number(keys[keys.length - 1].id);
    const done = new Set<string>();
    for (const part of chunks(keys.map((k) => Number(k.id))))
      for (const c of await db('translations')
        .whereIn('key_id', part)
        .whereIn('lang', langs)
        .whereNot('status', 'pending')
        .whereNotNull('value')
        .select('key_id', 'lang'))
        done.add(`${c.key_id}|${c.lang}`);
    const open: Array<{ key: (typeof keys)[number]; lang: string; cost: number }> = [];
    for (const k of keys) {
      const cost = pairCost(k.source, parseJson<Record<string, string> | null>(k.forms, null));
      for (const lang of langs) if (!done.has(`${k.id}|${lang}`)) open.push({ key: k, lang, cost });
    }
    if (!reads) {
      for (const o of open) count(o.lang, 'none', o.cost);
      continue;
    }
    const exact = await exactMatches(
      db,
      p,
      open.map((o) => ({ source: o.key.source, ctx: o.key.ctx, key: o.key.name, lang: o.lang })),
    );
    const rest = open.filter((o, i) => {
      const hit = exact.get(i);
      if (hit) count(o.lang, bandOf(hit.score), o.cost);
      return !hit;
    });
    const byKey = new Map<number, KeyQuery>();
    for (const o of rest) {
      const id = Number(o.key.id);
      if (byKey.has(id)) continue;
      if (fuzzyKeys >= FUZZY_KEYS) continue;
      fuzzyKeys++;
      byKey.set(id, { keyId: id, source: o.key.source, ctx: o.key.ctx, name: o.key.name });
    }
    const fuzzy = await matchesForKeys(db, p, [...byKey.values()], langs, { limit: 1, minScore: 50 });
    for (const o of rest) {
      const id = Number(o.key.id);
      if (!byKey.has(id)) {
        const c = counts.get(o.lang)!;
        c.unanalysed++;
        c.credits += o.cost;
        continue;
      }
      const best = fuzzy.get(`${id}|${o.lang}`)?.[0];
      // Not trusted (else exactMatches had it): at most the reference it is.
      count(o.lang, bandOf(best ? Math.min(best.score, EXACT - 1) : null), o.cost);
    }
  }
  return {
    preTranslate: reads && settings.preTranslate,
    threshold: settings.threshold,
    langs: [...counts.values()].map((c) => {
      const bands = [...c.bands.values()];
      return {
        lang: c.lang,
        pairs: c.pairs + c.unanalysed,
        credits: c.credits,
        bands,
        savedCredits: bands.filter((b) => b.band === '101' || b.band === '100').reduce((n, b) => n + b.credits, 0),
        unanalysed: c.unanalysed,
      };
    }),
  };
}
