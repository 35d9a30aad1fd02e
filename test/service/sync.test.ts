// POST /sync: the rules of `syncCatalog` (spec), its errors and limits, one transaction per sync.
import { createHash } from 'node:crypto';
import test from 'ava';
import { previewSync, sync as syncCall, type SyncRequest } from '../../packages/client/src/index.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';
import { hostile, readKey } from '../helpers/typed.js';
import type { XcLocalization, XcStrings } from '../helpers/xcstrings.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const sync = (p: TestProject, body: SyncRequest) => syncCall(p.client, p.projectId, body);
const jsonFile = (obj: unknown): SyncRequest => ({ contentBase64: b64(JSON.stringify(obj)), fileName: 'en.json' });
const syncJson = (p: TestProject, obj: unknown) => sync(p, jsonFile(obj));
// Scoped to the test's project: no test runs another's jobs, so the tests run concurrently.
const runDue = (p: { projectId: string }) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
const keys = async (p: TestProject) =>
  (await svc.admin.GET('/projects/{projectId}/keys', { params: { path: { projectId: p.projectId } } })).data!.keys;
const cell = async (p: TestProject, ref: string, lang: string) =>
  (await readKey(p.client, p.projectId, ref, lang)).data?.translations?.[lang];
const count = async (table: string, where: Record<string, unknown>) =>
  Number((await svc.service.app.db(table).where(where).count({ n: '*' }))[0].n);
const snapshot = async (p: TestProject) => {
  const db = svc.service.app.db;
  return JSON.stringify([
    await db('keys').where({ project_id: p.projectId }).orderBy('id'),
    await db('translations').where({ project_id: p.projectId }).orderBy(['key_id', 'lang']),
    await db('fill_jobs').where({ project_id: p.projectId }).orderBy('id'),
    await db('workspaces').where({ id: p.workspaceId }),
  ]);
};

function xcstrings(strings: Record<string, Record<string, string | Record<string, string>>>, sourceLanguage = 'en') {
  const out: XcStrings = { sourceLanguage, strings: {}, version: '1.0' };
  for (const [key, langs] of Object.entries(strings)) {
    const localizations: Record<string, XcLocalization> = {};
    for (const [lang, v] of Object.entries(langs)) {
      localizations[lang] =
        typeof v === 'string'
          ? { stringUnit: { state: 'translated', value: v } }
          : {
              variations: {
                plural: Object.fromEntries(
                  Object.entries(v).map(([c, t]) => [c, { stringUnit: { state: 'translated', value: t } }]),
                ),
              },
            };
    }
    out.strings[key] = { localizations };
  }
  return JSON.stringify(out, null, 2);
}

test('a base-only json file creates keys under canonical names and queues the fill for every target language', async (t) => {
  const p = await createTestProject(svc, {
    languages: [{ code: 'de' }, { code: 'fr' }, { code: 'ja', fillMode: 'manual' }],
  });
  const r = await syncJson(p, {
    welcomeMessage: 'Welcome, {name}!',
    nav: { homeTitle: 'Home' },
    'checkout.pay_now': 'Pay now',
  });
  t.is(r.response.status, 200);
  const d = r.data!;
  t.like(d, {
    created: 3,
    updatedSources: 0,
    matchedSources: 0,
    updatedTranslations: 0,
    unchangedTranslations: 0,
    disabledOrphans: 0,
    reenabled: 0,
    conflictsTotal: 0,
  });
  t.deepEqual(d.conflicts, []);
  t.deepEqual(d.diagnostics, [
    { code: 'LANG_NOT_IN_FILE', lang: 'de' },
    { code: 'LANG_NOT_IN_FILE', lang: 'fr' },
  ]);
  t.is(d.estimatedCredits, (16 + 4 + 7) * 2);
  t.regex(d.trackingToken!, /^trk_/);
  t.deepEqual((await keys(p)).map((k) => k.key).sort(), ['checkout.pay_now', 'nav.home.title', 'welcome.message']);
  await runDue(p);
  t.is((await cell(p, 'welcome.message', 'de'))?.status, 'translated');
});

test('re-syncing the same file matches everything and queues nothing', async (t) => {
  const p = await createTestProject(svc);
  const file = { title: 'Title', body: 'Body text' };
  await syncJson(p, file);
  await runDue(p);
  const again = (await syncJson(p, file)).data!;
  t.like(again, { created: 0, matchedSources: 2, updatedSources: 0, estimatedCredits: 0, trackingToken: null });
});

