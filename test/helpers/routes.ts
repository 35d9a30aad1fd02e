// Sample path parameters that satisfy each route's patterns, for tests that sweep the whole route table.
import { routes, type RouteSpec } from '../../generated/routes.js';

const SAMPLE: Record<string, string> = {
  versionId: '2026.01.01.1',
  docId: 'doc-1',
  requestId: 'req-1',
  webhookId: 'wh_1',
  deliveryId: 'dl_1',
  operationId: 'op_1',
  file: 'de.0123456789abcdef.json',
};

export function pathParams(route: RouteSpec, projectId: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of route.path.matchAll(/\{(\w+)\}/g))
    out[m[1]] = m[1] === 'projectId' ? projectId : (SAMPLE[m[1]] ?? 'x1');
  return out;
}

/** Authenticated routes of the public API (main origin). */
export const authedRoutes = routes.filter((r) => r.origin === 'main' && !r.public && r.method !== 'HEAD');
