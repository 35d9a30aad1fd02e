// POST /languages, POST /output-formats and DELETE /output-formats/{format}, rule by rule (spec: `addLanguage`,
// `addOutputFormat`, `removeOutputFormat`), with the project.updated event written in the same transaction as a change
// and never for a no-op.
import test from 'ava';
import type { components } from '../../generated/openapi.js';
import { translate } from '../../packages/client/src/index.js';
import {
  createTestKey,
  createTestProject,
  publishSkipping,
  pullText,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { hostile } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const addLang = (p: TestProject, body: components['schemas']['AddLanguageRequest']) =>
  p.client.POST('/projects/{projectId}/languages', { params: { path: { projectId: p.projectId } }, body });
const addFormat = (p: TestProject, body: components['schemas']['AddOutputFormatRequest']) =>
  p.client.POST('/projects/{projectId}/output-formats', { params: { path: { projectId: p.projectId } }, body });
const removeFormat = (p: TestProject, format: components['schemas']['AddOutputFormatRequest']['format']) =>
  p.client.DELETE('/projects/{projectId}/output-formats/{format}', {
    params: { path: { projectId: p.projectId, format } },
  });
const project = async (p: TestProject) =>
  (await svc.admin.GET('/projects/{projectId}', { params: { path: { projectId: p.projectId } } })).data!;
const events = async (p: TestProject) =>
  (await svc.admin.GET('/projects/{projectId}/events', { params: { path: { projectId: p.projectId } } })).data!.events;

test('a language code is normalized to lowercase with hyphens', async (t) => {
  const p = await createTestProject(svc);
  const r = await addLang(p, { code: 'PT_BR' });
  t.is(r.response.status, 201);
  t.deepEqual(r.data, { code: 'pt-br', isBase: false, fillMode: 'ai' });
  const zh = await addLang(p, { code: 'zh_Hant', fillMode: 'manual' });
  t.deepEqual(zh.data, { code: 'zh-hant', isBase: false, fillMode: 'manual' });
  const langs = (await project(p)).languages.map((l) => l.code);
  t.true(langs.includes('pt-br') && langs.includes('zh-hant'));
  t.is((await events(p)).filter((e) => e.type === 'project.updated').length, 2);
});

test('invalid codes and the base language are 400 invalid_argument and write nothing', async (t) => {
  const p = await createTestProject(svc, { baseLang: 'en' });
  for (const code of ['', 'not a code', 'x'.repeat(40), 'EN', 'en']) {
    const r = await addLang(p, { code });
    t.is(r.response.status, 400, code);
    t.is(r.error?.error, 'invalid_argument');
  }
  for (const body of [{}, { code: 7 }, { code: 'it', fillMode: 'auto' }, { code: 'it', extra: 1 }]) {
    const r = await addLang(p, hostile(body)); // deliberately invalid bodies
    t.is(r.response.status, 400, JSON.stringify(body));
  }
  t.deepEqual((await project(p)).languages.map((l) => l.code).sort(), ['de', 'en', 'fr']);
  t.deepEqual(await events(p), []);
});

test('re-adding a live language keeps its mode and writes nothing; naming another mode changes only the mode', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  const same = await addLang(p, { code: 'de' });
  t.is(same.response.status, 201);
  t.deepEqual(same.data, { code: 'de', isBase: false, fillMode: 'manual' });
  const sameMode = await addLang(p, { code: 'DE', fillMode: 'manual' });
  t.deepEqual(sameMode.data, { code: 'de', isBase: false, fillMode: 'manual' });
  t.deepEqual(await events(p), [], 'no event for a no-op');
  const changed = await addLang(p, { code: 'de', fillMode: 'ai' });
  t.deepEqual(changed.data, { code: 'de', isBase: false, fillMode: 'ai' });
  const ev = await events(p);
  t.is(ev.length, 1);
  t.is(ev[0].type, 'project.updated');
  t.like(ev[0].payload, { change: 'language.fill_mode', code: 'de', fillMode: 'ai' });
});