test('the file is the whole catalog: missing keys are disabled, and re-enabled when it carries them again', async (t) => {
  const p = await createTestProject(svc);
  await syncJson(p, { a: 'Alpha', b: 'Bravo', c: 'Charlie' });
  const d1 = (await syncJson(p, { a: 'Alpha' })).data!;
  t.like(d1, { disabledOrphans: 2, matchedSources: 1 });
  t.deepEqual(
    (await keys(p)).map((k) => [k.key, k.enabled]),
    [
      ['a', true],
      ['b', false],
      ['c', false],
    ],
  );
  const d2 = (await syncJson(p, { a: 'Alpha', b: 'Bravo' })).data!;
  t.like(d2, { reenabled: 1, matchedSources: 2, disabledOrphans: 0 });
  t.deepEqual(
    (await keys(p)).map((k) => [k.key, k.enabled]),
    [
      ['a', true],
      ['b', true],
      ['c', false],
    ],
  );
});

test('a changed source is updated; only changes are applied', async (t) => {
  const p = await createTestProject(svc);
  await syncJson(p, { greeting: 'Hello', farewell: 'Bye' });
  await runDue(p);
  const d = (await syncJson(p, { greeting: 'Hello there', farewell: 'Bye' })).data!;
  t.like(d, { updatedSources: 1, matchedSources: 1, created: 0 });
  const k = (await keys(p)).find((x) => x.key === 'greeting')!;
  t.is(k.source, 'Hello there');
  t.is(await count('key_history', { project_id: p.projectId }), 1);
});

test('xcstrings: file translations are imported verbatim, never re-translated or charged; missing pairs are filled', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }, { code: 'pl' }] });
  const file = xcstrings({
    'Add Feed': { en: 'Add Feed', de: 'Feed hinzufügen' },
    '%lld items': {
      en: { one: '%lld item', other: '%lld items' },
      pl: { one: '%lld element', few: '%lld elementy', many: '%lld elementów', other: '%lld elementu' },
    },
  });
  const r = await sync(p, { contentBase64: b64(file), fileName: 'Localizable.xcstrings' });
  t.is(r.response.status, 200);
  const d = r.data!;
  t.like(d, { created: 2, updatedTranslations: 2, unchangedTranslations: 0 });
  t.deepEqual(d.diagnostics, [{ code: 'LANG_NOT_IN_FILE', lang: 'fr' }]);
  // Fill: add_feed → fr, pl; lld_items → de, fr. Plural sources cost every form.
  t.is(d.estimatedCredits, 8 * 2 + (9 + 10) * 2);
  t.deepEqual(await cell(p, 'add_feed', 'de'), { status: 'translated', value: 'Feed hinzufügen' });
  await runDue(p);
  t.deepEqual(
    await cell(p, 'add_feed', 'de'),
    { status: 'translated', value: 'Feed hinzufügen' },
    'the import is not re-translated',
  );
  const db = svc.service.app.db;
  const imported = await db('translations')
    .join('keys', 'keys.id', 'translations.key_id')
    .where('keys.name', 'add_feed')
    .where('translations.project_id', p.projectId)
    .where('lang', 'de')
    .first('origin');
  t.is(imported!.origin, 'import');
  const again = (await sync(p, { contentBase64: b64(file), fileName: 'Localizable.xcstrings' })).data!;
  t.like(again, { matchedSources: 2, unchangedTranslations: 2, updatedTranslations: 0, trackingToken: null });
});

test('values the project produced or a person signed off are kept and reported; onConflict file overwrites them', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const v1 = xcstrings({ save: { en: 'Save' }, open: { en: 'Open', de: 'Öffnen (import)' } });
  await sync(p, { contentBase64: b64(v1) });
  await runDue(p); // save → de by the AI
  const ai = (await cell(p, 'save', 'de'))?.value;
  await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: 'open', lang: 'de' } },
    body: { status: 'approved' },
  });
  const v2 = xcstrings({ save: { en: 'Save', de: 'Speichern' }, open: { en: 'Open', de: 'Öffnen' } });
  const kept = (await sync(p, { contentBase64: b64(v2) })).data!;
  t.is(kept.conflictsTotal, 2);
  t.deepEqual(kept.conflicts.map((c) => [c.key, c.lang, c.resolution, c.kind, c.storedStatus]).sort(), [
    ['open', 'de', 'kept', 'translation', 'approved'],
    ['save', 'de', 'kept', 'translation', 'translated'],
  ]);
  t.is((await cell(p, 'save', 'de'))?.value, ai);
  const over = (await sync(p, { contentBase64: b64(v2), onConflict: 'file' })).data!;
  t.deepEqual(
    over.conflicts.map((c) => c.resolution),
    ['overwritten', 'overwritten'],
  );
  t.is(over.updatedTranslations, 2);
  t.deepEqual(await cell(p, 'save', 'de'), { status: 'translated', value: 'Speichern' });
  const v3 = xcstrings({ save: { en: 'Save', de: 'Sichern' }, open: { en: 'Open', de: 'Öffnen' } });
  const imp = (await sync(p, { contentBase64: b64(v3) })).data!;
  t.like(
    imp,
    { conflictsTotal: 0, updatedTranslations: 1, unchangedTranslations: 1 },
    'an imported value is overwritten by the file',
  );
});

