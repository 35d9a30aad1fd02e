// Publish gates (spec: `publishVersion`): the ICU and markup verdicts on single cells. Pure functions: no database, no service.
import test from 'ava';
import { capList, checkFill, gateCell, rejectionLabel } from '../../packages/core/src/gates.js';

const PLURAL_EN = '{count, plural, one {# file} other {# files}}';

test('a good cell passes both gates', (t) => {
  t.deepEqual(
    gateCell(
      'Hello {name}, you have <b>{count}</b> new messages',
      'Hallo {name}, du hast <b>{count}</b> neue Nachrichten',
      'de',
    ),
    {},
  );
  t.deepEqual(gateCell("Don't panic", 'Keine Panik', 'de'), {});
  // a base cell is gated against itself
  t.deepEqual(gateCell(PLURAL_EN, PLURAL_EN, 'en'), {});
});

test('a missing placeholder is an ICU rejection', (t) => {
  const v = gateCell('Hello {name}', 'Hallo', 'de');
  t.regex(v.icu ?? '', /missing placeholder \{name\}/);
  t.is(v.markup, undefined);
});

test('a renamed placeholder is an ICU rejection', (t) => {
  t.regex(gateCell('Hello {name}', 'Hallo {nom}', 'de').icu ?? '', /placeholder/);
  // an added one is refused too: the app passes no value for it
  t.regex(gateCell('Hello', 'Hallo {name}', 'de').icu ?? '', /unknown placeholder \{name\}/);
});

test('invalid ICU syntax is an ICU rejection', (t) => {
  t.regex(gateCell('Hello {name}', 'Hallo {name', 'de').icu ?? '', /invalid ICU syntax/);
  t.regex(gateCell(PLURAL_EN, '{count, plural, one {# Datei}}', 'de').icu ?? '', /invalid ICU syntax/);
});

test('a Polish plural with only one/other is an ICU rejection', (t) => {
  const v = gateCell(PLURAL_EN, '{count, plural, one {# plik} other {# pliku}}', 'pl');
  t.regex(v.icu ?? '', /plural \{count\}.*pl needs one, few, many, other/);
  t.deepEqual(
    gateCell(PLURAL_EN, '{count, plural, one {# plik} few {# pliki} many {# plików} other {# pliku}}', 'pl'),
    {},
  );
  // Japanese has only `other`: the source's `one` is one category too many
  t.truthy(gateCell(PLURAL_EN, '{count, plural, one {# 件} other {# 件}}', 'ja').icu);
  t.deepEqual(gateCell(PLURAL_EN, '{count, plural, other {# 件}}', 'ja'), {});
});

test('an extra exact =0 branch is fine', (t) => {
  t.deepEqual(
    gateCell(
      PLURAL_EN,
      '{count, plural, =0 {brak plików} one {# plik} few {# pliki} many {# plików} other {# pliku}}',
      'pl',
    ),
    {},
  );
  t.deepEqual(gateCell(PLURAL_EN, '{count, plural, =0 {Keine Dateien} one {# Datei} other {# Dateien}}', 'de'), {});
});

test('a dropped <b> is a markup rejection, not an ICU one', (t) => {
  const v = gateCell('Tap <b>Save</b> to continue', 'Tippe auf Speichern, um fortzufahren', 'de');
  t.regex(v.markup ?? '', /tags differ: expected <b> <\/b>, got none/);
  t.is(v.icu, undefined);
});

test('a different <br/> count is a markup rejection', (t) => {
  const v = gateCell('Line one<br/>Line two<br/>Line three', 'Zeile eins<br/>Zeile zwei und drei', 'de');
  t.regex(v.markup ?? '', /tags differ/);
  t.is(v.icu, undefined);
  t.deepEqual(gateCell('Line one<br/>Line two', 'Zeile eins<br />Zeile zwei', 'de'), {});
});

test('HTML the ICU parser cannot read as rich text is gated as text', (t) => {
  // `<a href=…>` is INVALID_TAG and a lone `<br>` UNCLOSED_TAG for a rich-text parse; such sources are read with tags as text
  const src = 'Read <a href="{url}">the terms</a><br>now';
  t.deepEqual(gateCell(src, 'Lies <a href="{url}">die Bedingungen</a><br>jetzt', 'de'), {});
  t.regex(gateCell(src, 'Lies <a href="{link}">die Bedingungen</a><br>jetzt', 'de').icu ?? '', /placeholder/);
  t.regex(gateCell(src, 'Lies die Bedingungen<br>jetzt', 'de').markup ?? '', /tags differ/);
  // in ICU an apostrophe before `{` quotes it: `href='{url}'` holds the literal text {url}, no argument
  t.deepEqual(gateCell("Read <a href='{url}'>the terms</a>", "Lies <a href='{url}'>die Bedingungen</a>", 'de'), {});
  // a rich-text source holds its translations to rich text
  t.regex(gateCell('Tap <b>Save</b>', '</b>Speichern<b>', 'de').icu ?? '', /invalid ICU syntax/);
});

