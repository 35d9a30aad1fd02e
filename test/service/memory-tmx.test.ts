// The translation memory as TMX through the API (spec: exportMemory, importMemory; docs/guides/memory.md "TMX"): an
// export holds every entry with its fields and parses back; an import adds entries (never cells) that then
// pre-translate and are suggested; a project's scope takes its languages only; hostile files (billion laughs, external
// entities, over 50 MiB, malformed, not TMX, wrong languages, bad base64) are refused with their documented codes and
// write nothing.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import { parseTmx, writeTmx, type TmxEntry } from '../../packages/core/src/formats/tmx.js';
import { addEntries } from '../../server/domain/memory/entries.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';
import { errorOf, json, type Schemas } from '../helpers/typed.js';

let svc: TestService;

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

const db = () => svc.service.app.db;
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

const importFile = (p: TestProject, body: Record<string, unknown>) =>
  p.client.POST('/projects/{projectId}/memory/import', {
    params: { path: { projectId: p.projectId } },
    body: body as never,
  });

async function exported(p: TestProject, scope?: 'memory' | 'project') {
  const res = await fetch(`${svc.baseUrl}/projects/${p.projectId}/memory/export${scope ? `?scope=${scope}` : ''}`, {
    headers: { authorization: `Bearer ${p.apiKey}` },
  });
  return { res, text: await res.text() };
}

/** Rows the memory and the cells hold, to show a refused import wrote nothing. */
async function counts() {
  const [e, s, c] = await Promise.all([
    db()('memory_entries').count({ n: '*' }),
    db()('memory_segments').count({ n: '*' }),
    db()('translations').count({ n: '*' }),
  ]);
  return [Number(e[0].n), Number(s[0].n), Number(c[0].n)];
}

const PAIRS: TmxEntry[] = [
  { sourceLanguage: 'en', targetLanguage: 'de', source: 'Hello {name}', target: 'Hallo {name}' },
  {
    sourceLanguage: 'en',
    targetLanguage: 'de',
    source: 'Click <b>here</b> & "save"',
    target: 'Klicken Sie <b>hier</b> & „speichern“',
    ctx: 'button',
    status: 'approved',
  },
  {
    sourceLanguage: 'en',
    targetLanguage: 'ja',
    source: '{count, number} files',
    target: '{count, number} 個のファイル',
  },
  { sourceLanguage: 'en', targetLanguage: 'ar', source: 'Party 🎉', target: 'حفلة 🎉' },
];

test('an import adds entries, never cells, which pre-translate and are suggested; the export holds them all', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'ja' }] });
  const cellsBefore = (await counts())[2];
  const r = ok(await importFile(p, { contentBase64: b64(writeTmx({ sourceLanguage: 'en' }, PAIRS)) }));
  t.like(r, { units: 4, entries: 3, added: 3, updated: 0, unchanged: 0, empty: 0, creationTool: 'Glossa' });
  t.deepEqual(r.skipped, [{ sourceLang: 'en', targetLang: 'ar', count: 1 }]);
  t.is((await counts())[2], cellsBefore, 'no cell was written');
  // The same file again adds nothing; with a status, the entries take it.
  t.like(ok(await importFile(p, { contentBase64: b64(writeTmx({ sourceLanguage: 'en' }, PAIRS)) })), {
    added: 0,
    unchanged: 3,
  });
  t.like(
    ok(await importFile(p, { contentBase64: b64(writeTmx({ sourceLanguage: 'en' }, PAIRS)), status: 'reviewed' })),
    { added: 0, updated: 3 },
  );

  const pushed = ok(await translate(p.client, p.projectId, { units: [{ source: 'Hello {user}' }] }));
  t.deepEqual(pushed.units[0].translated, ['de']);
  const res = await fetch(
    `${svc.baseUrl}/projects/${p.projectId}/memory?${new URLSearchParams({ lang: 'ja', source: '{n, number} files' })}`,
    { headers: { authorization: `Bearer ${p.apiKey}` } },
  );
  const s = await json<Schemas['MemorySuggestions']>(res);
  t.like(s.matches[0], { score: 100, target: '{n, number} 個のファイル', origin: 'import', project: p.projectId });

  const { res: out, text } = await exported(p);
  t.is(out.status, 200);
  t.regex(out.headers.get('content-type')!, /^application\/x-tmx\+xml/);
  t.regex(out.headers.get('content-disposition')!, /memory\.tmx/);
  const back = parseTmx(text, { sourceLanguage: 'en' }).entries;
  const imported = back.filter((e) => e.origin === 'import');
  t.deepEqual(
    imported.map((e) => [e.targetLanguage, e.source, e.target, e.ctx, e.status, e.project]).sort(),
    [
      ['de', 'Click <b>here</b> & "save"', 'Klicken Sie <b>hier</b> & „speichern“', 'button', 'reviewed', p.projectId],
      ['de', 'Hello {name}', 'Hallo {name}', null, 'reviewed', p.projectId],
      ['ja', '{count, number} files', '{count, number} 個のファイル', null, 'reviewed', p.projectId],
    ].sort(),
  );
  // The pre-translated cell is an entry too, with its key.
  t.true(
    back.some((e) => e.origin === 'memory' && e.source === 'Hello {user}' && e.target === 'Hallo {user}' && e.key),
  );
});

