// A key's cell read and written through the internal API with the admin token: what several tests check a page or
// a route against.
import type { TestProject, TestService } from './service.js';

/** The key's cell in `lang`, as internalGetKey answers it. */
export async function keyCell(svc: TestService, p: TestProject, key: string, lang: string) {
  const r = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key } },
  });
  return r.data!.cells.find((c) => c.lang === lang)!;
}

/** Saves `value` in the key's cell (internalPutTranslation, status translated). */
export const putCell = (svc: TestService, p: TestProject, key: string, lang: string, value: string) =>
  svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key, lang } },
    body: { value },
  });
