// The translation memory through the API (docs/guides/memory.md): a value a person approved in one project fills
// the same source in another of the workspace at no charge (origin `memory`), placeholders renamed; an engine's
// value nobody reviewed never pre-translates; an isolated project neither gives nor takes; ctx caps a match at 99
// and a 101 needs the same key; the suggestions and leverage routes, and what they refuse.
import test from 'ava';
import { previewTranslate, sync, translate } from '../../packages/client/src/index.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { errorOf, hostile, json, readKey, type ApiError, type Schemas } from '../helpers/typed.js';

let svc: TestService;

/** The answer's body, or a failure that says what the service answered instead. */
function ok<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) throw new Error(`${r.response.status}: ${JSON.stringify(r.error)}`);
  return r.data;
}
test.before(async () => {
  svc = await startTestService({ LOG_LEVEL: 'error' });
});
test.after.always(async () => {
  await svc?.stop();
});

const runDue = (projectId: string) => svc.admin.POST('/jobs/run-due', { body: { projectId } });

/** A second project in `p`'s workspace, with its own admin key. */
async function sibling(p: TestProject, languages = [{ code: 'de' }]): Promise<TestProject> {
  const made = await svc.admin.POST('/projects', {
    body: { workspaceId: p.workspaceId, name: 'Sibling', baseLang: 'en', languages },
  });
  const projectId = made.data!.projectId;
  const apiKey = await createTestKey(svc, projectId, ['admin']);
  return { projectId, workspaceId: p.workspaceId, apiKey, client: svc.client(apiKey) };
}

/** Pushes `units`, fills them with the engine (pseudo) and returns the key names. */
async function pushAndFill(p: TestProject, units: Array<{ source: string; ctx?: string; key?: string }>) {
  const r = ok(await translate(p.client, p.projectId, { units }));
  await runDue(p.projectId);
  return r.units.map((u) => u.key);
}

/** A person's value for the cell, approved (or `status`). */
async function approve(p: TestProject, key: string, lang: string, value?: string, status = 'approved' as const) {
  const r = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key, lang } },
    body: { ...(value ? { value } : {}), status },
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
}

async function cell(p: TestProject, key: string, lang: string) {
  const k = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key } },
  });
  return k.data!.cells.find((c) => c.lang === lang)!;
}

const balanceOf = async (workspaceId: string) =>
  Number((await svc.service.app.db('workspaces').where({ id: workspaceId }).first())!.balance_mc);

async function suggestions(p: TestProject, query: Record<string, string>) {
  const res = await fetch(`${svc.baseUrl}/projects/${p.projectId}/memory?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${p.apiKey}` },
  });
  return { status: res.status, body: await json<Schemas['MemorySuggestions'] & ApiError>(res) };
}

async function setMemory(
  p: TestProject,
  body: { memorySharing?: 'shared' | 'isolated' | 'off'; memoryPreTranslate?: boolean; memoryThreshold?: number },
) {
  const r = await svc.admin.PATCH('/projects/{projectId}', { params: { path: { projectId: p.projectId } }, body });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
}

test('a value approved in project A fills the same source in project B at once, at no charge, origin memory', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  const [key] = await pushAndFill(a, [{ source: 'Save your changes' }]);
  await approve(a, key, 'de', 'Änderungen speichern');
  const b = await sibling(a, [{ code: 'de' }, { code: 'fr' }]);
  const before = await balanceOf(a.workspaceId);

  // The dry run says the same as the push will.
  const preview = (await previewTranslate(b.client, b.projectId, { units: [{ source: 'Save your changes' }] })).data!;
  t.deepEqual(preview.units![0].translated, ['de']);
  t.deepEqual(preview.units![0].pending, ['fr']);
  t.is(preview.estimatedCredits, 'Save your changes'.length, 'only fr is estimated');

  const pushed = ok(await translate(b.client, b.projectId, { units: [{ source: 'Save your changes' }] }));
  t.deepEqual(pushed.units[0].translated, ['de']);
  t.deepEqual(pushed.units[0].pending, ['fr']);
  t.is(pushed.estimatedCredits, 'Save your changes'.length);
  const de = await cell(b, pushed.units[0].key, 'de');
  t.like(de, { value: 'Änderungen speichern', origin: 'memory', status: 'translated' });
  await runDue(b.projectId);
  t.is(await balanceOf(a.workspaceId), before - 'Save your changes'.length, 'only the fr fill was charged');
  // The memory's fill is in the cell's history, by `memory`.
  const detail = (
    await svc.admin.GET('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: b.projectId, key: pushed.units[0].key } },
    })
  ).data!;
  t.true(detail.history.some((h) => h.lang === 'de' && h.origin === 'memory' && h.by === 'memory'));
  // A push of the same again writes nothing new.
  const again = ok(await translate(b.client, b.projectId, { units: [{ source: 'Save your changes' }] }));
  t.is(again.trackingToken, null);
  t.deepEqual(again.units[0].translated.sort(), ['de', 'fr']);
});

