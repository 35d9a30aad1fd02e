// POST /imports (spec: `importTranslations`): a target language's file in every format the service renders and in
// XLIFF, matched to the project's keys and stored under sync's rules 3 and 4; the dry run; hostile files refused with
// nothing written.
import test from 'ava';
import type { FormatId } from '../../packages/core/src/catalog.js';
import { REGISTRY } from '../../packages/core/src/formats/index.js';
import { sync as syncCall, type SyncRequest } from '../../packages/client/src/index.js';
import {
  createTestProject,
  publishSkipping,
  pullText,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { errorOf, hostile, readKey, type Schemas } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

type ImportRequest = Schemas['ImportRequest'];

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const sync = (p: TestProject, body: SyncRequest) => syncCall(p.client, p.projectId, body);
const runDue = (p: { projectId: string }) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
const importFile = (p: TestProject, body: ImportRequest, dryRun = false) =>
  p.client.POST('/projects/{projectId}/imports', {
    params: { path: { projectId: p.projectId }, query: dryRun ? { dryRun: 'true' } : {} },
    body,
  });
const cell = async (p: TestProject, ref: string, lang: string) =>
  (await readKey(p.client, p.projectId, ref, lang)).data?.translations?.[lang];
const row = (p: TestProject, name: string, lang: string) =>
  svc.service.app
    .db('translations')
    .join('keys', 'keys.id', 'translations.key_id')
    .where('keys.name', name)
    .where('keys.project_id', p.projectId)
    .where('lang', lang)
    .first('value', 'status', 'origin', 'conflict_value');
const snapshot = async (p: TestProject) => {
  const db = svc.service.app.db;
  return JSON.stringify([
    await db('keys').where({ project_id: p.projectId }).orderBy('id'),
    await db('translations').where({ project_id: p.projectId }).orderBy(['key_id', 'lang']),
    await db('translation_history').where({ project_id: p.projectId }).orderBy('id'),
    await db('fill_jobs').where({ project_id: p.projectId }).orderBy('id'),
    await db('workspaces').where({ id: p.workspaceId }),
  ]);
};

const SOURCES = {
  greeting: 'Hello',
  welcome: 'Welcome, {name}!',
  save: 'Save',
  files: '{count, plural, one {# file} other {# files}}',
};
const GERMAN = {
  greeting: 'Hallo',
  welcome: 'Willkommen, {name}!',
  save: 'Speichern',
  files: '{count, plural, one {# Datei} other {# Dateien}}',
};

/** A project whose keys came from a base-only json sync, with `de` filled by hand only (nothing queued). */
async function baseProject(
  languages: Array<{ code: string; fillMode: 'ai' | 'manual' }> = [
    { code: 'de', fillMode: 'manual' },
    { code: 'fr', fillMode: 'manual' },
  ],
) {
  const p = await createTestProject(svc, { languages });
  const r = await sync(p, { contentBase64: b64(JSON.stringify(SOURCES)), fileName: 'en.json' });
  if (r.response.status !== 200) throw new Error(JSON.stringify(r.error));
  return p;
}

const jsonImport = (values: Record<string, string>, lang = 'de'): ImportRequest => ({
  contentBase64: b64(JSON.stringify(values)),
  fileName: `${lang}.json`,
  lang,
});

test('a json file of a language is stored as imported values: created, unchanged on a second import, replaced by a newer one', async (t) => {
  const p = await baseProject();
  const workspace = () => svc.service.app.db('workspaces').where({ id: p.workspaceId }).first();
  const before = JSON.stringify(await workspace());
  const r = await importFile(p, jsonImport({ ...GERMAN, unknown_key: 'Nichts' }));
  t.is(r.response.status, 200, JSON.stringify(r.error));
  t.like(r.data, { created: 4, updated: 0, unchanged: 0, skippedUnknownKeys: 1, conflictsTotal: 0, changesTotal: 4 });
  t.deepEqual(r.data!.unknownKeys, ['unknown_key']);
  t.deepEqual(r.data!.changes!.map((c) => [c.key, c.lang, c.action]).sort(), [
    ['files', 'de', 'created'],
    ['greeting', 'de', 'created'],
    ['save', 'de', 'created'],
    ['welcome', 'de', 'created'],
  ]);
  t.like(await row(p, 'greeting', 'de'), { value: 'Hallo', status: 'translated', origin: 'import' });
  t.like(await row(p, 'files', 'de'), { value: GERMAN.files });
  t.is(
    await svc.service.app
      .db('fill_jobs')
      .where({ project_id: p.projectId })
      .count({ n: '*' })
      .first()
      .then((x) => Number(x!.n)),
    0,
  );
  t.is(JSON.stringify(await workspace()), before, 'nothing held or charged');
  const history = await svc.service.app.db('translation_history').where({ project_id: p.projectId, lang: 'de' });
  t.is(history.length, 4);
  t.true(history.every((h: { actor: string; origin: string }) => h.actor === 'import' && h.origin === 'import'));

  const again = (await importFile(p, jsonImport(GERMAN))).data!;
  t.like(again, { created: 0, updated: 0, unchanged: 4, skippedUnknownKeys: 0, changesTotal: 0 });
  const newer = (await importFile(p, jsonImport({ ...GERMAN, save: 'Sichern' }))).data!;
  t.like(newer, { created: 0, updated: 1, unchanged: 3, conflictsTotal: 0 });
  t.like(await row(p, 'save', 'de'), { value: 'Sichern', origin: 'import' });
});

test('a value the project produced or a person signed off is kept and listed; onConflict file overwrites it', async (t) => {
  const p = await baseProject([{ code: 'de', fillMode: 'ai' }]);
  await runDue(p); // every key → de by the engine
  const ai = (await cell(p, 'save', 'de'))?.value;
  t.truthy(ai);
  await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: 'greeting', lang: 'de' } },
    body: { status: 'approved' },
  });
  const greeting = (await cell(p, 'greeting', 'de'))?.value;
  const kept = (await importFile(p, jsonImport(GERMAN))).data!;
  t.like(kept, { created: 0, updated: 0, conflictsTotal: 4 });
  t.deepEqual(kept.conflicts.map((c) => [c.key, c.resolution, c.storedStatus, c.fileValue]).sort(), [
    ['files', 'kept', 'translated', GERMAN.files],
    ['greeting', 'kept', 'approved', 'Hallo'],
    ['save', 'kept', 'translated', 'Speichern'],
    ['welcome', 'kept', 'translated', GERMAN.welcome],
  ]);
  t.is((await cell(p, 'save', 'de'))?.value, ai);
  t.is((await cell(p, 'greeting', 'de'))?.value, greeting);
  t.like(await row(p, 'save', 'de'), { conflict_value: 'Speichern' }, 'the file value waits on the cell');

  const over = (await importFile(p, { ...jsonImport(GERMAN), onConflict: 'file' })).data!;
  t.like(over, { updated: 4, conflictsTotal: 4 });
  t.true(over.conflicts.every((c) => c.resolution === 'overwritten'));
  t.like(await row(p, 'greeting', 'de'), {
    value: 'Hallo',
    status: 'translated',
    origin: 'import',
    conflict_value: null,
  });
});

