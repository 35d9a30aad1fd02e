// No false positive on real catalogs: every check over every (source, translation) pair of the fixture catalogs that
// carry translations (test/fixtures/catalogs, SOURCES.md), each read by its format's parser as a sync reads it. Every
// error or warning raised is listed below as a real problem of its file, with why it is real; anything else fails.
import test from 'ava';
import { runChecks, type CheckResult } from '../../packages/core/src/checks/index.js';
import { FIXTURE_PAIRS as PAIRS } from '../helpers/fixture-pairs.js';

/** `file | key [lang] | check id` for each key and language given: one reason for all. */
const each = (file: string, keys: string[], langs: string[], id: string, why: string): Record<string, string> =>
  Object.fromEntries(keys.flatMap((k) => langs.map((l) => [`${file} | ${k} [${l}] | ${id}`, why])));

const COTEDITOR = 'xcstrings/coteditor-Count.xcstrings';
const MEDIA3_FR = 'android_xml/media3-values-fr-strings.xml';
const MEDIA3_PL = 'android_xml/media3-values-pl-strings.xml';
const REPEAT = [
  'exo_controls_repeat_off_description',
  'exo_controls_repeat_one_description',
  'exo_controls_repeat_all_description',
];

/** `file | key [lang] | check id`: the real problems of the fixtures, each with why it is real. */
const REAL: Record<string, string> = {
  // Apple's String Catalog lets a plural give `other` alone; the service holds a plural to its language's CLDR
  // categories (the publish gate's plural-categories), so these values cannot be published once a person edits them,
  // and every other format (Android <plurals>, gettext, i18next) shows `other` for 1: right in German and Turkish
  // (`1 Zeichen`, `1 bayt`), wrong in Italian (`1 trovati`).
  ...each(
    COTEDITOR,
    ['*%lld* byte(s)', '*%lld* character(s)', '%lld found', '%lld replaced'],
    ['de', 'it', 'tr'],
    'plural-categories',
    'other alone: no branch for one',
  ),
  ...each(
    COTEDITOR,
    ['%lld found', '%lld replaced'],
    ['en-GB'],
    'plural-categories',
    'other alone, as its en source: `1 found` reads right, but the gate refuses it once edited',
  ),
  // Spanish, French, Italian and Portuguese take `de` before a noun after a million (CLDR `many`: 1 000 000 de
  // caracteres); without a `many` branch the app says `1000000 caracteres`. Apple's `zero` (es, fr) is no CLDR
  // category of these languages: no other format shows it, and the Spanish one is wrong (`0 octeto` for 0 bytes).
  ...each(
    COTEDITOR,
    ['*%lld* byte(s)', '*%lld* character(s)', '%lld found', '%lld replaced'],
    ['es', 'fr', 'pt'],
    'plural-categories',
    'no many branch (millions), and es/fr an Apple-only zero',
  ),
  [`${MEDIA3_FR} | exo_controls_rewind_by_amount_description [fr] | plural-categories`]:
    'no `many` (un million de secondes): Android and ICU fall back on `other`, `1000000 secondes`',
  [`${MEDIA3_FR} | exo_controls_fastforward_by_amount_description [fr] | plural-categories`]:
    'no `many` (un million de secondes): Android and ICU fall back on `other`, `1000000 secondes`',
  // The base declares [CHAR LIMIT=30]; the French is 33 characters long.
  [`${MEDIA3_FR} | exo_controls_rewind_by_amount_description [fr] | max-length`]:
    '`Revenir en arrière de %d secondes` is 33 characters for a 30 limit',
  // The ExoPlayer base is an older commit than androidx/media's translations (SOURCES.md): these translate media3's
  // longer `Current mode: Repeat none. Toggle repeat mode.`, so against this source they are not its translation,
  // end with a stop it lacks, run five times its length and twice the [CHAR LIMIT=30] the base declares.
  ...each(MEDIA3_FR, REPEAT, ['fr'], 'end-stop', 'translates a newer, longer source'),
  ...each(MEDIA3_FR, REPEAT, ['fr'], 'expansion', 'translates a newer, longer source'),
  ...each(MEDIA3_FR, REPEAT, ['fr'], 'max-length', 'over the base’s [CHAR LIMIT=30]'),
  ...each(MEDIA3_PL, REPEAT, ['pl'], 'end-stop', 'translates a newer, longer source'),
  ...each(MEDIA3_PL, REPEAT, ['pl'], 'expansion', 'translates a newer, longer source'),
  ...each(MEDIA3_PL, REPEAT, ['pl'], 'max-length', 'over the base’s [CHAR LIMIT=30]'),
  // `Mode actuel :` with an ordinary space: the colon can wrap to a line of its own (SOURCES.md: the NBSP may have been
  // lost in copying; the file as it stands has none).
  ...each(MEDIA3_FR, REPEAT, ['fr'], 'french-spacing', 'an ordinary space before the colon'),
  // SOURCES.md: `a trailing space inside one msgstr ("إختر تاريخ ")`; its msgid has none.
  'po/django-admin-ar-djangojs.po | Choose a Date [ar] | trailing-whitespace': 'a trailing space the msgid lacks',
  // The de file is of a later commit (SOURCES.md), whose example folder was renamed: against this source, the link
  // points elsewhere.
  'json/next-intl-example-app-router-de.json | PageLayout.links.source.href [de] | urls': 'another URL than its source',
};

test('the fixture catalogs give pairs from every format that carries translations', (t) => {
  const byFormat = new Map<string, number>();
  for (const p of PAIRS) byFormat.set(p.format, (byFormat.get(p.format) ?? 0) + 1);
  t.log([...byFormat].map(([f, n]) => `${f}: ${n}`).join(', '));
  // stripe-ios's ru file is of a later commit than its en file, with other keys (SOURCES.md): no pair.
  for (const f of ['android_xml', 'po', 'xcstrings', 'nested_json']) t.true((byFormat.get(f) ?? 0) > 0, f);
});

test('every error and warning on the fixture catalogs is a real problem listed here', (t) => {
  const raised: string[] = [];
  const detail: string[] = [];
  for (const p of PAIRS) {
    const results: CheckResult[] = runChecks({
      source: p.source,
      target: p.target,
      sourceLang: p.sourceLang,
      targetLang: p.lang,
      key: p.key,
      comment: p.comment,
      formats: [p.format],
    });
    for (const r of results) {
      if (r.severity === 'info') continue;
      const label = `${p.file} | ${p.key} [${p.lang}] | ${r.id}`;
      raised.push(label);
      if (!REAL[label])
        detail.push(
          `${label}\n    ${r.severity}: ${r.message}\n    source: ${JSON.stringify(p.source)}\n    target: ${JSON.stringify(p.target)}`,
        );
    }
  }
  if (process.env.CHECKS_FIXTURES_DUMP) console.log(detail.join('\n'));
  t.deepEqual(detail, [], detail.join('\n'));
  t.deepEqual(
    Object.keys(REAL).filter((k) => !raised.includes(k)),
    [],
    'every listed problem is still found',
  );
});
