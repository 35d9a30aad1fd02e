// Through the public API: engines keep printf specifiers and markup, the gates compare
// printf specifiers, and a pair whose fill failed says so and is not queued again until its source changes.
// Runs on SQLite, and on MySQL with TEST_DB=mysql.
import test from 'ava';
import type { components } from '../../generated/openapi.js';
import { previewSync, previewTranslate, sync, translate, type TranslateUnit } from '../../packages/client/src/index.js';
import { requestItems, startFakeOpenAI, translateAll, type FakeOpenAI } from '../helpers/fake-openai.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';
import { pollJob, readKey } from '../helpers/typed.js';
import { maskSource } from '../../packages/core/src/guard.js';

const LANGS = ['de', 'fr', 'ja', 'ar', 'pl', 'ru', 'zh-Hans', 'pt-BR'];
const TERMS = 'By continuing you accept the <a href="/terms">terms</a>';
const PRINTF = '%lld files, %1$@ at %.2f%% ({name}) %d %s %1$s %@ %ld %zu';

let pseudo: TestService;
let openai: TestService;
let fake: FakeOpenAI;
test.before(async () => {
  fake = await startFakeOpenAI();
  [pseudo, openai] = await Promise.all([
    startTestService(),
    startTestService({ TRANSLATION_ENGINE: 'openai', OPENAI_BASE_URL: fake.url, OPENAI_MODEL: 'fake-model' }),
  ]);
});
test.after.always(async () => {
  await pseudo?.stop();
  await openai?.stop();
  await fake?.close();
});

const runDue = (svc: TestService) => svc.admin.POST('/jobs/run-due', { body: {} });
const push = async (p: TestProject, units: TranslateUnit[]) =>
  (await translate(p.client, p.projectId, { units })).data!;
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const jsonFile = (obj: unknown) => ({ contentBase64: b64(JSON.stringify(obj)), fileName: 'en.json' });
const publish = (p: TestProject, body: components['schemas']['PublishRequest']) =>
  p.client.POST('/projects/{projectId}/publish', { params: { path: { projectId: p.projectId } }, body });
const workspace = async (svc: TestService, p: TestProject) => {
  const w = (await svc.service.app.db('workspaces').where({ id: p.workspaceId }).first())!;
  return { balance: Number(w.balance_mc), held: Number(w.held_mc) };
};

/** The fake model: `DE <source>`, except that it drops every `%lld` (a model "translating" the specifier away). */
// The engine gets %lld as the token ⟦1⟧ (packages/core/src/guard.ts): this answer drops it.
const dropsLld = translateAll((item) => `DE ${item.source.replace(/%lld|⟦1⟧/g, 'many')}`);
/** PRINTF as the engine gets it: every specifier and the placeholder as a token. */
const PRINTF_SENT = maskSource(PRINTF, 'en')!.text;

test.serial('pseudo: a source with markup fills in every language, keeping the tag and its attribute', async (t) => {
  const p = await createTestProject(pseudo, { languages: LANGS.map((code) => ({ code })) });
  const d = await push(p, [
    { source: TERMS, key: 'legal.terms' },
    { source: PRINTF, key: 'printf' },
  ]);
  await runDue(pseudo);
  const poll = (await pollJob(p.client, p.projectId, d.trackingToken!)).data!;
  t.like(poll, { status: 'done', summary: { total: 16, translated: 16, failed: 0, pending: 0 } });
  const terms = (await readKey(p.client, p.projectId, 'legal.terms')).data!.translations;
  const printf = (await readKey(p.client, p.projectId, 'printf')).data!.translations;
  for (const lang of LANGS.map((l) => l.toLowerCase())) {
    t.is(terms[lang]?.status, 'translated', lang);
    // What a browser shows: the link as written, its text pseudo-localized.
    t.regex(terms[lang]?.value ?? '', /^\[Ɓý .*<a href="\/terms">ţéŕɱš<\/a>~+\]$/, lang);
    t.is(printf[lang]?.status, 'translated', lang);
    t.is(printf[lang]?.value, '[%lld ƒîļéš, %1$@ áţ %.2f%% ({name}) %d %s %1$s %@ %ld %zu~~~~~~~~~~~~~~~~]', lang);
  }
  // The filled cells pass the publish gates.
  const v = (await publish(p, { incompleteMode: 'skip' })).data!;
  t.like(v, { icuRejectedTotal: 0, markupRejectedTotal: 0 });
});

