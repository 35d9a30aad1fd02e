// An internal call made as a signed-in person, the way the dashboard makes it (server/web/api.ts): an
// in-process inject with the person in request.plugins, so the pipeline judges their role (spec x-roles).
import { ACTOR_PLUGIN, type Actor } from '../../server/http/pipeline.js';
import type { TestService } from './service.js';

export async function asPerson(svc: TestService, actor: Actor, method: string, url: string, payload?: unknown) {
  const res = await svc.service.main.inject({
    method,
    url: `/internal/v1${url}`,
    payload: payload === undefined ? undefined : JSON.stringify(payload),
    headers: payload === undefined ? {} : { 'content-type': 'application/json' },
    plugins: { [ACTOR_PLUGIN]: actor },
  });
  return { status: res.statusCode, body: res.payload ? (JSON.parse(res.payload) as Record<string, unknown>) : {} };
}
