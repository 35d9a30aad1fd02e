// The termbase through the HTTP API (spec: listTerms, createTerm, updateTerm, deleteTerm; internalMatchTerms): CRUD,
// scopes, pagination and filters, a project's own terms beside its workspace's, the editor's matching, and the
// terms the check engine's glossary check gets (server/domain/terms/glossary.ts checkTermsFor).
import test from 'ava';
import { runChecks } from '../../packages/core/src/checks/index.js';
import { getProject } from '../../server/domain/project/projects.js';
import { checkTermsFor } from '../../server/domain/terms/glossary.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { errorOf, hostile, type Schemas } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

type TermCreate = Schemas['TermCreateRequest'];

const create = (p: TestProject, body: TermCreate) =>
  p.client.POST('/projects/{projectId}/terms', { params: { path: { projectId: p.projectId } }, body });
const list = (p: TestProject, query: Record<string, string | number> = {}) =>
  p.client.GET('/projects/{projectId}/terms', { params: { path: { projectId: p.projectId }, query } });
const update = (p: TestProject, termId: string, body: Schemas['TermUpdateRequest']) =>
  p.client.PATCH('/projects/{projectId}/terms/{termId}', {
    params: { path: { projectId: p.projectId, termId } },
    body,
  });
const remove = (p: TestProject, termId: string) =>
  p.client.DELETE('/projects/{projectId}/terms/{termId}', { params: { path: { projectId: p.projectId, termId } } });

/** A second project of the same workspace (a project of its own key). */
async function sibling(p: TestProject, baseLang = 'en'): Promise<TestProject> {
  const made = await svc.admin.POST('/projects', {
    body: {
      workspaceId: p.workspaceId,
      name: 'Sibling',
      baseLang,
      languages: ['de', 'fr', 'en'].filter((c) => c !== baseLang).map((code) => ({ code })),
    },
  });
  if (!made.data) throw new Error(JSON.stringify(made.error));
  const apiKey = await createTestKey(svc, made.data.projectId, ['admin']);
  return { projectId: made.data.projectId, workspaceId: p.workspaceId, apiKey, client: svc.client(apiKey) };
}

test('a term is created, read back in the list, changed and deleted', async (t) => {
  const p = await createTestProject(svc);
  const made = await create(p, {
    text: 'account',
    description: 'A user account, not a bank account',
    partOfSpeech: 'noun',
    translations: { DE: 'Konto', fr: 'compte' },
  });
  t.is(made.response.status, 201, JSON.stringify(made.error));
  const term = made.data!;
  t.like(term, {
    scope: 'project',
    lang: 'en',
    text: 'account',
    partOfSpeech: 'noun',
    forbidden: false,
    nonTranslatable: false,
    caseSensitive: false,
    abbreviation: false,
    translations: { de: 'Konto', fr: 'compte' },
  });
  t.deepEqual((await list(p)).data!.terms, [term]);

  const changed = await update(p, term.termId, { translations: { de: 'Benutzerkonto' }, caseSensitive: true });
  t.is(changed.response.status, 200);
  t.deepEqual(changed.data!.translations, { de: 'Benutzerkonto' }, 'translations are replaced as a whole');
  t.true(changed.data!.caseSensitive);
  t.is(changed.data!.description, 'A user account, not a bank account', 'fields not given are kept');

  t.is((await remove(p, term.termId)).response.status, 204);
  t.is((await list(p)).data!.total, 0);
  t.is(errorOf(await remove(p, term.termId))?.error, 'not_found');
  t.is(errorOf(await update(p, term.termId, { forbidden: true }))?.error, 'not_found');
});

test('refusals: a language the project lacks, the base language, an empty change, a wrong part of speech; nothing written', async (t) => {
  const p = await createTestProject(svc);
  const bad: Array<[unknown, string]> = [
    [{ text: 'account', translations: { ja: 'アカウント' } }, 'invalid_argument'],
    [{ text: 'account', translations: { en: 'account' } }, 'invalid_argument'],
    [{ text: 'account', translations: { 'not a code!': 'x' } }, 'invalid_argument'],
    [{ text: 'account', translations: { de: 'Konto', DE: 'Konto' } }, 'invalid_argument'],
    [{ text: '   ' }, 'invalid_argument'],
    [{ text: 'x'.repeat(256) }, 'invalid_argument'],
    [{ text: 'account', partOfSpeech: 'gerund' }, 'invalid_argument'],
    [{ text: 'account', unknown: true }, 'invalid_argument'],
  ];
  for (const [body, code] of bad) {
    const r = await create(p, hostile(body));
    t.is(r.response.status, 400, JSON.stringify(body));
    t.is(errorOf(r)?.error, code);
  }
  t.is((await list(p)).data!.total, 0);
  const term = (await create(p, { text: 'account' })).data!;
  t.is(errorOf(await update(p, term.termId, hostile({})))?.error, 'invalid_argument');
  t.is(errorOf(await update(p, term.termId, { translations: { ja: 'アカウント' } }))?.error, 'invalid_argument');
  t.deepEqual((await list(p)).data!.terms[0].translations, {});
});

