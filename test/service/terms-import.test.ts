// Termbase files through the HTTP API (spec: importTerms, exportTerms): CSV and TBX round trips, re-imports that
// update or leave terms, Tolgee's and Crowdin's glossary exports (test/fixtures/terms/SOURCES.md), and every hostile
// file refused with its documented code and nothing written.
import { readFileSync } from 'node:fs';
import test from 'ava';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';
import { errorOf, hostile, type Schemas } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

type Term = Schemas['Term'];
type TermCreate = Schemas['TermCreateRequest'];
type ImportRequest = Schemas['TermImportRequest'];

const b64 = (text: string | Buffer) => (typeof text === 'string' ? Buffer.from(text, 'utf8') : text).toString('base64');
const fixture = (name: string) => readFileSync(new URL(`../fixtures/terms/${name}`, import.meta.url));

const importFile = (p: TestProject, body: ImportRequest) =>
  p.client.POST('/projects/{projectId}/terms/import', { params: { path: { projectId: p.projectId } }, body });

async function exportFile(p: TestProject, format: 'csv' | 'tbx', scope?: string) {
  const q = new URLSearchParams({ format, ...(scope ? { scope } : {}) });
  const r = await fetch(`${svc.baseUrl}/projects/${p.projectId}/terms/export?${q}`, {
    headers: { authorization: `Bearer ${p.apiKey}` },
  });
  return {
    status: r.status,
    type: r.headers.get('content-type'),
    disposition: r.headers.get('content-disposition'),
    text: await r.text(),
  };
}

async function terms(p: TestProject, scope?: 'project' | 'workspace'): Promise<Term[]> {
  const r = await p.client.GET('/projects/{projectId}/terms', {
    params: { path: { projectId: p.projectId }, query: { limit: 200, ...(scope ? { scope } : {}) } },
  });
  return r.data!.terms;
}

/** Terms as two termbases compare them: what they say, not their ids, scope or times, in one order. */
const contents = (ts: Term[]) =>
  ts
    .map((t) => {
      const { termId: _id, createdAt: _c, updatedAt: _u, scope: _s, ...rest } = t;
      return JSON.stringify(rest);
    })
    .sort();

const SAMPLE: TermCreate[] = [
  {
    text: 'account',
    description: 'A user\'s sign-in account, "not" a bank account;\nsee also: profile',
    partOfSpeech: 'noun',
    translations: { de: 'Konto', fr: 'compte', ja: 'アカウント' },
  },
  { text: 'account', forbidden: true, translations: { de: 'Account' } },
  { text: 'GitHub', partOfSpeech: 'proper noun', nonTranslatable: true, caseSensitive: true },
  {
    text: 'PIN',
    abbreviation: true,
    caseSensitive: true,
    partOfSpeech: 'noun',
    translations: { de: 'PIN', fr: 'code PIN' },
  },
  { text: 'sign in', partOfSpeech: 'verb', translations: { de: 'anmelden', fr: 'se connecter' } },
  {
    text: 'C++',
    partOfSpeech: 'pronoun',
    description: 'Not a pronoun, but the round trip keeps what it is told',
    translations: { de: 'C++' },
  },
  { text: 'Straße & <Weg>', translations: { de: 'Straße & <Weg>' } },
];

async function seeded(): Promise<TestProject> {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }, { code: 'ja' }] });
  for (const body of SAMPLE) {
    const r = await p.client.POST('/projects/{projectId}/terms', {
      params: { path: { projectId: p.projectId } },
      body,
    });
    if (r.response.status !== 201) throw new Error(JSON.stringify(r.error));
  }
  return p;
}

const snapshot = async (workspaceId: string) => {
  const db = svc.service.app.db;
  const rows = await db('terms').where({ workspace_id: workspaceId }).orderBy('id');
  const translations = await db('term_translations')
    .whereIn(
      'term_id',
      rows.map((r) => r.id),
    )
    .orderBy(['term_id', 'lang']);
  return JSON.stringify([rows, translations]);
};

