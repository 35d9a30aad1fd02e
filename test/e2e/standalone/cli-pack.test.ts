// The package as a user gets it (issue 18): `npm pack`, installed into an empty folder, and `npx glossa --help`
// there. Install scripts are skipped (the CLI needs no native module) and the npm cache is preferred.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';

test('npm pack installs into an empty folder, and npx glossa --help works there', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-pack-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const npm = (args: string[], cwd: string) => spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 150_000 });
  const packed = npm(['pack', '--json', '--pack-destination', dir], process.cwd());
  t.is(packed.status, 0, packed.stderr);
  const [{ filename }] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  const app = path.join(dir, 'app');
  spawnSync('mkdir', [app]);
  writeFileSync(path.join(app, 'package.json'), '{"name":"app","private":true}\n');
  const installed = npm(
    ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', path.join(dir, filename)],
    app,
  );
  t.is(installed.status, 0, installed.stderr);
  t.true(existsSync(path.join(app, 'node_modules/glossa/packages/cli/src/glossa.schema.json')), 'the schema ships');
  const help = spawnSync('npx', ['--no-install', 'glossa', '--help'], { cwd: app, encoding: 'utf8' });
  t.is(help.status, 0, help.stderr);
  t.regex(help.stdout, /Usage: glossa/);
  t.regex(help.stdout, /Exit codes: 0 success/);
  const usage = spawnSync('npx', ['--no-install', 'glossa', 'status'], { cwd: app, encoding: 'utf8' });
  t.is(usage.status, 2, 'no config: exit 2');
});
