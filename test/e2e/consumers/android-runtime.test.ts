// Android string resources as an app gets them: the ICU fixture project published in every language, pulled as
// android_xml, laid out as `res/values*/strings.xml` (folders from platformLocale), compiled and linked by Debian's
// aapt2 against the framework, and read back from the APK with `aapt2 dump resources`. What the app shows is then
// `getString(id, args…)` / `getQuantityString(id, n, args…)`: the plural item CLDR picks for n (Android's runtime uses
// ICU's plural rules; a missing item falls back to `other`), formatted like java.util.Formatter. It must equal what
// intl-messageformat makes of the ICU message, except where the renderer reported a fallback (the unit tests below
// cover each one).
//
// aapt2 and the framework are Debian packages (`apt-get install -y aapt android-framework-res`, see .ci/run). A
// missing tool fails the run.
import test, { type ExecutionContext } from 'ava';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import type { Catalog, CatalogValue, FormatWarning } from '../../../packages/core/src/catalog.js';
import { FORMATS } from '../../../packages/core/src/formats/index.js';
import { bcp47, platformLocale } from '../../../packages/core/src/languages.js';
import { icuProject, ICU_KEYS, ICU_LANGS } from '../../helpers/icu-project.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const FRAMEWORK = '/usr/share/android-framework-res/framework-res.apk';
const BASE = 'en';
const LANGS = [BASE, ...ICU_LANGS];

// ---------------------------------------------------------------------------------------------------------------
// Reading the APK

type Resource = { kind: 'string'; text: string; spans: string[] } | { kind: 'plurals'; items: Record<string, string> };
/** `type/name` → configuration (`''` for the base, `pl`, `pt-rBR`, `b+zh+Hans`) → value. */
type Table = Map<string, Map<string, Resource>>;

/** What aapt2 said on stderr while it still succeeded (a non-positional format, a bad quantity, ...). */
const toolWarnings: string[] = [];

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  if (r.stderr) toolWarnings.push(`${cmd} ${args[0]}: ${r.stderr}`);
  return r.stdout;
}

/**
 * `aapt2 dump resources`: `resource 0x… type/name`, then per configuration `(config) "text"` or
 * `(config) (styled string) "text" span;attr=v:start,end …` for a string, or `(config) (plurals) size=N` followed by
 * `quantity="text"` lines.
 */
function parseDump(dump: string): Table {
  const table: Table = new Map();
  let current: Map<string, Resource> | null = null;
  let plural: Record<string, string> | null = null;
  for (const line of dump.split('\n')) {
    const res = /^\s+resource 0x[0-9a-f]+ (\S+)$/.exec(line);
    if (res) {
      current = new Map();
      table.set(res[1], current);
      plural = null;
      continue;
    }
    const config = /^\s+\(([^)]*)\) (\(styled string\) )?"(.*)"(.*)$/.exec(line);
    if (current && config) {
      const spans = config[4].trim() ? config[4].trim().split(/\s+/) : [];
      current.set(config[1], { kind: 'string', text: config[3], spans });
      plural = null;
      continue;
    }
    const plurals = /^\s+\(([^)]*)\) \(plurals\) size=\d+$/.exec(line);
    if (current && plurals) {
      plural = {};
      current.set(plurals[1], { kind: 'plurals', items: plural });
      continue;
    }
    const item = /^\s+(zero|one|two|few|many|other)="(.*)"$/.exec(line);
    if (plural && item) plural[item[1]] = item[2];
  }
  return table;
}

// ---------------------------------------------------------------------------------------------------------------
// What the app shows

/**
 * java.util.Formatter as Resources.getString(id, args…) runs it with the configuration's locale, for the conversions
 * the renderer writes: `%n$s` (String.valueOf), `%n$d` (an integer in the locale's digits; any other argument throws
 * IllegalFormatConversionException, as on a device) and `%%`. Any other `%` throws, as Java's UnknownFormatConversion.
 */
function javaFormat(fmt: string, lang: string, args: Array<string | number>): string {
  return fmt.replace(/%(?:(\d+)\$)?([^%]?)|%%/g, (whole, pos: string | undefined, conv: string) => {
    if (whole === '%%') return '%';
    if (!pos)
      throw new Error(`non-positional or unknown conversion ${JSON.stringify(whole)} in ${JSON.stringify(fmt)}`);
    const arg = args[Number(pos) - 1];
    if (arg === undefined) throw new Error(`MissingFormatArgument ${whole} in ${JSON.stringify(fmt)}`);
    if (conv === 's') return String(arg);
    if (conv === 'd') {
      if (typeof arg !== 'number' || !Number.isInteger(arg))
        throw new Error(`IllegalFormatConversion: ${whole} given ${JSON.stringify(arg)}`);
      return new Intl.NumberFormat(bcp47(lang), { useGrouping: false }).format(arg);
    }
    throw new Error(`UnknownFormatConversion ${JSON.stringify(whole)} in ${JSON.stringify(fmt)}`);
  });
}