test('Hello {user} is filled from Hello {name} with the placeholder renamed', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const [key] = await pushAndFill(a, [{ source: 'Hello {name}, welcome!' }]);
  await approve(a, key, 'de', 'Hallo {name}, willkommen!');
  const b = await sibling(a);
  const pushed = ok(await translate(b.client, b.projectId, { units: [{ source: 'hello  {user}, Welcome!' }] }));
  t.deepEqual(pushed.units[0].translated, ['de']);
  t.is(pushed.trackingToken, null);
  t.is(pushed.estimatedCredits, 0);
  const read = (await readKey(b.client, b.projectId, pushed.units[0].key, 'de')).data!;
  t.deepEqual(read.translations.de, { status: 'translated', value: 'Hallo {user}, willkommen!' });
  // The suggestion says the same, at 100.
  const s = await suggestions(b, { lang: 'de', source: 'Hello {person}, welcome!' });
  t.is(s.status, 200);
  t.like(s.body.matches[0], {
    score: 100,
    target: 'Hallo {person}, willkommen!',
    preTranslates: true,
    status: 'approved',
  });
});

test("an engine's value nobody reviewed never pre-translates; once reviewed it does", async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const [key] = await pushAndFill(a, [{ source: 'Machine words only' }]);
  t.like(await cell(a, key, 'de'), { origin: 'ai', status: 'translated' });
  const b = await sibling(a);
  const pushed = ok(await translate(b.client, b.projectId, { units: [{ source: 'Machine words only' }] }));
  t.deepEqual(pushed.units[0].pending, ['de']);
  t.true(pushed.estimatedCredits > 0);
  // It is still a suggestion, at 100, that does not pre-translate.
  const s = await suggestions(b, { lang: 'de', source: 'Machine words only' });
  t.like(s.body.matches[0], { score: 100, origin: 'ai', status: 'translated', preTranslates: false });
  // Reviewed by a person, it does.
  await approve(a, key, 'de', undefined, 'reviewed' as 'approved');
  const c = await sibling(a);
  const filled = ok(await translate(c.client, c.projectId, { units: [{ source: 'Machine words only' }] }));
  t.deepEqual(filled.units[0].translated, ['de']);
  t.is(filled.estimatedCredits, 0);
});

test('an isolated project neither gives nor takes; back to shared, its entries are shared again', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const iso = await sibling(a);
  const view = await setMemory(iso, { memorySharing: 'isolated' });
  t.is(view.memorySharing, 'isolated');
  const [isoKey] = await pushAndFill(iso, [{ source: 'Classified phrase for insiders' }]);
  await approve(iso, isoKey, 'de', 'Geheime Formulierung');
  const [aKey] = await pushAndFill(a, [{ source: 'Shared wording' }]);
  await approve(a, aKey, 'de', 'Geteilte Formulierung');

  // The shared project does not take the isolated one's.
  const b = await sibling(a);
  const fromIso = ok(await translate(b.client, b.projectId, { units: [{ source: 'Classified phrase for insiders' }] }));
  t.deepEqual(fromIso.units[0].pending, ['de']);
  t.deepEqual((await suggestions(b, { lang: 'de', source: 'Classified phrase for insiders' })).body.matches, []);
  // The isolated project does not take the shared one's, but reads its own.
  const intoIso = ok(await translate(iso.client, iso.projectId, { units: [{ source: 'Shared wording' }] }));
  t.deepEqual(intoIso.units[0].pending, ['de']);
  const own = ok(
    await translate(iso.client, iso.projectId, {
      units: [{ source: 'classified phrase  for insiders', key: 'again' }],
    }),
  );
  t.deepEqual(own.units[0].translated, ['de'], 'its own memory');

  // Shared again: what it wrote is the workspace's.
  await setMemory(iso, { memorySharing: 'shared' });
  const c = await sibling(a);
  const now = ok(await translate(c.client, c.projectId, { units: [{ source: 'Classified phrase for insiders' }] }));
  t.deepEqual(now.units[0].translated, ['de']);
  t.is((await cell(c, now.units[0].key, 'de')).value, 'Geheime Formulierung');

  // Off: nothing read or written.
  const off = await sibling(a);
  await setMemory(off, { memorySharing: 'off' });
  const none = ok(await translate(off.client, off.projectId, { units: [{ source: 'Shared wording' }] }));
  t.deepEqual(none.units[0].pending, ['de']);
  t.deepEqual((await suggestions(off, { lang: 'de', source: 'Shared wording' })).body.matches, []);
  const meta = (await off.client.GET('/projects/{projectId}/meta', { params: { path: { projectId: off.projectId } } }))
    .data!;
  t.deepEqual(meta.memory, { sharing: 'off', preTranslate: true, threshold: 75 });
});