test('re-adding a removed language revives it with the named mode, default ai', async (t) => {
  const p = await createTestProject(svc, {
    languages: [
      { code: 'de', fillMode: 'manual' },
      { code: 'fr', fillMode: 'manual' },
    ],
  });
  for (const code of ['de', 'fr']) {
    const del = await svc.admin.DELETE('/projects/{projectId}/languages/{code}', {
      params: { path: { projectId: p.projectId, code } },
    });
    t.is(del.response.status, 204);
  }
  const meta = await p.client.GET('/projects/{projectId}/meta', { params: { path: { projectId: p.projectId } } });
  t.deepEqual(
    meta.data!.languages.map((l) => l.code),
    ['en'],
  );
  const de = await addLang(p, { code: 'de' });
  t.deepEqual(de.data, { code: 'de', isBase: false, fillMode: 'ai' });
  const fr = await addLang(p, { code: 'fr', fillMode: 'manual' });
  t.deepEqual(fr.data, { code: 'fr', isBase: false, fillMode: 'manual' });
  const langs = (await project(p)).languages;
  t.deepEqual(
    langs
      .filter((l) => !l.removed)
      .map((l) => l.code)
      .sort(),
    ['de', 'en', 'fr'],
  );
  t.deepEqual((await events(p)).map((e) => e.payload.change).sort(), ['language.revived', 'language.revived']);
});

test('concurrent adds of one new language store it once with one event', async (t) => {
  const p = await createTestProject(svc);
  const results = await Promise.all(Array.from({ length: 10 }, () => addLang(p, { code: 'it' })));
  t.true(results.every((r) => r.response.status === 201 && r.data!.code === 'it'));
  t.is((await project(p)).languages.filter((l) => l.code === 'it').length, 1);
  t.is((await events(p)).length, 1);
});

test('output formats: add preserves configured ids, a configured id is a no-op, at most two', async (t) => {
  const p = await createTestProject(svc);
  const a = await addFormat(p, { format: 'json' });
  t.is(a.response.status, 200);
  t.deepEqual(a.data, { formats: ['json'], created: true });
  const again = await addFormat(p, { format: 'json', mode: 'add' });
  t.deepEqual(again.data, { formats: ['json'], created: false });
  const b = await addFormat(p, { format: 'po' });
  t.deepEqual(b.data, { formats: ['json', 'po'], created: true });
  const c = await addFormat(p, { format: 'arb' });
  t.is(c.response.status, 409);
  t.is(c.error?.error, 'too_many_formats');
  const noop = await addFormat(p, { format: 'po' });
  t.deepEqual(noop.data, { formats: ['json', 'po'], created: false });
  const ev = await events(p);
  t.is(ev.length, 2, 'one event per change, none for no-ops or refusals');
  t.deepEqual(
    ev.map((e) => e.payload.outputFormats),
    [['json', 'po'], ['json']],
  );
});

test('an already configured id is a no-op even in a legacy list over the cap', async (t) => {
  const p = await createTestProject(svc);
  await svc.service.app
    .db('projects')
    .where({ id: p.projectId })
    .update({ output_formats: JSON.stringify(['i18next', 'json', 'po']) });
  const r = await addFormat(p, { format: 'json' });
  t.deepEqual(r.data, { formats: ['i18next', 'json', 'po'], created: false });
  const over = await addFormat(p, { format: 'arb' });
  t.is(over.error?.error, 'too_many_formats');
  t.deepEqual(await events(p), []);
});

test('adopt permits only an empty effective list or an already effective id', async (t) => {
  const p = await createTestProject(svc);
  const first = await addFormat(p, { format: 'xcstrings', mode: 'adopt' });
  t.deepEqual(first.data, { formats: ['xcstrings'], created: true });
  const same = await addFormat(p, { format: 'xcstrings', mode: 'adopt' });
  t.deepEqual(same.data, { formats: ['xcstrings'], created: false });
  const other = await addFormat(p, { format: 'android_xml', mode: 'adopt' });
  t.is(other.response.status, 409);
  t.is(other.error?.error, 'output_format_conflict');
  t.is((await events(p)).length, 1);
});

test('unknown or empty format ids are 400 invalid_format; a bad mode is invalid_argument', async (t) => {
  const p = await createTestProject(svc);
  for (const body of [{ format: 'yaml' }, { format: '' }, {}, { format: 3 }]) {
    const r = await addFormat(p, hostile(body)); // deliberately invalid format ids
    t.is(r.response.status, 400, JSON.stringify(body));
    t.is(r.error?.error, 'invalid_format', JSON.stringify(body));
  }
  const m = await addFormat(p, { format: 'json', mode: hostile('replace') }); // deliberately not a mode
  t.is(m.error?.error, 'invalid_argument');
  t.deepEqual((await project(p)).outputFormats, []);
});

test('concurrent adds of different formats never exceed two, with one event per stored change', async (t) => {
  const p = await createTestProject(svc);
  const formats = ['json', 'po', 'arb', 'xcstrings', 'android_xml', 'ios_strings'] as const;
  const results = await Promise.all(formats.map((format) => addFormat(p, { format })));
  const stored = (await project(p)).outputFormats;
  t.is(stored.length, 2);
  t.is(results.filter((r) => r.data?.created).length, 2);
  for (const r of results.filter((x) => x.error))
    t.true(['too_many_formats', 'output_config_conflict'].includes(r.error!.error));
  t.is((await events(p)).length, 2);
});

