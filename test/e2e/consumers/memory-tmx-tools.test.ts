// The memory's TMX routes (spec: exportMemory, importMemory) against an independent implementation: Debian's
// translate-toolkit, which Weblate uses for its TMX too. Its Python reader (`translate.storage.tmx`) reads a memory
// the service exports with every entry intact (ICU arguments and selects, tags as text, whitespace, scripts of every
// direction, emoji, ctx and key), and a TMX its `po2tmx` writes imports with every translated message, which the
// memory then offers and exports again. (translate-toolkit 3.8.4 has no `tmx2po`: docs/decisions/0022-tmx.md.)
//
// The tools are Debian packages (`apt-get install -y translate-toolkit`): a missing tool fails the run.
import test, { type ExecutionContext } from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { translate } from '../../../packages/client/src/index.js';
import { readTmxWithToolkit, run } from '../../helpers/translate-toolkit.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService({ LOG_LEVEL: 'error' });
});
test.after.always(async () => {
  await svc?.stop();
});

function tmp(t: ExecutionContext) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossa-memory-tmx-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function exportTo(p: TestProject, file: string) {
  const res = await fetch(`${svc.baseUrl}/projects/${p.projectId}/memory/export`, {
    headers: { authorization: `Bearer ${p.apiKey}` },
  });
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
}

/** Source, ctx, key and a person's translations, approved. */
const STRINGS: Array<{ key: string; source: string; ctx?: string; values: Record<string, string> }> = [
  { key: 'home.hello', source: 'Hello {name}', values: { de: 'Hallo {name}', ja: 'こんにちは、{name}さん' } },
  {
    key: 'save',
    source: 'Click <b>here</b> & "save"',
    ctx: 'button',
    values: { de: 'Klicken Sie <b>hier</b> & „speichern“', ar: 'انقر <b>هنا</b> & "احفظ"' },
  },
  {
    key: 'files',
    source: '{count, number} files in {folder}',
    values: { de: '{count, number} Dateien in {folder}', ja: '{folder} に {count, number} 個のファイル' },
  },
  {
    key: 'gender',
    source: '{g, select, female {She} male {He} other {They}} replied',
    values: { de: '{g, select, female {Sie} male {Er} other {Sie}} hat geantwortet' },
  },
  { key: 'lines', source: '  Two\nlines\tand a tab ', values: { de: '  Zwei\nZeilen\tund Tab ' } },
  {
    key: 'party',
    source: 'Family 👨‍👩‍👧 party 🎉 𝄞',
    values: { ar: 'حفلة العائلة 👨‍👩‍👧 🎉 𝄞', ja: '家族 👨‍👩‍👧 パーティー 🎉 𝄞' },
  },
];

test("translate-toolkit's reader gets every entry of an exported memory intact", async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'ja' }, { code: 'ar' }] });
  const pushed = await translate(p.client, p.projectId, {
    units: STRINGS.map((s) => ({ key: s.key, source: s.source, ...(s.ctx ? { ctx: s.ctx } : {}) })),
  });
  t.truthy(pushed.data, JSON.stringify(pushed.error));
  for (const s of STRINGS)
    for (const [lang, value] of Object.entries(s.values)) {
      const r = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
        params: { path: { projectId: p.projectId, key: s.key, lang } },
        body: { value, status: 'approved' },
      });
      t.truthy(r.data, JSON.stringify(r.error));
    }
  const file = path.join(tmp(t), 'memory.tmx');
  await exportTo(p, file);
  const read = readTmxWithToolkit(file);
  t.is(read.srclang, 'en');
  const want = STRINGS.flatMap((s) =>
    Object.entries(s.values).map(([lang, value]) => [s.source, value, ['en', lang], s.ctx ?? null, s.key, 'approved']),
  );
  const got = read.units.map((u) => [
    u.source,
    u.target,
    u.langs,
    u.props['x-glossa-ctx'] ?? null,
    u.props['x-glossa-key'],
    u.props['x-glossa-status'],
  ]);
  const order = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
  t.deepEqual(order(got), order(want));
  t.true(read.units.every((u) => u.props['x-glossa-project'] === p.projectId && u.props['x-glossa-origin'] === 'edit'));
});

test('a TMX po2tmx writes imports with every translated message, which the memory offers and exports again', async (t) => {
  const dir = tmp(t);
  const messages: Array<[string, string]> = [
    ['Hello {name}', 'こんにちは、{name}さん'],
    ['Click <b>here</b> & "save"', '<b>ここ</b>をクリック & 「保存」'],
    ['{count, number} files', '{count, number} 個のファイル'],
    ['  Two\nlines\tand a tab ', '  二\n行\tとタブ '],
    ['Party 🎉 and 𝄞', 'パーティー 🎉 と 𝄞'],
  ];
  const po = (s: string) =>
    `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;
  fs.writeFileSync(
    path.join(dir, 'ja.po'),
    [
      'msgid ""',
      'msgstr ""',
      '"Language: ja\\n"',
      '"Content-Type: text/plain; charset=UTF-8\\n"',
      '',
      ...messages.flatMap(([s, v]) => [`msgid ${po(s)}`, `msgstr ${po(v)}`, '']),
    ].join('\n'),
  );
  const r = run('po2tmx', [
    '-l',
    'ja',
    '--source-language',
    'en-US',
    path.join(dir, 'ja.po'),
    path.join(dir, 'ja.tmx'),
  ]);
  t.is(r.status, 0, r.stderr);

  const p = await createTestProject(svc, { languages: [{ code: 'ja' }] });
  const imported = await p.client.POST('/projects/{projectId}/memory/import', {
    params: { path: { projectId: p.projectId } },
    body: { contentBase64: fs.readFileSync(path.join(dir, 'ja.tmx')).toString('base64'), status: 'approved' },
  });
  t.like(imported.data, { units: 5, entries: 5, added: 5, skipped: [], creationTool: 'Translate Toolkit' });

  // Every message pre-translates a push of its source, as written.
  const pushed = await translate(p.client, p.projectId, { units: messages.map(([source]) => ({ source })) });
  t.deepEqual(
    pushed.data?.units.map((u) => u.translated),
    messages.map(() => ['ja']),
  );
  t.is(pushed.data?.estimatedCredits, 0);

  // And the export holds them all, read by translate-toolkit again.
  const file = path.join(dir, 'back.tmx');
  await exportTo(p, file);
  const back = readTmxWithToolkit(file).units.filter((u) => u.props['x-glossa-origin'] === 'import');
  t.deepEqual(
    back.map((u) => [u.source, u.target, u.langs]).sort(),
    messages.map(([s, v]) => [s, v, ['en', 'ja']]).sort(),
  );
});
