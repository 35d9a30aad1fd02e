// A publisher worker thread (pool.ts). The service runs TypeScript through tsx, whose loader a worker does not
// inherit on Node 20: it is registered here before the tasks load, unless the module is there compiled (the tree
// `npm test` runs: scripts/test-build.ts), which needs no loader.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const compiled = new URL('./tasks.js', import.meta.url);
if (!existsSync(compiled)) (await import('tsx/esm/api')).register();
const { TASKS } = await import(existsSync(compiled) ? compiled.href : './tasks.ts');

export default ({ task, input }) => TASKS[task](input);
