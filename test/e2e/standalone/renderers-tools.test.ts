// The eight renderers (packages/core/src/formats) checked by the programs that actually read their files: GNU gettext
// (msgfmt, and the gettext/ngettext runtime looking the strings up), libxml2's xmllint, GNUstep's plparse/plget, and
// for the JSON family JSON.parse plus the ICU parser. The round trips of formats.test.ts only prove that our parsers
// agree with our renderers; these tests prove that the tools do.
//
// The tools are Debian packages (`apt-get install -y gettext libxml2-utils gnustep-base-runtime`, see .ci/run). A
// missing tool fails the run: a renderer check that silently skipped would look like a pass.
import test from 'ava';
import { ANDROID, icuToPrintf, orderOf } from '../../../packages/core/src/printf.js';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseIcuMessage } from '@formatjs/icu-messageformat-parser';
import type { Catalog, CatalogEntry, CatalogValue, FormatId } from '../../../packages/core/src/catalog.js';
import { FORMATS } from '../../../packages/core/src/formats/index.js';
import { resourceName } from '../../../packages/core/src/formats/android_xml.js';
import { icuText } from '../../../packages/core/src/formats/json.js';
import { arbName } from '../../../packages/core/src/formats/arb.js';
import { renderStringsdict } from '../../../packages/core/src/formats/ios_strings.js';
import type { XcStrings } from '../../helpers/xcstrings.js';

const INSTALL = 'apt-get update && apt-get install -y gettext libxml2-utils gnustep-base-runtime';
const TOOLS = ['msgfmt', 'gettext', 'ngettext', 'xmllint', 'plparse', 'plget'];

const BASE = 'en';
const LANGS = ['en', 'de', 'pl', 'ar', 'ja'];

const text = (t: string): CatalogValue => ({ kind: 'text', text: t });
const plural = (forms: Record<string, string>): CatalogValue => ({ kind: 'plural', arg: 'count', forms });