test('a dry run writes nothing and lists what the import would change', async (t) => {
  const p = await baseProject();
  await importFile(p, jsonImport({ greeting: 'Hallo' }));
  const before = await snapshot(p);
  const r = await importFile(p, jsonImport({ ...GERMAN, greeting: 'Servus' }), true);
  t.is(r.response.status, 200);
  t.like(r.data, { created: 3, updated: 1, unchanged: 0, changesTotal: 4 });
  t.deepEqual(r.data!.changes!.map((c) => [c.key, c.action]).sort(), [
    ['files', 'created'],
    ['greeting', 'updated'],
    ['save', 'created'],
    ['welcome', 'created'],
  ]);
  t.is(await snapshot(p), before);
});

// Every format the service renders, and XLIFF: a version's `de` file pulled from one project imports into another
// with the same keys and gives the same values.
const FORMATS: FormatId[] = [
  'json',
  'nested_json',
  'angular_json',
  'ios_strings',
  'xcstrings',
  'android_xml',
  'arb',
  'po',
  'xliff12',
  'xliff20',
];

test('a file of every format pulled from a version imports into a project with the same keys', async (t) => {
  const from = await baseProject();
  t.like((await importFile(from, jsonImport(GERMAN))).data, { created: 4 });
  const version = await publishSkipping(from);
  for (const format of FORMATS) {
    const file = await pullText(svc, from, version, format, 'de');
    const to = await baseProject();
    const r = await importFile(to, { contentBase64: b64(file), lang: 'de', format });
    t.is(r.response.status, 200, `${format}: ${JSON.stringify(r.error)}`);
    // .strings holds a plural's `other` form only (its forms are in the .stringsdict): left out, and counted.
    const { files: _plural, ...texts } = GERMAN;
    const expected = format === 'ios_strings' ? texts : GERMAN;
    t.like(r.data, { skippedUnknownKeys: 0, created: Object.keys(expected).length }, format);
    if (format === 'ios_strings') {
      t.is(r.data!.skippedShape, 1);
      // Its plurals come from the .stringsdict beside it.
      const dict = await fetch(
        `${svc.baseUrl}/projects/${from.projectId}/translations?${new URLSearchParams({ version, format, lang: 'de', part: 'stringsdict' })}`,
        { headers: { authorization: `Bearer ${from.apiKey}` } },
      );
      const plurals = await importFile(to, {
        contentBase64: b64(await dict.text()),
        lang: 'de',
        format,
        fileName: 'Localizable.stringsdict',
      });
      t.like(plurals.data, { created: 1, skippedUnknownKeys: 0 }, JSON.stringify(plurals.error));
      t.is((await row(to, 'files', 'de'))?.value, GERMAN.files);
    }
    for (const [key, value] of Object.entries(expected))
      t.is((await row(to, key, 'de'))?.value, value, `${format} ${key}`);
    // Detected without `format` too (the file name tells an ARB file from JSON, as `glossa` sends it).
    const fileName = REGISTRY[format].path('de', false).split('/').pop()!;
    const detected = await importFile(to, { contentBase64: b64(file), lang: 'de', fileName }, true);
    t.is(detected.data?.unchanged, Object.keys(expected).length, `${format} detected`);
  }
});