test.serial(
  'openai: the markup source fills, printf and tags kept; a dropped %lld is sent back with the reason',
  async (t) => {
    const p = await createTestProject(openai, { languages: [{ code: 'de' }, { code: 'pl' }] });
    let asked = 0;
    fake.setHandler(
      translateAll((item) => {
        // The first answer for the printf source loses its %lld; the retry (which names the problem) keeps it.
        if (item.source === PRINTF_SENT && !item.problem) return `DE ${item.source.replace('⟦1⟧', 'viele')}`;
        if (item.source === PRINTF_SENT) asked++;
        return `DE ${item.source}`;
      }),
    );
    const before = fake.requests.length;
    await push(p, [
      { source: TERMS, key: 'legal.terms' },
      { source: PRINTF, key: 'printf' },
    ]);
    await runDue(openai);
    const terms = (await readKey(p.client, p.projectId, 'legal.terms')).data!.translations;
    t.deepEqual(terms.de, { status: 'translated', value: `DE ${TERMS}` });
    const printf = (await readKey(p.client, p.projectId, 'printf')).data!.translations;
    t.deepEqual(printf.pl, { status: 'translated', value: `DE ${PRINTF}` });
    t.is(asked, 2, 'one retry per language');
    const retried = fake.requests
      .slice(before)
      .flatMap(requestItems)
      .filter((i) => i.problem);
    t.true(
      retried.every((i) => /^tokens: ⟦1⟧ \(%lld\) is missing;/.test(i.problem!)),
      JSON.stringify(retried),
    );
  },
);

test.serial('the publish gate refuses a cell that dropped or changed a %lld or %1$@, in icuRejected', async (t) => {
  const p = await createTestProject(pseudo, { languages: [{ code: 'de' }, { code: 'pl' }] });
  await push(p, [
    { source: '%lld files', key: 'files' },
    { source: 'Shared by %1$@', key: 'shared' },
    { forms: { one: '%lld photo', other: '%lld photos' }, key: 'photos' },
    { source: '100%% done', key: 'done' },
  ]);
  await runDue(pseudo);
  const put = (key: string, lang: string, value: string) =>
    pseudo.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId: p.projectId, key, lang } },
      body: { value },
    });
  t.is((await put('files', 'de', 'Dateien')).response.status, 200);
  t.is((await put('shared', 'de', 'Geteilt von %1$s')).response.status, 200);
  // One Polish branch without its specifier: the others do not make up for it.
  t.is(
    (
      await put(
        'photos',
        'pl',
        '{count, plural, one {%lld zdjęcie} few {zdjęcia} many {%lld zdjęć} other {%lld zdjęcia}}',
      )
    ).response.status,
    200,
  );
  t.is((await put('done', 'de', '100 % erledigt')).response.status, 200);
  const v = (await publish(p, { incompleteMode: 'skip' })).data!;
  t.deepEqual(v.icuRejected.slice().sort(), ['files [de]', 'photos [pl]', 'shared [de]']);
  t.is(v.icuRejectedTotal, 3);
});

