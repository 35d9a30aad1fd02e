// Every PO file the service renders passes GNU gettext's `msgfmt --check`, whatever the cell: the ICU fixture project
// (test/helpers/icu-project.ts) in every language and plural shape, as entered and with the source baked in for a
// missing cell; the gettext fixtures (test/fixtures/catalogs/po) written back and synced as a project's template
// with their flags; and the shapes msgfmt refuses (a Russian `one`, 1, 21, 31, …, without the number; a form that
// shows an argument msgid_plural lacks; a translation that drops or retypes a directive of its `c-format`,
// `python-format` or `javascript-format` message). A message gettext would refuse is written untranslated and
// said (packages/core/src/formats/gettext-check.ts); one it accepts keeps its translation, which the assertions on
// kept msgstrs show, so an all-untranslated renderer would fail here too.
//
// msgfmt is Debian's gettext package (.ci/run); a missing tool fails the run.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { baseValueOf, type CatalogValue, type FormatWarning } from '../../../packages/core/src/catalog.js';
import { renderFile } from '../../../packages/core/src/delivery.js';
import { FORMATS } from '../../../packages/core/src/formats/index.js';
import { formsToIcu } from '../../../packages/core/src/icu.js';
import type { Snapshot } from '../../../packages/core/src/snapshot.js';
import { ICU_KEYS, ICU_LANGS } from '../../helpers/icu-project.js';
import { snapshotOf } from '../../helpers/snapshots.js';

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'po-msgfmt-'));
test.after.always(() => fs.rmSync(TMP, { recursive: true, force: true }));

// Every plural shape gettext has a Plural-Forms expression for in po.ts, and languages without one: one and other
// (de), one = 0 and 1 (fr, hi), other alone (ja, zh), Slavic one/few/many (ru, uk, pl), Arabic's six, Irish's
// few = 3..6, Welsh's few = 3 and many = 6, Icelandic and Macedonian (one = 1, 21, 31, … among two forms),
// Lithuanian and Czech (many for fractions), Latvian (zero = 0, 10..20, …), Slovenian (two = 2, 102, …).
const LANGS = [
  'en',
  ...ICU_LANGS,
  ...['uk', 'be', 'is', 'mk', 'lt', 'lv', 'ga', 'cy', 'sl', 'cs', 'sk', 'ro', 'he', 'hi', 'ko', 'es', 'it', 'sr', 'kw'],
];

let files = 0;
const PEOPLE_AND_DATES = /warning: header field '(Project-Id-Version|PO-Revision-Date|Last-Translator|Language-Team)'/;
/** msgfmt --check of a rendered file: its fatal errors (header fields naming people and dates are all it may note). */
function msgfmt(po: string, tolerated = PEOPLE_AND_DATES): { status: number; errors: string[] } {
  const file = path.join(TMP, `${files++}.po`);
  fs.writeFileSync(file, po);
  const r = spawnSync('msgfmt', ['--check', '-o', '/dev/null', file], { encoding: 'utf8' });
  if (r.error) throw new Error(`msgfmt: ${r.error.message} (apt-get install -y gettext, see .ci/run)`);
  const errors = r.stderr.split('\n').filter((l) => l && !tolerated.test(l));
  return { status: r.status ?? -1, errors };
}

/** The PO file a publish writes for `lang` (packages/core/src/delivery.ts), and what it warned of. */
function render(s: Snapshot, lang: string): { po: string; warnings: FormatWarning[] } {
  const warnings: FormatWarning[] = [];
  const po = renderFile(s, 'po', lang, false, (w) => warnings.push(w)).body;
  return { po, warnings };
}

function accepted(t: import('ava').ExecutionContext, po: string, what: string, tolerated = PEOPLE_AND_DATES) {
  const r = msgfmt(po, tolerated);
  t.is(r.status, 0, `msgfmt --check refused ${what}:\n${r.errors.join('\n')}\n${po}`);
  t.deepEqual(r.errors, [], `msgfmt --check on ${what}`);
}

