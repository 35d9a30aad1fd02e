// GET /status (spec: getProjectStatus): each target language's completeness, live, for CI clients (`glossa status`);
// with `gates=true`, the cells the gates would refuse in a publish with the default flags.
import { listLanguages } from '../../domain/project/projects.js';
import type { Handler } from '../pipeline.js';
import { defaultParams } from '../../domain/publish/build.js';
import { buildSnapshot, publishEnv } from '../../domain/publish/stream.js';
import { completeness, enabledKeyCount, failedKeys } from '../../domain/catalog/completeness.js';

const LISTED = 50;

export const getProjectStatus: Handler<'getProjectStatus'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const keyCount = await enabledKeyCount(db, p.id);
  const of = await completeness(db, p, keyCount);
  const languages = await listLanguages(db, p.id);
  const failing = await failedKeys(
    db,
    p.id,
    languages.map((l) => l.code).filter((code) => of(code).failed > 0),
  );
  let gates;
  if (ctx.query.gates === 'true') {
    const g = (await buildSnapshot(publishEnv(ctx.app), p.id, await defaultParams(db, p))).gates;
    gates = {
      icuRejected: g.icuRejected.slice(0, LISTED),
      icuRejectedTotal: g.icuRejectedTotal,
      markupRejected: g.markupRejected.slice(0, LISTED),
      markupRejectedTotal: g.markupRejectedTotal,
    };
  }
  return {
    body: {
      baseLang: p.base_lang,
      keyCount,
      currentVersion: p.current_version,
      languages: languages.map((l) => {
        // `outdated` only when there is one (spec: ProjectStatus), so a project without changed sources reads as before.
        const { outdated, ...c } = of(l.code);
        return {
          code: l.code,
          fillMode: l.fill_mode,
          complete: c.missing + c.pending + c.failed + outdated === 0,
          ...c,
          ...(outdated ? { outdated } : {}),
          ...(failing.has(l.code) ? { failedKeys: failing.get(l.code) } : {}),
        };
      }),
      ...(gates ? { gates } : {}),
    },
  };
};
