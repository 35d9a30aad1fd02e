// The i18next bundles read by i18next itself: the issue-12 fixture project is published, its manifest fetched from
// the delivery origin, and each language's bundle loaded by i18next-http-backend (loadPath from the manifest, the
// canonical BCP 47 name, no lowerCaseLng). What `t()` shows is compared with what intl-messageformat makes of the
// ICU message the person entered. Every fallback bundleFor applies is checked for its warning.
import test from 'ava';
import i18next, { type i18n } from 'i18next';
import HttpBackend from 'i18next-http-backend';
import { IntlMessageFormat } from 'intl-messageformat';
import { bundleFor } from '../../../packages/core/src/bundle.js';
import type { FormatWarning } from '../../../packages/core/src/catalog.js';
import type { Snapshot } from '../../../packages/core/src/snapshot.js';
import type { components } from '../../../generated/openapi.js';
import { deliveredIcuProject, ICU_KEYS, ICU_LANGS } from '../../helpers/icu-project.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { snapshotOf } from '../../helpers/snapshots.js';

type Manifest = components['schemas']['Manifest'];

let svc: TestService;
let manifestUrl: string;
let manifest: Manifest;
test.before(async () => {
  svc = await startTestService();
  ({ manifestUrl, manifest } = await deliveredIcuProject(svc));
});
test.after.always(() => svc?.stop());

const CANONICAL: Record<string, string> = { 'zh-hans': 'zh-Hans', 'pt-br': 'pt-BR' };
const tagOf = (code: string) => CANONICAL[code] ?? code;
const LANGS = ['en', ...ICU_LANGS.map(tagOf)];

/** An app's i18next: the bundle of `lng` (and the base for fallback) through the manifest, as documented. */
async function runtime(lng: string): Promise<i18n> {
  const instance = i18next.createInstance();
  await instance.use(HttpBackend).init({
    lng,
    fallbackLng: 'en',
    // React and most apps escape at render time; i18next's own escaping would turn a date's `/` into `&#x2F;`.
    interpolation: { escapeValue: false },
    backend: {
      loadPath: (lngs: string[]) => {
        const obj = Object.hasOwn(manifest.bundles, lngs[0]) ? manifest.bundles[lngs[0]] : undefined;
        return obj ? new URL(obj.url, manifestUrl).toString() : '';
      },
      reloadInterval: false,
    },
  });
  return instance;
}

// ICU's named date and time styles are CLDR's (ICU4J DateFormat.MEDIUM …), what Intl's dateStyle/timeStyle are;
// intl-messageformat's defaults approximate them with field sets that differ in some locales (de `5. Jan. 2025`
// for `05.01.2025`), so the test reads them as ICU defines them.
// intl-messageformat merges per-message formats into its defaults field by field (dateStyle beside month would
// throw), so its defaults are replaced.
const STYLES = ['short', 'medium', 'long', 'full'] as const;
IntlMessageFormat.formats = {
  ...IntlMessageFormat.formats,
  date: Object.fromEntries(STYLES.map((s) => [s, { dateStyle: s }])),
  time: Object.fromEntries(STYLES.map((s) => [s, { timeStyle: s }])),
};

/** What the ICU message a person entered for `lang` (the source where none) shows with `values`. */
function icu(key: string, lang: string, values: Record<string, unknown>): string {
  const k = ICU_KEYS.find((x) => x.key === key)!;
  const code = lang === 'en' ? undefined : (ICU_LANGS.find((c) => tagOf(c) === lang) as keyof typeof k.values);
  const message = (code && k.values[code]) ?? k.source;
  return String(new IntlMessageFormat(message, lang, undefined, { ignoreTag: true }).format(values));
}

const WHEN = new Date(Date.UTC(2025, 0, 5, 14, 30));
const COUNTS = [0, 1, 2, 3, 4, 5, 11, 12, 21, 22, 25, 100, 101, 1000, 1.5];

test('the manifest names every bundle by its canonical BCP 47 code', (t) => {
  t.deepEqual(Object.keys(manifest.bundles).sort(), [...LANGS].sort());
});

