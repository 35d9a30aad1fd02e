// Bulk export: a version pull without `lang` answers every language of the version as one zip archive,
// each file at the platform path its single-language pull names. Read back with the real consumers (Python's
// zipfile and Info-ZIP's unzip) and compared byte for byte with the single-language pulls.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { unzipSync } from 'fflate';
import { createTestProject, startTestService, type TestProject, type TestService } from '../../helpers/service.js';

let svc: TestService;
let p: TestProject;
let versionId: string;
const work = mkdtempSync(path.join(os.tmpdir(), 'glossa-export-'));

test.before(async () => {
  svc = await startTestService();
  p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }, { code: 'pt-BR' }] });
  const pushed = await p.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: p.projectId } },
    body: {
      units: [
        { source: 'Hello, {name}!', key: 'home.hello' },
        { source: 'Save', key: 'actions.save' },
        { forms: { one: '{count} file', other: '{count} files' }, key: 'files.count' },
      ],
    },
  });
  if (!pushed.data) throw new Error(JSON.stringify(pushed.error));
  await svc.admin.POST('/jobs/run-due', { body: {} });
  const v = await p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
    body: { incompleteMode: 'source' },
  });
  if (!v.data) throw new Error(JSON.stringify(v.error));
  versionId = v.data.versionId;
});
test.after.always(async () => {
  await svc?.stop();
  rmSync(work, { recursive: true, force: true });
});

const pull = (query: Record<string, string>) =>
  fetch(`${svc.baseUrl}/projects/${p.projectId}/translations?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${p.apiKey}` },
  });

/** The file name a single-language pull announces (`filename*`, RFC 5987). */
function announced(res: Response): string {
  const m = /filename\*=UTF-8''([^;]+)/.exec(res.headers.get('content-disposition') ?? '');
  return decodeURIComponent(m![1]);
}

const LANGS = ['en', 'de', 'fr', 'pt-BR'];

for (const format of [
  'android_xml',
  'ios_strings',
  'json',
  'nested_json',
  'angular_json',
  'arb',
  'po',
  'xliff12',
  'xliff20',
]) {
  test(`${format}: the zip holds each language's single-language pull at its platform path`, async (t) => {
    const res = await pull({ version: versionId, format });
    t.is(res.status, 200);
    t.is(res.headers.get('content-type'), 'application/zip');
    t.regex(res.headers.get('content-disposition')!, new RegExp(`${p.projectId}-${versionId}-${format}\\.zip`));
    const zipPath = path.join(work, `${format}.zip`);
    writeFileSync(zipPath, Buffer.from(await res.arrayBuffer()));
    // Python's zipfile lists it and Info-ZIP's unzip tests and extracts it.
    const listed = execFileSync('python3', ['-m', 'zipfile', '-l', zipPath], { encoding: 'utf8' });
    execFileSync('unzip', ['-tq', zipPath]);
    const out = path.join(work, format);
    execFileSync('unzip', ['-q', '-o', zipPath, '-d', out]);
    const entries = Object.keys(unzipSync(readFileSync(zipPath)));
    const expected: string[] = [];
    let warnings = 0;
    for (const lang of LANGS) {
      const parts = format === 'ios_strings' ? ['strings', 'stringsdict'] : [undefined];
      for (const part of parts) {
        const single = await pull({ version: versionId, format, lang, ...(part ? { part } : {}) });
        t.is(single.status, 200);
        warnings += Number(single.headers.get('glossa-format-warnings'));
        const name = announced(single);
        expected.push(name);
        t.true(listed.includes(name), `${name} listed by python zipfile`);
        t.deepEqual(readFileSync(path.join(out, name)), Buffer.from(await single.arrayBuffer()), name);
      }
    }
    t.deepEqual(entries, expected, 'one entry per language (and part), base first');
    t.is(Number(res.headers.get('glossa-format-warnings')), warnings);
    if (format === 'android_xml')
      t.true(entries.includes('values/strings.xml') && entries.includes('values-pt-rBR/strings.xml'));
  });
}