test('a PO file matches keys by the key name the service writes as its comment, and by source text; fuzzy is left out', async (t) => {
  const p = await baseProject();
  const po = [
    'msgid ""',
    'msgstr ""',
    '"Language: de\\n"',
    '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"',
    '',
    '#. files',
    'msgid "One file"',
    'msgid_plural "Many files"',
    'msgstr[0] "{count} Datei"',
    'msgstr[1] "{count} Dateien"',
    '',
    'msgid "Hello"',
    'msgstr "Hallo"',
    '',
    '#, fuzzy',
    'msgid "Save"',
    'msgstr "Sparen"',
    '',
  ].join('\n');
  const r = (await importFile(p, { contentBase64: b64(po), lang: 'de' })).data!;
  t.like(r, { created: 2, skippedUnknownKeys: 0 });
  t.is((await row(p, 'files', 'de'))?.value, GERMAN.files);
  t.is((await row(p, 'greeting', 'de'))?.value, 'Hallo');
  t.is(await row(p, 'save', 'de'), undefined);
});

test("translate-toolkit's po2xliff file shape (XLIFF 1.1, no target-language, plural groups) imports", async (t) => {
  const p = await baseProject();
  const xlf = `<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.1" version="1.1">
  <file original="de.po" source-language="en-US" datatype="plaintext">
    <body>
      <trans-unit xml:space="preserve" id="1" approved="no" restype="x-gettext-domain-header"><source>Language: de
</source><target state="translated">Language: de
</target></trans-unit>
      <trans-unit xml:space="preserve" id="2" approved="yes"><source>Hello</source><target state="translated">Hallo</target></trans-unit>
      <group restype="x-gettext-plurals" id="3" approved="yes">
        <trans-unit xml:space="preserve" approved="yes" id="3[0]"><source>One file</source><target state="translated">{count} Datei</target></trans-unit>
        <trans-unit xml:space="preserve" id="3[1]" approved="yes"><source>Many files</source><target state="translated">{count} Dateien</target><note from="developer">files</note></trans-unit>
        <note from="developer">files</note>
      </group>
      <trans-unit xml:space="preserve" id="4" approved="no"><source>Save</source><target state="needs-translation">Sparen</target></trans-unit>
    </body>
  </file>
</xliff>`;
  const r = (await importFile(p, { contentBase64: b64(xlf), lang: 'de', fileName: 'de.xlf' })).data!;
  t.like(r, { created: 2, skippedUnknownKeys: 0 });
  t.is((await row(p, 'greeting', 'de'))?.value, 'Hallo');
  t.is((await row(p, 'files', 'de'))?.value, GERMAN.files);
  t.is(await row(p, 'save', 'de'), undefined);
});

