// A publisher worker thread (pool.ts). The service runs TypeScript through tsx, whose loader a worker does not
// inherit on Node 20: it is registered here before the tasks load.
import { register } from 'tsx/esm/api';

register();
const { TASKS } = await import('./tasks.ts');

export default ({ task, input }) => TASKS[task](input);
