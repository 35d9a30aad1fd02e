// A project's check settings (internal.yaml `CheckSettings`, docs/guides/checks.md): severities per project and per
// language, a custom regular-expression check, refused whole when it cannot run; stored results follow them once
// the background re-check has run (on worker threads here: PUBLISH_INLINE_KEYS=0), and follow the output formats
// too. Publishing counts the cells of each severity, leaves out those with an error only when the project asks, and
// a restore counts what it copies.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import {
  createTestProject,
  publishSkipping,
  pullText,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { errorOf, type InternalSchemas, type Schemas } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService({ PUBLISH_INLINE_KEYS: '0', CHECK_THREADS: '1' });
});
test.after.always(async () => {
  await svc?.stop();
});

type Settings = InternalSchemas['CheckSettings'];

/** The live translations of a key with their check results (`GET /translations?ref=&checks=true`). */
async function readKey(client: TestProject['client'], projectId: string, ref: string, lang?: string) {
  const r = await client.GET('/projects/{projectId}/translations', {
    params: { path: { projectId }, query: { ref, checks: 'true', ...(lang ? { lang } : {}) } },
  });
  return { data: r.data as Schemas['KeyTranslations'] | undefined, response: r.response };
}

const runDue = (p: TestProject) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
const path = (p: TestProject) => ({ path: { projectId: p.projectId } });
const put = (p: TestProject, body: Settings) =>
  svc.admin.PUT('/projects/{projectId}/checks/settings', { params: path(p), body });
const get = async (p: TestProject) =>
  (await svc.admin.GET('/projects/{projectId}/checks/settings', { params: path(p) })).data!;
const edit = (p: TestProject, key: string, lang: string, value: string) =>
  svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key, lang } },
    body: { value },
  });
const cellChecks = async (p: TestProject, key: string, lang: string) =>
  ((await readKey(p.client, p.projectId, key, lang)).data!.translations[lang].checks ?? []).map(
    (c) => `${c.check}:${c.severity}`,
  );

/** A project of de and fr (manual) whose `save` key says `Save changes.` and both cells lose the full stop. */
async function project(): Promise<TestProject> {
  const p = await createTestProject(svc, {
    languages: [
      { code: 'de', fillMode: 'manual' },
      { code: 'fr', fillMode: 'manual' },
    ],
  });
  await translate(p.client, p.projectId, {
    units: [
      { key: 'save', source: 'Save changes.' },
      { key: 'settings.title', source: 'Click here' },
    ],
    langs: [],
  });
  await edit(p, 'save', 'de', 'Änderungen speichern');
  await edit(p, 'save', 'fr', 'Enregistrer les modifications');
  await edit(p, 'settings.title', 'de', 'Hier klicken');
  await edit(p, 'settings.title', 'fr', 'Cliquez ici');
  return p;
}

test('severities per project and per language change the stored results once the background re-check has run', async (t) => {
  const p = await project();
  t.deepEqual(await cellChecks(p, 'save', 'de'), ['end-stop:warning']);
  t.deepEqual(await get(p), { settings: {}, checking: false });

  const r = await put(p, {
    severity: { 'end-stop': 'error' },
    languages: { fr: { severity: { 'end-stop': 'info' } } },
  });
  t.is(r.response.status, 200);
  t.deepEqual(r.data, {
    settings: { severity: { 'end-stop': 'error' }, languages: { fr: { severity: { 'end-stop': 'info' } } } },
    checking: true,
  });
  // Until the job runs, the stored results are the earlier settings', and the list says a re-check is due.
  t.deepEqual(await cellChecks(p, 'save', 'de'), ['end-stop:warning']);
  t.true((await p.client.GET('/projects/{projectId}/checks', { params: path(p) })).data!.checking);
  await runDue(p);
  t.false((await get(p)).checking);
  t.deepEqual(await cellChecks(p, 'save', 'de'), ['end-stop:error']);
  t.deepEqual(await cellChecks(p, 'save', 'fr'), ['end-stop:info']);
  const listed = (await p.client.GET('/projects/{projectId}/checks', { params: path(p) })).data!;
  t.deepEqual(listed.totals, { error: 1, warning: 0, info: 1 });
  t.false(listed.checking);
  // A value written after the change is checked with it at once.
  await edit(p, 'save', 'de', 'Speichern');
  t.deepEqual(await cellChecks(p, 'save', 'de'), ['end-stop:error']);

  // A check switched off in one language.
  await put(p, { disabled: [], languages: { de: { disabled: ['end-stop'] } } });
  await runDue(p);
  t.deepEqual(await cellChecks(p, 'save', 'de'), []);
  t.deepEqual(await cellChecks(p, 'save', 'fr'), ['end-stop:warning']);
  // Switched on again: it runs again (the change is more than a severity, so every cell is checked anew).
  await put(p, {});
  await runDue(p);
  t.deepEqual(await cellChecks(p, 'save', 'de'), ['end-stop:warning']);
  t.deepEqual((await p.client.GET('/projects/{projectId}/checks', { params: path(p) })).data!.totals, {
    error: 0,
    warning: 2,
    info: 0,
  });
});