test.serial('msgfmt is installed', (t) => {
  const r = spawnSync('msgfmt', ['--version'], { encoding: 'utf8' });
  t.falsy(r.error, 'msgfmt is missing: apt-get install -y gettext');
  t.regex(r.stdout, /GNU gettext/);
});

const icuSnapshot = (lang: string, baked: boolean): Snapshot =>
  snapshotOf(
    ICU_KEYS.map((k) => ({
      name: k.key,
      source: k.source,
      ctx: k.ctx,
      values: lang === 'en' ? {} : { [lang]: (!baked && (k.values as Record<string, string>)[lang]) || k.source },
    })),
    { languages: lang === 'en' ? [] : [lang] },
  );

test('the ICU fixture project: every language and plural shape, as entered and with the source baked in', (t) => {
  for (const lang of LANGS)
    for (const baked of [false, true]) {
      const { po, warnings } = render(icuSnapshot(lang, baked), lang);
      accepted(t, po, `${lang}${baked ? ' (source baked in)' : ''}`);
      if (lang === 'ru' && !baked) {
        // The translations stay, `one` with its number.
        t.true(po.includes('msgstr[0] "{name} добавил(а) {count} фото"'), po);
        t.true(po.includes('msgstr[2] "{count} товаров в корзине"'), po);
        t.deepEqual(
          warnings.filter((w) => /gettext refuses/.test(w.reason)),
          [],
        );
      }
      if (lang === 'ru' && baked) {
        // English `one {a photo}` in Russian stands for 21 photos too: untranslated, and said.
        t.true(
          warnings.some(
            (w) =>
              w.key === 'photos.added' &&
              /plural form `one` stands for 1, 21, 31, … in ru but lacks \{count\}: gettext refuses it/.test(w.reason),
          ),
          JSON.stringify(warnings),
        );
        t.regex(po, /msgid "\{name\} added a photo"\nmsgid_plural "\{name\} added \{count\} photos"\nmsgstr\[0\] ""/);
        // `{count} item in your cart` shows the number in every form: the English text is kept.
        t.true(po.includes('msgstr[0] "{count} item in your cart"'), po);
      }
    }
});

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/catalogs/po');
const fixtures = fs
  .readdirSync(FIXTURES)
  .map((f) => ({ name: f, text: fs.readFileSync(path.join(FIXTURES, f), 'utf8') }));

const icuOf = (v: CatalogValue) => (v.kind === 'text' ? v.text : formsToIcu(v.forms, v.arg ?? 'count'));

/** A parsed fixture as a project that synced it as its template (key meta keeps the file's flags). */
function fixtureKeys(text: string) {
  const catalog = FORMATS.po.parse(text);
  return {
    language: catalog.language,
    keys: catalog.entries
      .filter((e) => e.fileKey !== '')
      .map((e) => {
        const value = Object.values(e.values)[0];
        return { e, source: icuOf(baseValueOf({ ...e, values: {} }, 'po')!), value: value && icuOf(value) };
      }),
  };
}

function projectSnapshot(
  keys: Array<{ name: string; source: string; ctx?: string | null; meta?: Record<string, unknown>; value?: string }>,
  lang: string,
): Snapshot {
  const s = snapshotOf(
    keys.map((k) => ({
      name: k.name,
      source: k.source,
      ctx: k.ctx ?? undefined,
      values: k.value ? { [lang]: k.value } : {},
    })),
    { languages: [lang] },
  );
  keys.forEach((k, i) => (s.keys[i].meta = k.meta ?? null));
  return s;
}

