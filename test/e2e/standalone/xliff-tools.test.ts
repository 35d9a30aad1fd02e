// XLIFF files (packages/core/src/formats/xliff.ts) checked by independent implementations: Debian's translate-toolkit
// (`xliff2po`, `po2xliff` and Python's `translate.storage.xliff` under /usr/bin/python3) for 1.2, the `xliff` npm
// package's `xliff2js` (a test-only devDependency) for 2.0, and xmllint for well-formedness. No Debian package on this
// machine ships the OASIS XLIFF 2.0 core schema (`find / -name '*xliff*xsd*'` and `apt-cache search xliff` find
// nothing), so 2.0 is not validated against it here; docs/decisions/0018-xliff-and-imports.md says so.
//
// The tools are Debian packages (`apt-get install -y translate-toolkit libxml2-utils`): a missing tool fails the run.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { xliff2js } from 'xliff';
import type { Catalog, CatalogValue } from '../../../packages/core/src/catalog.js';
import { xliff12, xliff20 } from '../../../packages/core/src/formats/xliff.js';

const text = (t: string, state?: string): CatalogValue =>
  state ? { kind: 'text', text: t, state } : { kind: 'text', text: t };

const CATALOG: Catalog = {
  format: 'xliff12',
  sourceLanguage: null,
  language: 'fr',
  entries: [
    {
      fileKey: 'home.title',
      source: text('Welcome back, <b>{name}</b> & "friends"'),
      ctx: 'menu',
      comment: 'Title of the home screen',
      values: { fr: text('Bon retour, <b>{name}</b> & « amis »', 'approved') },
    },
    {
      fileKey: 'files',
      source: { kind: 'plural', arg: 'count', forms: { one: '# file', other: '# files' } },
      values: {
        fr: {
          kind: 'plural',
          arg: 'count',
          forms: { one: '# fichier', many: '# de fichiers', other: '# fichiers' },
          state: 'reviewed',
        },
      },
    },
    { fileKey: 'saved', source: text('Saved ✓'), values: { fr: text('Enregistré ✓', 'translated') } },
    { fileKey: 'not_yet', source: text('Not yet'), values: {} },
  ],
};

function tmp(t: import('ava').ExecutionContext) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossa-xliff-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function run(cmd: string, args: string[], input?: string) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input });
  if (r.error)
    throw new Error(`${cmd} is missing (apt-get install -y translate-toolkit libxml2-utils): ${r.error.message}`);
  return r;
}

const PY_READ = `
import json, sys
from translate.storage import xliff
store = xliff.xlifffile.parsefile(sys.argv[1])
print(json.dumps([{"id": u.getid(), "source": u.source, "target": u.target, "notes": u.getnotes(),
  "state": u.get_state_n(), "fuzzy": u.isfuzzy(), "translated": u.istranslated()} for u in store.units]))
`;

test("xliff12: translate-toolkit's Python reader gets every source, target, note and state", (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'fr.xlf');
  fs.writeFileSync(file, xliff12.render(CATALOG, { languages: ['fr'], baseLanguage: 'en' }));
  const r = run('/usr/bin/python3', ['-c', PY_READ, file]);
  t.is(r.status, 0, r.stderr);
  const units = JSON.parse(r.stdout) as Array<{
    id: string;
    source: string;
    target: string | null;
    notes: string;
    state: number;
    fuzzy: boolean;
    translated: boolean;
  }>;
  t.deepEqual(
    units.map((u) => [u.id, u.source, u.target]),
    [
      ['messages\u0004home.title', 'Welcome back, <b>{name}</b> & "friends"', 'Bon retour, <b>{name}</b> & « amis »'],
      [
        'messages\u0004files',
        '{count, plural, one {# file} other {# files}}',
        '{count, plural, one {# fichier} many {# de fichiers} other {# fichiers}}',
      ],
      ['messages\u0004saved', 'Saved ✓', 'Enregistré ✓'],
      ['messages\u0004not_yet', 'Not yet', null],
    ],
  );
  t.is(units[0].notes, 'Title of the home screen\nmenu');
  // translate-toolkit's workflow states (translate/storage/workflow.py): final 121, signed-off 120, translated 100.
  t.deepEqual(
    units.map((u) => [u.state, u.fuzzy, u.translated]),
    [
      [121, false, true],
      [120, false, true],
      [100, false, true],
      [0, false, false],
    ],
  );
});