test('pre-translation off: the match is queued for the engine instead', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const [key] = await pushAndFill(a, [{ source: 'Not from memory' }]);
  await approve(a, key, 'de', 'Nicht aus dem Gedächtnis');
  const b = await sibling(a);
  const view = await setMemory(b, { memoryPreTranslate: false, memoryThreshold: 80 });
  t.like(view, { memoryPreTranslate: false, memoryThreshold: 80, memorySharing: 'shared' });
  const pushed = ok(await translate(b.client, b.projectId, { units: [{ source: 'Not from memory' }] }));
  t.deepEqual(pushed.units[0].pending, ['de']);
  // The suggestion is still there.
  t.is((await suggestions(b, { lang: 'de', source: 'Not from memory' })).body.matches[0].score, 100);
  const bad = await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: b.projectId } },
    body: { memoryThreshold: 49 },
  });
  t.is(bad.response.status, 400);
  const sharing = await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: b.projectId } },
    body: hostile({ memorySharing: 'everyone' }),
  });
  t.is(sharing.response.status, 400);
});

test('a team that pushes the same 500 strings into a second project after approving them pays nothing', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  const units = Array.from({ length: 500 }, (_, i) => ({ source: `Dialog ${i}: confirm the {item} change` }));
  const first = ok(await translate(a.client, a.projectId, { units }));
  t.true(first.estimatedCredits > 0);
  await runDue(a.projectId);
  const approved = await svc.admin.POST('/projects/{projectId}/keys/bulk-review', {
    params: { path: { projectId: a.projectId } },
    body: { filter: {}, action: 'approve' },
  });
  t.is(approved.data!.affected, 1000);
  const b = await sibling(a, [{ code: 'de' }, { code: 'fr' }]);
  const before = await balanceOf(a.workspaceId);
  const second = ok(await translate(b.client, b.projectId, { units }));
  t.is(second.estimatedCredits, 0);
  t.is(second.trackingToken, null);
  t.true(second.units.every((u) => u.translated.length === 2 && u.pending.length === 0));
  t.is(await balanceOf(a.workspaceId), before);
  const status = (await b.client.GET('/projects/{projectId}/status', { params: { path: { projectId: b.projectId } } }))
    .data!;
  for (const l of status.languages) t.like(l, { translated: 500, missing: 0, pending: 0 });
});

test('ctx that differs caps the score at 99 and never pre-translates; the same ctx and key is 101', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const [verb] = await pushAndFill(a, [{ source: 'Open', ctx: 'verb: open a file', key: 'file.open' }]);
  await approve(a, verb, 'de', 'Öffnen');
  const b = await sibling(a);
  const adjective = await suggestions(b, { lang: 'de', source: 'Open', ctx: 'adjective: a shop is open' });
  t.like(adjective.body.matches[0], { score: 99, target: 'Öffnen', ctx: 'verb: open a file', preTranslates: false });
  const none = await suggestions(b, { lang: 'de', source: 'Open' });
  t.is(none.body.matches[0].score, 99, 'no ctx is another ctx');
  const pushed = ok(
    await translate(b.client, b.projectId, { units: [{ source: 'Open', ctx: 'adjective: a shop is open' }] }),
  );
  t.deepEqual(pushed.units[0].pending, ['de']);
  const same = await suggestions(b, { lang: 'de', source: 'Open', ctx: 'verb: open a file' });
  t.is(same.body.matches[0].score, 100);
  const inContext = await suggestions(b, { lang: 'de', source: 'Open', ctx: 'verb: open a file', key: 'file.open' });
  t.like(inContext.body.matches[0], { score: 101, key: 'file.open', project: a.projectId, preTranslates: true });
  const filled = ok(
    await translate(b.client, b.projectId, { units: [{ source: 'Open', ctx: 'verb: open a file', key: 'file.open' }] }),
  );
  t.deepEqual(filled.units[0].translated, ['de']);
});