test("react-i18next's numbered tags are markup: kept, they pass; dropped or renumbered, a markup rejection", (t) => {
  const src = 'Hello <1>{name}</1>, you have <3>{count} new</3> messages.<5/>';
  t.deepEqual(gateCell(src, 'Hallo <1>{name}</1>, du hast <3>{count} neue</3> Nachrichten.<5/>', 'de'), {});
  t.deepEqual(gateCell('<1>Read</1> <2/>', '<2/> <1>Lies</1>', 'de'), {}, 'order may change, as with <b>');
  t.regex(gateCell(src, 'Hallo {name}, du hast {count} neue Nachrichten.', 'de').markup ?? '', /tags differ/);
  t.regex(
    gateCell(src, 'Hallo <1>{name}</1>, du hast <4>{count} neue</4> Nachrichten.<5/>', 'de').markup ?? '',
    /tags differ/,
  );
  t.regex(checkFill(src, 'Hallo <1>{name}</1>, du hast {count} neue Nachrichten.', 'de') ?? '', /tags differ/);
  // Inside an HTML tag or comment, such text is no tag.
  t.deepEqual(gateCell('<a title="<1>">x</a><!-- <2> -->', '<a title="<1>">y</a>', 'de'), {});
});

test('markup inside plural branches is compared branch by branch', (t) => {
  const src = '{count, plural, one {<b>#</b> file} other {<b>#</b> files}}';
  // four Polish branches against the source's two carry the same markup each
  t.deepEqual(
    gateCell(
      src,
      '{count, plural, one {<b>#</b> plik} few {<b>#</b> pliki} many {<b>#</b> plików} other {<b>#</b> pliku}}',
      'pl',
    ),
    {},
  );
  t.regex(
    gateCell(
      src,
      '{count, plural, one {<b>#</b> plik} few {# pliki} many {<b>#</b> plików} other {<b>#</b> pliku}}',
      'pl',
    ).markup ?? '',
    /tags differ \(few\)/,
  );
});

test('an invalid source or language is reported, not thrown', (t) => {
  t.regex(gateCell('Hello {name', 'Hallo {name}', 'de').icu ?? '', /source is not valid ICU/);
  t.regex(gateCell(PLURAL_EN, '{count, plural, other {#}}', 'not a tag!').icu ?? '', /invalid language tag/);
});

test('rejection labels and capped lists', (t) => {
  t.is(rejectionLabel('checkout.title', 'pt-br'), 'checkout.title [pt-br]');
  const list = Array.from({ length: 120 }, (_, i) => rejectionLabel(`k${i}`, 'de'));
  t.is(capList(list, 50).length, 50);
  t.is(capList(list).length, 50);
  t.deepEqual(capList(list, 50).slice(0, 2), ['k0 [de]', 'k1 [de]']);
  t.deepEqual(capList(['a'], 50), ['a']);
});

test('printf specifiers are compared like arguments, branch by branch; %% is an escape, not an argument', (t) => {
  t.deepEqual(gateCell('%lld files, %1$@ at %.2f%%', '%1$@: %lld Dateien bei %.2f%%', 'de'), {});
  t.deepEqual(gateCell('%lld files', '%d Dateien', 'de'), {
    icu: 'printf specifiers differ: missing %lld; unexpected %d',
  });
  t.deepEqual(gateCell('Shared by %1$@', 'Geteilt', 'de'), { icu: 'printf specifiers differ: missing %1$@' });
  t.deepEqual(gateCell('%.2f km', '%.1f km', 'de'), { icu: 'printf specifiers differ: missing %.2f; unexpected %.1f' });
  t.deepEqual(gateCell('100%% done', '100 % erledigt', 'de'), {});
  t.deepEqual(gateCell('50% off', '50 % Rabatt', 'de'), {});
  const plural = '{count, plural, one {%lld file} other {%lld files}}';
  t.deepEqual(
    gateCell(plural, '{count, plural, one {%lld plik} few {%lld pliki} many {%lld plików} other {%lld pliku}}', 'pl'),
    {},
  );
  t.deepEqual(
    gateCell(plural, '{count, plural, one {%lld plik} few {pliki} many {%lld plików} other {%lld pliku}}', 'pl'),
    {
      icu: 'printf specifiers differ (few): missing %lld',
    },
  );
  // A missing ICU argument is named first; markup stays the markup verdict.
  t.deepEqual(gateCell('<b>%lld</b> {name}', '%lld', 'de').icu, 'missing placeholder {name}');
  t.deepEqual(gateCell('<a href="/terms">%d terms</a>', '%d Bedingungen', 'de'), {
    markup: 'tags differ: expected <a> </a>, got none',
  });
});

test('sourceShips: a value may copy its source’s tags exactly, never add a handler or a script URL to them', (t) => {
  const source = 'Returns <img src=x onerror="window.pwned=1"> and <b>bold</b>';
  const copied = 'Retouren <img src=x onerror="window.pwned=1"> und <b>fett</b>';
  // A key's source ships only through the gates, which refuse it as they refuse the copy.
  t.regex(checkFill(source, copied, 'de') ?? '', /event handler/);
  // A content document serves its base text as it is: the copy adds nothing.
  t.is(checkFill(source, copied, 'de', { sourceShips: true }), null);
  for (const added of [
    'Retouren <img src=x onerror="window.pwned=2"> und <b>fett</b>',
    'Retouren <img src=x onerror="window.pwned=1"> und <b onmouseover="alert(1)">fett</b>',
    'Retouren <img src="javascript:alert(1)" onerror="window.pwned=1"> und <b>fett</b>',
  ])
    t.truthy(checkFill(source, added, 'de', { sourceShips: true }), added);
});