test('hostile and wrong files are a 400 with the documented code, and nothing is written', async (t) => {
  const p = await baseProject();
  await importFile(p, jsonImport({ greeting: 'Hallo' }));
  const before = await snapshot(p);
  const cases: Array<[string, ImportRequest, string]> = [
    ['bad base64', { contentBase64: '@@@', lang: 'de' }, 'invalid_base64'],
    [
      'entity expansion',
      {
        contentBase64: b64(
          '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><xliff version="1.2"><file source-language="en" target-language="de"><body><trans-unit id="greeting"><source>Hello</source><target>&b;</target></trans-unit></body></file></xliff>',
        ),
        lang: 'de',
      },
      'invalid_argument',
    ],
    [
      'malformed XLIFF',
      {
        contentBase64: b64('<xliff version="2.0" srcLang="en" trgLang="de"><file id="f"><unit id="greeting">'),
        lang: 'de',
      },
      'invalid_argument',
    ],
    [
      'an inline code',
      {
        contentBase64: b64(
          '<xliff version="2.0" srcLang="en" trgLang="de"><file id="f"><unit id="greeting"><segment state="translated"><source>Hello</source><target>Hal<pc id="1">lo</pc></target></segment></unit></file></xliff>',
        ),
        lang: 'de',
      },
      'invalid_argument',
    ],
    [
      'another language',
      { contentBase64: b64('msgid ""\nmsgstr "Language: fr\\n"\n\nmsgid "Hello"\nmsgstr "Bonjour"\n'), lang: 'de' },
      'language_mismatch',
    ],
    ['the base language', jsonImport({ greeting: 'Hello' }, 'en'), 'invalid_argument'],
    ['a language the project lacks', jsonImport({ greeting: 'Hola' }, 'es'), 'invalid_argument'],
    ['not a language', { ...jsonImport({ greeting: 'x' }), lang: 'not a language!' }, 'invalid_argument'],
    ['invalid ICU', jsonImport({ greeting: 'Hallo {name', save: 'Speichern' }), 'invalid_argument'],
    ['a declared format the file is not', { ...jsonImport(GERMAN), format: 'xliff20' }, 'format_mismatch'],
    [
      'not UTF-8',
      { contentBase64: Buffer.from([0xff, 0xfe, 0x00]).toString('base64'), lang: 'de' },
      'invalid_argument',
    ],
    [
      'too many entries',
      jsonImport(Object.fromEntries([...Array(1001).keys()].map((i) => [`k${i}`, 'v']))),
      'too_many_entries',
    ],
    ['an unknown field', hostile<ImportRequest>({ ...jsonImport(GERMAN), extra: true }), 'invalid_argument'],
  ];
  for (const [what, body, code] of cases) {
    const r = await importFile(p, body);
    t.is(r.response.status, 400, what);
    t.is(errorOf(r)?.error, code, `${what}: ${JSON.stringify(r.error)}`);
  }
  t.is(await snapshot(p), before);
});

