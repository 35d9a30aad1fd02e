// `glossa`: the command line for CI (README "CLI"). `run(argv, io)` is the whole program, so tests and the bench
// call it in-process; bin.ts is the executable (built to dist/glossa.js by scripts/build.ts). Exit codes: errors.ts.
import { Command, CommanderError, Option } from 'commander';
import { publish, pull, push, status, versionsList, versionsRestore, wait, type Ctx } from './commands.js';
import { loadConfig } from './config.js';
import { check } from './check.js';
import { CliError, EXIT } from './errors.js';
import { apiClient } from './http.js';
import { init } from './init.js';
import { memory } from './memory.js';
import { serveMcp } from './mcp.js';
import { jsonLine, Output, printable } from './output.js';
import { VERSION } from './version.js';

interface Io {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  fetch?: typeof globalThis.fetch;
  /** Aborted when the run is interrupted (bin.ts: SIGINT, SIGTERM): nothing more is sent, an asked approval is withdrawn. */
  signal?: AbortSignal;
}

const EPILOG = `
Configuration: glossa.config.json or .glossarc.json, searched upward from the working folder (schema:
@glossa/cli/glossa.schema.json). The API key comes from GLOSSA_API_KEY only; GLOSSA_BASE_URL and
GLOSSA_PROJECT_ID override the file. \`glossa --version\` prints the version.

Exit codes: 0 success; 1 a request failed; 2 usage or configuration error; 3 approval needed, denied or
expired (agent keys); 4 incomplete or refused by a gate (--fail-if-incomplete, --strict), or a quality check
reports an error or too many warnings (check, --max-warnings).`;

const COMMANDS = new Set([
  'push',
  'wait',
  'publish',
  'pull',
  'status',
  'check',
  'init',
  'mcp',
  'versions',
  'memory',
  'help',
]);

/** A 404 for an unknown route from a base URL without its version: the usual slip, said how to fix. */
function routeHint(message: string, baseUrl: string | undefined): string {
  if (!baseUrl || /\/v1$/.test(baseUrl) || !/: 404 not_found\b/.test(message)) return message;
  return `${message} (the base URL ${baseUrl} has no /v1: the API lives under ${baseUrl}/v1; set baseUrl or GLOSSA_BASE_URL to it)`;
}