for (const format of ['csv', 'tbx'] as const) {
  test(`${format}: a termbase exported and imported into another project is the same termbase; again, nothing changes`, async (t) => {
    const from = await seeded();
    const file = await exportFile(from, format);
    t.is(file.status, 200);
    t.is(file.type, format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-tbx');
    t.is(file.disposition, `attachment; filename="terms.${format}"`);
    const into = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }, { code: 'ja' }] });
    const first = await importFile(into, { contentBase64: b64(file.text), fileName: `terms.${format}` });
    t.is(first.response.status, 200, JSON.stringify(first.error));
    t.like(first.data, {
      format,
      entries: SAMPLE.length,
      created: SAMPLE.length,
      updated: 0,
      unchanged: 0,
      skipped: 0,
    });
    t.deepEqual(contents(await terms(into)), contents(await terms(from)));
    const again = await importFile(into, { contentBase64: b64(file.text), format });
    t.like(again.data, { created: 0, updated: 0, unchanged: SAMPLE.length });
  });
}

test('a re-import updates what the file changes and keeps what it does not carry', async (t) => {
  const p = await seeded();
  const csv = [
    'term,description,fr',
    '"account","A user\'s sign-in account, ""not"" a bank account;\nsee also: profile",compte utilisateur',
    'invoice,,facture',
  ].join('\n');
  const r = await importFile(p, { contentBase64: b64(csv), format: 'csv' });
  t.like(r.data, { layout: 'glossa', entries: 2, created: 1, updated: 1, unchanged: 0 });
  const account = (await terms(p)).find((x) => x.text === 'account' && !x.forbidden)!;
  t.deepEqual(account.translations, { de: 'Konto', fr: 'compte utilisateur', ja: 'アカウント' });
  t.is(account.partOfSpeech, 'noun', 'a column the file does not have is kept');
});

test('workspace scope: a file in any languages, used by every project of the workspace', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const r = await importFile(p, { contentBase64: b64(fixture('tolgee-glossary.csv')), scope: 'workspace' });
  t.is(r.response.status, 200, JSON.stringify(r.error));
  t.like(r.data, { format: 'csv', layout: 'glossa', entries: 5, created: 5 });
  t.true((await terms(p)).every((x) => x.scope === 'workspace'));
  t.deepEqual((await terms(p, 'project')).length, 0);
});

test("Tolgee's glossary CSV imports: flags, and a non-translatable term's repeated columns are no translations", async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'cs' }, { code: 'de' }, { code: 'fr' }] });
  const r = await importFile(p, { contentBase64: b64(fixture('tolgee-glossary.csv')), fileName: 'glossary.csv' });
  t.is(r.response.status, 200, JSON.stringify(r.error));
  const byText = new Map((await terms(p)).map((x) => [x.text, x]));
  t.like(byText.get('account'), {
    description: "A user's sign-in account, not a bank account",
    translations: { cs: 'účet', de: 'Konto', fr: 'compte' },
    nonTranslatable: false,
  });
  t.like(byText.get('Tolgee'), { nonTranslatable: true, caseSensitive: true, translations: {} });
  t.like(byText.get('API'), { abbreviation: true, caseSensitive: true });
  t.like(byText.get('click'), { forbidden: true, translations: { de: 'klicken', fr: 'cliquer' } });
  t.like(byText.get('log in'), { translations: { cs: 'přihlásit se', de: 'anmelden', fr: 'se connecter' } });
});

test("Crowdin's glossary CSV imports: one row per term, a term not recommended becomes a forbidden entry", async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  const r = await importFile(p, { contentBase64: b64(fixture('crowdin-glossary.csv')) });
  t.is(r.response.status, 200, JSON.stringify(r.error));
  t.like(r.data, { layout: 'crowdin', entries: 5, created: 5 });
  const all = await terms(p);
  const find = (text: string, forbidden = false) => all.find((x) => x.text === text && x.forbidden === forbidden)!;
  t.like(find('account'), { partOfSpeech: 'noun', translations: { de: 'Konto', fr: 'compte' } });
  t.like(find('account', true), { translations: { de: 'Account' } });
  t.like(find('PIN'), { abbreviation: true, translations: { de: 'PIN', fr: 'code PIN' } });
  t.like(find('dashboard'), {
    description: "The start page with the project's figures",
    translations: { fr: 'tableau de bord' },
  });
  t.like(find('Crowdin'), { nonTranslatable: true, partOfSpeech: 'proper noun', translations: {} });
});