test('xliff12: xliff2po converts it to a PO that msgfmt compiles, with translations, comments and nothing fuzzy', (t) => {
  const dir = tmp(t);
  fs.writeFileSync(path.join(dir, 'fr.xlf'), xliff12.render(CATALOG, { languages: ['fr'], baseLanguage: 'en' }));
  const r = run('xliff2po', [path.join(dir, 'fr.xlf'), path.join(dir, 'fr.po')]);
  t.is(r.status, 0, r.stderr);
  const po = fs.readFileSync(path.join(dir, 'fr.po'), 'utf8');
  t.regex(
    po,
    /#\. Title of the home screen\n#: home\.title\nmsgid "Welcome back, <b>\{name\}<\/b> & \\"friends\\""\nmsgstr "Bon retour, <b>\{name\}<\/b> & « amis »"/,
  );
  // PO wraps a long msgstr after an empty first line.
  t.regex(po, /msgstr ""\n"\{count, plural, one \{# fichier\} many \{# de fichiers\} other \{# fichiers\}\}"/);
  t.regex(po, /#: not_yet\nmsgid "Not yet"\nmsgstr ""/);
  // Only the header PO files always start with is fuzzy.
  t.is(po.match(/#, fuzzy/g)?.length, 1);
  const check = run('msgfmt', ['--check-format', '-o', '/dev/null', path.join(dir, 'fr.po')]);
  t.is(check.status, 0, check.stderr);
});

test("xliff12: a file written by translate-toolkit's po2xliff parses: targets, notes, fuzzy left out, plural groups as forms", (t) => {
  const dir = tmp(t);
  fs.writeFileSync(
    path.join(dir, 'de.po'),
    [
      'msgid ""',
      'msgstr ""',
      '"Language: de\\n"',
      '"Content-Type: text/plain; charset=UTF-8\\n"',
      '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"',
      '',
      '#. home.title',
      'msgid "Welcome back, {name}"',
      'msgstr "Willkommen zurück, {name}"',
      '',
      '#. files',
      'msgid "{count} file"',
      'msgid_plural "{count} files"',
      'msgstr[0] "{count} Datei"',
      'msgstr[1] "{count} Dateien"',
      '',
      '#, fuzzy',
      'msgid "Fuzzy one"',
      'msgstr "Unscharf"',
      '',
      'msgid "Untranslated"',
      'msgstr ""',
      '',
    ].join('\n'),
  );
  const r = run('po2xliff', [path.join(dir, 'de.po'), path.join(dir, 'de.xlf')]);
  t.is(r.status, 0, r.stderr);
  const catalog = xliff12.parse(fs.readFileSync(path.join(dir, 'de.xlf'), 'utf8'));
  t.is(catalog.sourceLanguage, 'en-US');
  const byName = Object.fromEntries(catalog.entries.map((e) => [e.comment ?? e.fileKey, e]));
  t.deepEqual(byName['home.title'].values.und, {
    kind: 'text',
    text: 'Willkommen zurück, {name}',
    state: 'translated',
  });
  t.deepEqual(byName.files.values.und, {
    kind: 'plural',
    forms: { 0: '{count} Datei', 1: '{count} Dateien' },
    state: 'translated',
  });
  t.deepEqual(byName.files.meta, { gettextPlural: 2 });
  const fuzzy = catalog.entries.find(
    (e) => e.values['en-US']?.kind === 'text' && e.values['en-US'].text === 'Fuzzy one',
  );
  t.truthy(fuzzy);
  t.false('und' in fuzzy!.values, 'a fuzzy (needs-translation) target is no translation');
  t.is(catalog.entries.length, 4, 'the PO header is no message');
});

test("xliff20: the xliff package's xliff2js reads every unit's source, target and notes", async (t) => {
  const body = xliff20.render(CATALOG, { languages: ['fr'], baseLanguage: 'en' });
  const js = await new Promise<{
    sourceLanguage: string;
    targetLanguage: string;
    resources: Record<string, Record<string, { source: string; target?: string; note?: string[] }>>;
  }>((resolve, reject) => {
    xliff2js(body, (err, res) => (err ? reject(err) : resolve(res as never)));
  });
  t.is(js.sourceLanguage, 'en');
  t.is(js.targetLanguage, 'fr');
  const units = js.resources.messages;
  t.deepEqual(Object.keys(units), ['home.title', 'files', 'saved', 'not_yet']);
  t.is(units['home.title'].source, 'Welcome back, <b>{name}</b> & "friends"');
  t.is(units['home.title'].target, 'Bon retour, <b>{name}</b> & « amis »');
  t.deepEqual(units['home.title'].note, ['Title of the home screen', 'menu']);
  t.is(units.files.target, '{count, plural, one {# fichier} many {# de fichiers} other {# fichiers}}');
  t.is(units.saved.target, 'Enregistré ✓');
  t.is(units.not_yet.target, undefined);
});

test('both versions are well-formed XML for xmllint, in every language including the base', (t) => {
  const dir = tmp(t);
  for (const [name, m] of [
    ['xliff12', xliff12],
    ['xliff20', xliff20],
  ] as const) {
    for (const lang of ['fr', 'en']) {
      const file = path.join(dir, `${name}-${lang}.xlf`);
      fs.writeFileSync(file, m.render(CATALOG, { languages: [lang], baseLanguage: 'en' }));
      const r = run('xmllint', ['--noout', file]);
      t.is(r.status, 0, `${name} ${lang}: ${r.stderr}`);
    }
  }
});
