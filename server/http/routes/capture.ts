// POST /capture (spec: `captureUnits`): strings a runtime SDK showed untranslated become captured keys for review.
// Nothing is translated or charged. At most 5,000 new captured keys per project per UTC day.
import { randomBytes } from 'node:crypto';
import { chunks, insertOrKeep } from '../../infra/db.js';
import type { Handler } from '../pipeline.js';
import { baseName, contentToken, freeNames } from '../../domain/catalog/keys.js';
import { releaseDaily, reserveDaily } from '../../domain/billing/quotas.js';

const CAPTURE_DAILY_LIMIT = 5000;

export const captureUnits: Handler<'captureUnits'> = async (ctx) => {
  const { db } = ctx.app;
  const project = ctx.project;
  const units = ctx.body.units as Array<{ source: string; ctx?: string }>;
  const now = Date.now();
  const byToken = new Map<string, { source: string; ctx: string | null }>();
  for (const u of units)
    byToken.set(contentToken(u.source, null, u.ctx ?? null), { source: u.source, ctx: u.ctx ?? null });
  const known = new Set<string>();
  const tokens = [...byToken.keys()];
  for (const part of chunks(tokens)) {
    for (const r of await db('keys').where('project_id', project.id).whereIn('token', part).select('token'))
      known.add(r.token);
  }
  const fresh = tokens.filter((t) => !known.has(t));
  const allowed = await reserveDaily(db, project.id, 'capture', fresh.length, CAPTURE_DAILY_LIMIT, now);
  const take = fresh.slice(0, allowed);
  let captured = 0;
  if (take.length) {
    const names = await freeNames(
      db,
      project.id,
      take.map((t) => baseName(byToken.get(t)!.source, byToken.get(t)!.ctx, t)),
    );
    const captureId = `cap_${randomBytes(9).toString('base64url')}`;
    await insertOrKeep(
      db,
      'keys',
      take.map((t, i) => ({
        project_id: project.id,
        name: names[i],
        token: t,
        source: byToken.get(t)!.source,
        forms: null,
        ctx: byToken.get(t)!.ctx,
        enabled: true,
        source_verified: false,
        captured: true,
        created_by: captureId,
        source_updated_at: now,
        created_at: now,
        updated_at: now,
      })),
      [],
      'id',
    );
    captured = Number(
      (await db('keys').where({ project_id: project.id, created_by: captureId }).count({ n: '*' }))[0].n,
    );
    // Units a concurrent push or capture registered first do not use today's quota.
    await releaseDaily(db, project.id, 'capture', take.length - captured, now);
  }
  return { body: { captured, skipped: units.length - captured } };
};