test('the pulledAt guard keeps a source edited after the pull, withholding cells of the other shape', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const pulledAt = new Date(Date.now() - 60_000).toISOString().replace('Z', '+00:00');
  await sync(p, { contentBase64: b64(xcstrings({ files: { en: 'Files' } })) });
  const d = (
    await sync(p, {
      contentBase64: b64(
        xcstrings({ files: { en: { one: '# file', other: '# files' }, de: { one: '# Datei', other: '# Dateien' } } }),
      ),
      pulledAt,
    })
  ).data!;
  t.deepEqual(d.conflicts, [
    {
      key: 'files',
      lang: 'en',
      resolution: 'kept',
      kind: 'source',
      storedValue: 'Files',
      fileValue: '{count, plural, one {# file} other {# files}}',
    },
  ]);
  t.like(d, { updatedSources: 0, matchedSources: 0 });
  t.deepEqual(
    d.diagnostics.filter((x) => x.code === 'SOURCE_SHAPE_KEPT'),
    [{ code: 'SOURCE_SHAPE_KEPT', lang: 'de', key: 'files' }],
  );
  t.is((await keys(p))[0].source, 'Files');
  const forced = (
    await sync(p, { contentBase64: b64(xcstrings({ files: { en: 'All files' } })), pulledAt, onConflict: 'file' })
  ).data!;
  t.like(forced, { updatedSources: 1 });
  t.is(forced.conflicts[0].resolution, 'overwritten');
  const later = (
    await sync(p, {
      contentBase64: b64(xcstrings({ files: { en: 'Every file' } })),
      pulledAt: new Date(Date.now() + 60_000).toISOString(),
    })
  ).data!;
  t.like(later, { updatedSources: 1, conflictsTotal: 0 });
});

test('a leap-second pulledAt is read as the next second, and the guard still holds', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await sync(p, { contentBase64: b64(xcstrings({ files: { en: 'Files' } })) });
  const d = (
    await sync(p, { contentBase64: b64(xcstrings({ files: { en: 'All files' } })), pulledAt: '2016-12-31T23:59:60Z' })
  ).data!;
  t.like(d, { updatedSources: 0, conflictsTotal: 1 });
  t.is((await keys(p))[0].source, 'Files');
});

test('a dry run parses, classifies and estimates with zero writes, reporting conflicts and planned pairs', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  await syncJson(p, { one: 'One' });
  const before = await snapshot(p);
  const d = (await previewSync(p.client, p.projectId, jsonFile({ one: 'One', two: 'Two' }))).data!;
  t.like(d, { created: 1, matchedSources: 1, trackingToken: null, estimatedCredits: 6, accepted: true });
  t.deepEqual(d.diagnostics, [
    { code: 'LANG_NOT_IN_FILE', lang: 'de', plannedPairs: 1 },
    { code: 'LANG_NOT_IN_FILE', lang: 'fr', plannedPairs: 1 },
  ]);
  t.is(await snapshot(p), before);
});

