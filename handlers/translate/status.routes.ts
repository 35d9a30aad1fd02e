// GET /status (spec: getProjectStatus): each target language's completeness, live, for CI clients (`glossa status`).
import { getProject, listLanguages } from '../config/projects.js';
import type { Handler } from '../platform/pipeline.js';
import { completeness, enabledKeyCount } from './completeness.js';

export const getProjectStatus: Handler<'getProjectStatus'> = async (ctx) => {
  const { db } = ctx.app;
  const p = await getProject(db, ctx.params.projectId);
  const keyCount = await enabledKeyCount(db, p.id);
  const of = await completeness(db, p, keyCount);
  return {
    body: {
      baseLang: p.base_lang,
      keyCount,
      currentVersion: p.current_version,
      languages: (await listLanguages(db, p.id)).map((l) => {
        const c = of(l.code);
        return { code: l.code, fillMode: l.fill_mode, complete: c.missing + c.pending + c.failed === 0, ...c };
      }),
    },
  };
};
