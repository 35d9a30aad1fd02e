// The check engine (packages/core/src/checks): the catalogue is complete (every check has an id, a description, a
// severity, per-language notes, and examples that trip and pass it), every example does what it says, settings and a
// project's own checks apply, and the gates agree with the checks they are made of.
import { readFileSync } from 'node:fs';
import test from 'ava';
import { CATALOGUE, checkSource, runChecks, validateCustomCheck } from '../../packages/core/src/checks/index.js';
import type { CheckExample, CheckInput, CheckResult } from '../../packages/core/src/checks/index.js';
import { checkFill, gateCell } from '../../packages/core/src/gates.js';
import { PseudoEngine } from '../../server/infra/engines/pseudo.js';
import { CHECKS_DOC, withChecksTable } from '../../scripts/checks-table.js';

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

const cell = (over: Partial<CheckInput>): CheckInput => ({
  source: 'Open the file',
  target: 'Datei öffnen',
  sourceLang: 'en',
  targetLang: 'de',
  key: 'file.open',
  ...over,
});
const ids = (results: CheckResult[]) => results.map((r) => r.id);

test('a clean translation raises nothing; each result names its check, severity, field and where', (t) => {
  t.deepEqual(runChecks(cell({})), []);
  const [r] = runChecks(cell({ target: 'Datei  öffnen' }));
  t.like(r, { id: 'double-space', severity: 'warning', field: 'target', spans: [{ start: 5, end: 7 }] });
});

test('spans point into the raw translation, through ICU arguments and plural syntax', (t) => {
  const target = '{count, plural, one {# fichier supprimé ?} many {# de fichiers ?} other {# fichiers supprimés ?}}';
  const source = '{count, plural, one {Delete # file?} other {Delete # files?}}';
  const r = runChecks(cell({ source, target, targetLang: 'fr' })).find((x) => x.id === 'french-spacing');
  t.truthy(r);
  const spans = r!.spans!;
  t.is(spans.length, 3, 'one in each branch');
  for (const s of spans) t.is(target.slice(s.start, s.end), ' ?');
  const zw = runChecks(cell({ source: 'Hello {name}', target: 'Hallo {name}\u200b!' })).find(
    (x) => x.id === 'zero-width',
  )!;
  t.deepEqual(zw.spans, [{ start: 12, end: 13 }]);
});

test('settings: a project changes a check’s severity or turns it off', (t) => {
  const input = cell({ target: 'Datei  öffnen' });
  t.is(runChecks({ ...input, settings: { severity: { 'double-space': 'error' } } })[0].severity, 'error');
  t.deepEqual(runChecks({ ...input, settings: { disabled: ['double-space'] } }), []);
  const long = cell({ source: 'Open', target: 'Öffnen Sie jetzt die Datei' });
  t.true(ids(runChecks(long)).includes('expansion'));
  t.false(ids(runChecks({ ...long, settings: { expansionFactor: 6 } })).includes('expansion'));
});

test('custom checks: a pattern that must or must not match, by language, on the source too; run by re2js', (t) => {
  const custom = [
    {
      id: 'no-click',
      name: 'Say “select”, not “click”',
      pattern: '\\bklick',
      caseInsensitive: true,
      mode: 'must-not-match' as const,
      severity: 'warning' as const,
      languages: ['de'],
    },
    {
      id: 'brand',
      name: 'The brand is kept',
      pattern: 'Glossa',
      mode: 'must-match' as const,
      severity: 'error' as const,
    },
    {
      id: 'source-no-todo',
      name: 'No TODO in sources',
      pattern: 'TODO',
      mode: 'must-not-match' as const,
      severity: 'info' as const,
      on: 'source' as const,
    },
  ];
  const results = runChecks(
    cell({ source: 'Click to open Glossa', target: 'Klicke, um Glossa zu öffnen', settings: { custom } }),
  );
  t.deepEqual(results, [
    {
      id: 'custom:no-click',
      severity: 'warning',
      field: 'target',
      message: 'Say “select”, not “click”: matches "Klick"',
      spans: [{ start: 0, end: 5 }],
    },
  ]);
  t.deepEqual(
    ids(runChecks(cell({ target: 'Klicke, um die Datei zu öffnen', targetLang: 'fr', settings: { custom } }))),
    ['custom:brand'],
  );
  t.deepEqual(ids(checkSource({ source: 'TODO: Open', sourceLang: 'en', key: 'k', settings: { custom } })), [
    'custom:source-no-todo',
  ]);
  // A pattern that backtracks exponentially in a backtracking engine runs in linear time on an automaton.
  const evil = [
    { id: 'evil', name: 'Evil', pattern: '^(a+)+$', mode: 'must-not-match' as const, severity: 'error' as const },
  ];
  t.deepEqual(
    runChecks(cell({ source: 'a', target: `${'a'.repeat(50_000)}!`, settings: { custom: evil } })).filter(
      (r) => r.id === 'custom:evil',
    ),
    [],
  );
});