test('file problems: base64, format, language, entries, values, flags', async (t) => {
  const p = await createTestProject(svc);
  const before = await snapshot(p);
  const cases: Array<[SyncRequest, number, string]> = [
    [{ contentBase64: '###' }, 400, 'invalid_base64'],
    [{ contentBase64: b64('{"a":"x"}'), format: 'xcstrings' }, 400, 'format_mismatch'],
    [
      { contentBase64: b64('<resources><string name="a">A</string></resources>'), fileName: 'strings.xml' },
      400,
      'format_not_syncable',
    ],
    [{ contentBase64: b64('msgid "a"\nmsgstr "b"\n'), fileName: 'de.po' }, 400, 'format_not_syncable'],
    [{ contentBase64: b64('{"a":"x"}'), format: 'po' }, 400, 'format_mismatch'],
    [{ contentBase64: b64(xcstrings({ a: { de: 'A' } }, 'de')) }, 400, 'source_language_mismatch'],
    [{ contentBase64: b64(JSON.stringify({ '@@locale': 'fr', a: 'A' })) }, 400, 'source_language_mismatch'],
    [
      { contentBase64: b64(JSON.stringify({ locale: 'de', translations: { a: 'A' } })) },
      400,
      'source_language_mismatch',
    ],
    [
      {
        contentBase64: b64(JSON.stringify(Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, 'v'])))),
      },
      400,
      'too_many_entries',
    ],
    [{ contentBase64: b64('{"a":""}') }, 400, 'invalid_argument'],
    [{ contentBase64: b64('{"a":3}') }, 400, 'invalid_argument'],
    [{ contentBase64: b64('{"a":"{broken"}') }, 400, 'invalid_argument'],
    [{ contentBase64: b64('{"welcomeMessage":"x","welcome.message":"y"}') }, 400, 'invalid_argument'],
    [{ contentBase64: b64('{"a":"x"'), fileName: 'en.json' }, 400, 'invalid_argument'],
    [{ contentBase64: b64('{"a":"x"}'), onConflict: hostile('mine') }, 400, 'invalid_argument'], // deliberately not an enum value
    [{ contentBase64: b64('{"a":"x"}'), pulledAt: '2026-01-01T10:00:00' }, 400, 'invalid_argument'],
    [{ contentBase64: b64('{"a":"x"}'), pulledAt: 'yesterday' }, 400, 'invalid_argument'],
    [
      { contentBase64: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]).toString('base64') },
      400,
      'invalid_argument',
    ],
    [{ contentBase64: b64(JSON.stringify({ a: 'x'.repeat(2 * 1024 * 1024) })) }, 413, 'payload_too_large'],
  ];
  for (const [body, status, code] of cases) {
    const r = await sync(p, body);
    t.is(r.response.status, status, `${code}: ${JSON.stringify(body).slice(0, 80)}`);
    t.is(r.error?.error, code, JSON.stringify(body).slice(0, 80));
  }
  t.is(await snapshot(p), before, 'nothing was written');
});

test('Angular digests are stored with a leading k; keys keep their file spelling', async (t) => {
  const p = await createTestProject(svc);
  const r = (
    await sync(p, {
      contentBase64: b64(
        JSON.stringify({ locale: 'en-US', translations: { '1234567890123456789': 'Hello', welcomeTitle: 'Welcome' } }),
      ),
    })
  ).data!;
  t.is(r.created, 2);
  const ks = await keys(p);
  t.deepEqual(ks.map((k) => k.key).sort(), ['k1234567890123456789', 'welcome.title']);
  const db = svc.service.app.db;
  t.deepEqual(
    (await db('keys').where({ project_id: p.projectId }).orderBy('id').select('file_key')).map((k) => k.file_key),
    ['1234567890123456789', 'welcomeTitle'],
  );
});

test('a sync is one transaction: a refusal after the keys were written leaves the project exactly as before', async (t) => {
  const p = await createTestProject(svc, { creditsMc: 5 });
  await syncJson(p, { a: 'A' }); // 1 char × 2 languages: fits
  const before = await snapshot(p);
  const r = await syncJson(p, { a: 'A', b: 'A much longer string', c: 'Another long one' });
  t.is(r.response.status, 402);
  t.is(r.error?.error, 'insufficient_credits');
  t.is(await snapshot(p), before);
});