/** getQuantityString(id, n, args…): the item of n's CLDR category, else `other`, formatted. */
function quantityString(items: Record<string, string>, lang: string, n: number, args: Array<string | number>): string {
  const category = new Intl.PluralRules(bcp47(lang)).select(n);
  const item = Object.hasOwn(items, category) ? items[category] : items.other;
  if (item === undefined) throw new Error(`Resources.NotFoundException: no ${category} or other item`);
  return javaFormat(item, lang, args);
}

/** The ICU message a language publishes for `key` (its translation, or the source it falls back to). */
function icuOf(key: string, lang: string): string {
  const k = ICU_KEYS.find((x) => x.key === key)!;
  if (lang === BASE) return k.source;
  return (k.values as Record<string, string | undefined>)[lang] ?? k.source;
}

const icuFormat = (key: string, lang: string, values: Record<string, string | number>) =>
  String(new IntlMessageFormat(icuOf(key, lang), bcp47(lang), undefined, { ignoreTag: true }).format(values));

// ---------------------------------------------------------------------------------------------------------------
// The published project, built into an APK

let svc: TestService;
let table: Table;
/** What each pull said: the file name it announced, and how many fallbacks it reported. */
const pulled = new Map<string, { fileName: string | undefined; warnings: number }>();

test.before(async () => {
  for (const tool of ['aapt2']) if (spawnSync(tool, ['version']).error) throw new Error(`${tool} is not installed`);
  if (!fs.existsSync(FRAMEWORK)) throw new Error(`${FRAMEWORK} is missing (apt-get install -y android-framework-res)`);
  svc = await startTestService();
  const p = await icuProject(svc, ['android_xml']);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'android-runtime-'));
  for (const lang of LANGS) {
    const res = await p.pull('android_xml', lang);
    if (res.status !== 200) throw new Error(`pull android_xml ${lang}: ${res.status} ${await res.text()}`);
    const folder = lang === BASE ? 'values' : `values-${platformLocale(lang, 'android')}`;
    const body = await res.text();
    pulled.set(lang, {
      fileName: /filename="([^"]*)"/.exec(res.headers.get('content-disposition') ?? '')?.[1],
      warnings: Number(res.headers.get('glossa-format-warnings')),
    });
    fs.mkdirSync(path.join(dir, 'res', folder), { recursive: true });
    fs.writeFileSync(path.join(dir, 'res', folder, 'strings.xml'), body);
  }
  fs.writeFileSync(
    path.join(dir, 'AndroidManifest.xml'),
    '<?xml version="1.0" encoding="utf-8"?>\n<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="com.example.glossa" />\n',
  );
  run('aapt2', ['compile', '--dir', 'res', '-o', 'compiled.zip'], dir);
  run('aapt2', ['link', '-I', FRAMEWORK, '--manifest', 'AndroidManifest.xml', '-o', 'out.apk', 'compiled.zip'], dir);
  table = parseDump(run('aapt2', ['dump', 'resources', 'out.apk'], dir));
  fs.rmSync(dir, { recursive: true, force: true });
});
test.after.always(() => svc?.stop());

const CONFIG = (lang: string) => (lang === BASE ? '' : platformLocale(lang, 'android'));

function resource(t: ExecutionContext, id: string, lang: string): Resource | undefined {
  const r = table.get(id)?.get(CONFIG(lang));
  t.truthy(r, `${id} (${CONFIG(lang)}) is in the APK`);
  return r;
}

function items(t: ExecutionContext, id: string, lang: string): Record<string, string> {
  const r = resource(t, id, lang);
  if (r?.kind !== 'plurals') {
    t.fail(`${id} (${lang}) is a <plurals>`);
    return {};
  }
  return r.items;
}

function text(t: ExecutionContext, id: string, lang: string): Resource & { kind: 'string' } {
  const r = resource(t, id, lang);
  if (r?.kind !== 'string') {
    t.fail(`${id} (${lang}) is a <string>`);
    return { kind: 'string', text: '', spans: [] };
  }
  return r;
}

