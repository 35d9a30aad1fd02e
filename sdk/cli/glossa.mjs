#!/usr/bin/env node
// The `glossa` executable: the CLI's TypeScript runs through tsx (a dependency of the package), as the service does.
import process from 'node:process';
import { register } from 'tsx/esm/api';

register();
const { run } = await import('./main.ts');
process.exitCode = await run(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
