// The pseudo engine (the embedded default) under the fill's guards (packages/core/src/guard.ts): a name the termbase
// keeps goes through unaccented, a term with a required translation comes out as that translation, and a value over
// its length limit is stored with the failure recorded by the checks and a lower score, as an engine's answer the
// repair request did not fix.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';
import { hostile, type Schemas } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(() => svc?.stop());

async function term(p: TestProject, body: Record<string, unknown>) {
  const r = await p.client.POST('/projects/{projectId}/terms', {
    params: { path: { projectId: p.projectId } },
    body: hostile(body),
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
}

test('pseudo: kept names stay as written, terms as their translations; a missed limit is stored, recorded and scored lower', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await term(p, { text: 'GitHub', nonTranslatable: true });
  await term(p, { text: 'account', translations: { de: 'Konto' } });
  await translate(p.client, p.projectId, {
    units: [
      { key: 'a.github', source: 'Sign in with GitHub, {name}' },
      { key: 'a.account', source: 'Open your account' },
      { key: 'a.accounts', source: 'Your Accounts and {count, plural, one {# account} other {# accounts}}' },
      { key: 'a.save', source: 'Save changes', ctx: 'Button [CHAR LIMIT=12]' },
      { key: 'a.plain', source: 'Hello {name}' },
    ],
  });
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  const read = async (key: string) =>
    (
      (
        await p.client.GET('/projects/{projectId}/translations', {
          params: { path: { projectId: p.projectId }, query: { ref: key, lang: 'de', checks: 'true' } },
        })
      ).data as Schemas['KeyTranslations']
    ).translations.de;
  const github = await read('a.github');
  t.regex(github.value ?? '', /^\[Šîĝñ îñ ŵîţĥ GitHub, \{name\}~+\]$/, 'the name is not accented');
  t.like(github, { status: 'translated', aiScore: 1 });
  const account = await read('a.account');
  t.like(account, { status: 'translated', value: '[Öþéñ ýöûŕ Konto~~~~]', aiScore: 1 });
  t.false(account.checks?.some((c) => c.check === 'glossary') ?? false);
  // Inflected and capitalised uses too, in every branch of a plural (German's one and other).
  t.like(await read('a.accounts'), {
    status: 'translated',
    value: '[Ýöûŕ Konto áñð {count, plural, one {# Konto} other {# Konto}}~~~~~~~]',
    aiScore: 1,
  });
  const save = await read('a.save');
  t.like(save, { status: 'translated', aiScore: 0.7 });
  t.regex(save.aiReason ?? '', /over the length limit: length: \d+ characters; the limit is 12/);
  t.true(save.checks?.some((c) => c.check === 'max-length'));
  t.like(await read('a.plain'), { status: 'translated', value: '[Ĥéļļö {name}~~]', aiScore: 1 });
});

test('the background re-check holds values to the termbase as the writers do', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  // Filled before the term exists, so the values miss it; the term's own re-check finds them.
  await translate(p.client, p.projectId, { units: [{ key: 'b.account', source: 'Open your account' }] });
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  await term(p, { text: 'account', translations: { de: 'Konto', fr: 'compte' } });
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  const glossaryLangs = async () =>
    (
      (
        await p.client.GET('/projects/{projectId}/checks', {
          params: { path: { projectId: p.projectId }, query: { check: 'glossary' } },
        })
      ).data as unknown as { results: Array<{ lang: string }> }
    ).results
      .map((r) => r.lang)
      .sort();
  t.deepEqual(await glossaryLangs(), ['de', 'fr']);
  // A settings change re-checks the whole project in the background (on threads, server/domain/checks/recheck.ts).
  const put = await svc.admin.PUT('/projects/{projectId}/checks/settings', {
    params: { path: { projectId: p.projectId } },
    body: { expansionFactor: 4 },
  });
  t.is(put.response.status, 200, JSON.stringify(put.error));
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  t.deepEqual(await glossaryLangs(), ['de', 'fr']);
});
