// How a test starts one of the project's TypeScript entry points (the service, a worker, the CLI) as a process.
import { existsSync } from 'node:fs';

/**
 * `node` arguments that run `tsFile` (an absolute path): its compiled sibling when the tests run from the compiled
 * tree (scripts/test-build.ts, docs/decisions/0020-tests-run-compiled.md), which starts without tsx's loader
 * hooks transforming every module again in each child; else the source through tsx, as `npm start` runs it.
 */
export function entryArgs(tsFile: string): string[] {
  const js = tsFile.replace(/\.ts$/, '.js');
  return existsSync(js) ? [js] : ['--import', import.meta.resolve('tsx'), tsFile];
}