for (const lang of LANGS) {
  test(`i18next shows in ${lang} what the ICU message means`, async (t) => {
    const i18n = await runtime(lang);
    t.is(i18n.resolvedLanguage, lang);
    t.true(i18n.hasResourceBundle(lang, 'translation'), `${lang} loaded by its canonical name`);
    const same = (key: string, options: Record<string, unknown>, values: Record<string, unknown>) =>
      t.is(i18n.t(key, options), icu(key, lang, values), `${key} ${JSON.stringify(values)}`);
    same('home.welcome', { name: 'Ana' }, { name: 'Ana' });
    same('menu.open', {}, {});
    same('status.open', {}, {});
    for (const count of COUNTS) {
      same('cart.items', { count }, { count });
      same('photos.added', { name: 'Ana', count }, { name: 'Ana', count });
      for (const gender of ['female', 'male', 'nonbinary'])
        same('inbox.summary', { context: gender, count }, { gender, count });
    }
    for (const place of [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101])
      same('race.place', { count: place, ordinal: true }, { place });
    for (const gender of ['female', 'male', 'nonbinary']) same('post.liked', { context: gender }, { gender });
    same('post.liked', {}, { gender: 'unknown' });
    same('order.total', { amount: 12.5 }, { amount: 12.5 });
    same('stats.done', { ratio: 0.75 }, { ratio: 0.75 });
    same('event.starts', { when: WHEN }, { when: WHEN });
    // event.next's argument `day` is also an Intl option, which i18next hands its formatter from t()'s options:
    // reported (see the fixture's warnings); the same skeleton under another name is checked below.
    same('help.braces', {}, {});
    same('legal.terms', {}, {});
    // offset cannot be expressed (written without it and reported); its exact matches still hold.
    if (['en', 'de', 'pl'].includes(lang)) {
      same('game.players', { count: 0, host: 'Ana' }, { count: 0, host: 'Ana' });
      same('game.players', { count: 1, host: 'Ana' }, { count: 1, host: 'Ana' });
    }
  });
}

test('what a Polish, Arabic, German and English user sees, spelled out', async (t) => {
  const pl = await runtime('pl');
  t.is(pl.t('cart.items', { count: 5 }), '5 produktów w koszyku');
  t.is(pl.t('cart.items', { count: 2 }), '2 produkty w koszyku');
  t.is(pl.t('cart.items', { count: 0 }), 'Twój koszyk jest pusty');
  t.is(pl.t('photos.added', { name: 'Ana', count: 3 }), 'Ana dodał(a) 3 zdjęcia');
  t.is(pl.t('post.liked', { context: 'female' }), 'Polubiła twój post');
  const ar = await runtime('ar');
  t.is(ar.t('cart.items', { count: 0 }), 'سلتك فارغة');
  const de = await runtime('de');
  t.is(de.t('order.total', { amount: 12.5 }).replace(/\s/g, ' '), 'Gesamt: 12,50 €');
  t.is(de.t('race.place', { count: 3, ordinal: true }), 'Du bist 3. geworden');
  t.is(de.t('cart.items', { count: 1000 }), '1.000 Artikel im Warenkorb');
  const en = await runtime('en');
  t.is(en.t('help.braces'), "Use {curly} braces, it's easy");
  t.is(en.t('race.place', { count: 22, ordinal: true }), 'You finished 22nd');
  t.is(en.t('legal.terms'), 'By continuing you accept the <a href="/terms">terms</a>');
  t.is(en.t('inbox.summary', { context: 'female', count: 1 }), 'She has 1 message');
  t.is((await runtime('zh-Hans')).t('home.welcome', { name: 'Ana' }), '欢迎，Ana！');
  t.is((await runtime('pt-BR')).t('cart.items', { count: 0 }), 'Seu carrinho está vazio');
});

// --- bundleFor on its own: the fixture's warnings, and every fallback ---

const snapshot = (keys: Array<{ name: string; source: string; values?: Record<string, string> }>, baseLang = 'en') =>
  snapshotOf(keys, { baseLang });

