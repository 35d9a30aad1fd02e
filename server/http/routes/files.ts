// Files group: project metadata (spec: `getProjectMeta`).
import { bool } from '../../infra/db.js';
import type { Handler } from '../pipeline.js';
import type { App } from '../../infra/app.js';
import { listLanguages } from '../../domain/project/projects.js';
import type { ProjectRow } from '../../infra/tables.js';
import { projectFormats } from '../../domain/publish/versions.js';
import { memorySettings } from '../../domain/memory/settings.js';

/** Where the project's manifest and bundles are served: its custom domain, else the delivery origin. */
function deliveryUrlOf(app: App, p: ProjectRow): string {
  return p.delivery_host ? `https://${p.delivery_host}/v1` : `${app.config.publicDeliveryUrl}/projects/${p.id}`;
}

export const getProjectMeta: Handler<'getProjectMeta'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const langs = await listLanguages(db, p.id);
  return {
    body: {
      projectId: p.id,
      handle: p.handle,
      slug: p.slug,
      name: p.name,
      baseLang: p.base_lang,
      languages: [
        { code: p.base_lang, isBase: true, fillMode: 'ai' },
        ...langs.map((l) => ({ code: l.code, isBase: false, fillMode: l.fill_mode })),
      ],
      mode: p.mode,
      content: { enabled: bool(p.content_enabled) },
      deliveryHost: p.delivery_host,
      deliveryUrl: deliveryUrlOf(ctx.app, p),
      outputFormats: await projectFormats(db, p),
      currentVersion: (p as ProjectRow & { current_version?: string | null }).current_version ?? null,
      memory: memorySettings(p),
    },
  };
};