test('scopes: a read key lists, only a write key changes', async (t) => {
  const p = await createTestProject(svc);
  const reader = svc.client(await createTestKey(svc, p.projectId, ['read']));
  const writer = svc.client(await createTestKey(svc, p.projectId, ['write']));
  const translator = svc.client(await createTestKey(svc, p.projectId, ['translate']));
  const path = { projectId: p.projectId };
  const made = await writer.POST('/projects/{projectId}/terms', { params: { path }, body: { text: 'invoice' } });
  t.is(made.response.status, 201);
  t.is((await reader.GET('/projects/{projectId}/terms', { params: { path } })).data?.total, 1);
  const refused = await reader.POST('/projects/{projectId}/terms', { params: { path }, body: { text: 'bill' } });
  t.is(refused.response.status, 403);
  t.is((await translator.GET('/projects/{projectId}/terms', { params: { path } })).response.status, 403);
  const termPath = { projectId: p.projectId, termId: made.data!.termId };
  t.is(
    (
      await reader.PATCH('/projects/{projectId}/terms/{termId}', {
        params: { path: termPath },
        body: { forbidden: true },
      })
    ).response.status,
    403,
  );
  t.is(
    (await reader.DELETE('/projects/{projectId}/terms/{termId}', { params: { path: termPath } })).response.status,
    403,
  );
  t.is(
    (await writer.DELETE('/projects/{projectId}/terms/{termId}', { params: { path: termPath } })).response.status,
    204,
  );
});

test('workspace terms are shared by the projects of the workspace with the same base language; project terms are not', async (t) => {
  const a = await createTestProject(svc);
  const b = await sibling(a);
  const french = await sibling(a, 'fr');
  const other = await createTestProject(svc);
  const shared = (
    await create(a, { scope: 'workspace', text: 'dashboard', translations: { de: 'Dashboard', ja: 'ダッシュボード' } })
  ).data!;
  t.is(shared.scope, 'workspace', 'a workspace term may carry a language the project lacks (ja)');
  const own = (await create(a, { text: 'invoice', translations: { de: 'Rechnung' } })).data!;
  t.deepEqual(
    (await list(a)).data!.terms.map((x) => [x.text, x.scope]),
    [
      ['dashboard', 'workspace'],
      ['invoice', 'project'],
    ],
  );
  t.deepEqual(
    (await list(b)).data!.terms.map((x) => x.text),
    ['dashboard'],
    'the sibling uses the workspace term only',
  );
  t.is((await list(french)).data!.total, 0, 'a project of another base language does not');
  t.is((await list(other)).data!.total, 0, 'another workspace does not');
  t.deepEqual(
    (await list(a, { scope: 'project' })).data!.terms.map((x) => x.text),
    ['invoice'],
  );
  t.deepEqual(
    (await list(a, { scope: 'workspace' })).data!.terms.map((x) => x.text),
    ['dashboard'],
  );

  // A sibling may change the workspace term (every project sees the change), never the other's own term.
  t.is((await update(b, shared.termId, { description: 'The start page' })).response.status, 200);
  t.is((await list(a)).data!.terms[0].description, 'The start page');
  t.is(errorOf(await update(b, own.termId, { forbidden: true }))?.error, 'not_found');
  t.is(errorOf(await remove(b, own.termId))?.error, 'not_found');
  t.is(errorOf(await remove(other, shared.termId))?.error, 'not_found');
  t.is((await remove(b, shared.termId)).response.status, 204);
  t.deepEqual(
    (await list(a)).data!.terms.map((x) => x.text),
    ['invoice'],
  );
});

