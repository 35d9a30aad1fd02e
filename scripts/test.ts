// `npm test`: the static checks (types and ESLint on one program: check-code.ts; the dependency rules of
// .dependency-cruiser.cjs, Prettier's check, knip), the whole suite on SQLite under c8 (line coverage of server/ and packages/ must stay at or above
// the threshold in .c8rc.json), then, when MYSQL_URL is set, the tiers that open a database again on MySQL:
// test/service/*.test.ts and test/e2e/*.test.ts, not test/unit, test/contract, test/service/output, test/e2e/consumers
// or test/e2e/standalone (docs/decisions/0012-test-tiers.md, 0020-tests-run-compiled.md). The tests run from a
// compiled copy of the tree (test-build.ts), each on a copy of one migrated template database per lane
// (test/helpers/template-db.ts).
// Ends with one line `N passed, M failed` over all of it, each check counting as one. Extra arguments go to AVA
// (e.g. a file to run), and then the checks and coverage are skipped.
//
// The three lanes (checks, SQLite, MySQL) run at once: most of a test's time is spent waiting (a browser, a child
// process, the database, a timer), so on two cores they overlap rather than queue. Each lane's output is printed
// as one block when it ends, so the log reads in order. TEST_CONCURRENCY: AVA's workers (files, or batches
// of files: test-batches.ts) at once per pass.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTemplate, dropMysqlTemplate, relaxMysqlFlush } from '../test/helpers/template-db.js';
import { batchTests } from './test-batches.js';
import { compiledName, testBuild } from './test-build.js';

interface Totals {
  passed: number;
  failed: number;
  ran: boolean;
}

/** The tiers that open a database (test/helpers/service.ts), run again on MySQL: these folders' files. */
const DATABASE_TIERS = new Set(['test/service', 'test/e2e']);

// Two files at once per lane, six busy processes with the checks on two cores. With three, the run did the same
// work in more CPU time (about 1,000 CPU-s against 900-930: processes evicting each other from the caches) and
// took 600-613 s against 554-572 s (docs/testing.md).
const concurrency = process.env.TEST_CONCURRENCY ?? '2';

/** Runs a command, its output gathered and printed as one block under `label` with its wall time. */
function run(
  label: string,
  args: string[],
  env: Record<string, string> = {},
  cwd = process.cwd(),
  priority = 0,
): Promise<{ code: number; out: string }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (priority && child.pid) os.setPriority(child.pid, priority);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      const secs = ((Date.now() - started) / 1000).toFixed(0);
      process.stdout.write(`\n=== ${label} (${secs} s) ===\n${out}${err ? `${err}\n` : ''}`);
      resolve({ code: code ?? 1, out });
    });
  });
}

