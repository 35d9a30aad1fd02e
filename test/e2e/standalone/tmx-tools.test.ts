// TMX files (packages/core/src/formats/tmx.ts) against an independent implementation: Debian's translate-toolkit,
// which Weblate uses for its TMX too. Its Python reader (`translate.storage.tmx` under /usr/bin/python3) reads what
// `writeTmx` writes, and `pot2po --tm` uses it as a translation memory; what `po2tmx` and the Python `tmxfile` API
// write, `parseTmx` reads. translate-toolkit 3.8.4 has no `tmx2po` (its package lists `po2tmx` as its only TMX
// command; `pot2po` and `pretranslate` take a memory with `--tm`), so `pot2po` is the command that reads ours.
//
// The tools are Debian packages (`apt-get install -y translate-toolkit gettext`): a missing tool fails the run.
import test, { type ExecutionContext } from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readTmxWithToolkit, run } from '../../helpers/translate-toolkit.js';
import { parseTmx, writeTmx, type TmxEntry } from '../../../packages/core/src/formats/tmx.js';

/** A memory of several target languages: ICU arguments and plurals, tags as text, scripts of every direction. */
const MEMORY: TmxEntry[] = [
  { sourceLanguage: 'en', targetLanguage: 'de', source: 'Hello {name}', target: 'Hallo {name}', key: 'home.hello' },
  {
    sourceLanguage: 'en',
    targetLanguage: 'de',
    source: 'Click <b>here</b> & "save"',
    target: 'Klicken Sie <b>hier</b> & „speichern“',
    ctx: 'button',
    key: 'save',
    project: 'p_demo',
    origin: 'human',
    status: 'approved',
    updatedAt: Date.UTC(2025, 0, 2, 3, 4, 5),
  },
  {
    sourceLanguage: 'en',
    targetLanguage: 'de',
    source: '{count, plural, one {# file} other {# files}}',
    target: '{count, plural, one {# Datei} other {# Dateien}}',
  },
  {
    sourceLanguage: 'en',
    targetLanguage: 'de',
    source: '  Two\nlines\tand a tab ',
    target: '  Zwei\nZeilen\tund Tab ',
  },
  { sourceLanguage: 'en', targetLanguage: 'ja', source: 'Hello {name}', target: 'こんにちは、{name}さん' },
  { sourceLanguage: 'en', targetLanguage: 'ar', source: 'Party 🎉', target: 'حفلة 🎉' },
  { sourceLanguage: 'en', targetLanguage: 'he', source: 'Family 👨‍👩‍👧', target: 'משפחה 👨‍👩‍👧' },
  { sourceLanguage: 'en', targetLanguage: 'zh-hant-tw', source: 'Music 𝄞', target: '音樂 𝄞' },
];

function tmp(t: ExecutionContext) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossa-tmx-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("translate-toolkit's Python reader gets every unit of a TMX we write: sources, targets, languages, props", (t) => {
  const file = path.join(tmp(t), 'memory.tmx');
  fs.writeFileSync(file, writeTmx({ sourceLanguage: 'en' }, MEMORY));
  const read = readTmxWithToolkit(file);
  t.is(read.srclang, 'en');
  t.deepEqual(
    read.units.map((u) => [u.source, u.target, u.langs]),
    [
      ['Hello {name}', 'Hallo {name}', ['en', 'de']],
      ['Click <b>here</b> & "save"', 'Klicken Sie <b>hier</b> & „speichern“', ['en', 'de']],
      [
        '{count, plural, one {# file} other {# files}}',
        '{count, plural, one {# Datei} other {# Dateien}}',
        ['en', 'de'],
      ],
      ['  Two\nlines\tand a tab ', '  Zwei\nZeilen\tund Tab ', ['en', 'de']],
      ['Hello {name}', 'こんにちは、{name}さん', ['en', 'ja']],
      ['Party 🎉', 'حفلة 🎉', ['en', 'ar']],
      ['Family 👨‍👩‍👧', 'משפחה 👨‍👩‍👧', ['en', 'he']],
      ['Music 𝄞', '音樂 𝄞', ['en', 'zh-Hant-TW']],
    ],
  );
  t.deepEqual(read.units[1].props, {
    'x-glossa-ctx': 'button',
    'x-glossa-key': 'save',
    'x-glossa-project': 'p_demo',
    'x-glossa-origin': 'human',
    'x-glossa-status': 'approved',
  });
});

