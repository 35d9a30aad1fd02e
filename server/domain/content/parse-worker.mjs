// A content parser thread (parse-pool.ts). The service runs TypeScript through tsx, whose loader a worker does not
// inherit on Node 20: it is registered here before the parser loads (as server/domain/publish/worker.mjs does).
import { register } from 'tsx/esm/api';

register();
const { parseTask } = await import('./parse.ts');

export default parseTask;