/** `coverage`: run under c8 (.c8rc.json), which fails the run when line coverage falls under its threshold. */
async function runAva(label: string, args: string[], env: Record<string, string>, coverage = false): Promise<Totals> {
  const ava = [
    'node_modules/ava/entrypoints/cli.mjs',
    '--tap',
    '--concurrency',
    concurrency,
    ...args.map(compiledName),
  ];
  const cmd = coverage ? ['node_modules/c8/bin/c8.js', process.execPath, ...ava] : ava;
  const { code, out } = await run(label, cmd, tmp ? { ...env, TMPDIR: tmp } : env, await built);
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  const passed = num(/^# pass (\d+)/m);
  let failed = num(/^# fail (\d+)/m);
  // A crash outside any test (no totals, or a non-zero exit with nothing failed) still counts as a failure.
  if (code !== 0 && failed === 0) failed = 1;
  return { passed, failed, ran: /^# tests \d+/m.test(out) };
}

/** A check passes when its command exits 0; its output is shown either way. */
async function runCheck(label: string, args: string[]): Promise<Totals> {
  const { code } = await run(label, args, {}, process.cwd(), CHECKS_PRIORITY);
  console.log(code === 0 ? `ok - ${label}` : `not ok - ${label} (exit ${code})`);
  return { passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, ran: true };
}

/**
 * The checks run at a lower priority (a nicer process): the SQLite lane, the longest, is the run's critical path, and
 * the checks end before it even when they only get what the lanes leave. At equal priority they took their share of
 * the cores from the first second; niced, the run took 531 s instead of 558 (docs/testing.md).
 */
const CHECKS_PRIORITY = 10;

/** The static checks, one after another: each is a single busy process, and the test passes want the cores too. */
async function checks(): Promise<Totals[]> {
  const list: Array<[string, string[]]> = [
    // TypeScript's check and ESLint's type-checked rules on one program (check-code.ts).
    [
      'types and lint (tsc, ESLint with type-checked rules, zero warnings)',
      ['--import', 'tsx', 'scripts/check-code.ts'],
    ],
    [
      'dependency rules (dependency-cruiser)',
      [
        'node_modules/dependency-cruiser/bin/dependency-cruise.mjs',
        'server',
        'packages',
        'bench',
        'scripts',
        'generated',
        'test',
        '--config',
        '.dependency-cruiser.cjs',
      ],
    ],
    ['format (Prettier --check)', ['node_modules/prettier/bin/prettier.cjs', '--check', '.']],
    ['unused exports, files and dependencies (knip)', ['node_modules/knip/bin/knip.js']],
  ];
  const results: Totals[] = [];
  for (const [label, args] of list) results.push(await runCheck(label, args));
  return results;
}

/**
 * Where the tests' temporary files go (each file's database, object store, browser profile): a folder of its own in
 * memory when the machine has a tmpfs at /dev/shm, else the system's. The suite writes and syncs thousands of small
 * files; on a virtual disk each sync costs the kernel time the tests need (about 1.5 of 34 CPU-s on three of the
 * heaviest files). The full-disk and crash tests do not depend on it: they mount disks of their own and kill processes, which
 * never loses what the kernel holds.
 */
function scratch(): string | undefined {
  try {
    if (statSync('/dev/shm').isDirectory()) return mkdtempSync('/dev/shm/glossa-tests-');
  } catch {
    // No tmpfs here: the system's temporary folder it is.
  }
  return undefined;
}

const extra = process.argv.slice(2);
const tmp = scratch();
const built = testBuild(process.cwd());
/**
 * A whole run's files, in batches (test-batches.ts); a run of named files, or one with TEST_BATCHES=0, runs each
 * file as its own worker.
 */
const whole = extra.length
  ? undefined
  : built.then((dir) => {
      const files = readdirSync('test', { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => `test/${f.replaceAll(path.sep, '/')}`)
        .sort();
      return process.env.TEST_BATCHES === '0' ? files : batchTests(dir, files);
    });
const mysqlUrl = process.env.MYSQL_URL;
const mysqlTemplate = `glossa_template_${process.pid}`;

/** The lane's migrated template database (test/helpers/template-db.ts), made once and named to its tests. */
async function template(db: 'sqlite' | 'mysql'): Promise<Record<string, string>> {
  if (db === 'mysql') {
    await createTemplate({ mysqlUrl: mysqlUrl!, name: mysqlTemplate });
    return { TEST_DB: 'mysql', TEST_TEMPLATE_DB: mysqlTemplate };
  }
  const file = path.join(await built, 'template.db');
  await createTemplate({ file });
  return { TEST_DB: 'sqlite', TEST_TEMPLATE_DB: file };
}
const lanes: Array<Promise<Totals[]>> = [];
if (!extra.length) lanes.push(checks());
lanes.push(
  template('sqlite').then(async (env) => [
    await runAva('SQLite', extra.length ? extra : await whole!, env, !extra.length),
  ]),
);
const restoreFlush = mysqlUrl ? await relaxMysqlFlush(mysqlUrl) : undefined;
if (mysqlUrl) {
  lanes.push(
    template('mysql').then(async (env) => [
      await runAva(
        'MySQL',
        extra.length ? extra : (await whole!).filter((f) => DATABASE_TIERS.has(path.posix.dirname(f))),
        env,
      ),
    ]),
  );
}
const runs = (await Promise.all(lanes)).flat();
if (mysqlUrl) await dropMysqlTemplate(mysqlUrl, mysqlTemplate);
await restoreFlush?.();
if (tmp) rmSync(tmp, { recursive: true, force: true });
const passed = runs.reduce((a, r) => a + r.passed, 0);
const failed = runs.reduce((a, r) => a + r.failed, 0);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