for (const name of ['crowdin-glossary-v2.tbx', 'crowdin-glossary-v3.tbx']) {
  test(`Crowdin's TBX imports (${name}): preferred and deprecated terms, definitions at any level`, async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
    const r = await importFile(p, { contentBase64: b64(fixture(name)) });
    t.is(r.response.status, 200, JSON.stringify(r.error));
    const all = await terms(p);
    const find = (text: string, forbidden = false) => all.find((x) => x.text === text && x.forbidden === forbidden)!;
    t.like(find('account'), {
      description: "A user's sign-in account, not a bank account",
      partOfSpeech: 'noun',
      translations: name.includes('v2') ? { de: 'Konto', fr: 'compte' } : { de: 'Konto' },
    });
    t.like(find('account', true), { translations: { de: 'Account' } });
    if (name.includes('v2')) {
      t.like(r.data, { format: 'tbx', skipped: 1, entries: 4 });
      t.like(find('dashboard'), {
        description: "The start page with the project's figures",
        translations: { de: 'Dashboard', fr: 'tableau de bord' },
      });
      t.like(find('PIN'), { abbreviation: true });
    } else {
      t.like(r.data, { format: 'tbx', skipped: 0, entries: 3 });
      t.like(find('sign in'), {
        partOfSpeech: 'verb',
        description: "To open a session with one's account",
        translations: { de: 'anmelden' },
      });
    }
  });
}

const tbx = (body: string, prolog = '') =>
  `<?xml version="1.0" encoding="UTF-8"?>\n${prolog}<martif type="TBX-Basic" xml:lang="en"><martifHeader><fileDesc><sourceDesc><p>x</p></sourceDesc></fileDesc></martifHeader><text><body>${body}</body></text></martif>`;
const entry = (en: string, de = 'Konto') =>
  `<termEntry><langSet xml:lang="en"><tig><term>${en}</term></tig></langSet><langSet xml:lang="de"><tig><term>${de}</term></tig></langSet></termEntry>`;

const LAUGHS =
  '<!DOCTYPE martif [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n';

const HOSTILE: Array<{ name: string; body: ImportRequest; code: string; status?: number }> = [
  { name: 'billion laughs', body: { contentBase64: b64(tbx(entry('&lol3;'), LAUGHS)) }, code: 'invalid_argument' },
  {
    name: 'an external entity',
    body: {
      contentBase64: b64(tbx(entry('&xxe;'), '<!DOCTYPE martif [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n')),
    },
    code: 'invalid_argument',
  },
  {
    name: 'an external parameter entity',
    body: {
      contentBase64: b64(tbx(entry('a'), '<!DOCTYPE martif [<!ENTITY % p SYSTEM "http://127.0.0.1:9/x.dtd"> %p;]>\n')),
    },
    code: 'invalid_argument',
  },
  {
    name: 'an ENTITY after an allowed DOCTYPE',
    body: {
      contentBase64: b64(
        tbx(`<!-- <!ENTITY x "y"> -->${entry('a')}`, '<!DOCTYPE martif SYSTEM "TBXBasiccoreStructV02.dtd">\n'),
      ),
    },
    code: 'invalid_argument',
  },
  { name: 'an undeclared entity', body: { contentBase64: b64(tbx(entry('caf&eacute;'))) }, code: 'invalid_argument' },
  { name: 'malformed XML', body: { contentBase64: b64(tbx(entry('a</term>'))) }, code: 'invalid_argument' },
  { name: 'an unclosed file', body: { contentBase64: b64(tbx(entry('a')).slice(0, -20)) }, code: 'invalid_argument' },
  {
    name: 'XML that is not TBX',
    body: { contentBase64: b64('<?xml version="1.0"?><xliff version="1.2"/>'), format: 'tbx' },
    code: 'format_mismatch',
  },
  {
    name: 'TBX declared as CSV',
    body: { contentBase64: b64(tbx(entry('a'))), format: 'csv' },
    code: 'format_mismatch',
  },
  {
    name: 'CSV declared as TBX',
    body: { contentBase64: b64('term,de\naccount,Konto\n'), format: 'tbx' },
    code: 'format_mismatch',
  },
  { name: 'a control character', body: { contentBase64: b64(tbx(entry('a\u0001b'))) }, code: 'invalid_argument' },
  {
    name: 'invalid UTF-8',
    body: { contentBase64: b64(Buffer.from([0x74, 0x65, 0x72, 0x6d, 0x0a, 0xff, 0xfe, 0x41])), format: 'csv' },
    code: 'invalid_argument',
  },
  {
    name: 'a term over 255 characters',
    body: { contentBase64: b64(`term,de\n${'x'.repeat(256)},y\n`) },
    code: 'invalid_argument',
  },
  { name: 'a CSV header of no layout', body: { contentBase64: b64('key,value\na,b\n') }, code: 'invalid_argument' },
  {
    name: 'a CSV column that is no language',
    body: { contentBase64: b64('term,description,Deutsch!\na,,b\n') },
    code: 'invalid_argument',
  },
  {
    name: 'an unclosed CSV quote',
    body: { contentBase64: b64('term,de\n"account,Konto\n') },
    code: 'invalid_argument',
  },
  {
    name: 'a file in another base language',
    body: { contentBase64: b64(tbx(entry('a').replace('xml:lang="en"', 'xml:lang="fr"'))) },
    code: 'language_mismatch',
  },
  {
    name: 'Crowdin CSV without the base language',
    body: { contentBase64: b64('Term [fr],Term [de]\ncompte,Konto\n') },
    code: 'language_mismatch',
  },
  {
    name: 'translations into a language the project lacks',
    body: { contentBase64: b64('term,de,ko\naccount,Konto,계정\n') },
    code: 'language_mismatch',
  },
  {
    name: 'more than 10,000 entries',
    body: { contentBase64: b64(`term,de\n${Array.from({ length: 10_001 }, (_, i) => `t${i},d${i}`).join('\n')}\n`) },
    code: 'too_many_entries',
  },
  { name: 'bad base64', body: { contentBase64: 'not base64!' }, code: 'invalid_base64' },
  { name: 'an empty file', body: { contentBase64: b64('   \n') }, code: 'invalid_argument' },
  {
    name: 'a decoded file over 5 MiB',
    body: { contentBase64: b64(`term,de\n${'a,b\n'.repeat(1_400_000)}`) },
    code: 'payload_too_large',
    status: 413,
  },
];