test.serial(
  'a pair the engine refused reads failed with the reason and is not queued again by push or sync',
  async (t) => {
    const p = await createTestProject(openai, { languages: [{ code: 'de' }, { code: 'fr' }], creditsMc: 100_000 });
    fake.setHandler(dropsLld);
    const units = [{ source: '%lld files left', key: 'files.left' }, { source: 'Hello' }];
    const first = await push(p, units);
    await runDue(openai);
    const poll = (await pollJob(p.client, p.projectId, first.trackingToken!)).data!;
    t.like(poll, { status: 'done', summary: { total: 4, translated: 2, failed: 2, pending: 0 } });
    const read = (await readKey(p.client, p.projectId, 'files.left')).data!.translations;
    for (const lang of ['de', 'fr']) {
      t.is(read[lang]?.status, 'failed');
      t.regex(read[lang]?.reason ?? '', /^tokens: ⟦1⟧ \(%lld\) is missing;/);
      t.is(read[lang]?.value, undefined);
    }
    t.deepEqual((await readKey(p.client, p.projectId, 'files.left', 'de')).data!.translations, {
      de: { status: 'failed', reason: read.de.reason },
    });
    const credits = await workspace(openai, p);
    const asked = fake.requests.length;

    // The same push again: nothing queued, nothing estimated, nothing held, the engine not asked.
    t.like((await previewTranslate(p.client, p.projectId, { units })).data, { estimatedCredits: 0 });
    const again = await push(p, units);
    t.is(again.trackingToken, null);
    t.is(again.estimatedCredits, 0);
    t.deepEqual(again.units[0], { ...again.units[0], outcome: 'matched', translated: [], pending: [] });
    // The same source through a sync: matched, not queued or estimated either.
    const file = jsonFile({ files: { left: '%lld files left' }, hello: 'Hello' });
    t.like((await previewSync(p.client, p.projectId, file)).data, { estimatedCredits: 0 });
    const synced = (await sync(p.client, p.projectId, file)).data!;
    t.like(synced, { estimatedCredits: 0, trackingToken: null });
    await runDue(openai);
    t.is(fake.requests.length, asked);
    t.deepEqual(await workspace(openai, p), credits);
    t.is((await readKey(p.client, p.projectId, 'files.left', 'fr')).data!.translations.fr?.status, 'failed');

    // A changed source is a new question: queued, estimated, and (the model fixed) translated.
    fake.setHandler(translateAll((item) => `DE ${item.source}`));
    const edited = await push(p, [{ source: '%lld files remaining', previousSource: '%lld files left' }]);
    t.like(edited.units[0], { key: 'files.left', outcome: 'carriedOver', pending: ['de', 'fr'] });
    t.true(edited.estimatedCredits > 0);
    t.truthy(edited.trackingToken);
    // Queued again, it reads pending (the old reason is gone), then translated.
    t.deepEqual((await readKey(p.client, p.projectId, 'files.left', 'de')).data!.translations.de, {
      status: 'pending',
    });
    await runDue(openai);
    t.deepEqual((await readKey(p.client, p.projectId, 'files.left', 'de')).data!.translations.de, {
      status: 'translated',
      value: 'DE %lld files remaining',
    });
  },
);

test.serial('a failed pair of a synced key is queued again when a sync changes its source', async (t) => {
  const p = await createTestProject(openai, { languages: [{ code: 'de' }], creditsMc: 100_000 });
  fake.setHandler(dropsLld);
  const v1 = jsonFile({ items: '%lld items' });
  const first = (await sync(p.client, p.projectId, v1)).data!;
  t.truthy(first.trackingToken);
  await runDue(openai);
  t.like((await readKey(p.client, p.projectId, 'items', 'de')).data!.translations.de, { status: 'failed' });
  const same = (await sync(p.client, p.projectId, v1)).data!;
  t.like(same, { estimatedCredits: 0, trackingToken: null });
  const changed = (await sync(p.client, p.projectId, jsonFile({ items: '%lld things' }))).data!;
  t.true(changed.estimatedCredits > 0);
  t.truthy(changed.trackingToken);
  t.deepEqual((await readKey(p.client, p.projectId, 'items', 'de')).data!.translations.de, { status: 'pending' });
});

test.serial(
  'a failure of the engine as a whole reads failed with its reason, and the next push retries it',
  async (t) => {
    const p = await createTestProject(openai, { languages: [{ code: 'de' }], creditsMc: 100_000 });
    fake.setHandler(() => ({ status: 401, json: { error: { message: 'bad key' } } }));
    await push(p, [{ source: 'Later', key: 'later' }]);
    await runDue(openai);
    const read = (await readKey(p.client, p.projectId, 'later', 'de')).data!.translations.de;
    t.is(read?.status, 'failed');
    t.regex(read?.reason ?? '', /the engine failed: .*401.*bad key/);
    fake.setHandler(translateAll((item) => `DE ${item.source}`));
    const again = await push(p, [{ source: 'Later', key: 'later' }]);
    t.truthy(again.trackingToken);
    await runDue(openai);
    t.deepEqual((await readKey(p.client, p.projectId, 'later', 'de')).data!.translations.de, {
      status: 'translated',
      value: 'DE Later',
    });
  },
);

