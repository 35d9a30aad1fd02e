#!/usr/bin/env node
// The `glossa` executable: the CLI's TypeScript runs through tsx (a dependency of the package), as the service does.
import process from 'node:process';
import { register } from 'tsx/esm/api';

register();
// A reader that stops early (`glossa --help | head`) closes the pipe: that is not the CLI's failure.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (e) => {
    if (e.code !== 'EPIPE') throw e;
  });
const { run } = await import('./main.ts');
process.exitCode = await run(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