test('custom checks: an invalid pattern, id or mode is reported clearly and never run', (t) => {
  const bad = (over: object) => ({
    id: 'x',
    name: 'X',
    pattern: 'a',
    mode: 'must-match' as const,
    severity: 'error' as const,
    ...over,
  });
  t.regex(
    validateCustomCheck(bad({ pattern: '(a' })) ?? '',
    /^custom check x: invalid pattern: error parsing regexp: missing closing \)/,
  );
  t.regex(
    validateCustomCheck(bad({ pattern: '(?=a)b' })) ?? '',
    /invalid pattern: .*invalid or unsupported Perl syntax/,
  );
  t.regex(validateCustomCheck(bad({ id: 'Not Valid' })) ?? '', /id "Not Valid"/);
  t.regex(validateCustomCheck(bad({ mode: 'sometimes' })) ?? '', /mode is must-match or must-not-match/);
  t.regex(validateCustomCheck(bad({ pattern: 'a'.repeat(1001) })) ?? '', /longer than 1000/);
  t.is(validateCustomCheck(bad({})), null);
  const [r] = runChecks(cell({ settings: { custom: [bad({ pattern: '[z-a]' })] } }));
  t.like(r, { id: 'custom:x', severity: 'error', field: 'target' });
  t.regex(r.message, /invalid pattern: .*invalid character class range/);
});

test('sources: not ICU (i18next, CSS braces, an unclosed plural), unbalanced tags, mixed syntaxes, key names per format', (t) => {
  const src = (source: string, over: object = {}) => checkSource({ source, sourceLang: 'en', key: 'k', ...over });
  t.regex(
    src('Change to {{lang}}').find((r) => r.id === 'source-icu')?.message ?? '',
    /\{\{lang\}\} is i18next interpolation; ICU writes \{lang\}/,
  );
  t.regex(src('a { color: red }').find((r) => r.id === 'source-icu')?.message ?? '', /literal brace is quoted in ICU/);
  t.regex(
    src('{count, plural, one {# file} other {# files}').find((r) => r.id === 'source-icu')?.message ?? '',
    /^not ICU: /,
  );
  t.deepEqual(ids(src('Tap <b>Save</b> <br> <1>x</1>')), []);
  t.deepEqual(ids(src('Tap <b>Save')), ['source-tags']);
  t.deepEqual(ids(src('Hello {name}, %d files')), ['source-placeholder-syntax']);
  t.deepEqual(ids(src('Settings', { key: 'settings.title', formats: ['android_xml', 'arb', 'nested_json'] })), [
    'key-android',
    'key-arb',
  ]);
  t.deepEqual(
    src('Settings', { key: 'settings.title', formats: ['android_xml'] }).map((r) => [r.field, r.message]),
    [['key', 'written as settings_title in strings.xml (R.string.settings_title)']],
  );
  // Format checks run only for the configured formats.
  t.deepEqual(ids(src('Settings', { key: 'settings.title' })), []);
});

test('the glossary is a hook: no terms, no finding; a term the translation misses or a forbidden one is reported', (t) => {
  const terms = [
    { source: 'workspace', targets: ['Arbeitsbereich'] },
    { source: 'file', targets: ['Akte'], forbidden: true },
  ];
  t.deepEqual(ids(runChecks(cell({ source: 'Open the workspace file', target: 'Akte im Workspace öffnen' }))), []);
  t.deepEqual(
    runChecks(cell({ source: 'Open the workspace file', target: 'Akte im Workspace öffnen', terms })).map(
      (r) => r.message,
    ),
    ['“workspace” is translated as “Arbeitsbereich”', '“Akte” is not to be used for “file”'],
  );
  t.deepEqual(ids(runChecks(cell({ source: 'Open the workspace', target: 'Arbeitsbereich öffnen', terms }))), []);
});

