// A termbase of 10,000 terms held against one string (packages/core/src/terms/check.ts glossaryFindings, what the
// check engine's glossary check runs): the source's terms found in their inflected forms and the translation held to
// them, in one pass of each text over an index built once per termbase and language. Over the real (source,
// translation) pairs of the fixture catalogs (test/helpers/fixture-pairs.ts), against the least a termbase check
// can do: one `String.includes` per term over the lower-cased source, which finds exact substrings only (no
// inflection, no word edges) and checks no translation. Target: p95 per string at most 1 ms.
import type { Term } from '../packages/core/src/checks/types.js';
import { glossaryFindings } from '../packages/core/src/terms/check.js';
import { tokenize } from '../packages/core/src/terms/tokens.js';
import { FIXTURE_PAIRS } from '../test/helpers/fixture-pairs.js';
import { rng } from '../test/helpers/rng.js';
import { alternate, median, percentile, type Scenario } from './lib/compare.js';

const TERMS = 10_000;
const ROUNDS = 10;
const TARGET_P95_MS = 1;

const pairs = FIXTURE_PAIRS.filter((p) => p.sourceLang.startsWith('en') && p.lang !== 'en-GB');

/**
 * 10,000 terms: every word of the fixtures' sources and pairs of neighbouring words (so strings do meet terms), then
 * made-up words; each with a made-up translation, a tenth forbidden, some case-sensitive or abbreviations.
 */
function termbase(): Term[] {
  const random = rng(26);
  const texts = new Set<string>();
  for (const p of pairs) {
    const words = tokenize(p.source).map((w) => w.text.toLowerCase());
    words.forEach((w, i) => {
      if (w.length > 2) texts.add(w);
      if (i > 0 && texts.size < TERMS / 2) texts.add(`${words[i - 1]} ${w}`);
    });
  }
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  while (texts.size < TERMS) {
    let w = '';
    for (let n = 4 + Math.floor(random() * 6); n > 0; n--) w += letters[Math.floor(random() * 26)];
    texts.add(random() < 0.2 ? `${w} ${w.slice(0, 3)}x` : w);
  }
  return [...texts].slice(0, TERMS).map((source, i) => ({
    source,
    targets: [`${source.split(' ')[0]}-t${i % 7}`],
    forbidden: i % 10 === 0,
    caseSensitive: i % 13 === 0,
    abbreviation: i % 50 === 0,
  }));
}

export const scenario: Scenario = {
  name: `Terms: a termbase of ${TERMS.toLocaleString('en')} terms held against one string (glossaryFindings: inflected terms in the source, their translations in the target), p95 per string, vs one String.includes per term over the source (ms)`,
  async run() {
    const terms = termbase();
    const sources = pairs.map((p) => p.source.toLowerCase());
    const needles = terms.map((t) => t.source.toLowerCase());
    // The indexes are built once per termbase and language, before any string is checked.
    const t0 = performance.now();
    for (const lang of new Set(pairs.map((p) => p.lang))) glossaryFindings(terms, 'x', 'x', 'en', lang);
    const build = performance.now() - t0;
    const ours: number[] = [];
    let found = 0;
    const rounds = await alternate(
      {
        ours: () => {
          const times: number[] = [];
          for (const p of pairs) {
            const s = performance.now();
            found += glossaryFindings(terms, p.source, p.target, 'en', p.lang).length;
            times.push(performance.now() - s);
          }
          ours.push(...times);
          return Promise.resolve(percentile(times, 95));
        },
        base: () => {
          const times: number[] = [];
          for (const source of sources) {
            const s = performance.now();
            for (const n of needles) if (source.includes(n)) found++;
            times.push(performance.now() - s);
          }
          return Promise.resolve(percentile(times, 95));
        },
      },
      { rounds: ROUNDS, warmup: 2, abba: true },
    );
    const p95 = median(rounds.ours);
    const baseP95 = median(rounds.base);
    const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
    return {
      figure: `p95 ${us(p95)} per string (median ${us(percentile(ours, 50))}) over ${pairs.length} strings; indexes for ${new Set(pairs.map((p) => p.lang)).size} languages built once in ${build.toFixed(0)} ms (${found > 0 ? 'terms found' : 'none found'})`,
      baseline: `${TERMS.toLocaleString('en')} String.includes per string: p95 ${us(baseP95)}`,
      ratio: p95 / baseP95,
      target: `p95 <= ${TARGET_P95_MS} ms`,
      met: p95 <= TARGET_P95_MS,
    };
  },
};