// A person's retry (the dashboard's "retry failed fills"): POST /internal/v1/projects/{projectId}/keys/{key}/retry.
const retry = (svc: TestService, p: TestProject, key: string, langs?: string[]) =>
  svc.admin.POST('/projects/{projectId}/keys/{key}/retry', {
    params: { path: { projectId: p.projectId, key } },
    ...(langs ? { body: { langs } } : {}),
  });
const readLang = async (p: TestProject, key: string, lang: string) =>
  (await readKey(p.client, p.projectId, key, lang)).data!.translations[lang];

test.serial(
  'a person retries a failed pair: queued and held as a push queues it, then translated; other pairs untouched',
  async (t) => {
    const p = await createTestProject(openai, { languages: [{ code: 'de' }, { code: 'fr' }], creditsMc: 100_000 });
    fake.setHandler(dropsLld);
    await push(p, [
      { source: '%lld files left', key: 'files.left' },
      { source: 'Hello', key: 'hello' },
    ]);
    await runDue(openai);
    const reason = (await readLang(p, 'files.left', 'de'))?.reason;
    t.regex(reason ?? '', /^tokens: ⟦1⟧ \(%lld\) is missing;/);
    fake.setHandler(translateAll((item) => `DE ${item.source}`));
    const asked = fake.requests.length;
    const before = await workspace(openai, p);

    // Nothing failed: nothing queued, held or asked.
    const none = await retry(openai, p, 'hello');
    t.is(none.response.status, 200);
    t.like(none.data, { key: 'hello', queued: [], trackingToken: null, estimatedCredits: 0 });
    // Refusals name what is wrong.
    t.like((await retry(openai, p, 'no.such.key')).error, { error: 'not_found' });
    t.is((await retry(openai, p, 'no.such.key')).response.status, 404);
    const unknownLang = await retry(openai, p, 'files.left', ['xx']);
    t.is(unknownLang.response.status, 400);
    t.like(unknownLang.error, { error: 'invalid_argument', message: 'xx is not a language of this project.' });
    t.is((await retry(openai, p, 'files.left', ['en'])).response.status, 400);
    t.deepEqual(await workspace(openai, p), before);
    t.like(await readLang(p, 'files.left', 'de'), { status: 'failed', reason });

    // German only: its failure is gone, the push's estimate (one mc per source character) is held.
    const de = await retry(openai, p, 'files.left', ['de']);
    t.is(de.response.status, 200);
    const cost = [...'%lld files left'].length;
    t.like(de.data, { key: 'files.left', queued: ['de'], estimatedCredits: cost, balance: before.balance - cost });
    t.regex(de.data!.trackingToken ?? '', /^trk_/);
    t.deepEqual(await workspace(openai, p), { balance: before.balance, held: before.held + cost });
    t.deepEqual(await readLang(p, 'files.left', 'de'), { status: 'pending' });
    t.like(await readLang(p, 'files.left', 'fr'), { status: 'failed', reason });
    // Asked again while in flight: nothing failed any more in German, nothing queued twice.
    t.like((await retry(openai, p, 'files.left', ['de'])).data, { queued: [], trackingToken: null });

    await runDue(openai);
    t.like((await pollJob(p.client, p.projectId, de.data!.trackingToken!)).data, {
      status: 'done',
      summary: { total: 1, translated: 1, failed: 0, pending: 0 },
    });
    t.deepEqual(await readLang(p, 'files.left', 'de'), { status: 'translated', value: 'DE %lld files left' });
    t.like(await readLang(p, 'files.left', 'fr'), { status: 'failed', reason });
    t.deepEqual(await workspace(openai, p), { balance: before.balance - cost, held: before.held });
    t.is(fake.requests.length, asked + 1);

    // No languages named: every failed one (French), never the translated German.
    const rest = (await retry(openai, p, 'files.left')).data!;
    t.like(rest, { queued: ['fr'], estimatedCredits: cost });
    await runDue(openai);
    t.deepEqual(await readLang(p, 'files.left', 'fr'), { status: 'translated', value: 'DE %lld files left' });
    t.deepEqual(await readLang(p, 'files.left', 'de'), { status: 'translated', value: 'DE %lld files left' });
    t.like((await retry(openai, p, 'files.left')).data, { queued: [], trackingToken: null });
  },
);