test('requestId: a sync replays its first answer and writes nothing more', async (t) => {
  const p = await createTestProject(svc);
  const body = { contentBase64: b64('{"x":"Ex"}'), requestId: 'sync-1' };
  const first = await fetch(`${svc.baseUrl}/projects/${p.projectId}/sync`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text1 = await first.text();
  const second = await fetch(`${svc.baseUrl}/projects/${p.projectId}/sync`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  t.is(await second.text(), text1);
  t.is(await count('fill_jobs', { project_id: p.projectId }), 1);
  const other = await sync(p, { contentBase64: b64('{"x":"Other"}'), requestId: 'sync-1' });
  t.is(other.error?.error, 'request_mismatch');
});

test('conflicts lists the first 50 rows and conflictsTotal the real count', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const keysIn = (de: boolean) =>
    Object.fromEntries(
      Array.from({ length: 60 }, (_, i): [string, Record<string, string>] => [
        `k${i}`,
        de ? { en: `Item ${i}`, de: `Eintrag ${i}` } : { en: `Item ${i}` },
      ]),
    );
  await sync(p, { contentBase64: b64(xcstrings(keysIn(false))) });
  await runDue(p); // every de cell now comes from the AI fill
  const d = (await sync(p, { contentBase64: b64(xcstrings(keysIn(true))) })).data!;
  t.is(d.conflictsTotal, 60);
  t.is(d.conflicts.length, 50);
  t.true(d.conflicts.every((c) => c.resolution === 'kept' && c.kind === 'translation'));
});

test('a refused sync is recorded under its requestId', async (t) => {
  const p = await createTestProject(svc);
  const r = await sync(p, { contentBase64: '###', requestId: 'bad-file' });
  t.is(r.error?.error, 'invalid_base64');
  const rec = (
    await p.client.GET('/projects/{projectId}/requests/{requestId}', {
      params: { path: { projectId: p.projectId, requestId: 'bad-file' } },
    })
  ).data!;
  t.like(rec, { state: 'failed', status: 400, body: { error: 'invalid_base64' } });
});

test('a file key spelled as a name is read by that name: up to 255 characters stored under it, longer refused before any write', async (t) => {
  const p = await createTestProject(svc);
  // Segments of 50 letters joined by dots: the canonical shape, kept as it is.
  const nameOf = (length: number) =>
    Array.from({ length: Math.ceil(length / 51) + 1 }, (_, i) => String.fromCharCode(97 + i).repeat(50))
      .join('.')
      .slice(0, length)
      .replace(/\.$/, 'z');
  const at255 = nameOf(255);
  const at230 = nameOf(230);
  t.is(at255.length, 255);
  const r = await syncJson(p, { [at255]: 'Longest name', [at230]: 'Long name', short: 'Short' });
  t.is(r.response.status, 200, JSON.stringify(r.error));
  t.is(r.data!.created, 3);
  for (const ref of [at255, at230]) {
    const read = await readKey(p.client, p.projectId, ref, 'de');
    t.is(read.response.status, 200, `${ref.length} characters: ${JSON.stringify(read.error)}`);
    t.is(read.data?.key, ref);
  }

  // 256 and 300 characters: refused, by the dry run too, and nothing of the file is written.
  const before = await snapshot(p);
  for (const length of [256, 300]) {
    const file = jsonFile({ [nameOf(length)]: 'Too long', another: 'Would be new' });
    const real = await sync(p, file);
    t.is(real.response.status, 400);
    t.like(real.error, { error: 'invalid_argument' });
    t.regex(real.error!.message, new RegExp(`at most 255 characters; this one has ${length}`));
    const dry = await previewSync(p.client, p.projectId, file);
    t.is(dry.response.status, 400);
    t.like(dry.error, { error: 'invalid_argument' });
  }
  t.is(await snapshot(p), before);
  // A read by that name is the longest `ref` plus one: 400 as before, so nothing stored is unreadable.
  t.is((await readKey(p.client, p.projectId, nameOf(256), 'de')).response.status, 400);
  // `ref` counts characters (code points, as JSON Schema does), not UTF-16 units: 255 astral characters are a
  // ref of the longest length (no such key), 256 are one too long. Names are ASCII, where the two agree.
  t.is((await readKey(p.client, p.projectId, '😀'.repeat(255), 'de')).response.status, 404);
  t.is((await readKey(p.client, p.projectId, '😀'.repeat(256), 'de')).response.status, 400);

  // A sentence key (xcstrings) longer than a name still syncs, under a derived name of at most 255 characters.
  const sentence = `${'Tap here to continue with your order and review everything once more '.repeat(5)}.`;
  const xc = await sync(p, {
    contentBase64: b64(xcstrings({ [sentence]: { en: 'Tap here' }, ['😀'.repeat(300)]: { en: 'Smile' } })),
    fileName: 'Localizable.xcstrings',
  });
  t.is(xc.response.status, 200, JSON.stringify(xc.error));
  t.true((await keys(p)).every((k) => k.key.length <= 255));
});

test('a long key stored under a hashed name by an earlier release keeps that name and its translations on the next sync', async (t) => {
  const p = await createTestProject(svc);
  const long = `settings.${'x'.repeat(220)}`;
  t.is((await syncJson(p, { [long]: 'Long one' })).data!.created, 1);
  // Before names went up to 255 characters, a canonical name over 200 was stored hashed.
  const legacy = `k_${createHash('sha256').update(long).digest('hex').slice(0, 16)}`;
  await svc.service.app.db('keys').where({ project_id: p.projectId, name: long }).update({ name: legacy });
  const again = await syncJson(p, { [long]: 'Long one' });
  t.like(again.data, { created: 0, matchedSources: 1, disabledOrphans: 0 });
  t.deepEqual(
    (await keys(p)).map((k) => k.key),
    [legacy],
  );
});
