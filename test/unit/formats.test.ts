// File formats (packages/core/src/formats): detection, parse and render on the real fixture corpus, and the malformed inputs
// sync must refuse with invalid_argument. No database, no service: the modules are pure functions.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import {
  baseValueOf,
  FormatError,
  isTranslatable,
  type Catalog,
  type FormatId,
} from '../../packages/core/src/catalog.js';
import { withoutResources } from '../../packages/core/src/formats/android_xml.js';
import { FORMATS, detectFormat, getFormat } from '../../packages/core/src/formats/index.js';
import { catalogLanguages, keepLocalLanguages } from '../../packages/core/src/formats/xcstrings.js';
import type { XcStrings } from '../helpers/xcstrings.js';

/** A nested_json file: strings at the leaves. */
interface JsonTree {
  [key: string]: string | JsonTree;
}

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/catalogs');

// The `json` folder holds nested files (next-intl, next-i18next), which are nested_json.
const EXPECTED: Record<string, FormatId> = {
  'android_xml/exoplayer-values-strings.xml': 'android_xml',
  'android_xml/firefox-android-errorpages-values-fr-strings.xml': 'android_xml',
  'android_xml/media3-values-fr-strings.xml': 'android_xml',
  'android_xml/media3-values-pl-strings.xml': 'android_xml',
  'android_xml/zxing-values-strings.xml': 'android_xml',
  'arb/dart-i18n-my_shopping_cart-messages.arb': 'arb',
  'arb/dart-i18n-testarb.arb': 'arb',
  'arb/zulip-flutter-app_he.arb': 'arb',
  'arb/zulip-flutter-app_sk.arb': 'arb',
  'ios_strings/firefox-ios-pl-EnhancedTrackingProtection.strings': 'ios_strings',
  'ios_strings/stripe-ios-en-Localizable.strings': 'ios_strings',
  'ios_strings/stripe-ios-ru-Localizable.strings': 'ios_strings',
  'ios_strings/swiftgen-LocMultiline.strings': 'ios_strings',
  'ios_strings/swiftgen-Localizable.strings': 'ios_strings',
  'json/next-i18next-simple-en-common.json': 'nested_json',
  'json/next-intl-example-app-router-de.json': 'nested_json',
  'json/next-intl-example-app-router-en.json': 'nested_json',
  'po/babel-de_DE-messages.po': 'po',
  'po/django-admin-ar-djangojs.po': 'po',
  'po/django-admin-pl-djangojs.po': 'po',
  'po/sphinx_rtd_theme-sphinx.pot': 'po',
  'xcstrings/coteditor-Count.xcstrings': 'xcstrings',
  'xcstrings/netnewswire-Localizable.xcstrings': 'xcstrings',
  'xcstrings/xcstrings-tool-Substitution.xcstrings': 'xcstrings',
  'xcstrings/xcstrings-tool-Variations.xcstrings': 'xcstrings',
};

// `syncCatalog`: an empty leaf is invalid_argument, and this real file has `"description": ""`.
const REFUSED = new Set(['json/next-intl-example-app-router-de.json']);

const read = (rel: string) => fs.readFileSync(path.join(FIXTURES, rel), 'utf8');

const isInvalid = (t: import('ava').ExecutionContext, fn: () => unknown, message?: RegExp) => {
  const err = t.throws(fn, { instanceOf: FormatError });
  t.is(err?.code, 'invalid_argument');
  if (message) t.regex(err.message, message);
};

test('the fixture list covers every file of the corpus', (t) => {
  const onDisk = fs
    .readdirSync(FIXTURES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(FIXTURES, d.name)).map((f) => `${d.name}/${f}`))
    .sort();
  t.deepEqual(onDisk, Object.keys(EXPECTED).sort());
});