test('every hostile file is refused with its code, and nothing is written (all or nothing)', async (t) => {
  const p = await seeded();
  const before = await snapshot(p.workspaceId);
  for (const h of HOSTILE) {
    // A valid entry first in every CSV: a partial write would show.
    const r = await importFile(p, h.body);
    t.is(r.response.status, h.status ?? 400, `${h.name}: ${JSON.stringify(r.error)}`);
    t.is(errorOf(r)?.error, h.code, h.name);
    t.regex(errorOf(r)?.message ?? '', /./, h.name);
  }
  t.is(await snapshot(p.workspaceId), before);
});

test('a file whose last entry is bad writes none of the good ones before it', async (t) => {
  const p = await createTestProject(svc);
  const before = await snapshot(p.workspaceId);
  const csv = `term,de\n${Array.from({ length: 50 }, (_, i) => `good${i},gut${i}`).join('\n')}\n${'x'.repeat(300)},y\n`;
  t.is(errorOf(await importFile(p, { contentBase64: b64(csv) }))?.error, 'invalid_argument');
  const tbxFile = tbx(entry('good') + entry('bad').replace('<term>Konto</term>', `<term>${'y'.repeat(300)}</term>`));
  t.is(errorOf(await importFile(p, { contentBase64: b64(tbxFile) }))?.error, 'invalid_argument');
  t.is(await snapshot(p.workspaceId), before);
});

test('scopes: `read` exports, only `write` imports', async (t) => {
  const p = await createTestProject(svc, { scopes: ['read'] });
  t.is((await exportFile(p, 'csv')).status, 200);
  const r = await importFile(p, { contentBase64: b64('term,de\na,b\n') });
  t.is(r.response.status, 403);
  const bad = await fetch(`${svc.baseUrl}/projects/${p.projectId}/terms/export?format=xlsx`, {
    headers: { authorization: `Bearer ${p.apiKey}` },
  });
  t.is(bad.status, 400);
  t.is(errorOf(await importFile(p, hostile({ contentBase64: 'YQ==', format: 'xlsx' })))?.error, 'forbidden');
});