test('a key with only the read scope cannot import; an import reaches the keys of its namespace only', async (t) => {
  const p = await baseProject();
  const reader = await createTestProject(svc, { scopes: ['read'] });
  const r = await reader.client.POST('/projects/{projectId}/imports', {
    params: { path: { projectId: reader.projectId } },
    body: jsonImport(GERMAN),
  });
  t.is(r.response.status, 403);
  const none = await importFile(p, { ...jsonImport(GERMAN), namespace: 'common' });
  t.like(none.data, { skippedUnknownKeys: Object.keys(GERMAN).length, created: 0 }, 'no key of that namespace yet');
  // The same file synced into `common` takes the keys into it (adopted): the import of the default namespace then
  // finds none, the import of `common` finds them.
  const synced = await sync(p, {
    contentBase64: b64(JSON.stringify(SOURCES)),
    fileName: 'en.json',
    namespace: 'common',
  });
  t.like(synced.data, { adopted: Object.keys(SOURCES).length, created: 0 });
  const intoDefault = await importFile(p, jsonImport({ greeting: 'Grüß dich' }));
  t.like(intoDefault.data, { skippedUnknownKeys: 1, created: 0 });
  const into = await importFile(p, { ...jsonImport({ greeting: 'Grüß dich' }), namespace: 'common' });
  t.like(into.data, { created: 1, skippedUnknownKeys: 0 });
  t.like(await row(p, 'greeting', 'de'), { value: 'Grüß dich', origin: 'import' });
});

test('an agency round trip through XLIFF changes only what the agency changed', async (t) => {
  const p = await baseProject([
    { code: 'de', fillMode: 'ai' },
    { code: 'fr', fillMode: 'manual' },
  ]);
  // de by the engine: values the project produced.
  const due = await runDue(p);
  t.is(due.response.status, 200, JSON.stringify(due.error));
  t.is((await row(p, 'save', 'de'))?.status, 'translated', 'run-due filled de');
  for (const format of ['xliff12', 'xliff20'] as const) {
    const version = await publishSkipping(p);
    const exported = await pullText(svc, p, version, format, 'de');
    const stored = (await row(p, 'save', 'de'))!.value as string;
    const edited = exported.replace(
      `<target${format === 'xliff12' ? ' state="translated"' : ''}>${stored}</target>`,
      `<target${format === 'xliff12' ? ' state="translated"' : ''}>Sichern (${format})</target>`,
    );
    t.not(edited, exported, `${format}: the agency edited one target`);
    if (format === 'xliff12') {
      // The engine's value is the project's: kept and listed, unless the file is to win.
      const kept = (await importFile(p, { contentBase64: b64(edited), lang: 'de' })).data!;
      t.like(kept, { created: 0, updated: 0, unchanged: 3, conflictsTotal: 1 });
      t.deepEqual(
        kept.conflicts.map((c) => [c.key, c.resolution]),
        [['save', 'kept']],
      );
      const taken = (await importFile(p, { contentBase64: b64(edited), lang: 'de', onConflict: 'file' })).data!;
      t.like(taken, { created: 0, updated: 1, unchanged: 3 });
    } else {
      // Now the value is an import: the agency's newer one replaces it without a conflict.
      const taken = (await importFile(p, { contentBase64: b64(edited), lang: 'de' })).data!;
      t.like(taken, { created: 0, updated: 1, unchanged: 3, conflictsTotal: 0 });
    }
    t.is((await row(p, 'save', 'de'))?.value, `Sichern (${format})`);
  }
});

test('XLIFF as a configured output format: a publish stores one .xlf per language and the manifest names it', async (t) => {
  const p = await baseProject();
  for (const format of ['xliff12', 'xliff20'] as const) {
    const r = await p.client.POST('/projects/{projectId}/output-formats', {
      params: { path: { projectId: p.projectId } },
      body: { format },
    });
    t.is(r.response.status, 200, JSON.stringify(r.error));
  }
  await importFile(p, jsonImport(GERMAN));
  const version = await publishSkipping(p);
  const manifest = await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`);
  t.is(manifest.status, 200);
  const { files } = (await manifest.json()) as Schemas['Manifest'];
  t.regex(files.xliff12?.de?.url ?? '', /\.xlf$/);
  t.regex(files.xliff20?.de?.url ?? '', /\.xlf$/);
  const de = await pullText(svc, p, version, 'xliff12', 'de');
  t.regex(
    de,
    /<trans-unit id="save" resname="save" approved="yes" xml:space="preserve">\n {8}<source>Save<\/source>\n {8}<target state="translated">Speichern<\/target>/,
  );
});