test('a copy edit that changed one word gets the old translation as a fuzzy suggestion; a changed source keeps the old entry', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const [key] = await pushAndFill(a, [{ source: 'Delete this file permanently', key: 'files.delete' }]);
  await approve(a, key, 'de', 'Diese Datei endgültig löschen');
  // The source changes (a new unit naming the key): the cell is outdated, the old pair stays in the memory.
  ok(await translate(a.client, a.projectId, { units: [{ source: 'Delete this file forever', key: 'files.delete' }] }));
  const s = await suggestions(a, { lang: 'de', source: 'Delete this file forever' });
  t.like(s.body.matches[0], {
    score: 75,
    source: 'Delete this file permanently',
    target: 'Diese Datei endgültig löschen',
    preTranslates: false,
  });
  t.is(
    (await suggestions(a, { lang: 'de', source: 'Delete this file forever', minScore: '76' })).body.matches.length,
    0,
  );
  const old = await suggestions(a, { lang: 'de', source: 'Delete this file permanently' });
  t.like(old.body.matches[0], { score: 100, target: 'Diese Datei endgültig löschen' });
});

test('an agent key whose push the memory covers whole needs no operation', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const [key] = await pushAndFill(a, [{ source: 'Free for agents' }]);
  await approve(a, key, 'de', 'Kostenlos für Agenten');
  const b = await sibling(a);
  const agent = svc.client(await createTestKey(svc, b.projectId, ['translate', 'read'], true));
  const covered = ok(await translate(agent, b.projectId, { units: [{ source: 'Free for agents' }] }));
  t.deepEqual(covered.units[0].translated, ['de']);
  const paid = await translate(agent, b.projectId, { units: [{ source: 'Not in the memory at all' }] });
  t.is(paid.response.status, 403);
  t.is(errorOf(paid)?.error, 'authorization_required');
});

test('a sync pre-translates what the memory holds and queues the rest', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const [key] = await pushAndFill(a, [{ source: 'Sign in' }]);
  await approve(a, key, 'de', 'Anmelden');
  const b = await sibling(a);
  const file = Buffer.from(JSON.stringify({ auth: { signIn: 'Sign in', signOut: 'Sign out' } })).toString('base64');
  const r = (await sync(b.client, b.projectId, { format: 'nested_json', contentBase64: file })).data!;
  t.is(r.created, 2);
  t.is(r.estimatedCredits, 'Sign out'.length);
  t.like(await cell(b, 'auth.sign.in', 'de'), { value: 'Anmelden', origin: 'memory' });
});

test('a pre-translated cell gets its check results, as any other write does (a push and a sync)', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const keys = await pushAndFill(a, [{ source: 'Save your changes.' }, { source: 'Close the window.' }]);
  // Approved without the source's full stop: the end-stop check reports it.
  await approve(a, keys[0], 'de', 'Speichern Sie Ihre Änderungen');
  await approve(a, keys[1], 'de', 'Schließen Sie das Fenster');
  const endStops = async (p: TestProject) =>
    ok(
      await p.client.GET('/projects/{projectId}/checks', {
        params: { path: { projectId: p.projectId }, query: { lang: 'de', check: 'end-stop' } },
      }),
    ).results.map((r) => r.key);
  t.deepEqual((await endStops(a)).sort(), [...keys].sort());

  const b = await sibling(a);
  // A sync first (a key its file does not carry would be disabled, and leave the list), then a push.
  const file = Buffer.from(JSON.stringify({ close: 'Close the window.' })).toString('base64');
  const synced = ok(await sync(b.client, b.projectId, { format: 'json', contentBase64: file }));
  t.is(synced.estimatedCredits, 0);
  t.like(await cell(b, 'close', 'de'), { origin: 'memory' });
  const pushed = ok(await translate(b.client, b.projectId, { units: [{ source: 'Save your changes.' }] }));
  t.deepEqual(pushed.units[0].translated, ['de']);
  t.deepEqual((await endStops(b)).sort(), [pushed.units[0].key, 'close'].sort());
});