test("scope: workspace adds to the workspace's memory, which a shared sibling exports and an isolated project may not import into", async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const file = writeTmx({ sourceLanguage: 'en' }, [
    { sourceLanguage: 'en', targetLanguage: 'de', source: 'Workspace only', target: 'Nur Arbeitsbereich' },
    { sourceLanguage: 'en', targetLanguage: 'fr', source: 'Workspace only', target: 'Espace seulement' },
  ]);
  t.like(ok(await importFile(p, { contentBase64: b64(file), scope: 'workspace' })), { added: 2, skipped: [] });
  const whole = parseTmx((await exported(p)).text, { sourceLanguage: 'en' }).entries;
  t.deepEqual(whole.map((e) => [e.targetLanguage, e.project]).sort(), [
    ['de', null],
    ['fr', null],
  ]);
  t.is(parseTmx((await exported(p, 'project')).text, { sourceLanguage: 'en' }).entries.length, 0);

  await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { memorySharing: 'isolated' },
  });
  const refused = await importFile(p, { contentBase64: b64(file), scope: 'workspace' });
  t.is(refused.response.status, 400);
  t.is(errorOf(refused)?.error, 'invalid_argument');
  t.is(parseTmx((await exported(p)).text, { sourceLanguage: 'en' }).entries.length, 0, 'its own memory is empty');
});

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const BODY =
  '<tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x" creationtool="x" creationtoolversion="1"/>' +
  '<body><tu><tuv xml:lang="en"><seg>Hi</seg></tuv><tuv xml:lang="de"><seg>Hallo &lol9;</seg></tuv></tu></body></tmx>';

const HOSTILE: Array<[string, string, number, string]> = [
  [
    'billion laughs',
    b64(
      `${HEAD}<!DOCTYPE tmx [<!ENTITY lol "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('')}]>${BODY}`,
    ),
    400,
    'invalid_argument',
  ],
  [
    'an external entity',
    b64(`${HEAD}<!DOCTYPE tmx [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${BODY.replace('&lol9;', '&xxe;')}`),
    400,
    'invalid_argument',
  ],
  ['an undefined entity', b64(`${HEAD}${BODY}`), 400, 'invalid_argument'],
  ['malformed XML', b64(`${HEAD}${BODY.replace('&lol9;', '').replace('</tu>', '')}`), 400, 'invalid_argument'],
  ['XML that is not TMX', b64(`${HEAD}<xliff version="1.2"><file/></xliff>`), 400, 'format_mismatch'],
  ['not XML at all', b64('just some text'), 400, 'format_mismatch'],
  ['bad base64', '!!!not base64!!!', 400, 'invalid_base64'],
  [
    'another source language',
    b64(HEAD + BODY.replace(/"en"/g, '"fr"').replace('&lol9;', '')),
    400,
    'language_mismatch',
  ],
  [
    'no language of the project',
    b64(HEAD + BODY.replace('"de"', '"ko"').replace('&lol9;', '')),
    400,
    'language_mismatch',
  ],
  [
    'a language that is no BCP 47 tag',
    b64(HEAD + BODY.replace('"de"', '"d e!"').replace('&lol9;', '')),
    400,
    'invalid_argument',
  ],
  ['a decoded file over 50 MiB', 'A'.repeat(69_905_068), 413, 'payload_too_large'],
];

test.serial('hostile files are refused with their documented code and write nothing', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const before = await counts();
  for (const [name, contentBase64, status, code] of HOSTILE) {
    const r = await importFile(p, { contentBase64 });
    t.is(r.response.status, status, name);
    t.is(errorOf(r)?.error, code, `${name}: ${JSON.stringify(r.error)}`);
  }
  t.deepEqual(await counts(), before);
  // The well-formed file the hostile ones were made from imports.
  t.like(ok(await importFile(p, { contentBase64: b64(HEAD + BODY.replace('&lol9;', '')) })), { added: 1 });
});

test('a database failure in the middle of an export breaks the download: never a short file that looks whole', async (t) => {
  // A service of its own, whose memory table this test takes away while the file is being sent.
  const own = await startTestService({ LOG_LEVEL: 'fatal' });
  try {
    const p = await createTestProject(own, { languages: [{ code: 'de' }] });
    const row = (await own.service.app.db('projects').where({ id: p.projectId }).first())!;
    const padding = 'x'.repeat(300);
    const entries = Array.from({ length: 4_000 }, (_, i) => ({
      sourceLang: 'en',
      targetLang: 'de',
      source: `Sentence ${i} ${padding}`,
      target: `Satz ${i} ${padding}`,
      status: 'approved' as const,
    }));
    for (let i = 0; i < entries.length; i += 1_000)
      await addEntries(own.service.app.db, { project: row }, entries.slice(i, i + 1_000));
    const res = await fetch(`${own.baseUrl}/projects/${p.projectId}/memory/export`, {
      headers: { authorization: `Bearer ${p.apiKey}` },
    });
    t.is(res.status, 200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    t.false(first.done);
    await own.service.app.db.schema.dropTable('memory_entries');
    let received = first.value!.length;
    const rest = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return received;
        received += value.length;
      }
    })();
    // The connection is cut, so the client sees an error, not the end of a file (the whole one is about 2.6 MB).
    await t.throwsAsync(rest);
    t.true(received < 2_000_000, `${received} bytes arrived`);
  } finally {
    await own.stop();
  }
});