test('the gettext fixtures: written back as they are, and as a project`s template in every language', (t) => {
  for (const { name, text } of fixtures) {
    const catalog = FORMATS.po.parse(text);
    const back = FORMATS.po.render(catalog, { languages: [catalog.language ?? 'und'], baseLanguage: 'en' });
    // A file written back has the headers it had: Babel's names no Language (msgfmt notes it, and takes the file).
    accepted(t, back, `${name} written back`, /warning: header field '[\w-]+'/);
    const { language, keys } = fixtureKeys(text);
    const own = language?.toLowerCase().replace('_', '-').split('-')[0];
    for (const lang of LANGS) {
      const s = projectSnapshot(
        keys.map(({ e, source, value }) => ({
          name: e.fileKey,
          source,
          ctx: e.ctx,
          meta: e.meta,
          value: lang === own && value ? value : lang === 'en' ? undefined : source,
        })),
        lang,
      );
      const { po } = render(s, lang);
      accepted(t, po, `${name} in ${lang}`);
      if (name.startsWith('django-admin-pl') && lang === 'pl')
        t.true(po.includes('msgstr[0] "%s wybrana opcja jest ukryta"'), po);
    }
  }
});

// Translations that break a directive in one form, as an import or a restored version can bring them. Each variant is
// a message of its own (its own msgctxt), so one file per language holds them all.
const BREAKS: Array<[string, (form: string) => string]> = [
  ['drops every directive', (f) => f.replace(/%(?:\([^)]*\))?[-+ #0]*\d*(?:\.\d+)?[a-zA-Z@]/g, '')],
  ['adds an integer', (f) => `${f} %d`],
  ['adds a named argument', (f) => `${f} %(extra)s`],
  ['retypes a string as an integer', (f) => f.replace(/%s/, '%d').replace(/\)s/, ')d')],
  ['numbers its directives', (f) => f.replace(/%s/g, '%1$s')],
  ['adds a stray percent sign', (f) => `${f} 5%!`],
  ['keeps the directives', (f) => `${f} ✓`],
];

test('translations that drop, add or retype a directive of a flagged message: msgfmt accepts every file', (t) => {
  const templates = fixtures.flatMap(({ text }) =>
    fixtureKeys(text).keys.filter(({ e }) => Array.isArray(e.meta?.flags) && e.meta.flags.length),
  );
  t.true(templates.length >= 20, 'the fixtures have flagged messages to break');
  let kept = 0;
  let untranslated = 0;
  for (const lang of LANGS.filter((l) => l !== 'en')) {
    const keys = templates.flatMap(({ e, source }) =>
      BREAKS.flatMap(([label, brk]) =>
        ['one', 'few', 'other', 'all'].map((form) => {
          // Break one form of the source baked in as the translation (or the text of a singular message).
          const value =
            e.meta?.msgidPlural === undefined
              ? brk(source)
              : source.replace(/(one|other) \{((?:[^{}]|\{[^{}]*\})*)\}/g, (m: string, cat: string, body: string) =>
                  form === 'all' || form === cat ? `${cat} {${brk(body)}}` : m,
                );
          return { name: `${e.fileKey} ${label} ${form}`, source, ctx: `${label} (${form})`, meta: e.meta, value };
        }),
      ),
    );
    const { po, warnings } = render(projectSnapshot(keys, lang), lang);
    accepted(t, po, `broken directives in ${lang}`);
    untranslated += warnings.filter((w) => /gettext refuses it/.test(w.reason)).length;
    kept += (po.match(/✓/g) ?? []).length;
  }
  t.true(kept > 100, `translations gettext accepts are kept (${kept})`);
  t.true(untranslated > 100, `translations gettext refuses are written untranslated (${untranslated})`);
});

test('shapes msgfmt refuses are written untranslated and said; shapes it accepts keep their translation', (t) => {
  const cases: Array<{ source: string; lang: string; value: string; kept: boolean; flags?: string[] }> = [
    // A form chosen for many numbers must show what msgid_plural shows, no more, no less.
    {
      source: '{count, plural, one {a file} other {# files}}',
      lang: 'ru',
      value: '{count, plural, one {файл} few {# файла} many {# файлов} other {# файла}}',
      kept: false,
    },
    {
      source: '{count, plural, one {a file} other {# files}}',
      lang: 'ja',
      value: '{count, plural, other {ファイル}}',
      kept: false,
    },
    {
      source: '{count, plural, one {# file} other {Many files}}',
      lang: 'ru',
      value: '{count, plural, one {# файл} few {Много} many {Много} other {Много}}',
      kept: false,
    },
    {
      source: '{count, plural, one {{name}: a file} other {# files}}',
      lang: 'uk',
      value: '{count, plural, one {{name}: # файл} few {# файли} many {# файлів} other {# файлу}}',
      kept: false,
    },
    // A form chosen for few numbers may show any argument, or none.
    {
      source: '{count, plural, one {One file in {dir}} other {# files}}',
      lang: 'de',
      value: '{count, plural, one {Eine Datei in {dir}} other {# Dateien}}',
      kept: true,
    },
    {
      source: '{count, plural, one {a file} other {# files}}',
      lang: 'fr',
      value: '{count, plural, one {un fichier} many {# de fichiers} other {# fichiers}}',
      kept: true,
    },
    {
      source: '{count, plural, one {a file} other {# files}}',
      lang: 'ga',
      value: '{count, plural, one {comhad} two {# chomhad} few {comhaid} many {# gcomhad} other {# comhad}}',
      kept: true,
    },
    // A singular message: the same arguments.
    { source: 'Hello {name}', lang: 'de', value: 'Hallo', kept: false },
    // Without a placeholder the source is no python-brace-format string: msgfmt checks nothing.
    { source: 'Hello', lang: 'de', value: 'Hallo {name}', kept: true },
    { source: 'Hello {name}', lang: 'de', value: 'Hallo {name}', kept: true },
    // Newlines: msgid_plural and every msgstr take msgid's.
    {
      source: '{count, plural, one {\nOne file} other {# files}}',
      lang: 'de',
      value: '{count, plural, one {Eine Datei} other {# Dateien\n}}',
      kept: true,
    },
    // A synced template's c-format: C takes its arguments in order, and a form for few numbers may drop the last.
    {
      source: '{n, plural, one {One file} other {%d files}}',
      lang: 'de',
      value: '{n, plural, one {Eine Datei} other {%d Dateien}}',
      kept: true,
      flags: ['c-format'],
    },
    {
      source: '{n, plural, one {One file} other {%d files}}',
      lang: 'ru',
      value: '{n, plural, one {Один файл} few {%d файла} many {%d файлов} other {%d файла}}',
      kept: false,
      flags: ['c-format'],
    },
    { source: '%s and %d', lang: 'de', value: '%2$d und %1$s', kept: true, flags: ['c-format'] },
    { source: '%s and %d', lang: 'de', value: '%d und %s', kept: false, flags: ['c-format'] },
    { source: '100% done', lang: 'de', value: '100 % erledigt', kept: false, flags: ['c-format'] },
    { source: '%(a)s of %(b)s', lang: 'de', value: '%(b)s von %(a)s', kept: true, flags: ['python-format'] },
    {
      source: '{n, plural, one {one} other {%(n)d files}}',
      lang: 'de',
      value: '{n, plural, one {eine} other {%(n)d Dateien}}',
      kept: true,
      flags: ['python-format'],
    },
    {
      source: '{n, plural, one {one} other {%d files}}',
      lang: 'de',
      value: '{n, plural, one {eine} other {%d Dateien}}',
      kept: false,
      flags: ['python-format'],
    },
  ];
  for (const c of cases) {
    const s = projectSnapshot(
      [{ name: 'k', source: c.source, value: c.value, meta: c.flags ? { flags: c.flags } : undefined }],
      c.lang,
    );
    const { po, warnings } = render(s, c.lang);
    accepted(t, po, `${c.source} in ${c.lang}`);
    const refused = warnings.filter((w) => /gettext refuses it, so the message is written untranslated/.test(w.reason));
    t.is(refused.length === 0, c.kept, `${c.lang} ${c.value}: ${JSON.stringify(warnings)}`);
    const written = FORMATS.po.parse(po).entries.filter((e) => Object.keys(e.values).length);
    t.is(written.length, c.kept ? 1 : 0, po);
  }
});