test('a version whose publish stored its files answers the stored objects, in the same layout', async (t) => {
  const q = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'pt-BR' }] });
  const formats = await q.client.POST('/projects/{projectId}/output-formats', {
    params: { path: { projectId: q.projectId } },
    body: { format: 'android_xml' },
  });
  t.is(formats.response.status, 200);
  await q.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: q.projectId } },
    body: { units: [{ source: 'Open', key: 'open' }] },
  });
  await svc.admin.POST('/jobs/run-due', { body: {} });
  const v = await q.client.POST('/projects/{projectId}/publish', { params: { path: { projectId: q.projectId } } });
  const get = (query: Record<string, string>) =>
    fetch(`${svc.baseUrl}/projects/${q.projectId}/translations?${new URLSearchParams(query)}`, {
      headers: { authorization: `Bearer ${q.apiKey}` },
    });
  const zip = unzipSync(
    new Uint8Array(await (await get({ version: v.data!.versionId, format: 'android_xml' })).arrayBuffer()),
  );
  t.deepEqual(Object.keys(zip), ['values/strings.xml', 'values-de/strings.xml', 'values-pt-rBR/strings.xml']);
  const de = await get({ version: v.data!.versionId, format: 'android_xml', lang: 'de' });
  t.deepEqual(Buffer.from(zip['values-de/strings.xml']), Buffer.from(await de.arrayBuffer()));
});

test('part keeps one file of ios_strings; xcstrings stays one file; the documented errors stay', async (t) => {
  const dict = await pull({ version: versionId, format: 'ios_strings', part: 'stringsdict' });
  t.is(dict.status, 200);
  t.deepEqual(
    Object.keys(unzipSync(new Uint8Array(await dict.arrayBuffer()))),
    LANGS.map((l) => `${l}.lproj/Localizable.stringsdict`),
  );
  const xc = await pull({ version: versionId, format: 'xcstrings' });
  t.is(xc.status, 200);
  t.regex(xc.headers.get('content-type')!, /^application\/json/);
  t.is((await pull({ version: versionId, format: 'json', part: 'stringsdict' })).status, 400);
  t.is((await pull({ version: '2001.01.01.1', format: 'json' })).status, 404);
  t.is((await pull({ version: versionId, format: 'yaml' })).status, 400);
  t.is((await pull({ version: 'current', format: 'json' })).status, 200);
  const other = await createTestProject(svc);
  const foreign = await fetch(
    `${svc.baseUrl}/projects/${p.projectId}/translations?${new URLSearchParams({ version: versionId, format: 'json' })}`,
    { headers: { authorization: `Bearer ${other.apiKey}` } },
  );
  t.true([401, 403, 404].includes(foreign.status));
});

test("XLIFF exports: every language's bilingual file at xliff/<lang>.xlf, read by translate-toolkit with its states", async (t) => {
  const res = await pull({ version: versionId, format: 'xliff12' });
  const entries = unzipSync(new Uint8Array(await res.arrayBuffer()));
  t.deepEqual(Object.keys(entries), ['xliff/en.xlf', 'xliff/de.xlf', 'xliff/fr.xlf', 'xliff/pt-BR.xlf']);
  const file = path.join(work, 'de.xlf');
  writeFileSync(file, entries['xliff/de.xlf']);
  const read = execFileSync(
    '/usr/bin/python3',
    [
      '-c',
      'import json, sys\nfrom translate.storage import xliff\ns = xliff.xlifffile.parsefile(sys.argv[1])\nprint(json.dumps([[u.getid(), u.source, u.target, u.get_state_n(), u.isfuzzy()] for u in s.units]))',
      file,
    ],
    { encoding: 'utf8' },
  );
  const units = JSON.parse(read) as Array<[string, string, string, number, boolean]>;
  t.deepEqual(
    units.map((u) => u[0]),
    ['messages\u0004home.hello', 'messages\u0004actions.save', 'messages\u0004files.count'],
  );
  t.is(units[0][1], 'Hello, {name}!');
  t.truthy(units[0][2], 'the AI translation is the target');
  // The engine's values are `translated` (translate-toolkit's 100), none fuzzy.
  t.deepEqual(
    units.map((u) => [u[3], u[4]]),
    [
      [100, false],
      [100, false],
      [100, false],
    ],
  );
  const v2 = await pull({ version: versionId, format: 'xliff20', lang: 'pt-BR' });
  t.is(v2.headers.get('content-type'), 'application/xliff+xml; charset=utf-8');
  t.regex(
    await v2.text(),
    /<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="pt-BR">/,
  );
});