test('leverage counts the pairs without a value by band, and what the exact ones save', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  const keys = await pushAndFill(a, [
    { source: 'Export the report as a file' },
    { source: 'Import contacts from a spreadsheet' },
  ]);
  await approve(a, keys[0], 'de', 'Den Bericht als Datei exportieren');
  const b = await sibling(a, [{ code: 'de' }, { code: 'fr' }]);
  await setMemory(b, { memoryPreTranslate: false });
  // Pushed with pre-translation off: the pairs stay without a value (pending) for the analysis.
  ok(
    await translate(b.client, b.projectId, {
      units: [
        { source: 'Export the report as a file' },
        { source: 'Export the report as a PDF file' },
        { source: 'Something else entirely different' },
      ],
    }),
  );
  const res = await fetch(`${svc.baseUrl}/projects/${b.projectId}/memory/leverage?langs=de`, {
    headers: { authorization: `Bearer ${b.apiKey}` },
  });
  t.is(res.status, 200);
  const body = await json<Schemas['MemoryLeverage']>(res);
  const de = body.languages[0];
  const band = (id: string) => de.bands.find((x) => x.band === id)!;
  t.is(de.pairs, 3);
  // The same source and the same key name (both named after the source): in context.
  t.is(band('101').pairs, 1);
  t.is(band('101').credits, 'Export the report as a file'.length);
  t.is(band('85-94').pairs, 1);
  t.is(band('none').pairs, 1);
  t.is(de.savedCredits, 'Export the report as a file'.length);
  t.false(body.preTranslate);
  t.like(body.totals, { pairs: 3, savedCredits: de.savedCredits, unanalysed: 0 });
  // The dashboard's figures are the same.
  const internal = await svc.admin.GET('/projects/{projectId}/memory/leverage', {
    params: { path: { projectId: b.projectId }, query: { langs: 'de' } },
  });
  t.deepEqual(internal.data, body);
  // fr: the AI fill's values of project A are references only (99 at most).
  const fr = await svc.admin.GET('/projects/{projectId}/memory/leverage', {
    params: { path: { projectId: b.projectId }, query: { langs: 'fr' } },
  });
  t.is(fr.data!.languages[0].bands.find((x) => x.band === '95-99')!.pairs, 1);
});

test('hostile and invalid queries get their documented 400s', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const ask = async (query: string, path = 'memory') => {
    const res = await fetch(`${svc.baseUrl}/projects/${p.projectId}/${path}?${query}`, {
      headers: { authorization: `Bearer ${p.apiKey}` },
    });
    return { status: res.status, error: (await json<ApiError>(res)).error };
  };
  const cases: Array<[string, string]> = [
    ['source=Hello', 'invalid_argument'],
    ['lang=de', 'invalid_argument'],
    ['lang=de&source=', 'invalid_argument'],
    ['lang=en&source=Hello', 'invalid_argument'],
    ['lang=not%20a%20code!&source=Hello', 'invalid_argument'],
    [`lang=de&source=${'a'.repeat(5001)}`, 'source_too_long'],
    ['lang=de&source=Hello&limit=0', 'invalid_argument'],
    ['lang=de&source=Hello&limit=51', 'invalid_argument'],
    ['lang=de&source=Hello&limit=abc', 'invalid_argument'],
    ['lang=de&source=Hello&minScore=102', 'invalid_argument'],
    ['lang=de&lang=fr&source=Hello', 'invalid_argument'],
    ['lang=de&source=Hello&source=Bye', 'invalid_argument'],
    ['lang=de&source=Hello&ctx=', 'invalid_argument'],
    [`lang=de&source=Hello&key=${'k'.repeat(256)}`, 'invalid_argument'],
  ];
  for (const [query, error] of cases) t.deepEqual(await ask(query), { status: 400, error }, query.slice(0, 60));
  for (const query of ['langs=fr', 'langs=en', 'langs=de,,de', 'langs=', 'langs=%20'])
    t.is((await ask(query, 'memory/leverage')).status, 400, query);
  // Odd but valid input is answered, never a 500.
  for (const source of [
    '{',
    '}{',
    "'{'",
    '%%%',
    '<b><i>',
    '{a, plural, one {',
    '\u0000',
    '🙂'.repeat(100),
    '的'.repeat(500),
  ])
    t.is((await suggestions(p, { lang: 'de', source })).status, 200, source.slice(0, 20));
  // A key without read or translate may not ask.
  const capture = svc.client(await createTestKey(svc, p.projectId, ['capture']));
  const refused = await capture.GET('/projects/{projectId}/memory', {
    params: { path: { projectId: p.projectId }, query: { lang: 'de', source: 'Hello' } },
  });
  t.is(refused.response.status, 403);
});