// Below 1000: `%d` is Java's integer without grouping, where ICU's `#` groups (`1,000`), the one difference kept
// (asserted below) since a grouped count would need `%,d`, whose grouping differs from ICU's in other languages.
const COUNTS = [1, 2, 3, 4, 5, 7, 11, 12, 14, 21, 22, 25, 100, 101, 102, 111, 999];

test('every language is compiled into its own configuration (values-pt-rBR, values-b+zh+Hans)', (t) => {
  t.deepEqual(toolWarnings, [], 'aapt2 compiles and links without a warning');
  for (const lang of LANGS) {
    // The pull names the file where aapt2 needs it, and counts the fallbacks it holds (every language has a select).
    const folder = lang === BASE ? 'values' : `values-${platformLocale(lang, 'android')}`;
    t.is(pulled.get(lang)?.fileName, `${folder}/strings.xml`, lang);
    t.true((pulled.get(lang)?.warnings ?? 0) > 0, `${lang}: Glossa-Format-Warnings`);
  }
  const configs = [...(table.get('string/home_welcome')?.keys() ?? [])].sort();
  t.deepEqual(configs, ['', 'ar', 'b+zh+Hans', 'de', 'fr', 'ja', 'pl', 'pt-rBR', 'ru'].sort());
  // Resource names are what the app's code writes: R.string.home_welcome for the key home.welcome.
  for (const lang of LANGS)
    t.is(
      javaFormat(text(t, 'string/home_welcome', lang).text, lang, ['Ana']),
      icuFormat('home.welcome', lang, { name: 'Ana' }),
    );
});

test('cart_items is a <plurals> whose items show what ICU shows, by each language’s CLDR categories', (t) => {
  for (const lang of LANGS) {
    const forms = items(t, 'plurals/cart_items', lang);
    t.deepEqual(
      Object.keys(forms).filter(
        (q) => !new Intl.PluralRules(bcp47(lang)).resolvedOptions().pluralCategories.includes(q as Intl.LDMLPluralRule),
      ),
      [],
      `${lang}: only the language's own quantities`,
    );
    for (const n of COUNTS)
      t.is(quantityString(forms, lang, n, [n]), icuFormat('cart.items', lang, { count: n }), `${lang} ${n}`);
  }
  const pl = items(t, 'plurals/cart_items', 'pl');
  t.deepEqual(Object.keys(pl), ['one', 'few', 'many', 'other']);
  t.is(quantityString(pl, 'pl', 5, [5]), '5 produktów w koszyku');
  t.is(quantityString(pl, 'pl', 22, [22]), '22 produkty w koszyku');
  t.is(quantityString(items(t, 'plurals/cart_items', 'en'), 'en', 1000, [1000]), '1000 items in your cart');
  // Arabic's `zero` holds 0 alone: `=0` is exactly that item, and 0 reads as ICU reads it.
  t.is(quantityString(items(t, 'plurals/cart_items', 'ar'), 'ar', 0, [0]), 'سلتك فارغة');
  // English has no `zero` (the runtime never picks one for 0): `=0` was left out, reported (see the unit test).
  t.false('zero' in items(t, 'plurals/cart_items', 'en'));
  t.is(quantityString(items(t, 'plurals/cart_items', 'en'), 'en', 0, [0]), '0 items in your cart');
});

test('photos_added: a plural inside a sentence becomes items that are whole sentences, %1$s the name, %2$d the count', (t) => {
  t.deepEqual(items(t, 'plurals/photos_added', 'en'), { one: '%1$s added a photo', other: '%1$s added %2$d photos' });
  for (const lang of LANGS) {
    const forms = items(t, 'plurals/photos_added', lang);
    for (const n of [0, ...COUNTS])
      t.is(
        quantityString(forms, lang, n, ['Ana', n]),
        icuFormat('photos.added', lang, { name: 'Ana', count: n }),
        `${lang} ${n}`,
      );
  }
  t.is(quantityString(items(t, 'plurals/photos_added', 'de'), 'de', 3, ['Ana', 3]), 'Ana hat 3 Fotos hinzugefügt');
});

test('order_total takes the amount as a string the app formats (%1$s, never %1$d)', (t) => {
  for (const lang of LANGS) {
    const s = text(t, 'string/order_total', lang).text;
    t.true(s.includes('%1$s') && !s.includes('%1$d'), `${lang}: ${s}`);
    const amount = new Intl.NumberFormat(bcp47(lang), { style: 'currency', currency: 'EUR' }).format(12.5);
    t.is(javaFormat(s, lang, [amount]), icuFormat('order.total', lang, { amount: 12.5 }), lang);
  }
  t.throws(() => javaFormat('Total: %1$d', 'en', ['€12.50']), { message: /IllegalFormatConversion/ });
});