test.serial('a retry that fails again reads failed with its reason, and the next push leaves it alone', async (t) => {
  const p = await createTestProject(openai, { languages: [{ code: 'de' }], creditsMc: 100_000 });
  fake.setHandler(dropsLld);
  const units = [{ source: '%lld items', key: 'items' }];
  await push(p, units);
  await runDue(openai);
  t.like(await readLang(p, 'items', 'de'), { status: 'failed' });
  const again = (await retry(openai, p, 'items')).data!;
  t.like(again, { queued: ['de'] });
  const asked = fake.requests.length;
  await runDue(openai);
  t.true(fake.requests.length > asked, 'the engine was asked again');
  t.like((await pollJob(p.client, p.projectId, again.trackingToken!)).data, {
    status: 'done',
    summary: { total: 1, translated: 0, failed: 1 },
  });
  t.deepEqual(await readLang(p, 'items', 'de'), {
    status: 'failed',
    reason: 'tokens: ⟦1⟧ (%lld) is missing; keep every ⟦n⟧ exactly as in the source',
  });
  const credits = await workspace(openai, p);
  const pushed = await push(p, units);
  t.like(pushed, { trackingToken: null, estimatedCredits: 0 });
  t.like(pushed.units[0], { outcome: 'matched', translated: [], pending: [] });
  t.deepEqual(await workspace(openai, p), credits);
});

test.serial(
  'a retry spends like a push: without credits it meets the push refusal and changes nothing; a switched-off key queues nothing',
  async (t) => {
    const p = await createTestProject(openai, { languages: [{ code: 'de' }], creditsMc: 100_000 });
    fake.setHandler(dropsLld);
    await push(p, [{ source: '%lld pages', key: 'pages' }]);
    await runDue(openai);
    const failed = await readLang(p, 'pages', 'de');
    t.like(failed, { status: 'failed' });
    fake.setHandler(translateAll((item) => `DE ${item.source}`));
    const setCredits = (creditsMc: number) =>
      openai.admin.PATCH('/workspaces/{workspaceId}', {
        params: { path: { workspaceId: p.workspaceId } },
        body: { creditsMc },
      });
    t.is((await setCredits(0)).response.status, 200);

    const pushed = await translate(p.client, p.projectId, { units: [{ source: 'Fresh', key: 'fresh' }] });
    t.is(pushed.response.status, 402);
    const retried = await retry(openai, p, 'pages');
    t.is(retried.response.status, 402);
    t.deepEqual(retried.error, {
      error: 'insufficient_credits',
      message: `The estimate (${[...'%lld pages'].length} mc) exceeds the available balance (0 mc).`,
      availableCredits: 0,
    });
    t.is(retried.error?.error, pushed.error?.error);
    // Refused, the pair keeps its failure and a push still leaves it alone.
    t.deepEqual(await readLang(p, 'pages', 'de'), failed);
    t.like(await push(p, [{ source: '%lld pages', key: 'pages' }]), { trackingToken: null, estimatedCredits: 0 });
    t.deepEqual(await workspace(openai, p), { balance: 0, held: 0 });

    t.is((await setCredits(100_000)).response.status, 200);
    const off = await openai.admin.PATCH('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: p.projectId, key: 'pages' } },
      body: { enabled: false },
    });
    t.is(off.response.status, 200);
    t.like((await retry(openai, p, 'pages')).data, { queued: [], trackingToken: null, disabled: true });
    await openai.admin.PATCH('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: p.projectId, key: 'pages' } },
      body: { enabled: true },
    });
    t.like((await retry(openai, p, 'pages')).data, { queued: ['de'] });
    await runDue(openai);
    t.deepEqual(await readLang(p, 'pages', 'de'), { status: 'translated', value: 'DE %lld pages' });
  },
);

test.serial('a retry needs an engine, as a push does', async (t) => {
  const none = await startTestService({ TRANSLATION_ENGINE: 'none' });
  try {
    const p = await createTestProject(none, { languages: [{ code: 'de' }] });
    const r = await retry(none, p, 'anything');
    t.is(r.response.status, 503);
    t.like(r.error, { error: 'unavailable' });
  } finally {
    await none.stop();
  }
});