// Keys are resource-name shaped (the shape Android needs); PO_SHAPED below rekeys them by source text.
const CATALOG: Catalog = {
  format: 'json',
  sourceLanguage: null,
  entries: [
    {
      fileKey: 'app.title',
      comment: 'Window title -- keep it short */ no markup',
      values: {
        en: text('Café ☕ naïve 🚀'),
        de: text('Café ☕ naiv 🚀'),
        pl: text('Kawiarnia ☕ naiwna 🚀'),
        ar: text('مقهى ☕ ساذج 🚀'),
        ja: text('カフェ ☕ ナイーブ 🚀'),
      },
    },
    {
      fileKey: 'dont_panic',
      values: {
        en: text("Don't panic, it's fine"),
        de: text("Keine Panik, 's ist okay"),
        pl: text('Nie panikuj, to nic takiego'),
        ar: text('لا تقلق'),
        ja: text('慌てないで'),
      },
    },
    {
      fileKey: 'press_save',
      values: {
        en: text('Press "Save" now'),
        de: text('Drücke „Speichern“ oder "OK"'),
        pl: text('Naciśnij "Zapisz"'),
        ar: text('اضغط "حفظ"'),
        ja: text('"保存"を押してください'),
      },
    },
    {
      fileKey: 'spaced',
      values: { en: text('  Indented,  twice '), de: text(' Eingerückt   dreifach  '), pl: text('Bez spacji') },
    },
    {
      fileKey: 'mention',
      values: {
        en: text('@username mentioned you'),
        de: text('@username hat dich erwähnt'),
        ja: text('@username があなたをメンションしました'),
      },
    },
    {
      fileKey: 'help_hint',
      values: {
        en: text('?help lists the commands'),
        de: text('?help zeigt die Befehle'),
        pl: text('?help pokazuje polecenia'),
      },
    },
    {
      fileKey: 'multiline',
      values: {
        en: text('First line\nSecond line\tindented'),
        de: text('Erste Zeile\nZweite Zeile\teingerückt'),
        ar: text('السطر الأول\nالسطر الثاني'),
      },
    },
    {
      fileKey: 'discount',
      values: {
        en: text('100% free & no < catch'),
        de: text('100 % gratis & kein < Haken'),
        pl: text('100% za darmo'),
      },
    },
    {
      fileKey: 'files_copied',
      values: {
        en: text('Copied %1$d files to %2$s'),
        de: text('%1$d Dateien nach %2$s kopiert'),
        pl: text('Skopiowano pliki (%1$d) do %2$s'),
        ja: text('%2$s に %1$d 個のファイルをコピーしました'),
      },
    },
    {
      fileKey: 'tap_save',
      values: {
        en: text('Tap <b>Save</b> to continue'),
        de: text('Tippe auf <b>Speichern</b>, um fortzufahren'),
        ja: text('<b>保存</b>をタップして続行'),
      },
    },
    {
      fileKey: 'terms_link',
      values: {
        en: text('Read the <a href="https://example.com/terms?lang=en&ref=app">terms</a><br/>first'),
        de: text('Lies zuerst die <a href="https://example.com/terms?lang=de&ref=app">AGB</a><br/>'),
      },
    },
    // tag-like text that is not markup: HTML's `<br>` without its slash, a key name in angle brackets
    {
      fileKey: 'confirm_hint',
      values: {
        en: text('Press <Enter> to confirm<br>or Esc to cancel'),
        de: text('Drücke <Enter> zum Bestätigen<br>oder Esc zum Abbrechen'),
      },
    },
    { fileKey: 'saved_to', values: { en: text('Saved to C:\\Users\\me\\'), pl: text('Zapisano w C:\\Users\\me\\') } },
    {
      fileKey: 'files',
      comment: 'Number of files in the folder',
      values: {
        en: plural({ one: '# file', other: '# files' }),
        de: plural({ one: '# Datei', other: '# Dateien' }),
        pl: plural({ one: '# plik', few: '# pliki', many: '# plików', other: '# pliku' }),
        ar: plural({ zero: 'لا ملفات', one: 'ملف واحد', two: 'ملفان', few: '# ملفات', many: '# ملفًا', other: '# ملف' }),
        ja: plural({ other: '# 個のファイル' }),
      },
    },
    {
      fileKey: 'Open',
      ctx: 'file menu',
      values: { en: text('Open'), de: text('Öffnen'), pl: text('Otwórz'), ar: text('فتح'), ja: text('開く') },
    },
  ],
};

const catalogAs = (format: FormatId, c: Catalog = CATALOG): Catalog => ({ ...c, format });

/**
 * The same strings keyed by their English text, as a project that came from PO names them (a plural's key its `one`
 * form), and the format-string entries carry xgettext's flags, so `--check-format` has something to check.
 */
const PO_SHAPED: Catalog = {
  ...CATALOG,
  format: 'po',
  entries: CATALOG.entries.map((e): CatalogEntry => {
    const en = e.values[BASE];
    const flags: Record<string, string[]> = { files_copied: ['c-format'], discount: ['no-c-format'] };
    if (en.kind === 'plural') return { ...e, fileKey: en.forms.one, meta: { msgidPlural: en.forms.other } };
    return { ...e, fileKey: en.text, ...(flags[e.fileKey] && { meta: { flags: flags[e.fileKey] } }) };
  }),
};

// ---------------------------------------------------------------------------------------------------------------
// Running the tools

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], opts: { input?: string; env?: Record<string, string> } = {}): Run {
  const r = spawnSync(cmd, args, {
    input: opts.input,
    env: { ...process.env, ...opts.env },
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(
      missing ? `${cmd} is not installed; install the tools with: ${INSTALL}` : `${cmd}: ${r.error.message}`,
    );
  }
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'renderers-tools-'));
test.after.always(() => fs.rmSync(TMP, { recursive: true, force: true }));