test('pot2po fills a template from a TMX we write, as its translation memory: exact matches whole, near ones fuzzy', (t) => {
  const dir = tmp(t);
  // One target language: pot2po takes each unit's second <tuv> as the translation, whatever its language.
  fs.writeFileSync(
    path.join(dir, 'de.tmx'),
    writeTmx(
      { sourceLanguage: 'en' },
      MEMORY.filter((e) => e.targetLanguage === 'de'),
    ),
  );
  fs.writeFileSync(
    path.join(dir, 'app.pot'),
    [
      'msgid ""',
      'msgstr ""',
      '"Content-Type: text/plain; charset=UTF-8\\n"',
      '',
      'msgid "Hello {name}"',
      'msgstr ""',
      '',
      'msgid "Click <b>here</b> & \\"save\\""',
      'msgstr ""',
      '',
      'msgid "{count, plural, one {# file} other {# files}}"',
      'msgstr ""',
      '',
      'msgid "  Two\\nlines\\tand a tab "',
      'msgstr ""',
      '',
      'msgid "Click <b>here</b> & \\"save\\" now"',
      'msgstr ""',
      '',
      'msgid "Nothing the memory has anything like"',
      'msgstr ""',
      '',
    ].join('\n'),
  );
  // translate-toolkit 3.8.4's pot2po needs a template beside --tm (without one it fails on `findunit` of None).
  fs.writeFileSync(path.join(dir, 'empty.po'), 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n');
  const r = run('pot2po', [
    '--tm',
    path.join(dir, 'de.tmx'),
    '-t',
    path.join(dir, 'empty.po'),
    '-i',
    path.join(dir, 'app.pot'),
    '-o',
    path.join(dir, 'de.po'),
    '--errorlevel=traceback',
  ]);
  t.is(r.status, 0, r.stderr);
  t.notRegex(r.stderr, /Traceback|Error processing/);
  const po = fs.readFileSync(path.join(dir, 'de.po'), 'utf8');
  t.regex(po, /\nmsgid "Hello \{name\}"\nmsgstr "Hallo \{name\}"\n/);
  t.regex(po, /\nmsgid "Click <b>here<\/b> & \\"save\\""\nmsgstr "Klicken Sie <b>hier<\/b> & „speichern“"\n/);
  t.regex(
    po,
    /\nmsgid "\{count, plural, one \{# file\} other \{# files\}\}"\nmsgstr "\{count, plural, one \{# Datei\} other \{# Dateien\}\}"\n/,
  );
  t.regex(po, /\nmsgid " {2}Two\\nlines\\tand a tab "\nmsgstr ""\n" {2}Zwei\\n"\n"Zeilen\\tund Tab "\n/);
  // A near match is offered as fuzzy; nothing like the memory stays empty.
  t.regex(
    po,
    /#, fuzzy\nmsgid "Click <b>here<\/b> & \\"save\\" now"\nmsgstr "Klicken Sie <b>hier<\/b> & „speichern“"\n/,
  );
  t.regex(po, /\nmsgid "Nothing the memory has anything like"\nmsgstr ""\n/);
  t.is(po.match(/#, fuzzy/g)?.length, 1);
  const check = run('msgfmt', ['--check', '-o', '/dev/null', path.join(dir, 'de.po')]);
  t.is(check.status, 0, check.stderr);
});

test("po2tmx's TMX (DOCTYPE and all) parses with every translated entry: tags, ICU, whitespace, scripts", (t) => {
  const dir = tmp(t);
  fs.writeFileSync(
    path.join(dir, 'ja.po'),
    [
      'msgid ""',
      'msgstr ""',
      '"Language: ja\\n"',
      '"Content-Type: text/plain; charset=UTF-8\\n"',
      '',
      '#. home.hello',
      'msgid "Hello {name}"',
      'msgstr "こんにちは、{name}さん"',
      '',
      'msgid "Click <b>here</b> & \\"save\\""',
      'msgstr "<b>ここ</b>をクリック & 「保存」"',
      '',
      'msgid "{count, plural, other {# files}}"',
      'msgstr "{count, plural, other {#個のファイル}}"',
      '',
      'msgid ""',
      '"  Two\\n"',
      '"lines\\tand a tab "',
      'msgstr ""',
      '"  二\\n"',
      '"行\\tとタブ "',
      '',
      'msgid "Party 🎉 and 𝄞"',
      'msgstr "パーティー 🎉 と 𝄞"',
      '',
      '#, fuzzy',
      'msgid "Fuzzy one"',
      'msgstr "あいまい"',
      '',
      'msgid "Untranslated"',
      'msgstr ""',
      '',
    ].join('\n'),
  );
  const r = run('po2tmx', [
    '-l',
    'ja',
    '--source-language',
    'en-US',
    path.join(dir, 'ja.po'),
    path.join(dir, 'ja.tmx'),
  ]);
  t.is(r.status, 0, r.stderr);
  const file = fs.readFileSync(path.join(dir, 'ja.tmx'));
  // po2tmx names the DTD, and writes the header's srclang as `en` over <tuv xml:lang="en-US">: the source is found
  // as the same language.
  t.regex(file.toString('utf8'), /<!DOCTYPE tmx SYSTEM "tmx14\.dtd">/);
  t.regex(file.toString('utf8'), /srclang="en"[\s\S]*<tuv xml:lang="en-US">/);
  const parsed = parseTmx(file, { sourceLanguage: 'en', targetLanguages: ['ja'] });
  t.deepEqual(parsed.header, {
    sourceLanguage: 'en',
    creationTool: 'Translate Toolkit',
    creationToolVersion: parsed.header.creationToolVersion,
    originalFormat: 'UTF-8',
  });
  // po2tmx leaves out the fuzzy and the untranslated message; everything else comes back as written.
  t.deepEqual(
    parsed.entries.map((e) => [e.sourceLanguage, e.targetLanguage, e.source, e.target]),
    [
      ['en', 'ja', 'Hello {name}', 'こんにちは、{name}さん'],
      ['en', 'ja', 'Click <b>here</b> & "save"', '<b>ここ</b>をクリック & 「保存」'],
      ['en', 'ja', '{count, plural, other {# files}}', '{count, plural, other {#個のファイル}}'],
      ['en', 'ja', '  Two\nlines\tand a tab ', '  二\n行\tとタブ '],
      ['en', 'ja', 'Party 🎉 and 𝄞', 'パーティー 🎉 と 𝄞'],
    ],
  );
  t.deepEqual(parsed.skipped, []);
  // The same file read for a project without Japanese: every pair counted, none taken.
  const other = parseTmx(file, { sourceLanguage: 'en', targetLanguages: ['de'] });
  t.deepEqual(other.entries, []);
  t.deepEqual(other.skipped, [{ sourceLanguage: 'en-us', targetLanguage: 'ja', count: 5 }]);
});

const PY_WRITE = `
import sys
from translate.storage import tmx
store = tmx.tmxfile(sourcelanguage="en")
store.addtranslation("Hello {name}", "en", "Hallo {name}", "de", "a note, which TMX readers may ignore")
store.addtranslation("<b>{count, plural, one {# file} other {# files}}</b> & co", "en",
                     "<b>{count, plural, one {# Datei} other {# Dateien}}</b> & Co", "de")
store.addtranslation("  spaced\\nout ", "en", " مرحبا\\t🎉 ", "ar")
store.addtranslation("bell\\x07", "en", "x\\x01y", "de")
# One unit in four languages, each <tuv> made by the unit's own createlanguageNode.
unit = store.addsourceunit("File")
for lang, text in (("de", "Datei"), ("fr-FR", "Fichier"), ("ja", "ファイル")):
    unit.xmlelement.append(unit.createlanguageNode(lang, text, "target"))
store.savefile(sys.argv[1])
`;

test("a TMX written with translate-toolkit's tmxfile API parses with nothing lost: several languages in a unit", (t) => {
  const file = path.join(tmp(t), 'py.tmx');
  const r = run('/usr/bin/python3', ['-c', PY_WRITE, file]);
  t.is(r.status, 0, r.stderr);
  const parsed = parseTmx(fs.readFileSync(file));
  t.is(parsed.units, 5);
  t.deepEqual(
    parsed.entries.map((e) => [e.sourceLanguage, e.targetLanguage, e.source, e.target]),
    [
      ['en', 'de', 'Hello {name}', 'Hallo {name}'],
      [
        'en',
        'de',
        '<b>{count, plural, one {# file} other {# files}}</b> & co',
        '<b>{count, plural, one {# Datei} other {# Dateien}}</b> & Co',
      ],
      ['en', 'ar', '  spaced\nout ', ' مرحبا\t🎉 '],
      // translate-toolkit drops characters XML cannot hold before writing, as our writer does.
      ['en', 'de', 'bell', 'xy'],
      ['en', 'de', 'File', 'Datei'],
      ['en', 'fr-fr', 'File', 'Fichier'],
      ['en', 'ja', 'File', 'ファイル'],
    ],
  );
  t.deepEqual(
    parseTmx(fs.readFileSync(file), { sourceLanguage: 'en', targetLanguages: ['fr'] }).entries.map((e) => e.target),
    ['Fichier'],
  );
});

test('a memory goes out through translate-toolkit and back unchanged: write, load and save with Python, parse', (t) => {
  const dir = tmp(t);
  fs.writeFileSync(path.join(dir, 'in.tmx'), writeTmx({ sourceLanguage: 'en' }, MEMORY));
  const r = run('/usr/bin/python3', [
    '-c',
    'import sys\nfrom translate.storage import tmx\ntmx.tmxfile.parsefile(sys.argv[1]).savefile(sys.argv[2])',
    path.join(dir, 'in.tmx'),
    path.join(dir, 'out.tmx'),
  ]);
  t.is(r.status, 0, r.stderr);
  const back = parseTmx(fs.readFileSync(path.join(dir, 'out.tmx'))).entries;
  t.deepEqual(
    back.map((e) => [e.targetLanguage, e.source, e.target, e.key, e.ctx, e.updatedAt]),
    MEMORY.map((e) => [e.targetLanguage, e.source, e.target, e.key ?? null, e.ctx ?? null, e.updatedAt ?? null]),
  );
});
