// `glossa check` through the real CLI (docs/guides/cli.md): it prints what the quality checks found, one result a
// line with the characters marked, and exits 4 while a check reports an error, or, with --max-warnings N, while
// more than N cells have warnings; 0 otherwise. `glossa push` names the sources' errors and warnings as it pushes.
import { rmSync } from 'node:fs';
import test from 'ava';
import { createTestProject, startTestService, type TestService } from '../../helpers/service.js';
import { glossa, repo } from '../../helpers/cli.js';

let svc: TestService;
const dirs: string[] = [];
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('exit 4 on an error, --max-warnings over the warnings, 0 once fixed', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  const cwd = repo({
    'glossa.config.json': {
      baseUrl: svc.baseUrl,
      projectId: p.projectId,
      files: [{ source: 'locales/en.json', format: 'json', template: 'locales/{locale}.json' }],
    },
    'locales/en.json': {
      files: '{count, plural, one {{count} file} other {{cuont} files}}',
      share: '%s has %d files',
      save: 'Save.',
    },
  });
  dirs.push(cwd);
  const cli = (...args: string[]) => glossa(args, { cwd, env: { GLOSSA_API_KEY: p.apiKey } });
  const edit = (key: string, value: string) =>
    svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId: p.projectId, key, lang: 'de' } },
      body: { value },
    });

  // The push says what is wrong with a source at once.
  const pushed = await cli('push');
  t.is(pushed.code, 0, pushed.stderr);
  t.regex(pushed.stdout, /source warning files: source-branch-arguments: \{cuont\} in one form only/);

  await edit('share', '%d Dateien hat %s');
  await edit('save', 'Speichern');
  const failing = await cli('check');
  t.is(failing.code, 4, failing.stderr);
  t.regex(failing.stdout, /^error {3}share \[de\] printf-order: /m);
  t.regex(failing.stdout, /^warning save \[de\] end-stop: /m);
  t.regex(failing.stdout, /^warning files \[en\] source-branch-arguments: .*\n {8}.*»\{cuont\}«/m);
  t.regex(failing.stdout, /^1 cells with errors, 2 with warnings, 0 with infos$/m);
  t.regex(failing.stderr, /1 cells with check errors\./);

  // One check, or one language, counts alone.
  const one = await cli('check', '--check', 'end-stop');
  t.is(one.code, 0, 'no error of that check');
  t.regex(one.stdout, /^0 cells with errors, 1 with warnings/m);
  t.is((await cli('check', '--lang', 'en')).code, 0);

  await edit('share', '%s hat %d Dateien');
  const warned = await cli('check');
  t.is(warned.code, 0, warned.stderr);
  t.regex(warned.stdout, /^0 cells with errors, 2 with warnings/m);
  t.is((await cli('check', '--max-warnings', '2')).code, 0);
  const tooMany = await cli('check', '--max-warnings', '1');
  t.is(tooMany.code, 4);
  t.regex(tooMany.stderr, /2 cells with warnings, more than --max-warnings 1\./);

  // --json: one document; what is printed is what was found.
  const json = await cli('--json', 'check', '--severity', 'warning', '--limit', '1');
  t.is(json.code, 0);
  const doc = JSON.parse(json.stdout) as { ok: boolean; totals: Record<string, number>; results: unknown[] };
  t.like(doc, { ok: true, totals: { error: 0, warning: 2, info: 0 } });
  t.is(doc.results.length, 1);

  // Usage and refusals keep their exit codes.
  t.is((await cli('check', '--max-warnings', 'many')).code, 2);
  t.is((await cli('check', '--severity', 'fatal')).code, 2);
  const unknown = await cli('check', '--lang', 'ja');
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /400 invalid_argument: ja is not a language of this project/);
});