test('event_starts: a date and a time of one argument are two strings the app passes, %1$s and %2$s', (t) => {
  t.is(text(t, 'string/event_starts', 'en').text, 'Starts on %1$s at %2$s');
  t.is(text(t, 'string/event_starts', 'ja').text, '%1$s %2$sに開始');
  t.is(text(t, 'string/event_next', 'en').text, 'Next session: %1$s');
});

test('help_braces: ICU quoting is resolved, the apostrophe unescaped by aapt2', (t) => {
  t.is(text(t, 'string/help_braces', 'en').text, "Use {curly} braces, it's easy");
  for (const lang of LANGS) t.is(text(t, 'string/help_braces', lang).text, icuFormat('help.braces', lang, {}), lang);
});

test('legal_terms keeps its link as markup getText() returns as a span', (t) => {
  for (const lang of LANGS) {
    const s = text(t, 'string/legal_terms', lang);
    const shown = icuFormat('legal.terms', lang, {}).replace(/<[^>]*>/g, '');
    t.is(s.text, shown, lang);
    t.is(s.spans.length, 1, `${lang}: one span`);
    const span = /^a;href=\/terms:(\d+),(\d+)$/.exec(s.spans[0] ?? '');
    t.truthy(span, `${lang}: ${s.spans[0]}`);
    // aapt2 counts UTF-16 units, end inclusive: the span covers the link's text.
    const linkText = /<a [^>]*>(.*)<\/a>/.exec(icuOf('legal.terms', lang))![1];
    if (span) t.is(s.text.slice(Number(span[1]), Number(span[2]) + 1), linkText, lang);
  }
});