export async function run(argv: string[], io: Io): Promise<number> {
  // Alone only: commander's own .version() would take `pull --version <id>` too (program options count anywhere).
  // Before any command word: `glossa --json --version` too, never `glossa pull --version <id>`.
  const versionAt = argv.findIndex((a) => a === '--version' || a === '-V');
  const commandAt = argv.findIndex((a) => COMMANDS.has(a));
  if (versionAt >= 0 && (commandAt < 0 || versionAt < commandAt)) {
    io.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  let code: number = EXIT.ok;
  const program = new Command('glossa')
    .description('Push strings, wait for translation, publish and pull files of a Glossa project.')
    .option('-c, --config <file>', 'config file (default: search upward for glossa.config.json / .glossarc.json)')
    .option('--json', 'print one machine-readable JSON result on stdout')
    .option('--verbose', 'show each request (method, path, status, requestId); never the key')
    .option('--no-progress', 'plain lines instead of progress bars')
    .option('--approval-timeout <seconds>', 'agent keys: how long to wait for a decision (0: exit 3 at once)', '900')
    .option('--poll <seconds>', 'interval between polls', '2')
    .option(
      '--request-timeout <seconds>',
      'deadline of each request before it is retried (GLOSSA_REQUEST_TIMEOUT; default 30)',
    )
    .addHelpText('after', EPILOG)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });

  const globals = () =>
    program.opts<{
      config?: string;
      json?: boolean;
      verbose?: boolean;
      progress: boolean;
      approvalTimeout: string;
      poll: string;
      requestTimeout?: string;
    }>();
  const seconds = (s: string, name: string) => {
    const n = Number(s);
    if (s.trim() === '' || !Number.isFinite(n) || n < 0)
      throw new CliError(EXIT.usage, `${name} takes a number of seconds.`);
    return n * 1000;
  };
  /**
   * The context of one command (or one MCP call): the config, an API client and the waits. `signal`: the MCP call's
   * (nothing is sent after it aborts); `withoutFiles`: no config file is needed when GLOSSA_BASE_URL and
   * GLOSSA_PROJECT_ID say where the project is (the MCP server on a project without a repository).
   */
  const build = (out: Output, o: { signal?: AbortSignal; withoutFiles?: boolean } = {}): Ctx => {
    const g = globals();
    const cfg = loadConfig({ cwd: io.cwd, env: io.env, configPath: g.config, withoutFiles: o.withoutFiles });
    const num = (s: string | undefined, d: number) =>
      s !== undefined && s.trim() !== '' && Number.isFinite(Number(s)) && Number(s) >= 0 ? Number(s) : d;
    const timeout = g.requestTimeout ?? io.env.GLOSSA_REQUEST_TIMEOUT;
    const http = {
      baseUrl: cfg.baseUrl,
      apiKey: cfg.apiKey,
      out,
      retries: num(io.env.GLOSSA_RETRIES, 4),
      maxRetryWait: num(io.env.GLOSSA_MAX_RETRY_WAIT, 60),
      backoffMs: num(io.env.GLOSSA_BACKOFF_MS, 500),
      timeoutMs: timeout === undefined ? 30_000 : Math.max(1, seconds(timeout, '--request-timeout')),
      fetch: io.fetch,
    };
    const api = apiClient({ ...http, signal: o.signal });
    lastCfg = cfg;
    return {
      cfg,
      api,
      out,
      approvalTimeoutMs: seconds(g.approvalTimeout, '--approval-timeout'),
      pollMs: seconds(g.poll, '--poll'),
      signal: o.signal,
      // Outlives the signal: withdrawing an operation once the run is interrupted (one attempt, short).
      cleanupApi: o.signal ? apiClient({ ...http, retries: 0, timeoutMs: Math.min(http.timeoutMs, 5000) }) : undefined,
    };
  };
  /** `stdout`: where command lines go (the MCP server keeps stdout for the protocol and passes stderr). */
  const ctx = (stdout = io.stdout): { ctx: Ctx; out: Output } => {
    const g = globals();
    const out = new Output({
      json: Boolean(g.json),
      verbose: Boolean(g.verbose),
      progress: g.progress,
      stdout,
      stderr: io.stderr,
    });
    // Before the config is read: a configuration error is printed as JSON too under --json.
    lastOut = out;
    return { out, ctx: build(out, { signal: io.signal }) };
  };
  let lastOut: Output | undefined;
  let lastCfg: { baseUrl: string } | undefined;
  const act =
    <A extends unknown[]>(fn: (c: Ctx, ...a: A) => Promise<number>) =>
    async (...a: A) => {
      const { ctx: c } = ctx();
      code = await fn(c, ...a);
    };

  program
    .command('push')
    .description('send the source files: sync a syncable catalog, else translate in batches of 500')
    .option('--dry-run', 'show the estimate, conflicts and orphans; change nothing')
    .addOption(new Option('--on-conflict <side>', 'which value wins a sync conflict').choices(['server', 'file']))
    .option('--retranslate-outdated', 'then translate again the values whose source changed since they were written')
    .option(
      '--import-translations',
      'upload the translation files beside the base files before their languages are queued (a first push does)',
    )
    .action(
      act(
        (
          c,
          o: {
            dryRun?: boolean;
            onConflict?: 'server' | 'file';
            retranslateOutdated?: boolean;
            importTranslations?: boolean;
          },
        ) =>
          push(c, {
            dryRun: Boolean(o.dryRun),
            onConflict: o.onConflict,
            retranslateOutdated: Boolean(o.retranslateOutdated),
            importTranslations: o.importTranslations,
          }),
      ),
    );
  program
    .command('wait')
    .description("poll the last push's tracking tokens until their jobs finish; report failed pairs")
    .option('--token <token...>', 'tracking tokens (default: those of the last push)')
    .option('--timeout <seconds>', 'give up after (exit 1)', '1800')
    .option('--strict', 'exit 4 when any pair failed')
    .action(
      act((c, o: { token?: string[]; timeout: string; strict?: boolean }) =>
        wait(c, { tokens: o.token, timeoutMs: Number(o.timeout) * 1000, strict: Boolean(o.strict) }),
      ),
    );
  program
    .command('publish')
    .description('publish a new version')
    .option('--label <label>', 'label of the version')
    .addOption(new Option('--incomplete-mode <mode>', 'keys without a value').choices(['source', 'skip', 'hold']))
    .option('--approved-only', 'publish approved cells only')
    .option('--require-complete', 'refuse (exit 4) when anything is incomplete')
    .option('--required-output-format <format>', 'refuse unless this format is configured')
    .option('--skip-if-identical', 'mint nothing when nothing changed')
    .option('--strict', 'exit 4 when the gates refused cells')
    .action(
      act(
        (
          c,
          o: {
            label?: string;
            incompleteMode?: 'source' | 'skip' | 'hold';
            approvedOnly?: boolean;
            requireComplete?: boolean;
            requiredOutputFormat?: string;
            skipIfIdentical?: boolean;
            strict?: boolean;
          },
        ) => publish(c, { ...o, strict: Boolean(o.strict) }),
      ),
    );
  program
    .command('pull')
    .description('write every mapped file of a version (one archive per format); only changed files')
    .option('--version <version>', 'YYYY.MM.DD.N or current', 'current')
    .option('--force', 'overwrite local translations the project has never seen (else refused, exit 1)')
    .action(act((c, o: { version: string; force?: boolean }) => pull(c, o)));
  program
    .command('status')
    .description('completeness per language: pending and failed pairs')
    .option('--gates', 'also count the cells the ICU and markup gates would refuse in a publish')
    .option('--fail-if-incomplete', 'exit 4 when a language is incomplete (or, with --gates, a cell is refused)')
    .action(
      act((c, o: { failIfIncomplete?: boolean; gates?: boolean }) =>
        status(c, { failIfIncomplete: Boolean(o.failIfIncomplete), gates: Boolean(o.gates) }),
      ),
    );
  program
    .command('check')
    .description("list what the project's quality checks found; exit 4 on an error (or too many warnings)")
    .option('--lang <code>', 'one language (the base language: the sources and key names)')
    .addOption(new Option('--severity <severity>', 'one severity only').choices(['error', 'warning', 'info']))
    .option('--check <id>', 'one check only (custom:<id> for a project check)')
    .option('--max-warnings <n>', 'exit 4 when more cells than this have warnings')
    .option('--limit <n>', 'results printed at most', '200')
    .action(
      act(
        (
          c,
          o: {
            lang?: string;
            severity?: 'error' | 'warning' | 'info';
            check?: string;
            maxWarnings?: string;
            limit: string;
          },
        ) => {
          const count = (v: string | undefined, name: string) => {
            if (v === undefined) return undefined;
            if (!/^\d{1,9}$/.test(v)) throw new CliError(EXIT.usage, `${name} takes a whole number.`);
            return Number(v);
          };
          return check(c, {
            lang: o.lang,
            severity: o.severity,
            check: o.check,
            maxWarnings: count(o.maxWarnings, '--max-warnings'),
            limit: Math.max(1, count(o.limit, '--limit') ?? 200),
          });
        },
      ),
    );
  program
    .command('memory')
    .description('what the translation memory covers of the pairs still to translate, per language and match band')
    .option('--lang <codes>', 'comma-separated target languages (default all)')
    .action(act((c, o: { lang?: string }) => memory(c, { langs: o.lang?.split(',').filter(Boolean) })));
  program
    .command('init')
    .description('write glossa.config.json by looking at the repository (Android, Apple, Flutter, JSON, PO)')
    .option('--base <lang>', 'the base language of the source files', 'en')
    .option('--base-url <url>', 'the API base URL to write (else GLOSSA_BASE_URL at run time)')
    .option('--project <id>', 'the project id to write (else GLOSSA_PROJECT_ID at run time)')
    .option('--force', 'replace an existing glossa.config.json')
    .action((o: { base: string; baseUrl?: string; project?: string; force?: boolean }) => {
      const g = program.opts<{ json?: boolean; verbose?: boolean; progress: boolean }>();
      const out = new Output({
        json: Boolean(g.json),
        verbose: Boolean(g.verbose),
        progress: g.progress,
        stdout: io.stdout,
        stderr: io.stderr,
      });
      lastOut = out;
      code = init(io.cwd, out, { base: o.base, baseUrl: o.baseUrl, projectId: o.project, force: Boolean(o.force) });
    });
  program
    .command('mcp')
    .description('run a Model Context Protocol server over stdio (tools: status, push, wait, publish, ...)')
    .action(async () => {
      code = await serveMcp((out, signal) => build(out, { signal, withoutFiles: true }), io.stderr);
    });
  const versions = program.command('versions').description('list or restore published versions');
  versions
    .command('list', { isDefault: true })
    .description('list versions, newest first')
    .action(act((c) => versionsList(c)));
  versions
    .command('restore <version>')
    .description('restore a version (YYYY.MM.DD.N or previous) as a new version')
    .action(act((c, v: string) => versionsRestore(c, v)));

  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0) return EXIT.ok;
      if (e.code === 'commander.help') return EXIT.usage;
      return EXIT.usage;
    }
    lastOut?.clearBar();
    if (e instanceof CliError) {
      const message = routeHint(e.message, lastCfg?.baseUrl);
      io.stderr.write(`glossa: ${printable(message)}\n`);
      if (lastOut?.opts.json)
        io.stdout.write(`${jsonLine({ ok: false, exitCode: e.exitCode, error: message, detail: e.detail })}\n`);
      return e.exitCode;
    }
    io.stderr.write(`glossa: ${printable((e as Error).message ?? String(e))}\n`);
    if (lastOut?.opts.json) io.stdout.write(`${jsonLine({ ok: false, exitCode: EXIT.failure, error: String(e) })}\n`);
    return EXIT.failure;
  }
}
