// `npm test`: the static checks (typecheck, the dependency rules of .dependency-cruiser.cjs, ESLint, Prettier's
// check, knip), the whole suite on SQLite under c8 (line coverage of server/ and packages/
// must stay at or above the threshold in .c8rc.json), then the database-backed tests again on MySQL when
// MYSQL_URL is set. Ends with one line `N passed, M failed` over all of it, each check counting as one. Extra
// arguments go to AVA (e.g. a file to run), and then the checks are skipped.
import { spawn } from 'node:child_process';

interface Totals {
  passed: number;
  failed: number;
  ran: boolean;
}

/** `coverage`: run under c8 (.c8rc.json), which fails the run when line coverage falls under its threshold. */
function runAva(label: string, args: string[], env: Record<string, string>, coverage = false): Promise<Totals> {
  return new Promise((resolve) => {
    console.log(`\n=== ${label} ===`);
    const ava = ['node_modules/ava/entrypoints/cli.mjs', '--tap', ...args];
    const child = spawn(process.execPath, coverage ? ['node_modules/c8/bin/c8.js', process.execPath, ...ava] : ava, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      process.stdout.write(d);
    });
    child.on('close', (code) => {
      const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
      const passed = num(/^# pass (\d+)/m);
      let failed = num(/^# fail (\d+)/m);
      // A crash outside any test (no totals, or a non-zero exit with nothing failed) still counts as a failure.
      if (code !== 0 && failed === 0) failed = 1;
      resolve({ passed, failed, ran: /^# tests \d+/m.test(out) });
    });
  });
}

/** A check passes when its command exits 0; its output is shown either way. */
function runCheck(label: string, args: string[]): Promise<Totals> {
  return new Promise((resolve) => {
    console.log(`\n=== ${label} ===`);
    const child = spawn(process.execPath, args, { stdio: 'inherit' });
    child.on('close', (code) => {
      console.log(code === 0 ? `ok - ${label}` : `not ok - ${label} (exit ${code})`);
      resolve({ passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, ran: true });
    });
  });
}

const extra = process.argv.slice(2);
const runs: Totals[] = [];
if (!extra.length) {
  runs.push(await runCheck('typecheck (tsc --noEmit)', ['node_modules/typescript/bin/tsc', '--noEmit', '-p', '.']));
  runs.push(
    await runCheck('dependency rules (dependency-cruiser)', [
      'node_modules/dependency-cruiser/bin/dependency-cruise.mjs',
      'server',
      'packages',
      'bench',
      'scripts',
      'generated',
      'test',
      '--config',
      '.dependency-cruiser.cjs',
    ]),
  );
  runs.push(
    await runCheck('lint (ESLint, type-checked rules, zero warnings)', [
      'node_modules/eslint/bin/eslint.js',
      '.',
      '--max-warnings',
      '0',
    ]),
  );
  runs.push(await runCheck('format (Prettier --check)', ['node_modules/prettier/bin/prettier.cjs', '--check', '.']));
  runs.push(await runCheck('unused exports, files and dependencies (knip)', ['node_modules/knip/bin/knip.js']));
}
runs.push(await runAva('SQLite', extra.length ? extra : ['test/**/*.test.ts'], { TEST_DB: 'sqlite' }, !extra.length));
if (process.env.MYSQL_URL) {
  // Contract tests (spec lint, generated freshness, mock) do not touch the database; run them once.
  const dbFiles = extra.length ? extra : ['test/api/**/*.test.ts'];
  runs.push(await runAva('MySQL', dbFiles, { TEST_DB: 'mysql' }));
}
const passed = runs.reduce((a, r) => a + r.passed, 0);
const failed = runs.reduce((a, r) => a + r.failed, 0);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