test('the list pages by text and filters by text, description or translation and by language', async (t) => {
  const p = await createTestProject(svc);
  const words = ['zebra', 'apple', 'mango', 'kiwi', 'banana', 'cherry', 'date'];
  for (const w of words) await create(p, { text: w, translations: w === 'kiwi' ? { fr: 'kiwi' } : { de: `${w}-de` } });
  await create(p, { text: 'plan', description: 'A Subscription tier 100%' });
  const all = [...words, 'plan'].sort();
  const seen: string[] = [];
  for (let offset = 0; ; offset += 3) {
    const page = (await list(p, { offset, limit: 3 })).data!;
    t.is(page.total, all.length);
    seen.push(...page.terms.map((x) => x.text));
    if (page.terms.length < 3) break;
  }
  t.deepEqual(seen, all);
  t.deepEqual(
    (await list(p, { q: 'AN' })).data!.terms.map((x) => x.text),
    ['banana', 'mango', 'plan'],
  );
  t.deepEqual(
    (await list(p, { q: 'subscription' })).data!.terms.map((x) => x.text),
    ['plan'],
    'description',
  );
  t.deepEqual(
    (await list(p, { q: 'ERRY-DE' })).data!.terms.map((x) => x.text),
    ['cherry'],
    'translation',
  );
  t.deepEqual(
    (await list(p, { q: '100%' })).data!.terms.map((x) => x.text),
    ['plan'],
    'LIKE wildcards are text',
  );
  t.is((await list(p, { q: '_' })).data!.total, 0);
  t.deepEqual(
    (await list(p, { lang: 'FR' })).data!.terms.map((x) => x.text),
    ['kiwi'],
  );
  t.is(errorOf(await list(p, { lang: 'not a code!' }))?.error, 'invalid_argument');
  t.is(errorOf(await list(p, { limit: 0 }))?.error, 'invalid_argument');
});

test('the editor matches terms in a source, inflected forms included, with the required translation', async (t) => {
  const p = await createTestProject(svc);
  await create(p, { text: 'account', translations: { de: 'Konto' } });
  await create(p, { text: 'user account', translations: { de: 'Benutzerkonto' } });
  await create(p, { scope: 'workspace', text: 'PIN', abbreviation: true, translations: { de: 'PIN' } });
  const match = (text: string, lang?: string) =>
    svc.admin.POST('/projects/{projectId}/terms/match', {
      params: { path: { projectId: p.projectId } },
      body: { text, ...(lang ? { lang } : {}) },
    });
  const text = "Your user accounts and the account's PIN (not your pins)";
  const r = await match(text, 'de');
  t.is(r.response.status, 200);
  t.deepEqual(
    r.data!.matches.map((m) => [text.slice(m.start, m.end), m.term.text, m.translation]),
    [
      ['user accounts', 'user account', 'Benutzerkonto'],
      ['account', 'account', 'Konto'],
      ['PIN', 'PIN', 'PIN'],
    ],
  );
  t.is((await match(text, 'fr')).data!.matches[0].translation, null);
  t.false('translation' in (await match(text)).data!.matches[0]);
  // A change shows at once (the matcher's cache follows the termbase).
  await create(p, { text: 'owner', translations: { de: 'Inhaber' } });
  t.deepEqual(
    (await match('the owners')).data!.matches.map((m) => m.term.text),
    ['owner'],
  );
});

test('the glossary check gets the project’s terms and finds what a translation does against them', async (t) => {
  const p = await createTestProject(svc);
  await create(p, { text: 'file', translations: { de: 'Datei' } });
  await create(p, { text: 'file', forbidden: true, translations: { de: 'Akte' } });
  await create(p, { text: 'GitHub', nonTranslatable: true, caseSensitive: true });
  const db = svc.service.app.db;
  const project = await getProject(db, p.projectId);
  const terms = await checkTermsFor(db, project, 'de');
  t.is(await checkTermsFor(db, project, 'DE'), terms, 'the same list for every cell, so its index is built once');
  const glossary = (source: string, target: string) =>
    runChecks({ source, target, sourceLang: 'en', targetLang: 'de', key: 'k', terms })
      .filter((r) => r.id === 'glossary')
      .map((r) => r.message);
  t.deepEqual(glossary('Delete 3 files from GitHub?', '3 Dateien von GitHub löschen?'), []);
  t.deepEqual(glossary('Delete 3 files from GitHub?', '3 Akten von GitHab löschen?'), [
    '“Akten” is not to be used for “file”',
    '“file” is translated as “Datei”',
    '“GitHub” is kept as it is, not translated',
  ]);
  t.deepEqual(glossary('Open the file', 'Öffne das Dokument'), ['“file” is translated as “Datei”']);
});
