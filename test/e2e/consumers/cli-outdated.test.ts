// Outdated translations through the real CLI (docs/decisions/0019-outdated-translations.md): a source edited in the
// repository (`Save` → `Save changes`) marks its translations outdated; `glossa status` counts them as not done
// (0%, exit 4 with --fail-if-incomplete) while the old value keeps serving; `glossa push --retranslate-outdated`
// queues them again, and after `glossa wait` the language is complete and the pulled file carries the new value.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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

test('Save → Save changes: de outdated, status 0% until push --retranslate-outdated', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const runDue = () => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  const cwd = repo({
    'glossa.config.json': {
      baseUrl: svc.baseUrl,
      projectId: p.projectId,
      files: [{ source: 'locales/en.json', format: 'json', template: 'locales/{locale}.json' }],
    },
    'locales/en.json': { save: 'Save' },
  });
  dirs.push(cwd);
  const env = { GLOSSA_API_KEY: p.apiKey };
  const de = () => JSON.parse(readFileSync(path.join(cwd, 'locales/de.json'), 'utf8')) as Record<string, string>;
  const cli = async (...args: string[]) => {
    const r = await glossa(args, { cwd, env });
    return r;
  };

  t.is((await cli('push')).code, 0);
  await runDue();
  t.is((await cli('wait')).code, 0);
  const complete = await cli('status', '--fail-if-incomplete');
  t.is(complete.code, 0, complete.stderr);
  t.regex(complete.stdout, /de\s+100%\s+1\/1 done, 0 pending, 0 failed, 0 missing\n/);
  t.is((await cli('publish')).code, 0);
  t.is((await cli('pull')).code, 0);
  const oldValue = de().save;

  // The repository's source changes its meaning.
  writeFileSync(path.join(cwd, 'locales/en.json'), `${JSON.stringify({ save: 'Save changes' }, null, 2)}\n`);
  const pushed = await cli('push');
  t.is(pushed.code, 0, pushed.stderr);
  t.regex(pushed.stdout, /1 sources updated.*; 0 mc/);
  const outdated = await cli('status', '--fail-if-incomplete');
  t.is(outdated.code, 4, 'outdated counts as not done');
  t.regex(outdated.stdout, /de\s+0%\s+0\/1 done, 0 pending, 0 failed, 0 missing, 1 outdated .*INCOMPLETE/);
  // Until someone acts, the old translation keeps serving.
  t.is((await cli('publish')).code, 0);
  t.is((await cli('pull')).code, 0);
  t.is(de().save, oldValue);
  // A dry run counts what would be queued and changes nothing.
  const dry = await cli('push', '--dry-run', '--retranslate-outdated');
  t.is(dry.code, 0, dry.stderr);
  t.regex(dry.stdout, /would re-translate 1 outdated values/);
  t.regex((await cli('status')).stdout, /1 outdated/);

  const again = await cli('--json', 'push', '--retranslate-outdated');
  t.is(again.code, 0, again.stderr);
  const result = JSON.parse(again.stdout) as { trackingTokens: string[] };
  t.is(result.trackingTokens.length, 1, 'the re-translation job, for glossa wait');
  t.regex((await cli('status')).stdout, /de\s+0%\s+0\/1 done, 1 pending/);
  await runDue();
  t.is((await cli('wait')).code, 0);
  const done = await cli('status', '--fail-if-incomplete');
  t.is(done.code, 0, done.stdout);
  t.regex(done.stdout, /de\s+100%/);
  t.is((await cli('publish')).code, 0);
  t.is((await cli('pull')).code, 0);
  t.not(de().save, oldValue);
  // Nothing outdated left: a second request queues nothing.
  const idle = await cli('push', '--retranslate-outdated');
  t.is(idle.code, 0);
  t.regex(idle.stdout, /no outdated values to re-translate/);
});