test('a custom regular-expression check runs on every cell of its languages, with its spans', async (t) => {
  const p = await project();
  const custom: Settings['custom'] = [
    {
      id: 'no-click',
      name: 'Say tap, not click',
      pattern: 'kli?ck|cliqu',
      mode: 'must-not-match',
      severity: 'error',
      caseInsensitive: true,
      languages: ['de'],
    },
    {
      id: 'no-here',
      name: 'Links say where they go',
      pattern: '\\bhere\\b',
      mode: 'must-not-match',
      severity: 'warning',
      on: 'source',
    },
  ];
  t.is((await put(p, { custom })).response.status, 200);
  await runDue(p);
  const de = (await readKey(p.client, p.projectId, 'settings.title', 'de')).data!.translations.de.checks!;
  t.like(
    de.find((c) => c.check === 'custom:no-click'),
    { severity: 'error', spans: [{ start: 5, end: 10 }], message: 'Say tap, not click: matches "klick"' },
  );
  t.false(
    ((await readKey(p.client, p.projectId, 'settings.title', 'fr')).data!.translations.fr.checks ?? []).some(
      (c) => c.check === 'custom:no-click',
    ),
    'de only',
  );
  const source = await p.client.GET('/projects/{projectId}/checks', {
    params: { ...path(p), query: { check: 'custom:no-here' } },
  });
  t.deepEqual(
    source.data!.results.map((r) => [r.key, r.lang, r.field, r.text]),
    [['settings.title', 'en', 'source', 'Click here']],
  );
  // An error of a custom check blocks approval like any other.
  const approve = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: 'settings.title', lang: 'de' } },
    body: { status: 'approved' },
  });
  t.is(approve.response.status, 409);
  t.regex(errorOf(approve)!.message, /custom:no-click/);
  // A value pushed now is checked with it: a key's source too.
  await translate(p.client, p.projectId, { units: [{ key: 'more', source: 'More here' }], langs: [] });
  const more = await p.client.GET('/projects/{projectId}/checks', {
    params: { ...path(p), query: { check: 'custom:no-here', lang: 'en' } },
  });
  t.deepEqual(
    more.data!.results.map((r) => r.key),
    ['settings.title', 'more'],
  );
});

test('settings that cannot run are refused whole with a clear 400, and nothing is written', async (t) => {
  const p = await project();
  await put(p, { severity: { 'end-stop': 'error' } });
  await runDue(p);
  const before = await get(p);
  const refusals: Array<[Settings, RegExp]> = [
    [
      { custom: [{ id: 'no-click', name: 'No click', pattern: '(klick', mode: 'must-not-match', severity: 'error' }] },
      /custom check no-click: invalid pattern: .*missing closing \)/,
    ],
    [
      { custom: [{ id: 'look', name: 'Lookahead', pattern: 'a(?=b)', mode: 'must-match', severity: 'info' }] },
      /custom check look: invalid pattern/,
    ],
    [{ severity: { 'no-such-check': 'error' } }, /there is no check "no-such-check"/],
    [{ disabled: ['end-stop', 'nope'] }, /disabled: there is no check "nope"/],
    [{ languages: { ja: { severity: { 'end-stop': 'info' } } } }, /languages: ja is not a language of this project/],
    [{ severity: { 'custom:x': 'error' } }, /custom:x is a custom check/],
    [
      {
        custom: [
          { id: 'twice', name: 'A', pattern: 'a', mode: 'must-match', severity: 'info' },
          { id: 'twice', name: 'B', pattern: 'b', mode: 'must-match', severity: 'info' },
        ],
      },
      /the id is used twice/,
    ],
  ];
  for (const [body, message] of refusals) {
    const r = await put(p, body);
    t.is(r.response.status, 400, JSON.stringify(body));
    t.is(errorOf(r)!.error, 'invalid_argument');
    t.regex(errorOf(r)!.message, message);
  }
  // Refused by the schema before the handler: an unknown field, a severity that is none.
  const unknown = await svc.admin.PUT('/projects/{projectId}/checks/settings', {
    params: path(p),
    body: { severity: { 'end-stop': 'fatal' } } as unknown as Settings,
  });
  t.is(unknown.response.status, 400);
  t.deepEqual(await get(p), before, 'the settings as they were, no re-check queued');
  t.deepEqual(await cellChecks(p, 'save', 'de'), ['end-stop:error']);
});

