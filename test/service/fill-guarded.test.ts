// The guarded AI fill against a local OpenAI-compatible server that records every request and answers from a
// script (test/helpers/fake-openai.ts): what the engine is told (terms, comments, limits, neighbouring keys, the
// style guide, many keys per request) (docs/guides/translation.md).
import test from 'ava';
import { sync } from '../../packages/client/src/index.js';
import {
  openAiEnv,
  requestItems,
  requestPayload,
  startFakeOpenAI,
  translateAll,
  type FakeOpenAI,
  type FakeRequest,
} from '../helpers/fake-openai.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';
import { errorOf, hostile } from '../helpers/typed.js';

let svc: TestService;
let fake: FakeOpenAI;
test.before(async () => {
  fake = await startFakeOpenAI();
  svc = await startTestService(openAiEnv(fake));
});
test.after.always(async () => {
  await svc?.stop();
  await fake?.close();
});

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** An Xcode string catalog of base-language strings, each with its comment. */
function catalog(strings: Record<string, { en: string; comment?: string }>): string {
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(strings))
    out[key] = {
      ...(s.comment ? { comment: s.comment } : {}),
      localizations: { en: { stringUnit: { state: 'translated', value: s.en } } },
    };
  return JSON.stringify({ sourceLanguage: 'en', strings: out, version: '1.0' });
}

async function term(p: TestProject, body: Record<string, unknown>) {
  const r = await p.client.POST('/projects/{projectId}/terms', {
    params: { path: { projectId: p.projectId } },
    body: hostile(body),
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
}

async function runJobs(p: TestProject) {
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
}

const systemOf = (req: FakeRequest) => req.body?.messages.find((m) => m.role === 'system')?.content ?? '';

test.serial(
  'the engine is told the terms, comments, limits, neighbouring keys and style guide, 25 keys a request',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    await term(p, { text: 'account', description: 'A user account', translations: { de: 'Konto' } });
    await term(p, { text: 'account', forbidden: true, translations: { de: 'Account' } });
    await term(p, { text: 'GitHub', nonTranslatable: true });
    const set = await svc.admin.PATCH('/projects/{projectId}', {
      params: { path: { projectId: p.projectId } },
      body: {
        fillInstructions: {
          project: '  Friendly, short sentences.  ',
          languages: { DE: 'Address the reader with du.', fr: ' ' },
        },
      },
    });
    t.deepEqual(set.data?.fillInstructions, {
      project: 'Friendly, short sentences.',
      languages: { de: 'Address the reader with du.' },
    });
    const strings: Record<string, { en: string; comment?: string }> = {
      'settings.account.title': { en: 'Your account', comment: 'Title of the settings screen' },
      'settings.account.save': { en: 'Save account', comment: 'Button label [CHAR LIMIT=12]' },
      'settings.account.link': { en: 'Link GitHub' },
    };
    for (let i = 0; i < 22; i++) strings[`list.row${i}`] = { en: `Row number ${i}` };
    fake.setHandler(translateAll((item) => `DE ${item.source}`));
    const before = fake.requests.length;
    const r = await sync(p.client, p.projectId, {
      contentBase64: b64(catalog(strings)),
      fileName: 'Localizable.xcstrings',
    });
    t.truthy(r.data?.trackingToken, JSON.stringify(r.error));
    await runJobs(p);
    const sent = fake.requests.slice(before);
    t.is(sent.length, 1, 'the 25 keys go in one request');
    const payload = requestPayload(sent[0]);
    t.is(payload.items.length, 25);
    const system = systemOf(sent[0]);
    t.regex(system, /Friendly, short sentences\./, 'the project style guide');
    t.regex(system, /For de: Address the reader with du\./, 'the language style guide');
    const glossary = (payload as unknown as { glossary: unknown[] }).glossary;
    t.deepEqual(
      glossary.map((g) => JSON.stringify(g)).sort(),
      [
        { term: 'account', translation: 'Konto', description: 'A user account' },
        { term: 'account', avoid: ['Account'] },
        { term: 'GitHub', keep: true },
      ]
        .map((g) => JSON.stringify(g))
        .sort(),
      'each term once per request',
    );
    const byKey = new Map(requestItems(sent[0]).map((i) => [i.key, i as typeof i & Record<string, unknown>]));
    const save = byKey.get('settings.account.save')!;
    t.is(save.comment, 'Button label [CHAR LIMIT=12]');
    t.is(save.maxLength, 12);
    t.deepEqual(save.terms, ['account']);
    t.deepEqual(
      (save.related as Array<{ key: string }>).map((r) => r.key),
      ['settings.account.link', 'settings.account.title'],
    );
    t.is(byKey.get('settings.account.title')!.comment, 'Title of the settings screen');
    t.deepEqual(byKey.get('settings.account.link')!.terms, ['GitHub']);
    t.is(byKey.get('list.row3')!.terms, undefined, 'no terms where the source uses none');
    t.is(byKey.get('list.row3')!.maxLength, undefined);
    t.is((byKey.get('list.row3')!.related as unknown[]).length, 5, 'at most five neighbours');
  },
);

test.serial('a style guide is refused with 400 for a language code that is none, and removed with null', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const path = { params: { path: { projectId: p.projectId } } };
  for (const fillInstructions of [
    { languages: { 'not a code': 'x' } },
    { project: 'x'.repeat(4001) },
    { project: 5 },
    { other: 'x' },
  ]) {
    const r = await svc.admin.PATCH('/projects/{projectId}', { ...path, body: hostile({ fillInstructions }) });
    t.is(r.response.status, 400, JSON.stringify(fillInstructions));
    t.is(errorOf(r)?.error, 'invalid_argument');
  }
  const bad = await svc.admin.PATCH('/projects/{projectId}', {
    ...path,
    body: { fillInstructions: { languages: { 'x-123456789-abc': 'x' } } },
  });
  t.is(bad.response.status, 400);
  t.is((await svc.admin.GET('/projects/{projectId}', path)).data?.fillInstructions, null, 'nothing was written');
  await svc.admin.PATCH('/projects/{projectId}', { ...path, body: { fillInstructions: { project: 'Formal.' } } });
  t.deepEqual((await svc.admin.GET('/projects/{projectId}', path)).data?.fillInstructions, { project: 'Formal.' });
  await svc.admin.PATCH('/projects/{projectId}', { ...path, body: { fillInstructions: null } });
  t.is((await svc.admin.GET('/projects/{projectId}', path)).data?.fillInstructions, null);
});
