// The `glossa` CLI against a hostile server (or a proxy before the real one), a local HTTP server speaking the
// API's shapes: a version whose languages are paths (`../../x`, an absolute path) is refused with exit 1 and nothing
// written anywhere; a language map or template that leads outside the project is refused the same way; terminal
// control in the server's messages and labels (OSC window titles, screen clears, C1 controls, bidi overrides) is
// never echoed, on stdout, stderr or in --json.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { zipSync, strToU8 } from 'fflate';
import { REGISTRY } from '../../../packages/core/src/formats/index.js';
import { glossa, glossaConfig } from '../../helpers/cli.js';

const ESC = String.fromCharCode(27);
const BEL = String.fromCharCode(7);
const HOSTILE = `${ESC}]0;pwned${BEL}clear${ESC}[2J csi\u009b31m rlo\u202Edesrever`;
/** Any terminal control: ESC, BEL, other C0 but newline and tab, DEL, C1, bidi controls. */
// eslint-disable-next-line no-control-regex -- what the CLI must never print
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let server: Server;
let baseUrl: string;
/** The languages the server's version names, set by each test. */
let languages: string[] = ['en', 'de'];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'glossa-hostile-'));

test.before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/v1/projects/p1/versions')
      return json(200, {
        currentVersion: '2026.11.28.1',
        versions: [
          {
            versionId: '2026.11.28.1',
            current: true,
            label: `label ${HOSTILE}`,
            snapshotAt: '2026-11-28T10:00:00.000Z',
            keyCount: 1,
            languages,
            restoredFrom: null,
          },
        ],
      });
    if (url.pathname === '/v1/projects/p1/translations') {
      const format = url.searchParams.get('format') as keyof typeof REGISTRY;
      const files = Object.fromEntries(
        languages.map((l, i) => [REGISTRY[format].path(l, i === 0), strToU8(`{"a": "${l}"}`)]),
      );
      res.writeHead(200, { 'content-type': 'application/zip' });
      return res.end(Buffer.from(zipSync(files)));
    }
    if (url.pathname === '/v1/projects/p1/status')
      return json(400, { error: 'invalid_argument', message: `bad request ${HOSTILE}` });
    json(404, { error: 'not_found', message: 'Not found.' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
test.after.always(async () => {
  await new Promise((r) => server.close(r));
  rmSync(tmp, { recursive: true, force: true });
});

/** A project two folders below a scratch folder, so `../../x` stays inside the scratch folder if it were written. */
function project(name: string, config: object) {
  const outer = path.join(tmp, name);
  const dir = path.join(outer, 'a', 'project');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'glossa.config.json'), JSON.stringify(config));
  writeFileSync(path.join(dir, 'en.json'), '{"a": "A"}');
  return { outer, dir };
}

/** Every file under `dir`, relative to it. */
const filesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();

const env = { GLOSSA_API_KEY: 'glk_test', GLOSSA_RETRIES: '0' };
const files = [{ source: 'en.json', format: 'json', template: 'l10n/{locale}.json' }];

test.serial(
  'a version naming a language `../../x` is refused: exit 1, nothing written inside or outside',
  async (t) => {
    languages = ['en', 'de', '../../x'];
    const { outer, dir } = project('dots', glossaConfig(baseUrl, 'p1', files));
    const r = await glossa(['pull'], { cwd: dir, env });
    t.is(r.code, 1, r.stderr);
    t.regex(r.stderr, /no language code; nothing was written/);
    t.deepEqual(filesUnder(outer), ['a/project/en.json', 'a/project/glossa.config.json']);
  },
);

test.serial('a version naming an absolute path as a language is refused; the path is never written', async (t) => {
  const target = path.join(tmp, 'absolute-target');
  languages = ['en', target];
  const { dir } = project('absolute', glossaConfig(baseUrl, 'p1', files));
  const r = await glossa(['--json', 'pull'], { cwd: dir, env });
  t.is(r.code, 1, r.stderr);
  t.false(existsSync(`${target}.json`));
  t.false(existsSync(path.join(dir, 'l10n')), 'not even the legitimate languages: nothing is written');
  t.like(JSON.parse(r.stdout), { ok: false, exitCode: 1 });
});

test.serial(
  'a language map or template leading outside the project is refused before anything is written',
  async (t) => {
    languages = ['en', 'de', 'fr'];
    const mapped = { ...glossaConfig(baseUrl, 'p1', files), languageMap: { fr: '../../../escaped' } };
    const { outer, dir } = project('mapped', mapped);
    const r = await glossa(['pull'], { cwd: dir, env });
    t.is(r.code, 1, r.stderr);
    t.regex(r.stderr, /outside the project folder/);
    t.deepEqual(filesUnder(outer), ['a/project/en.json', 'a/project/glossa.config.json'], 'de was not written either');

    const outside = path.join(tmp, 'abs-template');
    const absolute = project(
      'template',
      glossaConfig(baseUrl, 'p1', [{ ...files[0], template: `${outside}/{locale}.json` }]),
    );
    const a = await glossa(['pull'], { cwd: absolute.dir, env });
    t.is(a.code, 1, a.stderr);
    t.false(existsSync(outside));

    // The same project with a template inside it pulls as always.
    const fine = project('fine', glossaConfig(baseUrl, 'p1', files));
    const ok = await glossa(['pull'], { cwd: fine.dir, env });
    t.is(ok.code, 0, ok.stderr);
    t.deepEqual(filesUnder(fine.dir), [
      '.glossa/state.json',
      'en.json',
      'glossa.config.json',
      'l10n/de.json',
      'l10n/fr.json',
    ]);
  },
);

test.serial('terminal control in server text is stripped from everything the CLI prints', async (t) => {
  languages = ['en', 'de'];
  const { dir } = project('escapes', glossaConfig(baseUrl, 'p1', files));
  const failed = await glossa(['status'], { cwd: dir, env });
  t.is(failed.code, 1);
  t.regex(failed.stderr, /bad request clear csi31m rlodesrever/);
  t.notRegex(failed.stderr, CONTROL);
  t.notRegex(failed.stdout, CONTROL);

  const listed = await glossa(['versions', 'list'], { cwd: dir, env });
  t.is(listed.code, 0, listed.stderr);
  t.regex(listed.stdout, /label clear/);
  t.notRegex(listed.stdout + listed.stderr, CONTROL);

  // --json keeps the server's text exactly (escaped, so the document parses back to it) and prints none of it raw.
  const json = await glossa(['--json', 'versions', 'list'], { cwd: dir, env });
  t.is(json.code, 0);
  t.notRegex(json.stdout, CONTROL);
  t.is((JSON.parse(json.stdout) as { versions: Array<{ label: string }> }).versions[0].label, `label ${HOSTILE}`);
  const jsonFailed = await glossa(['--json', 'status'], { cwd: dir, env });
  t.notRegex(jsonFailed.stdout + jsonFailed.stderr, CONTROL);
  t.regex((JSON.parse(jsonFailed.stdout) as { error: string }).error, /pwned/);
});