for (const [rel, id] of Object.entries(EXPECTED)) {
  test(`${rel} is detected as ${id} and ${REFUSED.has(rel) ? 'refused' : 'parses'}`, (t) => {
    const text = read(rel);
    t.is(detectFormat(text, path.basename(rel)), id, 'with its file name');
    t.is(detectFormat(text), id, 'from content alone');
    if (REFUSED.has(rel)) {
      isInvalid(t, () => FORMATS[id].parse(text), /^Manifest\.description: values must be non-empty strings$/);
      return;
    }
    const catalog = FORMATS[id].parse(text);
    t.is(catalog.format, id);
    t.true(catalog.entries.length > 0);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Round trips of the syncable formats

const renderAll = (c: Catalog) =>
  FORMATS[c.format].render(c, {
    languages: c.format === 'xcstrings' ? catalogLanguages(c) : [c.language ?? c.sourceLanguage ?? 'und'],
    baseLanguage: c.sourceLanguage ?? 'en',
  });

// All four xcstrings fixtures and both parseable JSON fixtures come back byte for byte.
const BYTE_IDENTICAL = [
  'xcstrings/coteditor-Count.xcstrings',
  'xcstrings/netnewswire-Localizable.xcstrings',
  'xcstrings/xcstrings-tool-Substitution.xcstrings',
  'xcstrings/xcstrings-tool-Variations.xcstrings',
  'json/next-i18next-simple-en-common.json',
  'json/next-intl-example-app-router-en.json',
];

for (const rel of Object.keys(EXPECTED).filter((r) => /^(xcstrings|json)\//.test(r) && !REFUSED.has(r))) {
  test(`${rel}: render(parse(file)) parses back to an equal catalog`, (t) => {
    const text = read(rel);
    const mod = FORMATS[EXPECTED[rel]];
    const catalog = mod.parse(text);
    const out = renderAll(catalog);
    t.deepEqual(mod.parse(out), catalog);
    if (BYTE_IDENTICAL.includes(rel)) t.is(out, text, 'byte-identical');
  });
}

test('xcstrings: plural variations, states, comments and untranslated entries', (t) => {
  const count = FORMATS.xcstrings.parse(read('xcstrings/coteditor-Count.xcstrings'));
  t.is(count.sourceLanguage, 'en');
  t.deepEqual(count.meta, { version: '1.0' });
  const bytes = count.entries.find((e) => e.fileKey === '*%lld* byte(s)')!;
  t.deepEqual(bytes.values.en, {
    kind: 'plural',
    forms: { one: '*%lld* byte', other: '*%lld* bytes' },
    state: 'translated',
  });
  t.deepEqual(bytes.values.es, {
    kind: 'plural',
    forms: { one: '*%lld* octeto', other: '*%lld* octetos', zero: '*%lld* octeto' },
    state: 'translated',
  });
  t.deepEqual(bytes.values.ja, { kind: 'plural', forms: { other: '*%lld*バイト' }, state: 'translated' });

  const nnw = FORMATS.xcstrings.parse(read('xcstrings/netnewswire-Localizable.xcstrings'));
  const onlyComment = nnw.entries.find((e) => e.fileKey === 'Downloading avatar %@')!;
  t.deepEqual(onlyComment, {
    fileKey: 'Downloading avatar %@',
    comment: 'Activity kind — downloading an author avatar — %@ is the URL',
    values: {},
  });
  const feed = nnw.entries.find((e) => e.fileKey === 'Adding feed')!;
  t.deepEqual(feed.values, { es: { kind: 'text', text: 'Añadiendo fuente', state: 'translated' } });
});

test('xcstrings: substitutions become ICU plurals and render back to the same structure', (t) => {
  const text = read('xcstrings/xcstrings-tool-Substitution.xcstrings');
  const c = FORMATS.xcstrings.parse(text);
  const e = c.entries[0];
  t.deepEqual(e.values.en, {
    kind: 'text',
    text: '%1$@! There {total_strings, plural, one {is # string} other {are # strings}} and you have {remaining_strings, plural, other {#}} remaining',
    state: 'translated',
  });
  t.deepEqual(e.meta, {
    extractionState: 'manual',
    substitutions: {
      en: {
        'remaining.strings': { arg: 'remaining_strings', argNum: 3, formatSpecifier: 'lld', state: 'needs_review' },
        'total.strings': { arg: 'total_strings', argNum: 2, formatSpecifier: 'lld', state: 'needs_review' },
      },
    },
  });

  // A new language reuses the source's substitution structure.
  e.values.de = {
    kind: 'text',
    text: "%1$@! Es {total_strings, plural, one {gibt # Text} other {gibt # Texte (Nr. '#'1)}} und {remaining_strings, plural, one {# bleibt} other {# bleiben}} übrig",
    state: 'translated',
  };
  const out = FORMATS.xcstrings.render(c, { languages: ['en', 'de'], baseLanguage: 'en' });
  const de = (JSON.parse(out) as XcStrings).strings['substitutions_example.string'].localizations.de;
  t.is(de.stringUnit!.value, '%1$@! Es %#@total.strings@ und %#@remaining.strings@ übrig');
  t.deepEqual(de.substitutions!['total.strings'], {
    argNum: 2,
    formatSpecifier: 'lld',
    variations: {
      plural: {
        one: { stringUnit: { state: 'needs_review', value: 'gibt %arg Text' } },
        other: { stringUnit: { state: 'needs_review', value: 'gibt %arg Texte (Nr. #1)' } },
      },
    },
  });
  t.deepEqual(Object.keys(de.substitutions!['remaining.strings'].variations.plural), ['one', 'other']);
  t.deepEqual(FORMATS.xcstrings.parse(out).entries[0].values.de, e.values.de);
});

test('xcstrings: device variations are kept; the other device carries the value and takes edits', (t) => {
  const text = read('xcstrings/xcstrings-tool-Variations.xcstrings');
  const c = FORMATS.xcstrings.parse(text);
  const device = c.entries.find((e) => e.fileKey === 'String.Device')!;
  t.deepEqual(device.values.en, { kind: 'text', text: 'Tap to open', state: 'translated' });
  t.truthy((device.meta!.raw as Record<string, unknown>).en);

  device.values.en = { kind: 'text', text: 'Touch to open', state: 'translated' };
  const out = JSON.parse(FORMATS.xcstrings.render(c, { languages: ['en'], baseLanguage: 'en' })) as XcStrings;
  t.deepEqual(out.strings['String.Device'].localizations.en.variations!.device, {
    mac: { stringUnit: { state: 'translated', value: 'Click to open' } },
    other: { stringUnit: { state: 'translated', value: 'Touch to open' } },
  });
});

test('xcstrings: values handed back under project codes (lowercase) still meet their kept structure', (t) => {
  const c = FORMATS.xcstrings.parse(read('xcstrings/xcstrings-tool-Variations.xcstrings'));
  const device = c.entries.find((e) => e.fileKey === 'String.Device')!;
  // What a store round trip gives: meta as parsed (JSON), values keyed by the project's normalized codes.
  device.meta = JSON.parse(JSON.stringify(device.meta)) as typeof device.meta;
  device.values = { EN: device.values.en };
  const out = FORMATS.xcstrings.render(c, { languages: ['en'], baseLanguage: 'en' });
  t.is(out, read('xcstrings/xcstrings-tool-Variations.xcstrings'));
});

test('xcstrings: fixtures re-rendered from stored values (no state, meta through JSON) are still byte-identical', (t) => {
  for (const rel of BYTE_IDENTICAL.filter((r) => r.startsWith('xcstrings/'))) {
    const c = FORMATS.xcstrings.parse(read(rel));
    for (const e of c.entries) {
      if (e.meta) e.meta = JSON.parse(JSON.stringify(e.meta)) as typeof e.meta;
      for (const [lang, v] of Object.entries(e.values)) {
        const { state: _state, ...stateless } = v;
        e.values[lang] = stateless;
      }
    }
    t.is(FORMATS.xcstrings.render(c, { languages: catalogLanguages(c), baseLanguage: 'en' }), read(rel), rel);
  }
});

test('xcstrings: new keys sort the way Xcode sorts them, other objects by code point', (t) => {
  const c: Catalog = {
    format: 'xcstrings',
    sourceLanguage: 'en',
    entries: ['b', 'Key10', '%lld found', 'Key2', 'B upper', '*x*', 'a'].map((k) => ({
      fileKey: k,
      values: {
        en: { kind: 'text', text: k, state: 'translated' },
        'zh-hant': { kind: 'text', text: k },
        'pt-br': { kind: 'text', text: k },
      },
    })),
  };
  c.entries.push({
    fileKey: 'n',
    values: { en: { kind: 'plural', forms: { other: '# items', '=0': 'none', one: 'one item' }, state: 'new' } },
    meta: { shouldTranslate: false },
  });
  const out = FORMATS.xcstrings.render(c, { languages: ['en', 'zh-hant', 'pt-br'], baseLanguage: 'en' });
  const parsed = JSON.parse(out) as XcStrings;
  t.deepEqual(Object.keys(parsed), ['sourceLanguage', 'strings', 'version']);
  t.deepEqual(Object.keys(parsed.strings), ['*x*', '%lld found', 'a', 'b', 'B upper', 'Key2', 'Key10', 'n']);
  t.deepEqual(Object.keys(parsed.strings.a.localizations), ['en', 'pt-BR', 'zh-Hant']);
  t.deepEqual(parsed.strings.n, {
    localizations: {
      en: {
        variations: {
          plural: {
            one: { stringUnit: { state: 'new', value: 'one item' } },
            other: { stringUnit: { state: 'new', value: '# items' } },
            zero: { stringUnit: { state: 'new', value: 'none' } },
          },
        },
      },
    },
    shouldTranslate: false,
  });
  t.false(out.endsWith('\n'));
  t.true(out.includes('"sourceLanguage" : "en"'));
});

test('xcstrings: an empty catalog is written the way Xcode writes it', (t) => {
  const out = FORMATS.xcstrings.render(
    { format: 'xcstrings', sourceLanguage: 'en', entries: [] },
    { languages: ['en'], baseLanguage: 'en' },
  );
  t.is(out, '{\n  "sourceLanguage" : "en",\n  "strings" : {\n\n  },\n  "version" : "1.0"\n}');
});

// ---------------------------------------------------------------------------------------------------------------
// Base-only JSON

test('next-i18next {{changeTo}} becomes ICU {changeTo} and is written back as {{changeTo}}', (t) => {
  const text = read('json/next-i18next-simple-en-common.json');
  const c = FORMATS.nested_json.parse(text);
  const e = c.entries.find((x) => x.fileKey === 'change-locale')!;
  t.deepEqual(e.values.und, { kind: 'text', text: 'Change locale to "{changeTo}"' });
  t.deepEqual(e.meta, { interpolation: 'i18next', placeholders: { changeTo: 'changeTo' } });
  const out = FORMATS.nested_json.render(c, { languages: ['en'], baseLanguage: 'en' });
  t.true(out.includes('"change-locale": "Change locale to \\"{{changeTo}}\\""'));
  t.deepEqual(c.entries.map((x) => x.fileKey).slice(-4), [
    'blog.optimized.question',
    'blog.optimized.answer',
    'blog.ssg.question',
    'blog.ssg.answer',
  ]);
});

test('i18next placeholders with formats and dotted names round-trip; real ICU arguments are left alone', (t) => {
  const text = '{\n  "a": "{{count, number}} of {{ user.name }} and {{- raw}}",\n  "b": "plain {x}"\n}\n';
  const c = FORMATS.json.parse(text);
  t.is((c.entries[0].values.und as { text: string }).text, '{count} of {user_name} and {raw}');
  t.deepEqual(c.entries[1].values.und, { kind: 'text', text: 'plain {x}' });
  t.is(FORMATS.json.render(c, { languages: ['en'], baseLanguage: 'en' }), text);
  const icu = '{n, plural, one {{n}} other {{n} items}}';
  t.deepEqual(FORMATS.json.parse(JSON.stringify({ k: icu })).entries[0], {
    fileKey: 'k',
    values: { und: { kind: 'text', text: icu } },
  });
});

test('nested_json keeps the file key order and nesting; new keys join their group', (t) => {
  const text =
    '{\n  "z": {\n    "b": "B",\n    "a": "A"\n  },\n  "m": "M",\n  "a": {\n    "y": {\n      "x": "X"\n    }\n  }\n}\n';
  const c = FORMATS.nested_json.parse(text);
  t.deepEqual(
    c.entries.map((e) => e.fileKey),
    ['z.b', 'z.a', 'm', 'a.y.x'],
  );
  t.is(FORMATS.nested_json.render(c, { languages: ['en'], baseLanguage: 'en' }), text);
  c.entries.push({ fileKey: 'z.c', values: { en: { kind: 'text', text: 'C' } } });
  const out = JSON.parse(FORMATS.nested_json.render(c, { languages: ['en'], baseLanguage: 'en' })) as JsonTree;
  t.deepEqual(Object.keys(out), ['z', 'm', 'a']);
  t.deepEqual(Object.keys(out.z), ['b', 'a', 'c']);
});

test('nested_json: a segment holding a dot keeps its path', (t) => {
  const text = '{\n  "a": {\n    "b.c": "x"\n  }\n}\n';
  const c = FORMATS.nested_json.parse(text);
  t.is(c.entries[0].fileKey, 'a.b.c');
  t.is(FORMATS.nested_json.render(c, { languages: ['en'], baseLanguage: 'en' }), text);
});

test('flat JSON with dotted keys is json; any object value makes it nested_json', (t) => {
  const flat = '{"nav.home": "Home", "nav.about": "About"}';
  t.is(detectFormat(flat), 'json');
  t.is(detectFormat(flat, 'en.json'), 'json');
  t.deepEqual(
    FORMATS.json.parse(flat).entries.map((e) => e.fileKey),
    ['nav.home', 'nav.about'],
  );
  t.is(detectFormat('{"nav": {"home": "Home"}}'), 'nested_json');
});

test('a root @@locale or locale declares the source language and is not an entry', (t) => {
  const c = FORMATS.json.parse('{"@@locale": "en", "a": "A"}');
  t.is(c.sourceLanguage, 'en');
  t.deepEqual(c.entries, [{ fileKey: 'a', values: { en: { kind: 'text', text: 'A' } } }]);
  t.is(detectFormat('{"@@locale": "en", "a": "A"}', 'en.json'), 'json');
  const n = FORMATS.nested_json.parse('{"locale": "de", "nav": {"locale": "Sprache"}}');
  t.is(n.sourceLanguage, 'de');
  t.deepEqual(
    n.entries.map((e) => e.fileKey),
    ['nav.locale'],
  );
  t.is(
    FORMATS.nested_json.render(n, { languages: ['de'], baseLanguage: 'de' }),
    '{\n  "locale": "de",\n  "nav": {\n    "locale": "Sprache"\n  }\n}',
  );
});

test('angular_json with a 19-digit id round-trips in file order', (t) => {
  const text =
    '{\n  "locale": "en",\n  "translations": {\n    "1234567890123456789": "Hello",\n    "welcome": "Welcome {$INTERPOLATION}!",\n    "42": "{VAR_PLURAL, plural, =0 {none} other {{INTERPOLATION} items}}"\n  }\n}';
  t.is(detectFormat(text), 'angular_json');
  const c = FORMATS.angular_json.parse(text);
  t.is(c.sourceLanguage, 'en');
  t.deepEqual(
    c.entries.map((e) => e.fileKey),
    ['1234567890123456789', 'welcome', '42'],
  );
  t.deepEqual(c.entries[1].values.en, { kind: 'text', text: 'Welcome {INTERPOLATION}!' });
  const out = FORMATS.angular_json.render(c, { languages: ['en'], baseLanguage: 'en' });
  t.is(out, text);
  t.deepEqual(FORMATS.angular_json.parse(out), c);
  t.not(detectFormat('{"locale": "en", "translations": {"a": "b"}, "x": "y"}'), 'angular_json');
});

// ---------------------------------------------------------------------------------------------------------------
// Malformed input

test('malformed JSON files are invalid_argument', (t) => {
  isInvalid(t, () => FORMATS.nested_json.parse('{"a": {"b": "x"'), /unexpected end of input/);
  isInvalid(t, () => FORMATS.json.parse('{"a":"x","a":"y"}'), /duplicate key "a"/);
  isInvalid(t, () => FORMATS.nested_json.parse('{"n": {"a":"x","a":"y"}}'), /duplicate key "a"/);
  isInvalid(
    t,
    () => FORMATS.xcstrings.parse('{"sourceLanguage":"en","strings":{"k":{},"k":{}},"version":"1.0"}'),
    /duplicate key "k"/,
  );
  isInvalid(t, () => FORMATS.json.parse('{"nav.home": ""}'), /^nav\.home: values must be non-empty strings$/);
  isInvalid(t, () => FORMATS.json.parse('{"nav.home": 3}'), /^nav\.home: values must be non-empty strings$/);
  isInvalid(
    t,
    () => FORMATS.nested_json.parse('{"nav": {"home": 3}}'),
    /^nav\.home: values must be non-empty strings$/,
  );
  for (const leaf of ['true', 'null', '["a"]'])
    isInvalid(t, () => FORMATS.nested_json.parse(`{"nav": {"home": ${leaf}}}`), /values must be non-empty strings/);
  isInvalid(t, () => FORMATS.json.parse('["a"]'), /must be a JSON object/);
  isInvalid(t, () => FORMATS.json.parse('"a"'), /must be a JSON object/);
  isInvalid(
    t,
    () => FORMATS.angular_json.parse('{"locale": "en", "translations": {"1": ""}}'),
    /values must be non-empty strings/,
  );
  isInvalid(t, () => FORMATS.json.parse('{"a": "x"} trailing'), /after the JSON value/);
});

test('nesting deeper than 32 levels is invalid_argument, without recursion trouble', (t) => {
  const deep = (n: number) => `${'{"a":'.repeat(n)}"x"${'}'.repeat(n)}`;
  isInvalid(t, () => FORMATS.nested_json.parse(deep(40)), /nesting deeper than 32 levels/);
  isInvalid(t, () => FORMATS.nested_json.parse(deep(100_000)), /nesting deeper than 32 levels/);
  t.is(FORMATS.nested_json.parse(deep(31)).entries[0].fileKey, Array(31).fill('a').join('.'));
  t.is(detectFormat(deep(100_000)), 'nested_json');
});

test('malformed String Catalogs are invalid_argument', (t) => {
  isInvalid(
    t,
    () => FORMATS.xcstrings.parse('{"sourceLanguage": "en", "strings": [], "version": "1.0"}'),
    /strings: must be an object/,
  );
  isInvalid(t, () => FORMATS.xcstrings.parse('{"sourceLanguage": "en", "strings": "x"}'), /strings: must be an object/);
  isInvalid(t, () => FORMATS.xcstrings.parse('{"strings": {}}'), /sourceLanguage/);
  const noOther = {
    sourceLanguage: 'en',
    strings: {
      k: {
        localizations: {
          en: { variations: { plural: { one: { stringUnit: { state: 'translated', value: 'one' } } } } },
        },
      },
    },
    version: '1.0',
  };
  isInvalid(
    t,
    () => FORMATS.xcstrings.parse(JSON.stringify(noOther)),
    /^k \(en\): plural variation has no "other" form$/,
  );
  const empty = {
    sourceLanguage: 'en',
    strings: { k: { localizations: { en: { stringUnit: { state: 'translated', value: '' } } } } },
  };
  isInvalid(t, () => FORMATS.xcstrings.parse(JSON.stringify(empty)), /values must be non-empty strings/);
  isInvalid(
    t,
    () => FORMATS.xcstrings.parse('{"sourceLanguage": "en", "strings": {"k": "v"}}'),
    /k: must be an object/,
  );
  isInvalid(t, () => FORMATS.xcstrings.parse('{"sourceLanguage": "en", "strings": {'), /unexpected end of input/);
});

test('truncated or unrecognizable files are still routed to a module that refuses them', (t) => {
  t.is(detectFormat('{"a": "x"', 'en.json'), 'json');
  t.is(detectFormat('{"sourceLanguage": "en", "strings": {', 'Localizable.xcstrings'), 'xcstrings');
  t.is(detectFormat('hello world'), null);
  t.is(getFormat('nope'), null);
  t.is(getFormat('po'), FORMATS.po);
});

// ---------------------------------------------------------------------------------------------------------------
// Parse-only formats (and their renderers)

test('po: msgctxt, Polish plurals mapped to CLDR categories, headers, comments', (t) => {
  const c = FORMATS.po.parse(read('po/django-admin-pl-djangojs.po'));
  t.is(c.language, 'pl');
  t.is((c.meta!.headers as Record<string, string>).Language, 'pl');
  const selected = c.entries.find((e) => e.fileKey === '%(sel)s of %(cnt)s selected')!;
  t.deepEqual(Object.keys((selected.values.pl as { forms: object }).forms), ['one', 'few', 'many', 'other']);
  const may = c.entries.filter((e) => e.fileKey === 'May');
  t.true(may.length >= 1);
  t.true(c.entries.some((e) => e.ctx === 'abbrev. month May'));
  const ar = FORMATS.po.parse(read('po/django-admin-ar-djangojs.po'));
  const arSel = ar.entries.find((e) => e.fileKey === '%(sel)s of %(cnt)s selected')!;
  t.deepEqual(arSel.values.ar, {
    kind: 'plural',
    arg: 'n',
    forms: {
      zero: 'لا شي محدد',
      one: '%(sel)s من %(cnt)s محدد',
      two: '%(sel)s من %(cnt)s محدد',
      few: '%(sel)s من %(cnt)s محددة',
      many: '%(sel)s من %(cnt)s محدد',
      other: '%(sel)s من %(cnt)s محدد',
    },
  });
  const babel = FORMATS.po.parse(read('po/babel-de_DE-messages.po'));
  t.is(babel.entries[0].comment, 'This will be a translator coment,\nthat will include several lines');
  t.deepEqual(babel.entries[1].meta, { references: ['project/file2.py:9'], msgidPlural: 'foobars' });

  const ru = FORMATS.po.render(c, { languages: ['ru'], baseLanguage: 'en' });
  t.regex(ru, /"Language: ru\\n"/);
  t.regex(ru, /"Plural-Forms: nplurals=4; plural=/);
  t.regex(ru, /msgctxt "abbrev. month May"\nmsgid "May"\nmsgstr ""/);
  const back = FORMATS.po.render(c, { languages: ['pl'], baseLanguage: 'en' });
  t.deepEqual(FORMATS.po.parse(back).entries, c.entries);
});

test('android_xml: escapes, plurals, translatable="false", string-array, CDATA and inline markup', (t) => {
  const z = FORMATS.android_xml.parse(read('android_xml/zxing-values-strings.xml'));
  const val = (c: Catalog, k: string) => c.entries.find((e) => e.fileKey === k)?.values.und;
  t.deepEqual(val(z, 'msg_share_subject_line'), { kind: 'text', text: "Here's the contents of a barcode I scanned" });
  t.deepEqual(val(z, 'msg_encode_in_progress'), { kind: 'text', text: 'Generating a barcode…' });

  const exo = FORMATS.android_xml.parse(read('android_xml/exoplayer-values-strings.xml'));
  const custom = exo.entries.find((e) => e.fileKey === 'exo_controls_custom_playback_speed')!;
  t.deepEqual(custom.values.und, {
    kind: 'text',
    text: '<xliff:g id="playback_speed" example="1.05">%1$.2f</xliff:g>x',
  });
  t.is(custom.meta!.translatable, false);
  t.is(custom.comment, 'Shown to indicate a custom playback speed. [CHAR_LIMIT=16]');

  const pl = FORMATS.android_xml.parse(read('android_xml/media3-values-pl-strings.xml'));
  const rewind = pl.entries.find((e) => e.fileKey === 'exo_controls_rewind_by_amount_description')!;
  t.deepEqual(Object.keys((rewind.values.und as { forms: object }).forms), ['one', 'few', 'many', 'other']);
  const speeds = pl.entries.find((e) => e.fileKey === 'exo_controls_playback_speeds')!;
  t.deepEqual(speeds.values, {});
  t.deepEqual(speeds.meta!.stringArray, ['0,25x', '0,5x', '0,75x', 'Normalna', '1,25x', '1,5x', '2x']);

  const ff = FORMATS.android_xml.parse(read('android_xml/firefox-android-errorpages-values-fr-strings.xml'));
  const generic = ff.entries.find((e) => e.fileKey === 'mozac_browser_errorpages_generic_message')!;
  t.is(
    (generic.values.und as { text: string }).text,
    '\n\t\t<p>Aucune autre information disponible concernant le problème ou l’erreur.</p>\n\t',
  );
  t.true(generic.meta!.cdata);

  const out = FORMATS.android_xml.render(
    {
      format: 'android_xml',
      sourceLanguage: null,
      entries: [{ fileKey: 'k', values: { en: { kind: 'text', text: `@It's "x" & <b>y</b>\nz` } } }],
    },
    { languages: ['en'], baseLanguage: 'en' },
  );
  t.true(out.includes(`<string name="k">\\@It\\'s \\"x\\" &amp; <b>y</b>\\nz</string>`));
  t.deepEqual(FORMATS.android_xml.parse(out).entries[0].values.und, { kind: 'text', text: `@It's "x" & <b>y</b>\nz` });
});

test('android_xml: spaces aapt would trim or collapse survive, quoted as the file had them or as \\u0020', (t) => {
  const file =
    '<?xml version="1.0" encoding="utf-8"?>\n<resources>\n    <string name="q">"  two  spaces "</string>\n</resources>\n';
  const c = FORMATS.android_xml.parse(file);
  t.deepEqual(c.entries[0].values.und, { kind: 'text', text: '  two  spaces ' });
  t.is(c.entries[0].meta!.quoted, true);
  const back = FORMATS.android_xml.render(
    { ...c, entries: [{ ...c.entries[0], values: { en: c.entries[0].values.und } }] },
    { languages: ['en'], baseLanguage: 'en' },
  );
  t.true(back.includes('<string name="q">"  two  spaces "</string>'), 'a quoted value is written quoted again');
  const plain = FORMATS.android_xml.render(
    {
      format: 'android_xml',
      sourceLanguage: null,
      entries: [{ fileKey: 'k', values: { en: { kind: 'text', text: ' a  <b>b</b>  c ' } } }],
    },
    { languages: ['en'], baseLanguage: 'en' },
  );
  t.true(plain.includes('<string name="k">\\u0020a\\u0020\\u0020<b>b</b>\\u0020\\u0020c\\u0020</string>'), plain);
  t.deepEqual(FORMATS.android_xml.parse(plain).entries[0].values.und, { kind: 'text', text: ' a  <b>b</b>  c ' });
});

test('arb: parse reads @@locale, @key metadata and ICU values as written; render writes them for gen-l10n', (t) => {
  const c = FORMATS.arb.parse(read('arb/dart-i18n-my_shopping_cart-messages.arb'));
  t.is(c.language, 'en_US');
  t.is(c.sourceLanguage, 'en_US');
  t.deepEqual(c.entries[0].values.en_US, {
    kind: 'text',
    text: '{count, plural, other{{count} items in cart} zero{No items in cart} one{1 item in cart}}',
  });
  t.is(c.entries[0].comment, 'itemsInCart');
  t.deepEqual(c.meta!.globals, { '@@context': 'shopping_cart' });
  const he = FORMATS.arb.parse(read('arb/zulip-flutter-app_he.arb'));
  const version = he.entries.find((e) => e.fileKey === 'aboutPageAppVersion')!;
  t.is(version.comment, 'Label for Zulip app version in About Zulip page');
  t.is(Object.keys(version.values).length, 1);
  // Rendered for gen-l10n (packages/core/src/formats/arb.ts): the file's own attributes stay, description and placeholders
  // are the renderer's, names are Dart identifiers, `@@locale` is gen-l10n's spelling.
  const cart = FORMATS.arb.parse(read('arb/dart-i18n-my_shopping_cart-messages.arb'));
  const out = JSON.parse(FORMATS.arb.render(cart, { languages: ['en_US'], baseLanguage: 'en_US' })) as Record<
    string,
    unknown
  >;
  t.is(out['@@locale'], 'en_US');
  t.is(out['@@context'], 'shopping_cart');
  const first = cart.entries[0].fileKey;
  t.like(out[`@${first}`], { description: 'itemsInCart', placeholders: { count: { type: 'num' } } });
});

test('ios_strings: comments, escapes, backslash-newline continuation, duplicate keys (last wins)', (t) => {
  const m = FORMATS.ios_strings.parse(read('ios_strings/swiftgen-LocMultiline.strings'));
  const v = (c: Catalog, k: string) =>
    (c.entries.find((e) => e.fileKey === k)?.values.und as { text: string } | undefined)?.text;
  t.is(v(m, 'MULTILINE'), 'multi\nline');
  t.is(v(m, 'MULTILINE2'), 'another\nmulti\n    line');
  t.is(v(m, 'multiLine\nKey'), 'test');
  t.is(m.entries.find((e) => e.fileKey === 'multiline-comment')!.comment, 'A multiline\n   comment');

  const s = FORMATS.ios_strings.parse(read('ios_strings/swiftgen-Localizable.strings'));
  t.is(s.entries.filter((e) => e.fileKey === 'what./*happens*/.here').length, 1);
  t.is(v(s, 'what./*happens*/.here'), 'hello world! /* still in string */');
  t.is(
    s.entries.find((e) => e.fileKey === 'key1.anonymous')!.comment,
    'Same as "key1" = "value1"; but in the context of user not logged in',
  );

  const x = FORMATS.ios_strings.parse('"a" = "1";\n// first\n// second\n"b" = "q\\"\\\\\\n\\t\\U00e9";\n"a" = "2";');
  t.deepEqual(
    x.entries.map((e) => [e.fileKey, (e.values.und as { text: string }).text, e.comment ?? null]),
    [
      ['a', '2', null],
      ['b', 'q"\\\n\té', 'first\nsecond'],
    ],
  );
  t.deepEqual(
    FORMATS.ios_strings.parse(FORMATS.ios_strings.render(x, { languages: ['und'], baseLanguage: 'en' })).entries,
    x.entries,
  );
  isInvalid(t, () => FORMATS.ios_strings.parse('"a" = "1"'), /expected ";"/);
  isInvalid(t, () => FORMATS.ios_strings.parse('"a" = "1'), /unterminated string/);
});

test('i18next plural suffixes: literal braces, # and apostrophes are ICU-quoted in the forms and written back as they were', async (t) => {
  const { IntlMessageFormat } = await import('intl-messageformat');
  const { formsToIcu } = await import('../../packages/core/src/icu.js');
  const text = `${JSON.stringify(
    {
      item_one: "{{count}} item: it's '{{name}}' #1 {not an arg} ''",
      item_other: "{{count, number}} items: it's '{{name}}' #1 {not an arg} ''",
    },
    null,
    2,
  )}\n`;
  for (const id of ['json', 'nested_json'] as const) {
    const c = getFormat(id).parse(text);
    t.is(c.entries.length, 1);
    const [e] = c.entries;
    t.is(e.fileKey, 'item');
    const v = e.values.und;
    if (v.kind !== 'plural') return t.fail('not a plural');
    // The ICU message shows what i18next shows for the same count.
    const icu = new IntlMessageFormat(formsToIcu(v.forms), 'en');
    t.is(icu.format({ count: 1, name: 'Ann' }), "1 item: it's 'Ann' #1 {not an arg} ''");
    t.is(icu.format({ count: 3, name: 'Ann' }), "3 items: it's 'Ann' #1 {not an arg} ''");
    t.is(getFormat(id).render(c, { languages: ['en'], baseLanguage: 'en' }), text);
  }
});

test('i18next plural suffixes: what i18next cannot choose on is written as a fallback and reported', async (t) => {
  const { default: i18next } = await import('i18next');
  const c = getFormat('nested_json').parse(
    JSON.stringify({ shop: { item_one: '{{count}} item', item_other: '{{count}} items' } }),
  );
  const [e] = c.entries;
  e.values = {
    pl: {
      kind: 'plural',
      arg: 'count',
      forms: {
        '=1': 'Jeden produkt',
        one: '# produkt',
        few: '# produkty ({share, number, ::percent})',
        many: '{gender, select, female {{count} produktów dla niej} other {{count} produktów}}',
        other: '# produktu',
        two: '# (not Polish)',
      },
    },
  };
  const warnings: string[] = [];
  const out = getFormat('nested_json').render(c, {
    languages: ['pl'],
    baseLanguage: 'en',
    warn: (w) => warnings.push(`${w.key} [${w.lang}] ${w.reason}`),
  });
  const file = JSON.parse(out) as { shop: Record<string, string> };
  t.deepEqual(Object.keys(file.shop), ['item_one', 'item_few', 'item_many', 'item_other']);
  t.deepEqual(warnings, [
    'shop.item [pl] select {gender} inside an i18next plural form: written as its `other` branch',
    'shop.item [pl] plural =1: i18next has no exact-number form; the category form is used',
    'shop.item [pl] plural two: not a category of pl; left out',
  ]);
  const inst = i18next.createInstance();
  await inst.init({ lng: 'pl', resources: { pl: { translation: file } }, interpolation: { escapeValue: false } });
  t.is(inst.t('shop.item', { count: 1 }), '1 produkt');
  t.is(inst.t('shop.item', { count: 3, share: 0.25 }), '3 produkty (25%)');
  t.is(inst.t('shop.item', { count: 5, gender: 'female' }), '5 produktów');
});

test("angular_json: what Angular's ICU cannot read (#, offset, selectordinal, number/date) is written as ICU and reported", (t) => {
  const c = getFormat('angular_json').parse(
    JSON.stringify({
      locale: 'en',
      translations: {
        ok: '{VAR_PLURAL, plural, =0 {none} other {{$INTERPOLATION} items}}',
        pound: '{count, plural, one {# item} other {# items}}',
        ordinal: '{n, selectordinal, one {#st} other {#th}}',
        total: 'Total: {amount, number, ::currency/EUR} on {when, date, long}',
        offset: '{n, plural, offset:1 =0 {nobody} other {you and {n} others}}',
      },
    }),
  );
  const warnings: string[] = [];
  const out = getFormat('angular_json').render(c, {
    languages: ['en'],
    baseLanguage: 'en',
    warn: (w) => warnings.push(`${w.key}: ${w.reason}`),
  });
  const written = (JSON.parse(out) as { translations: Record<string, string> }).translations;
  t.is(written.ok, '{VAR_PLURAL, plural, =0 {none} other {{$INTERPOLATION} items}}');
  t.is(written.pound, '{count, plural, one {# item} other {# items}}');
  const gap = (key: string, what: string) => `${key}: ${what}: written as ICU, which Angular cannot read`;
  t.deepEqual(warnings, [
    gap('pound', '# (Angular shows it literally; the count needs a placeholder)'),
    gap('ordinal', 'selectordinal {n}'),
    gap('ordinal', '# (Angular shows it literally; the count needs a placeholder)'),
    gap('total', '{amount, number} (Angular formats with pipes, not in messages)'),
    gap('total', '{when, date} (Angular formats with pipes, not in messages)'),
    gap('offset', 'offset in plural {n}'),
  ]);
});

test('xcstrings: in a synced catalog, a key pushed beside the file is converted and the file’s own keys are not', (t) => {
  const text = (s: string) => ({ kind: 'text' as const, text: s });
  const c: Catalog = {
    format: 'xcstrings',
    sourceLanguage: 'en',
    entries: [
      // From the file: printf already, and literal braces in plain text, both written as they are.
      { fileKey: '%@ found', source: text('%@ found'), values: { en: text('%@ found'), de: text('%@ gefunden') } },
      {
        fileKey: 'braces',
        source: text('Tap {here}'),
        values: { en: text('Tap {here}') },
        meta: { extractionState: 'manual' },
      },
      // Pushed with POST /translate: ICU arguments, no meta.
      { fileKey: 'welcome', source: text('Hi {name}'), values: { en: text('Hi {name}'), de: text('Hallo {name}') } },
    ],
  };
  const out = JSON.parse(FORMATS.xcstrings.render(c, { languages: ['en', 'de'], baseLanguage: 'en' })) as XcStrings;
  t.is(out.strings['%@ found'].localizations.de.stringUnit!.value, '%@ gefunden');
  t.is(out.strings.braces.localizations.en.stringUnit!.value, 'Tap {here}');
  t.is(out.strings.welcome.localizations.de.stringUnit!.value, 'Hallo %@');
});

test('android_xml withoutResources: drops the named resources (and the comment before each) of a rendered file, nothing else', (t) => {
  const source = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="app_name" translatable="false">Glossa</string>
    <!-- Shown on the button -->
    <string name="save">Save</string>
    <plurals name="files">
        <item quantity="one">%d file</item>
        <item quantity="other">%d files</item>
    </plurals>
</resources>
`;
  const base = FORMATS.android_xml.parse(source);
  t.deepEqual(
    base.entries.filter((e) => !isTranslatable(e)).map((e) => e.fileKey),
    ['app_name'],
  );
  const catalog: Catalog = {
    ...base,
    entries: base.entries.map((e) => ({ ...e, meta: { ...e.meta, translatable: true } })),
  };
  const rendered = FORMATS.android_xml.render(catalog, { languages: ['und'], baseLanguage: 'en' });
  const without = withoutResources(rendered, new Set(['app_name', 'files']));
  t.deepEqual(
    FORMATS.android_xml.parse(without).entries.map((e) => e.fileKey),
    ['save'],
  );
  t.true(without.includes('<!-- Shown on the button -->'), "another resource's comment stays");
  t.is(withoutResources(rendered, new Set(['save'])).includes('Shown on the button'), false, 'its own comment goes');
  t.is(withoutResources(rendered, new Set()), rendered);
});

test('baseValueOf: a gettext entry without msgstr stands for its msgid; other formats give only what the file has', (t) => {
  const pot = FORMATS.po.parse(
    'msgid "Save"\nmsgstr ""\n\nmsgid "{n} file"\nmsgid_plural "{n} files"\nmsgstr[0] ""\nmsgstr[1] ""\n',
  );
  t.deepEqual(baseValueOf(pot.entries[0], 'po'), { kind: 'text', text: 'Save' });
  t.deepEqual(
    { ...(baseValueOf(pot.entries[1], 'po') as { forms: object }).forms },
    { one: '{n} file', other: '{n} files' },
  );
  const po = FORMATS.po.parse('msgid "Save"\nmsgstr "Save it"\n');
  t.deepEqual(baseValueOf(po.entries[0], 'po'), { kind: 'text', text: 'Save it' });
  t.is(baseValueOf({ fileKey: 'x', values: {} }, 'android_xml'), undefined);
});

test('xcstrings keepLocalLanguages: the local languages the project lacks join the pulled strings, nothing else', (t) => {
  const loc = (value: string) => ({ stringUnit: { state: 'translated', value } });
  const file = (strings: object) => JSON.stringify({ sourceLanguage: 'en', strings, version: '1.0' });
  const pulled = file({ Save: { localizations: { en: loc('Save'), de: loc('Speichern') } }, New: {} });
  const local = file({
    Save: { localizations: { en: loc('Save'), de: loc('Sichern'), 'zh-Hans': loc('保存'), es: loc('Guardar') } },
    New: { localizations: { es: loc('Nuevo') } },
    Gone: { localizations: { es: loc('Ido') } },
  });
  const merged = keepLocalLanguages(pulled, local, ['en', 'de', 'zh-hans']);
  t.deepEqual(merged.kept, ['es']);
  const out = JSON.parse(merged.text) as { strings: Record<string, { localizations?: Record<string, unknown> }> };
  t.deepEqual(Object.keys(out.strings).sort(), ['New', 'Save'], 'a string the project dropped is not brought back');
  t.deepEqual(out.strings.Save.localizations!.de, loc('Speichern'), "a project language is the project's");
  t.is(out.strings.Save.localizations!['zh-Hans'], undefined, 'zh-Hans is the project’s zh-hans');
  t.deepEqual(out.strings.Save.localizations!.es, loc('Guardar'));
  t.deepEqual(out.strings.New.localizations, { es: loc('Nuevo') });
  t.is(keepLocalLanguages(pulled, '{not json', ['en']).text, pulled);
  t.deepEqual(keepLocalLanguages(pulled, pulled, ['en', 'de']), { text: pulled, kept: [] });
});

test('a .stringsdict reads back as plural forms, with its printf as the ICU arguments of the source (the import route)', async (t) => {
  const { parseStringsdict, renderStringsdict, isStringsdict } =
    await import('../../packages/core/src/formats/ios_strings.js');
  const { printfToIcu, argOrder } = await import('../../packages/core/src/printf.js');
  const source = '{count, plural, one {# file in {folder}} other {# files in {folder}}}';
  const catalog: Catalog = {
    format: 'ios_strings',
    sourceLanguage: null,
    entries: [
      {
        fileKey: 'files',
        source: { kind: 'plural', arg: 'count', forms: { one: '# file in {folder}', other: '# files in {folder}' } },
        values: {
          de: { kind: 'plural', arg: 'count', forms: { one: '# Datei in {folder}', other: '# Dateien in {folder}' } },
        },
      },
    ],
  };
  const body = renderStringsdict(catalog, { languages: ['de'], baseLanguage: 'en' });
  t.true(isStringsdict(body));
  const back = parseStringsdict(body);
  t.is(back.entries.length, 1);
  const v = back.entries[0].values.und;
  if (v?.kind !== 'plural') return t.fail('a plural');
  const order = argOrder(source);
  const forms = Object.fromEntries(Object.entries(v.forms).map(([c, f]) => [c, printfToIcu(f, order, 'count')]));
  t.deepEqual(forms, { one: '# Datei in {folder}', other: '# Dateien in {folder}' });
  const around = parseStringsdict(
    '<plist version="1.0"><dict><key>k</key><dict><key>NSStringLocalizedFormatKey</key><string>You have %#@n@.</string><key>n</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string><key>one</key><string>%d file</string><key>other</key><string>%d files</string></dict></dict></dict></plist>',
  );
  t.deepEqual(around.entries[0].values.und, {
    kind: 'plural',
    arg: 'n',
    forms: { one: 'You have %d file.', other: 'You have %d files.' },
  });
  t.throws(() => parseStringsdict('<!DOCTYPE x [<!ENTITY a "b">]><plist><dict/></plist>'), { message: /entity/ });
});
