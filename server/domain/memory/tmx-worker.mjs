// A TMX parser thread (tmx-pool.ts). The service runs TypeScript through tsx, whose loader a worker does not inherit
// on Node 20: it is registered here before the parser loads (as server/domain/content/parse-worker.mjs does), unless
// the module is there compiled (the tree `npm test` runs: scripts/test-build.ts), which needs no loader.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const compiled = new URL('./tmx-parse.js', import.meta.url);
if (!existsSync(compiled)) (await import('tsx/esm/api')).register();
const { parseTmxTask } = await import(existsSync(compiled) ? compiled.href : './tmx-parse.ts');

export default parseTmxTask;
