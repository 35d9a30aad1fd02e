// A re-check worker thread (pool.ts), loaded as the publisher's is (server/domain/publish/worker.mjs): through tsx's
// loader, unless the module is there compiled (the tree `npm test` runs).
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const compiled = new URL('./tasks.js', import.meta.url);
if (!existsSync(compiled)) (await import('tsx/esm/api')).register();
const { checkSlice } = await import(existsSync(compiled) ? compiled.href : './tasks.ts');

export default (input) => checkSlice(input);