function write(name: string, content: string): string {
  const file = path.join(TMP, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

function render(format: FormatId, lang: string, c: Catalog = CATALOG): string {
  return FORMATS[format].render(catalogAs(format, c), { languages: [lang], baseLanguage: BASE });
}

/** [lang, value] of every language an entry has a value in. */
const valuesOf = (e: CatalogEntry) => LANGS.filter((l) => e.values[l]).map((l) => [l, e.values[l]] as const);

test.serial('the real tools are installed', (t) => {
  for (const tool of TOOLS) {
    const r = run('sh', ['-c', `command -v ${tool}`]);
    t.is(r.status, 0, `${tool} is missing; install it with: ${INSTALL}`);
  }
});

// ---------------------------------------------------------------------------------------------------------------
// PO: msgfmt, then the gettext runtime looks every string up in the compiled catalog

// The only complaints of `--check-header` allowed: fields that name people, teams and dates, which a rendered file
// has no truthful value for (msgfmt exits 0 on them).
const TOLERATED_HEADER_WARNING =
  /^[^:]+:\d+: warning: header field '(Project-Id-Version|PO-Revision-Date|Last-Translator|Language-Team)' missing in header$/;

function msgfmtCheck(t: import('ava').ExecutionContext, file: string, out = '/dev/null') {
  const r = run('msgfmt', ['--check-format', '--check-header', '-o', out, file]);
  t.is(r.status, 0, `msgfmt refused ${file}:\n${r.stderr}`);
  const complaints = r.stderr.split('\n').filter((l) => l && !TOLERATED_HEADER_WARNING.test(l));
  t.deepEqual(complaints, [], `msgfmt complained about ${file}`);
}

/** `Plural-Forms` of a rendered PO file, its header lines joined. */
function pluralForms(po: string): { nplurals: number; language: string | undefined } {
  const header = po.slice(0, po.indexOf('\n\n')).replace(/"\n"/g, '');
  return {
    nplurals: Number(/Plural-Forms: nplurals=(\d+);/.exec(header)?.[1]),
    language: /Language: ([^\\"]+)/.exec(header)?.[1],
  };
}

// CLDR category counts, which is what the renderer writes (msgstr[n] is the n-th category): Polish has a fourth
// form, `other`, for fractions, as in Django's and Transifex's Polish catalogs (shared/fixtures/po).
const NPLURALS: Record<string, number> = { en: 2, de: 2, pl: 4, ar: 6, ja: 1 };

/** The form gettext's runtime picks for n = 0..max, one per line, in one shell. */
function ngettextForms(
  domain: string,
  dir: string,
  lang: string,
  msgid: string,
  msgidPlural: string,
  max: number,
): string[] {
  const script = 'for n in $(seq 0 "$4"); do ngettext -d "$1" "$2" "$3" "$n" || exit 1; printf "\\n"; done';
  const r = run('bash', ['-c', script, 'ngettext-loop', domain, msgid, msgidPlural, String(max)], {
    env: gettextEnv(dir, lang),
  });
  if (r.status !== 0) throw new Error(`ngettext failed: ${r.stderr}`);
  return r.stdout.split('\n').slice(0, max + 1);
}

// gettext ignores LANGUAGE under the C locale; C.UTF-8 is built into glibc.
const gettextEnv = (dir: string, lang: string) => ({ LANGUAGE: lang, LC_ALL: 'C.UTF-8', TEXTDOMAINDIR: dir });

/**
 * What a gettext program passes to look a message up: the base language's text in python-brace-format (a plural's
 * `#` as `{count}`), whatever the key is named. The catalog's texts have no braces, so nothing is doubled here.
 */
const brace = (icu: string) => icu.replace(/#/g, '{count}');
function lookupOf(e: CatalogEntry): { msgid: string; msgidPlural?: string } {
  const en = e.values[BASE];
  if (en.kind === 'plural') return { msgid: brace(en.forms.one), msgidPlural: brace(en.forms.other) };
  return { msgid: en.text };
}

// The msgid is the English text whether the project named its keys like resources or by their text (as a project
// that came from PO has them): the key name is only the message's `#.` comment, and both catalogs give the program
// the same lookups.
for (const [variant, catalog] of [
  ['resource keys', CATALOG],
  ['source-text keys', PO_SHAPED],
] as const) {
  test(`po (${variant}): msgfmt --check-format --check-header accepts every language, Plural-Forms fits the language, gettext finds every string by its English text`, (t) => {
    const domain = variant === 'resource keys' ? 'keys' : 'source';
    const localeDir = path.join(TMP, `locale-${domain}`);
    for (const lang of LANGS) {
      const po = render('po', lang, catalog);
      const file = write(`po-${domain}/${lang}.po`, po);
      msgfmtCheck(t, file);
      const mo = path.join(localeDir, lang, 'LC_MESSAGES', `${domain}.mo`);
      fs.mkdirSync(path.dirname(mo), { recursive: true });
      msgfmtCheck(t, file, mo);

      const header = pluralForms(po);
      t.is(header.language, lang);
      t.is(header.nplurals, NPLURALS[lang], `${lang}: Plural-Forms nplurals`);

      for (const e of catalog.entries) {
        t.true(po.includes(`#. ${e.fileKey.split('\n')[0]}`), `${lang}: the key ${e.fileKey} is the message's comment`);
        const v = e.values[lang];
        if (!v) continue;
        const { msgid, msgidPlural } = lookupOf(e);
        if (v.kind === 'plural') {
          // The Plural-Forms expression, run by gettext, must pick the form of the CLDR category of every n.
          const rules = new Intl.PluralRules(lang);
          const got = ngettextForms(domain, localeDir, lang, msgid, msgidPlural!, 250);
          const want = got.map((_, n) => brace(v.forms[rules.select(n)]));
          t.deepEqual(got, want, `${lang}: ngettext forms of ${msgid}`);
        } else {
          const args = ['-d', domain, ...(e.ctx ? ['-c', e.ctx] : []), msgid];
          const r = run('gettext', args, { env: gettextEnv(localeDir, lang) });
          t.is(r.stdout, v.text, `${lang}: gettext ${JSON.stringify(msgid)}`);
        }
      }
    }
  });
}

test("po: a translation takes its msgid's leading and trailing newlines, which msgfmt demands, and gettext prints them", (t) => {
  const catalog: Catalog = {
    format: 'po',
    sourceLanguage: null,
    entries: [
      {
        fileKey: '\nUsage: tool [options]\n',
        values: { en: text('\nUsage: tool [options]\n'), de: text('Aufruf: tool [Optionen]') },
      },
      { fileKey: 'Done.', values: { en: text('Done.'), de: text('\nFertig.\n\n') } },
      { fileKey: 'Two\nlines', values: { en: text('Two\nlines'), de: text('Zwei\nZeilen') } },
    ],
  };
  const localeDir = path.join(TMP, 'locale-newlines');
  const file = write('po-newlines/de.po', render('po', 'de', catalog));
  const mo = path.join(localeDir, 'de', 'LC_MESSAGES', 'newlines.mo');
  fs.mkdirSync(path.dirname(mo), { recursive: true });
  msgfmtCheck(t, file, mo);
  const lookup = (msgid: string) =>
    run('gettext', ['-d', 'newlines', '-e', msgid.replace(/\n/g, '\\n')], { env: gettextEnv(localeDir, 'de') }).stdout;
  t.is(lookup('\nUsage: tool [options]\n'), '\nAufruf: tool [Optionen]\n');
  t.is(lookup('Done.'), 'Fertig.');
  t.is(lookup('Two\nlines'), 'Zwei\nZeilen');
});

// ---------------------------------------------------------------------------------------------------------------
// Android: xmllint, then the values as aapt reads them

/**
 * A value as aapt reads it after the XML parser: outside unescaped double quotes (which it drops), runs of
 * whitespace collapse to one space and the ends are trimmed; then the escapes `\'` `\"` `\\` `\n` `\t` `\@` `\?`
 * `\uXXXX` resolve (so an escaped space survives).
 */
function androidUnescape(s: string): string {
  let out = '';
  let quoted = false;
  // A run of whitespace outside quotes, waiting for the next character (dropped at either end).
  let space = false;
  const emit = (text: string) => {
    if (space && out) out += ' ';
    space = false;
    out += text;
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length) emit(c + s[++i]);
    else if (c === '"') quoted = !quoted;
    else if (!quoted && /\s/.test(c)) space = true;
    else emit(c);
  }
  return out.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_m, e: string) => {
    if (e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
    return e === 'n' ? '\n' : e === 't' ? '\t' : e;
  });
}

function xpathString(file: string, expr: string): string {
  const r = run('xmllint', ['--xpath', `string(${expr})`, file]);
  if (r.status !== 0) throw new Error(`xmllint --xpath ${expr}: ${r.stderr}`);
  return r.stdout.replace(/\n$/, '');
}

// The catalog's markup (`<b>`, `<a href>`, `<br/>`) is XML elements, which XPath's string() leaves out; `<Enter>` and
// HTML's `<br>` are text.
const stripTags = (s: string) => s.replace(/<\/?(?:b|a)(?:\s[^<>]*)?>|<br\/>/g, '');

test('android_xml: xmllint accepts every language; apostrophes, quotes and a leading @/? are escaped; values decode back', (t) => {
  for (const lang of LANGS) {
    const xml = render('android_xml', lang);
    const file = write(`android/values-${lang}/strings.xml`, xml);
    const lint = run('xmllint', ['--noout', file]);
    t.is(lint.status, 0, `xmllint refused ${lang}:\n${lint.stderr}`);
    t.is(lint.stderr, '');

    for (const e of CATALOG.entries) {
      const v = e.values[lang];
      if (!v) continue;
      // ICU arguments are written as Android's positional printf specifiers (a plural's # as its count).
      const order = orderOf(e.source ?? v);
      const items: Array<[string, string]> =
        v.kind === 'plural'
          ? Object.entries(v.forms).map(([q, f]) => [
              `/resources/plurals[@name="${resourceName(e.fileKey)}"]/item[@quantity="${q}"]`,
              icuToPrintf(f, order, ANDROID, v.arg ?? 'count'),
            ])
          : [[`/resources/string[@name="${resourceName(e.fileKey)}"]`, icuToPrintf(v.text, order, ANDROID)]];
      for (const [expr, want] of items) {
        const raw = xpathString(file, expr);
        // aapt drops an unescaped double quote and refuses an unescaped apostrophe.
        t.notRegex(raw, /(^|[^\\])(\\\\)*['"]/, `${lang} ${expr}: unescaped quote in ${JSON.stringify(raw)}`);
        // a leading @ or ? would make the value a resource reference
        if (/^[@?]/.test(want))
          t.is(raw.slice(0, 2), `\\${want[0]}`, `${lang} ${expr}: leading ${want[0]} not escaped`);
        t.is(androidUnescape(raw), stripTags(want), `${lang} ${expr}`);
      }
    }
  }
  const en = render('android_xml', 'en');
  t.true(en.includes(">Don\\'t panic, it\\'s fine</string>"));
  t.true(en.includes('<item quantity="one">%1$d file</item>'), 'a plural # is the count');
  t.true(en.includes('>\\@username mentioned you</string>'));
  t.true(en.includes('>\\?help lists the commands</string>'));
  t.true(en.includes('Tap <b>Save</b> to continue'));
});

// ---------------------------------------------------------------------------------------------------------------
// .strings: GNUstep's plparse and plget (Foundation's old-style property-list reader)

test('ios_strings: plparse reads every language as a dictionary and plget gives back every value', (t) => {
  for (const lang of LANGS) {
    const strings = render('ios_strings', lang);
    write(`strings/${lang}.lproj/Localizable.strings`, strings);
    // plparse refuses any non-ASCII character in a file without a byte order mark (GNUstep would decode it with the
    // locale's C-string encoding), and says so with exit status 0. Apple reads BOM-less .strings as UTF-8, so the copy
    // it checks states that encoding with a UTF-8 BOM; the bytes after it are the rendered file's.
    const withBom = write(`strings-bom/${lang}.strings`, `\ufeff${strings}`);
    const parsed = run('plparse', [withBom]);
    t.is(parsed.status, 0, parsed.stderr);
    t.regex(parsed.stderr, /- a dictionary$/m, `plparse on ${lang}: ${parsed.stderr}`);

    // plget reads the rendered bytes themselves from stdin, as UTF-8.
    for (const e of CATALOG.entries) {
      const v = e.values[lang];
      if (!v) continue;
      const r = run('plget', [e.fileKey], { input: strings });
      t.is(r.status, 0, r.stderr);
      // A plural is its `other` form in .strings (the .stringsdict below has every form), its count `%1$lld`.
      const expected = v.kind === 'plural' ? v.forms.other.replace('#', '%1$lld') : v.text;
      t.is(r.stdout, expected, `${lang}: plget ${e.fileKey}`);
    }

    // The companion .stringsdict: an XML property list plparse reads, whose plural entry plget finds.
    const dict = renderStringsdict(catalogAs('ios_strings'), { languages: [lang], baseLanguage: BASE });
    write(`strings/${lang}.lproj/Localizable.stringsdict`, dict);
    // plparse reads the file in the locale's C-string encoding whatever the XML declaration says (see above).
    const parsedDict = run('plparse', [write(`strings-bom/${lang}.stringsdict`, `\ufeff${dict}`)]);
    t.is(parsedDict.status, 0, parsedDict.stderr);
    t.regex(parsedDict.stderr, /- a dictionary$/m, `plparse on ${lang}.stringsdict: ${parsedDict.stderr}`);
    const files = run('plget', ['files'], { input: dict });
    t.is(files.status, 0, files.stderr);
    t.regex(files.stdout, /NSStringLocalizedFormatKey = "%#@count@";/, `${lang}: stringsdict files`);
    const filesValue = CATALOG.entries.find((e) => e.fileKey === 'files')!.values[lang];
    const other = filesValue.kind === 'plural' ? filesValue.forms.other : '';
    // plget prints what it read as an old-style plist, non-ASCII characters as `\U0661` escapes.
    const shown = files.stdout.replace(/\\U([0-9A-Fa-f]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    t.true(shown.includes(`other = "${other.replace('#', '%1$lld')}"`), `${lang}: stringsdict files other form`);
  }
});

// ---------------------------------------------------------------------------------------------------------------
// JSON family: JSON.parse, then every value through the ICU parser (tags as text, as the apps' runtimes read them)

function icuParses(t: import('ava').ExecutionContext, where: string, value: unknown) {
  t.is(typeof value, 'string', `${where}: not a string`);
  t.notThrows(
    () => parseIcuMessage(value as string, { ignoreTag: true }),
    `${where}: not valid ICU: ${JSON.stringify(value)}`,
  );
}

/** A rendered JSON-family file: any object, with the attributes some formats add. */
type JsonRoot = Record<string, unknown> & {
  locale?: string;
  translations?: Record<string, unknown>;
  '@@locale'?: string;
};

const JSON_VIEWS: Record<
  'json' | 'nested_json' | 'angular_json',
  (root: JsonRoot, lang: string) => (key: string) => unknown
> = {
  json: (root) => (key) => root[key],
  nested_json: (root) => (key) =>
    key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], root),
  angular_json: (root, lang) => {
    if (root.locale !== lang) throw new Error(`locale ${root.locale} instead of ${lang}`);
    return (key) => root.translations![key];
  },
};

for (const [format, view] of Object.entries(JSON_VIEWS) as Array<
  [keyof typeof JSON_VIEWS, (typeof JSON_VIEWS)[keyof typeof JSON_VIEWS]]
>) {
  test(`${format}: JSON.parse reads every language and every value is valid ICU`, (t) => {
    for (const lang of LANGS) {
      const out = render(format, lang);
      const root = JSON.parse(out) as JsonRoot;
      const get = view(root, lang);
      let count = 0;
      for (const e of CATALOG.entries) {
        const v = e.values[lang];
        const got = get(e.fileKey);
        if (!v) {
          t.is(got, undefined, `${format} ${lang}: ${e.fileKey} has no value to write`);
          continue;
        }
        icuParses(t, `${format} ${lang} ${e.fileKey}`, got);
        t.is(got, icuText(v), `${format} ${lang} ${e.fileKey}`);
        count++;
      }
      // nothing but the catalog's values (and the file's own attributes) is in the file
      const strings = (function collect(o: unknown): string[] {
        return Object.entries(o as Record<string, unknown>).flatMap(([k, x]) =>
          k.startsWith('@') || k === 'locale' ? [] : typeof x === 'object' ? collect(x) : [x as string],
        );
      })(root);
      t.is(strings.length, count, `${format} ${lang}: value count`);
    }
  });
}

// ARB is written for gen-l10n (test/service/output/arb-runtime.test.ts holds it to gen-l10n's rules): Dart names, `#` as the
// plural's argument, metadata in the base file only.
test('arb: JSON.parse reads every language, each value is ICU under its Dart name, with no # left', (t) => {
  for (const lang of LANGS) {
    const root = JSON.parse(render('arb', lang)) as JsonRoot;
    t.is(root['@@locale'], lang);
    for (const e of CATALOG.entries) {
      const got = root[arbName(e.fileKey)];
      if (!e.values[lang]) {
        t.is(got, undefined, `arb ${lang}: ${e.fileKey} has no value to write`);
        continue;
      }
      icuParses(t, `arb ${lang} ${e.fileKey}`, got);
      t.false(/#/.test(got as string), `arb ${lang} ${e.fileKey}: ${String(got)}`);
    }
    t.is(
      Object.keys(root).some((k) => k.startsWith('@') && k !== '@@locale'),
      lang === BASE,
      lang,
    );
  }
  const en = JSON.parse(render('arb', 'en')) as Record<string, { description: string; placeholders?: unknown }>;
  t.is(en['@files'].description, 'Number of files in the folder');
  t.deepEqual(en['@files'].placeholders, { count: { type: 'num', format: 'decimalPattern' } });
  t.is(
    (JSON.parse(render('arb', 'pl')) as JsonRoot).files,
    '{count, plural, one {{count} plik} few {{count} pliki} many {{count} plików} other {{count} pliku}}',
  );
});

test("xcstrings: JSON.parse reads the catalog, every value is valid ICU, plurals carry each language's categories", (t) => {
  const out = FORMATS.xcstrings.render(catalogAs('xcstrings'), { languages: LANGS, baseLanguage: BASE });
  const root = JSON.parse(out) as XcStrings;
  t.is(root.sourceLanguage, BASE);
  t.is(root.version, '1.0');
  t.deepEqual(Object.keys(root.strings).sort(), CATALOG.entries.map((e) => e.fileKey).sort());
  for (const e of CATALOG.entries) {
    const locs = root.strings[e.fileKey].localizations;
    t.deepEqual(
      Object.keys(locs).sort(),
      valuesOf(e)
        .map(([l]) => l)
        .sort(),
      `${e.fileKey}: languages`,
    );
    for (const [lang, v] of valuesOf(e)) {
      const where = `xcstrings ${e.fileKey} [${lang}]`;
      if (v.kind === 'plural') {
        const forms = locs[lang].variations!.plural;
        t.deepEqual(Object.keys(forms).sort(), Object.keys(v.forms).sort(), `${where}: categories`);
        // Values from a project are ICU: Xcode's `%lld` stands for `#` (packages/core/src/formats/apple.ts).
        for (const [cat, f] of Object.entries(v.forms))
          t.is(forms[cat].stringUnit.value, f.replace('#', '%lld'), `${where} ${cat}`);
      } else {
        icuParses(t, where, locs[lang].stringUnit!.value);
        t.is(locs[lang].stringUnit!.value, v.text, where);
      }
    }
  }
  t.is(root.strings['app.title'].comment, 'Window title -- keep it short */ no markup');
  const pl = root.strings.files.localizations.pl.variations!.plural;
  t.deepEqual(Object.keys(pl), ['few', 'many', 'one', 'other']);
  t.deepEqual(Object.keys(root.strings.files.localizations.ar.variations!.plural), [
    'few',
    'many',
    'one',
    'other',
    'two',
    'zero',
  ]);
});
