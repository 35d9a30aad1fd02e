// The `glossa` executable. scripts/build.ts bundles it (with main.ts, packages/core and packages/client) into
// dist/glossa.js, the package's `bin`, so the installed CLI needs neither tsx nor the workspace packages.
import process from 'node:process';
import { run } from './main.js';

// A reader that stops early (`glossa --help | head`) closes the pipe: that is not the CLI's failure.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
// An interrupted run (Ctrl-C, a CI job cancelled) stops sending and withdraws the approval it asked for; a second
// signal ends it at once.
const interrupted = new AbortController();
if (!process.argv.slice(2).includes('mcp'))
  for (const name of ['SIGINT', 'SIGTERM'] as const)
    process.on(name, () => {
      if (interrupted.signal.aborted) process.exit(130);
      interrupted.abort();
    });
process.exitCode = await run(process.argv.slice(2), {
  signal: interrupted.signal,
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