test('removing a format: the rest stay, a format not there is a no-op, the last one stays', async (t) => {
  const p = await createTestProject(svc);
  await addFormat(p, { format: 'json' });
  await addFormat(p, { format: 'po' });
  const r = await removeFormat(p, 'json');
  t.is(r.response.status, 200);
  t.deepEqual(r.data, { formats: ['po'], removed: true });
  t.deepEqual((await removeFormat(p, 'json')).data, { formats: ['po'], removed: false });
  const last = await removeFormat(p, 'po');
  t.is(last.response.status, 409);
  t.is(last.error?.error, 'last_output_format');
  // With room again, a format replaces another: add the new one, then remove the old.
  t.deepEqual((await addFormat(p, { format: 'arb' })).data, { formats: ['po', 'arb'], created: true });
  t.deepEqual((await removeFormat(p, 'po')).data, { formats: ['arb'], removed: true });
  t.deepEqual((await project(p)).outputFormats, ['arb']);
  const ev = (await events(p)).filter((e) => e.payload.change === 'output_formats');
  t.deepEqual(
    ev.map((e) => e.payload.outputFormats),
    [['arb'], ['po', 'arb'], ['po'], ['json', 'po'], ['json']],
    'one event per change, none for the no-op or the refusal',
  );
});

test('removing a format while none is configured keeps the rest of the published ones; pulls still answer it', async (t) => {
  const p = await createTestProject(svc);
  await addFormat(p, { format: 'json' });
  await addFormat(p, { format: 'po' });
  await translate(p.client, p.projectId, { units: [{ key: 'hello', source: 'Hello' }] });
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  const version = await publishSkipping(p);
  // A project from before formats were configured: the effective list is what its versions were published with.
  await svc.service.app.db('projects').where({ id: p.projectId }).update({ output_formats: '[]' });
  t.deepEqual((await removeFormat(p, 'json')).data, { formats: ['po'], removed: true });
  t.deepEqual((await project(p)).outputFormats, ['po']);
  // The version published with json still gives its json file to a pull that names it.
  t.regex(await pullText(svc, p, version, 'json', 'de'), /"hello"/);
});

test('removing: an unknown id is 400 invalid_format, a read-only key 403, and nothing changes', async (t) => {
  const p = await createTestProject(svc);
  await addFormat(p, { format: 'json' });
  await addFormat(p, { format: 'po' });
  const unknown = await removeFormat(p, hostile('yaml')); // deliberately not a format
  t.is(unknown.response.status, 400);
  t.is(unknown.error?.error, 'invalid_format');
  const reader = svc.client(await createTestKey(svc, p.projectId, ['read']));
  const refused = await reader.DELETE('/projects/{projectId}/output-formats/{format}', {
    params: { path: { projectId: p.projectId, format: 'json' } },
  });
  t.is(refused.response.status, 403);
  t.deepEqual((await project(p)).outputFormats, ['json', 'po']);
});

test('meta names the project, its languages, output formats and delivery address', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'ja', fillMode: 'manual' }] });
  await addFormat(p, { format: 'arb' });
  const r = await p.client.GET('/projects/{projectId}/meta', { params: { path: { projectId: p.projectId } } });
  t.is(r.response.status, 200);
  const m = r.data!;
  t.is(m.projectId, p.projectId);
  t.is(m.baseLang, 'en');
  t.deepEqual(m.languages, [
    { code: 'en', isBase: true, fillMode: 'ai' },
    { code: 'de', isBase: false, fillMode: 'ai' },
    { code: 'ja', isBase: false, fillMode: 'manual' },
  ]);
  t.deepEqual(m.content, { enabled: false });
  t.is(m.deliveryHost, null);
  t.is(m.deliveryUrl, `${svc.service.app.config.publicDeliveryUrl}/projects/${p.projectId}`);
  t.deepEqual(m.outputFormats, ['arb']);
  t.is(m.currentVersion, null);
  await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { deliveryHost: 'cdn.example.com', contentEnabled: true },
  });
  const after = (await p.client.GET('/projects/{projectId}/meta', { params: { path: { projectId: p.projectId } } }))
    .data!;
  t.is(after.deliveryHost, 'cdn.example.com');
  t.is(after.deliveryUrl, 'https://cdn.example.com/v1');
  t.deepEqual(after.content, { enabled: true });
});