test('an output format added re-checks the key names for it', async (t) => {
  const p = await project();
  t.deepEqual(
    (await p.client.GET('/projects/{projectId}/checks', { params: { ...path(p), query: { check: 'key-android' } } }))
      .data!.results,
    [],
  );
  await p.client.POST('/projects/{projectId}/output-formats', { params: path(p), body: { format: 'android_xml' } });
  t.true((await get(p)).checking);
  await runDue(p);
  const r = (
    await p.client.GET('/projects/{projectId}/checks', { params: { ...path(p), query: { check: 'key-android' } } })
  ).data!;
  t.deepEqual(
    r.results.map((x) => [x.key, x.field, x.text]),
    [['settings.title', 'key', 'settings.title']],
  );
});

test('publish counts each severity, leaves out the cells with errors only when the project asks, and restore counts too', async (t) => {
  const p = await createTestProject(svc, {
    languages: [{ code: 'de', fillMode: 'manual' }],
  });
  await translate(p.client, p.projectId, {
    units: [
      // printf-order is an error the publish gates do not hold a value to: the cell is published, and counted.
      { key: 'greeting', source: '%s has %d files' },
      { key: 'save', source: 'Save changes.' },
      { key: 'open', source: 'Open' },
    ],
    langs: [],
  });
  await edit(p, 'greeting', 'de', '%d Dateien hat %s');
  await edit(p, 'save', 'de', 'Speichern');
  await edit(p, 'open', 'de', 'Öffnen');

  const first = await p.client.POST('/projects/{projectId}/publish', {
    params: path(p),
    body: { incompleteMode: 'skip' },
  });
  t.is(first.response.status, 201);
  t.deepEqual(first.data!.checks, { error: 1, warning: 1, info: 0 });
  t.false('checksBlocked' in first.data!, 'nothing is left out unless the project asks');
  t.regex(await pullText(svc, p, first.data!.versionId, 'json', 'de'), /Dateien hat/);

  await put(p, { blockPublishOnErrors: true });
  await runDue(p);
  const blocked = await p.client.POST('/projects/{projectId}/publish', {
    params: path(p),
    body: { incompleteMode: 'skip' },
  });
  t.is(blocked.response.status, 201);
  t.like(blocked.data, {
    checks: { error: 0, warning: 1, info: 0 },
    checksBlocked: ['greeting [de]'],
    checksBlockedTotal: 1,
  });
  const file = await pullText(svc, p, blocked.data!.versionId, 'json', 'de');
  t.notRegex(file, /Dateien/, 'the cell with an error is left out');
  t.regex(file, /Speichern/);
  // require_complete counts it as refused.
  const complete = await p.client.POST('/projects/{projectId}/publish', {
    params: path(p),
    body: { incompleteMode: 'skip', require_complete: true },
  });
  t.is(complete.response.status, 409);
  t.like(errorOf(complete), { error: 'fill_incomplete', refused: { icu: 0, markup: 0, checks: 1 } });

  // A restore copies the first version as it was, and counts what today's checks find in it.
  const restored = await p.client.POST('/projects/{projectId}/versions/{versionId}/restore', {
    params: { path: { projectId: p.projectId, versionId: first.data!.versionId } },
    body: {},
  });
  t.is(restored.response.status, 201);
  t.deepEqual(restored.data!.checks, { error: 1, warning: 1, info: 0 });
  t.regex(await pullText(svc, p, restored.data!.versionId, 'json', 'de'), /Dateien hat/);
  // A value the live project no longer holds is checked as today's checks read it.
  await edit(p, 'greeting', 'de', '%s hat %d Dateien');
  await put(p, {});
  await runDue(p);
  const again = await p.client.POST('/projects/{projectId}/versions/{versionId}/restore', {
    params: { path: { projectId: p.projectId, versionId: first.data!.versionId } },
    body: {},
  });
  t.deepEqual(again.data!.checks, { error: 1, warning: 1, info: 0 });
  t.is((await publishSkipping(p)).length > 0, true);
});