function render(s: Snapshot, lang: string) {
  const warnings: FormatWarning[] = [];
  const bundle = bundleFor(s, lang, (w) => warnings.push(w));
  return { bundle, warnings, reasons: warnings.map((w) => `${w.key}: ${w.reason}`) };
}

async function show(bundle: object, lang: string, key: string, options: Record<string, unknown> = {}) {
  const instance = i18next.createInstance();
  await instance.init({
    lng: lang,
    resources: { [lang]: { translation: bundle } },
    interpolation: { escapeValue: false },
  });
  return instance.t(key, options);
}

test('the fixture warns of exactly its documented fallbacks', (t) => {
  const s = snapshot(ICU_KEYS.map((k) => ({ name: k.key, source: k.source, values: k.values })));
  const all: string[] = [];
  for (const lang of ['en', ...ICU_LANGS]) all.push(...render(s, lang).warnings.map((w) => `${w.lang} ${w.key}`));
  const expected = [
    // selectordinal {place}: the app passes place as count.
    ...['en', 'de', 'fr', 'ja', 'pl', 'pt-br'].map((l) => `${l} race.place`),
    // offset:1.
    ...['en', 'de', 'pl'].map((l) => `${l} game.players`),
    // {day, date, ::yMMMd}: `day` is an Intl option.
    ...['en', 'de', 'fr', 'ja', 'pl', 'pt-br'].map((l) => `${l} event.next`),
  ];
  t.deepEqual(all.sort(), expected.sort());
});

test('=N other than =0 is written as its category only where that category is N alone, else warned', async (t) => {
  const s = snapshot([
    {
      name: 'n',
      source: '{count, plural, =1 {just one} other {# things}}',
      values: { ru: '{count, plural, =1 {ровно одна} other {# штук}}' },
    },
  ]);
  const en = render(s, 'en');
  t.deepEqual(en.warnings, []);
  t.is(await show(en.bundle, 'en', 'n', { count: 1 }), 'just one');
  t.is(await show(en.bundle, 'en', 'n', { count: 2 }), '2 things');
  const ru = render(s, 'ru');
  t.deepEqual(ru.reasons, [
    "n: plural {count}: =1 dropped (i18next has no exact matches; 1 shows its plural category's form)",
  ]);
  // Russian `one` is also 21: the exact text cannot be it, the category's (here `other`) shows instead.
  t.is(await show(ru.bundle, 'ru', 'n', { count: 21 }), '21 штук');
});

test('=0 is _zero unless the language has a CLDR zero of more numbers (Latvian)', async (t) => {
  const s = snapshot([
    {
      name: 'n',
      source: '{count, plural, =0 {none} other {#}}',
      values: { lv: '{count, plural, =0 {nav} zero {# nulles} one {# viens} other {# citi}}' },
    },
  ]);
  t.is(await show(render(s, 'en').bundle, 'en', 'n', { count: 0 }), 'none');
  const lv = render(s, 'lv');
  t.deepEqual(lv.reasons, [
    "n: plural {count}: =0 dropped (i18next has no exact matches; 0 shows its plural category's form)",
  ]);
  t.is(await show(lv.bundle, 'lv', 'n', { count: 10 }), '10 nulles');
});

test('offset is dropped and warned', (t) => {
  const s = snapshot([{ name: 'g', source: '{count, plural, offset:2 other {# more}}' }]);
  t.deepEqual(render(s, 'en').reasons, [
    'g: plural {count}: offset:2 dropped (i18next chooses and shows count itself, not count − 2)',
  ]);
});

test('a plural argument not named count is written as count and warned', async (t) => {
  const s = snapshot([{ name: 'f', source: 'You have {n, plural, one {# file} other {# files}} ({n} in all)' }]);
  const { bundle, reasons } = render(s, 'en');
  t.deepEqual(reasons, ['f: plural {n}: i18next chooses plural forms by `count`; the app must pass n as count']);
  t.is(await show(bundle, 'en', 'f', { count: 3 }), 'You have 3 files (3 in all)');
  t.is(await show(bundle, 'en', 'f', { count: 1 }), 'You have 1 file (1 in all)');
});

