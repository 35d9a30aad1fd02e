// TBX files (packages/core/src/formats/tbx.ts) against an independent implementation: Debian's translate-toolkit,
// whose TBX reader Weblate and Pootle use. Its Python reader (`translate.storage.tbx` under /usr/bin/python3) reads
// what `writeTbx` writes with every term intact (the source, each language's translation, the definition, the part
// of speech), and what its writer writes (with its DOCTYPE naming the MARTIF DTD), `parseTbx` reads.
//
// The tool is a Debian package (`apt-get install -y translate-toolkit`): a missing tool fails the run.
import test, { type ExecutionContext } from 'ava';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseTbx, writeTbx, type TbxEntry } from '../../../packages/core/src/formats/tbx.js';

const dict = (o: Record<string, string>) => Object.assign(Object.create(null) as Record<string, string>, o);

/** A termbase of several languages: flags, parts of speech, markup characters, line breaks, scripts of every kind. */
const TERMBASE: TbxEntry[] = [
  {
    id: 'term_a1',
    text: 'account',
    description: 'A user’s sign-in account, not a bank account.\nSee also: profile',
    partOfSpeech: 'noun',
    translations: dict({ de: 'Konto', fr: 'compte', ja: 'アカウント', 'pt-br': 'conta', ar: 'حساب' }),
  },
  { id: 'term_a2', text: 'account', forbidden: true, translations: dict({ de: 'Account' }) },
  { text: 'GitHub', partOfSpeech: 'proper noun', nonTranslatable: true, caseSensitive: true, translations: dict({}) },
  { text: 'PIN', abbreviation: true, translations: dict({ de: 'PIN', fr: 'code PIN' }) },
  { text: 'Terms & <Conditions> "quoted"', translations: dict({ de: 'AGB & <Bedingungen> „zitiert“' }) },
  { text: 'party 🎉', partOfSpeech: 'other', translations: dict({ 'zh-hant-tw': '派對 🎉', he: 'מסיבה 🎉' }) },
];

function tmp(t: ExecutionContext) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossa-tbx-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function python(script: string, args: string[]): string {
  const r = spawnSync('/usr/bin/python3', ['-c', script, ...args], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`python3: ${r.stderr || r.error?.message}`);
  return r.stdout;
}

const READ = `
import json, sys
from translate.storage import tbx
store = tbx.tbxfile.parsefile(sys.argv[1])
langs = sys.argv[2].split(',')
out = []
for unit in store.units:
    out.append({
        'source': unit.source,
        'targets': {l: unit.gettarget(lang=l) for l in langs if unit.gettarget(lang=l) is not None},
        'definition': unit.getnotes(origin='definition'),
        'pos': unit.getnotes(origin='pos'),
    })
print(json.dumps(out))
`;

test('translate-toolkit reads the TBX writeTbx writes with every term intact', (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'terms.tbx');
  fs.writeFileSync(file, writeTbx({ sourceLanguage: 'en', title: 'Demo & co' }, TERMBASE));
  const langs = ['de', 'fr', 'ja', 'pt-BR', 'ar', 'zh-Hant-TW', 'he'];
  const units = JSON.parse(python(READ, [file, langs.join(',')])) as Array<{
    source: string;
    targets: Record<string, string>;
    definition: string;
    pos: string;
  }>;
  t.is(units.length, TERMBASE.length);
  TERMBASE.forEach((e, i) => {
    const u = units[i];
    t.is(u.source, e.text);
    const want: Record<string, string> = {};
    for (const [lang, text] of Object.entries(e.translations))
      want[langs.find((l) => l.toLowerCase() === lang) ?? lang] = text;
    t.deepEqual(u.targets, want, e.text);
    t.is(u.definition, e.description ?? '', `${e.text}: definition`);
    if (e.partOfSpeech)
      t.true(u.pos.split('\n').includes(e.partOfSpeech === 'proper noun' ? 'properNoun' : e.partOfSpeech));
  });
});

const WRITE = `
import sys
from translate.storage import tbx
store = tbx.tbxfile(sourcelanguage='en')
for source, lang, target in [('account', 'de', 'Konto'), ('sign in', 'de', 'anmelden'), ('Terms & <b>', 'de', 'AGB & <b>')]:
    unit = store.addsourceunit(source)
    unit.settarget(target, lang=lang)
with open(sys.argv[1], 'wb') as f:
    store.serialize(f)
`;

test('parseTbx reads what translate-toolkit writes, its DOCTYPE naming the MARTIF DTD included', (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'toolkit.tbx');
  python(WRITE, [file]);
  const bytes = fs.readFileSync(file);
  t.regex(bytes.toString('utf8'), /<!DOCTYPE martif PUBLIC/);
  const parsed = parseTbx(bytes, { isSource: (l) => l.toLowerCase().startsWith('en') });
  t.deepEqual(
    parsed.entries.map((e) => [e.text, { ...e.translations }]),
    [
      ['account', { de: 'Konto' }],
      ['sign in', { de: 'anmelden' }],
      ['Terms & <b>', { de: 'AGB & <b>' }],
    ],
  );
});