test('what Android cannot choose on reads as the ICU `other` branch (select, selectordinal, select around a plural)', (t) => {
  for (const lang of LANGS) {
    t.is(text(t, 'string/post_liked', lang).text, icuFormat('post.liked', lang, { gender: 'other' }), lang);
    t.is(
      javaFormat(text(t, 'string/race_place', lang).text, lang, [4]),
      icuFormat('race.place', lang, { place: 4 }),
      lang,
    );
    const inbox = items(t, 'plurals/inbox_summary', lang);
    for (const n of COUNTS)
      t.is(
        quantityString(inbox, lang, n, [n]),
        icuFormat('inbox.summary', lang, { gender: 'other', count: n }),
        `${lang} ${n}`,
      );
    // offset:1 — the app passes count − 1 as the quantity and the argument (the documented fallback).
    const players = items(t, 'plurals/game_players', lang);
    for (const n of COUNTS.filter((c) => c >= 2))
      t.is(
        quantityString(players, lang, n - 1, [n - 1, 'Ana']),
        icuFormat('game.players', lang, { count: n, host: 'Ana' }),
        `${lang} ${n}`,
      );
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The renderer's fallbacks, each reported

function render(values: Record<string, string>, source: string, lang: string) {
  const warnings: FormatWarning[] = [];
  const catalog: Catalog = {
    format: 'android_xml',
    sourceLanguage: BASE,
    entries: Object.entries(values).map(([key, v]) => ({
      fileKey: key,
      source: { kind: 'text', text: source } satisfies CatalogValue,
      values: { [lang]: { kind: 'text', text: v } },
    })),
  };
  const xml = FORMATS.android_xml.render(catalog, {
    languages: [lang],
    baseLanguage: BASE,
    warn: (w) => warnings.push(w),
  });
  return { xml, reasons: warnings.map((w) => `${w.key} ${w.lang}: ${w.reason}`) };
}

const one = (source: string, lang = BASE, value = source) => render({ k: value }, source, lang);

test('fallbacks are reported: select, selectordinal, a select around a plural, a plural inside a plural', (t) => {
  let r = one('{g, select, female {She} other {They}}');
  t.true(r.xml.includes('<string name="k">They</string>'));
  t.deepEqual(r.reasons, ['k en: select {g}: written as its `other` branch']);
  r = one('{p, selectordinal, one {#st} other {#th}}');
  t.true(r.xml.includes('<string name="k">%1$dth</string>'));
  t.deepEqual(r.reasons, ['k en: selectordinal {p}: written as its `other` branch']);
  r = one(
    '{g, select, female {{n, plural, one {She has # cat} other {She has # cats}}} other {{n, plural, one {# cat} other {# cats}}}}',
  );
  t.true(r.xml.includes('<item quantity="other">%1$d cats</item>'), r.xml);
  t.deepEqual(r.reasons, ['k en: select {g}: written as its `other` branch']);
  r = one(
    '{n, plural, one {{m, plural, one {# of one} other {# of many}}} other {{m, plural, one {all of one} other {all of #}}}}',
  );
  t.true(r.xml.includes('<item quantity="one">%2$d of many</item>'), r.xml);
  t.true(r.xml.includes('<item quantity="other">all of %2$d</item>'), r.xml);
  t.deepEqual(r.reasons, ['k en: plural {m} inside plural {n}: written as its `other` branch']);
});

test('fallbacks are reported: =N without a category holding N alone, offset; =0 in Arabic is `zero`, silently', (t) => {
  let r = one('{n, plural, =0 {None} =1 {Just one} one {# item} other {# items}}');
  // English `one` holds 1 alone: `=1` is that item exactly, and nothing is lost.
  t.true(r.xml.includes('<item quantity="one">Just one</item>'), r.xml);
  t.false(r.xml.includes('None'));
  t.deepEqual(r.reasons, [
    'k en: plural {n} =0: Android plurals have no exact match and no en quantity holds 0 alone; left out (the app tests 0 itself)',
  ]);
  r = one('{n, plural, =0 {None} other {# items}}', 'ar', '{n, plural, =0 {لا شيء} other {# عنصر}}');
  t.true(r.xml.includes('<item quantity="zero">لا شيء</item>'), r.xml);
  t.deepEqual(r.reasons, []);
  r = one('{n, plural, one {# item} several {# items} other {# items}}');
  t.false(r.xml.includes('several'));
  t.deepEqual(r.reasons, ['k en: plural {n} several: not a CLDR plural category; left out']);
  r = one('{n, plural, offset:1 one {you and # other} other {you and # others}}');
  t.true(r.xml.includes('<item quantity="other">you and %1$d others</item>'));
  t.deepEqual(r.reasons, [
    'k en: plural {n} offset:1: Android plurals have no offset; the app passes n − 1 as the quantity and the argument',
  ]);
});

test('fallbacks are reported: styled numbers, dates and times are strings; a plain number is a string, an integer %d', (t) => {
  const r = render(
    {
      cur: '{a, number, ::currency/EUR}',
      pct: '{a, number, percent}',
      plain: '{a, number}',
      int: '{a, number, integer}',
      day: '{d, date, short}',
      at: '{d, time}',
    },
    '',
    BASE,
  );
  t.true(r.xml.includes('<string name="cur">%1$s</string>'));
  t.true(r.xml.includes('<string name="pct">%1$s</string>'));
  t.true(r.xml.includes('<string name="plain">%1$s</string>'));
  t.true(r.xml.includes('<string name="int">%1$d</string>'));
  t.true(r.xml.includes('<string name="day">%1$s</string>'));
  t.true(r.xml.includes('<string name="at">%1$s</string>'));
  t.deepEqual(r.reasons, [
    'cur en: {a, number, ::currency/EUR} is formatted by the app and passed as a string',
    'pct en: {a, number, percent} is formatted by the app and passed as a string',
    'day en: {d, date, short} is formatted by the app and passed as a string',
    'at en: {d, time} is formatted by the app and passed as a string',
  ]);
});

test('fallbacks are reported: a translation that is a plural where the source is not; source plural, translation text', (t) => {
  let r = one('Some items', 'de', '{n, plural, one {# Artikel} other {# Artikel}}');
  t.true(r.xml.includes('<string name="k">%1$d Artikel</string>'), r.xml);
  t.deepEqual(r.reasons, ['k de: plural {n}: the source is not a plural; written as its `other` branch']);
  r = one('{n, plural, one {# item} other {# items}}', 'ja', 'アイテム');
  t.true(r.xml.includes('<plurals name="k">\n        <item quantity="other">アイテム</item>\n    </plurals>'), r.xml);
  t.deepEqual(r.reasons, []);
});

test('resource names: [A-Za-z0-9_] with `_` for anything else and before a leading digit; text escaped for aapt2', (t) => {
  const r = render({ 'home.title': "It's @home", '404.page-title': '?50% "off"\nnow', 'a.b': 'x & <y>' }, '', BASE);
  t.true(r.xml.includes(`<string name="home_title">It\\'s @home</string>`), r.xml);
  t.true(r.xml.includes(`<string name="_404_page_title">\\?50% \\"off\\"\\nnow</string>`), r.xml);
  t.true(r.xml.includes('<string name="a_b">x &amp; &lt;y&gt;</string>'), r.xml);
  // With arguments the app formats the text: a literal % is doubled.
  t.true(one('{n} at 50%').xml.includes('<string name="k">%1$s at 50%%</string>'));
  t.deepEqual(r.reasons, []);
});