test('literal {{ and $t( in text are written as they are, and warned', (t) => {
  const s = snapshot([
    { name: 'a', source: "Type '{{'name'}}' here" },
    { name: 'b', source: 'Call $t(other) now' },
    { name: 'c', source: "Text '{'{name}'}'" },
  ]);
  const { bundle, reasons } = render(s, 'en');
  t.is((bundle as Record<string, string>).a, 'Type {{name}} here');
  t.deepEqual(reasons, [
    'a: literal `{{` in text: i18next reads it as an interpolation',
    'b: literal `$t(` in text: i18next reads it as nesting',
    'c: literal `{{` in text: i18next reads it as an interpolation',
  ]);
});

test('a second select or plural is written as its other branch and warned', async (t) => {
  const s = snapshot([
    { name: 's', source: '{a, select, x {{b, select, y {XY} other {X}}} other {O}}' },
    { name: 'p', source: '{count, plural, one {{k, plural, one {1+1} other {1+#}}} other {many}}' },
    {
      name: 'm',
      source:
        '{count, plural, one {{g, select, f {she, one} other {they, one}}} other {{g, select, f {she, #} other {they, #}}}}',
    },
  ]);
  const { bundle, reasons } = render(s, 'en');
  t.deepEqual(reasons, [
    's: select {b}: i18next has one context per key; written as its `other` branch',
    'p: plural {k}: i18next chooses on one count per key; written as its `other` branch',
  ]);
  t.is(await show(bundle, 'en', 's', { context: 'x' }), 'X');
  // A select under a plural is still context first: `m_f_one`.
  // (`#` in a select is text, even under a plural: formatjs and intl-messageformat read it so.)
  t.is(await show(bundle, 'en', 'm', { context: 'f', count: 4 }), 'she, #');
  t.is(await show(bundle, 'en', 'm', { context: 'f', count: 1 }), 'she, one');
  t.is(await show(bundle, 'en', 'm', { count: 1 }), 'they, one');
});

test('numbers and dates use i18next built-in formatters; what they cannot carry is warned', async (t) => {
  const s = snapshot(
    [
      { name: 'n', source: '{x, number} {x, number, integer} {x, number, ::percent .0}' },
      { name: 's', source: '{x, number, ::scale/100}' },
      { name: 'c', source: '{x, number, currency}' },
      { name: 'd', source: '{d, date} {d, time}' },
      { name: 'k', source: 'Next: {when, date, ::yMMMd}, {when, time, ::Hm}' },
      { name: 'o', source: '{day, date, medium} {style, number}' },
    ],
    'de',
  );
  const { bundle, reasons } = render(s, 'de');
  t.is(
    await show(bundle, 'de', 'n', { x: 1234.56 }),
    String(
      new IntlMessageFormat('{x, number} {x, number, integer} {x, number, ::percent .0}', 'de').format({ x: 1234.56 }),
    ),
  );
  t.is(
    await show(bundle, 'de', 'd', { d: WHEN }),
    String(new IntlMessageFormat('{d, date} {d, time}', 'de').format({ d: WHEN })),
  );
  const skeleton = 'Next: {when, date, ::yMMMd}, {when, time, ::Hm}';
  t.is(
    await show(bundle, 'de', 'k', { when: WHEN }),
    String(new IntlMessageFormat(skeleton, 'de').format({ when: WHEN })),
  );
  t.deepEqual(reasons, [
    's: {x, number, ::scale/100}: option scale 100 cannot be passed to i18next; left out',
    'c: {x, number, currency}: style currency means nothing to Intl; written as a plain number',
    "o: argument {day} is also an Intl option, which i18next's formatters take from t()'s options: rename it",
    "o: argument {style} is also an Intl option, which i18next's formatters take from t()'s options: rename it",
  ]);
});

test('plain text, simple arguments and apostrophes take the fast path unchanged', (t) => {
  const s = snapshot([
    { name: 'a.b', source: "It's {name}'s turn" },
    { name: 'a.c', source: 'Plain' },
  ]);
  t.deepEqual(JSON.parse(JSON.stringify(render(s, 'en').bundle)), { a: { b: "It's {{name}}'s turn", c: 'Plain' } });
});
