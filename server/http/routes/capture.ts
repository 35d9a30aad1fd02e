// POST /capture (spec: `captureUnits`): strings a runtime SDK showed untranslated become captured keys for review.
// Nothing is translated or charged. At most 5,000 new captured keys per project per UTC day.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../infra/db.js';
import { chunks, insertOrKeep } from '../../infra/db.js';
import type { Handler } from '../pipeline.js';
import { baseName, contentToken, freeNames } from '../../domain/catalog/keys.js';

const CAPTURE_DAILY_LIMIT = 5000;

/** Reserves up to `want` of today's quota in one conditional update per try; returns how many it got. */
async function reserveQuota(db: Db, projectId: string, want: number, now: number): Promise<number> {
  const day = new Date(now).toISOString().slice(0, 10);
  await insertOrKeep(db, 'capture_days', { project_id: projectId, day, count: 0 }, ['project_id', 'day'], 'count');
  for (let tries = 0; tries < 5 && want > 0; tries++) {
    const n = await db('capture_days')
      .where({ project_id: projectId, day })
      .andWhere('count', '<=', CAPTURE_DAILY_LIMIT - want)
      .update({ count: db.raw('count + ?', [want]) });
    if (n === 1) return want;
    const row = await db('capture_days').where({ project_id: projectId, day }).first('count');
    want = Math.min(want, CAPTURE_DAILY_LIMIT - Number(row!.count));
  }
  return 0;
}

async function giveBack(db: Db, projectId: string, n: number, now: number) {
  if (n > 0)
    await db('capture_days')
      .where({ project_id: projectId, day: new Date(now).toISOString().slice(0, 10) })
      .update({ count: db.raw('count - ?', [n]) });
}

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
  const allowed = await reserveQuota(db, project.id, fresh.length, now);
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
    await giveBack(db, project.id, take.length - captured, now);
  }
  return { body: { captured, skipped: units.length - captured } };
};