test('Russian one without the number: an error of the review as of the publish and the fill', (t) => {
  const source = '{count, plural, one {{name} added a photo} other {{name} added # photos}}';
  const target =
    '{count, plural, one {{name} добавил(а) фото} few {{name} добавил(а) # фото} many {{name} добавил(а) # фото} other {{name} добавил(а) # фото}}';
  const r = runChecks(cell({ source, target, targetLang: 'ru' })).filter((x) => x.severity === 'error');
  t.deepEqual(ids(r), ['plural-number']);
  t.regex(r[0].message, /\(one\) stands for 1, 21, 31, … in ru: it must show \{count\}/);
  t.is(gateCell(source, target, 'ru').icu, r[0].message);
  t.is(checkFill(source, target, 'ru'), r[0].message);
  // French `one` is 0 and 1: `une photo` for 0 photos is a warning of the review, not a refusal.
  const fr =
    '{count, plural, one {{name} a ajouté une photo} many {{name} a ajouté # de photos} other {{name} a ajouté # photos}}';
  t.deepEqual(
    runChecks(cell({ source, target: fr, targetLang: 'fr' })).map((x) => [x.id, x.severity]),
    [['plural-few-numbers', 'warning']],
  );
  t.deepEqual(gateCell(source, fr, 'fr'), {});
});

// Plurals with markup: the fill (checkFill, what the engines are held to), the publish (gateCell) and a review
// (runChecks) read a branch by one rule (packages/core/src/checks/branches.ts). Before it, the branches followed the
// source's categories, and `one` of `{count, plural, one {One comment} other {<b>{count}</b> comments}}` was held
// to the source's `one` in every language: the Japanese value (no `one`) was refused however written, and the
// pseudo engine's Russian `one` (1, 21, 31: it must show the number, and so its `<b>`) was refused by its own gate.
test('plurals with markup: the fill, the publish and a review agree, in ar, fr, ja, pl and ru', async (t) => {
  const sources = [
    '{count, plural, one {One comment} other {<b>{count}</b> comments}}',
    '{count, plural, one {<b>#</b> comment} other {<b>#</b> comments}}',
    '<b>{count}</b> comments',
    '{count, plural, one {<b>One</b> comment} other {# comments}}',
  ];
  const engine = new PseudoEngine();
  for (const source of sources)
    for (const lang of ['de', 'ar', 'fr', 'ja', 'pl', 'ru']) {
      const [out] = await engine.translate([
        { id: '1', key: 'k', ctx: null, source, sourceLang: 'en', targetLang: lang },
      ]);
      t.is(out.error, undefined, `${lang}: ${source}`);
      const value = out.value!;
      t.is(checkFill(source, value, lang), null, `${lang}: ${value}`);
      t.deepEqual(gateCell(source, value, lang), {}, `${lang}: ${value}`);
      t.deepEqual(
        runChecks(cell({ source, target: value, targetLang: lang })).filter((r) => r.severity === 'error'),
        [],
        value,
      );
    }
  // Typed by hand: the Japanese `other` with the source's `other` markup, the Russian `one` with the number in bold.
  const source = sources[0];
  const typed: Array<[string, string]> = [
    ['ja', '{count, plural, other {<b>{count}</b> 件のコメント}}'],
    [
      'ru',
      '{count, plural, one {<b>{count}</b> комментарий} few {<b>{count}</b> комментария} many {<b>{count}</b> комментариев} other {<b>{count}</b> комментария}}',
    ],
    [
      'ar',
      '{count, plural, zero {لا تعليقات} one {تعليق واحد} two {تعليقان} few {<b>{count}</b> تعليقات} many {<b>{count}</b> تعليقًا} other {<b>{count}</b> تعليق}}',
    ],
  ];
  for (const [lang, value] of typed) {
    t.is(checkFill(source, value, lang), null, value);
    t.deepEqual(gateCell(source, value, lang), {}, value);
  }
  // A branch that carries the markup of no source branch it may follow is still refused, by all three alike.
  const wrong =
    '{count, plural, one {<i>{count}</i> комментарий} few {<b>{count}</b> комментария} many {<b>{count}</b> комментариев} other {<b>{count}</b> комментария}}';
  const refusal = gateCell(source, wrong, 'ru').markup;
  t.regex(refusal ?? '', /^tags differ \(one\): expected none, got <i> <\/i>$/);
  t.is(checkFill(source, wrong, 'ru'), refusal ?? null);
  t.is(
    runChecks(cell({ source, target: wrong, targetLang: 'ru' })).find((r) => r.id === 'markup-tags')?.message,
    refusal ?? '',
  );
});

test('docs/guides/checks.md lists every check as the catalogue says: `npm run generate` would not change it', (t) => {
  const doc = readFileSync(CHECKS_DOC, 'utf8');
  t.is(withChecksTable(doc), doc, 'run `npm run generate`');
  for (const d of CATALOGUE) t.regex(doc, new RegExp(`^\\| \`${d.id}\` +\\| ${d.severity} +\\|`, 'm'), d.id);
});
