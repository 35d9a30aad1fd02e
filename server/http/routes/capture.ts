// POST /capture (spec: `captureUnits`): strings a runtime SDK showed untranslated become captured keys for review.
// Nothing is translated or charged. At most 5,000 new captured keys per project per UTC day.
import { randomBytes } from 'node:crypto';
import { chunks, insertOrKeep } from '../../infra/db.js';
import type { Handler } from '../pipeline.js';
import { baseName, contentToken, DEFAULT_NAMESPACE, freeNames, namespacedCtx } from '../../domain/catalog/keys.js';
import { releaseDaily, reserveDaily } from '../../domain/billing/quotas.js';
import { canonicalKey, isKeyName } from '../../domain/sync/canonical.js';
import { checkKeys } from '../../domain/checks/store.js';

const CAPTURE_DAILY_LIMIT = 5000;

interface Unit {
  source: string;
  ctx: string | null;
  /** The app's namespace (DEFAULT_NAMESPACE: none). */
  ns: string;
  /** The key the app asked for, as it spells it (a unit without one is named after its text). */
  fileKey: string | null;
  /** The name the key gets: the app's key (canonical.ts for a spelling no name has), else one found from the text. */
  name?: string;
}

export const captureUnits: Handler<'captureUnits'> = async (ctx) => {
  const { db } = ctx.app;
  const project = ctx.project;
  const units = ctx.body.units as Array<{ source: string; ctx?: string; key?: string; namespace?: string }>;
  const now = Date.now();
  // Units without a key are known by their text (its token); units with one by that key's name, so two keys the
  // app shows with the same default text are two captured keys (their tokens salted with the name, as a sync salts
  // a file's same-text keys: server/domain/sync/plan.ts).
  const byToken = new Map<string, Unit>();
  const byName = new Map<string, Unit>();
  // A key's name is unique within its namespace (catalog/keys.ts), and its token salted with it (namespacedCtx).
  const inNs = (ns: string, name: string) => `${ns}\u0000${name}`;
  for (const u of units) {
    const c = u.ctx ?? null;
    const ns = u.namespace ?? DEFAULT_NAMESPACE;
    if (u.key === undefined)
      byToken.set(contentToken(u.source, null, namespacedCtx(ns, c)), { source: u.source, ctx: c, ns, fileKey: null });
    else {
      // Named as /translate names a unit's `key` (spec: KeyName), which bundles serve by that name; any other
      // spelling as a sync names a file key, kept as the key's file key for the files a pull writes.
      const name = isKeyName(u.key) ? u.key : canonicalKey(u.key);
      if (!byName.has(inNs(ns, name)))
        byName.set(inNs(ns, name), { source: u.source, ctx: c, ns, fileKey: u.key, name });
    }
  }
  const known = new Set<string>();
  const tokens = [...byToken.keys()];
  for (const part of chunks(tokens)) {
    for (const r of await db('keys').where('project_id', project.id).whereIn('token', part).select('token'))
      known.add(r.token);
  }
  const names = new Set<string>();
  for (const part of chunks([...new Set([...byName.values()].map((u) => u.name!))])) {
    for (const r of await db('keys').where('project_id', project.id).whereIn('name', part).select('name', 'namespace'))
      names.add(inNs(r.namespace ?? DEFAULT_NAMESPACE, r.name));
  }
  const keyed = [...byName.values()].filter((u) => !names.has(inNs(u.ns, u.name!)));
  const plain = new Map(keyed.map((u) => [u, contentToken(u.source, null, namespacedCtx(u.ns, u.ctx))] as const));
  const taken = new Set<string>();
  for (const part of chunks([...new Set(plain.values())])) {
    for (const r of await db('keys').where('project_id', project.id).whereIn('token', part).select('token'))
      taken.add(r.token);
  }
  const fresh: Array<[string, Unit]> = tokens.filter((t) => !known.has(t)).map((t) => [t, byToken.get(t)!]);
  for (const u of keyed) {
    let token = plain.get(u)!;
    if (taken.has(token) || byToken.has(token))
      token = contentToken(u.source, null, `${namespacedCtx(u.ns, u.ctx) ?? ''}\u0000${u.name!}`);
    taken.add(token);
    fresh.push([token, u]);
  }
  const allowed = await reserveDaily(db, project.id, 'capture', fresh.length, CAPTURE_DAILY_LIMIT, now);
  const take = fresh.slice(0, allowed);
  let captured = 0;
  if (take.length) {
    const unnamed = take.filter(([, u]) => u.name === undefined);
    for (const ns of new Set(unnamed.map(([, u]) => u.ns))) {
      const mine = unnamed.filter(([, u]) => u.ns === ns);
      const found = await freeNames(
        db,
        project.id,
        mine.map(([t, u]) => baseName(u.source, u.ctx, t)),
        ns,
      );
      mine.forEach(([, u], i) => (u.name = found[i]));
    }
    const captureId = `cap_${randomBytes(9).toString('base64url')}`;
    await insertOrKeep(
      db,
      'keys',
      take.map(([t, u]) => ({
        project_id: project.id,
        name: u.name!,
        namespace: u.ns,
        token: t,
        source: u.source,
        forms: null,
        ctx: u.ctx,
        ...(u.fileKey === null ? {} : { file_key: u.fileKey }),
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
    const ids = (await db('keys').where({ project_id: project.id, created_by: captureId }).pluck('id')).map(Number);
    captured = ids.length;
    // The captured sources' check results, for the person who reviews them (server/domain/checks/).
    await checkKeys(db, project.id, ids, now);
    // Units a concurrent push or capture registered first do not use today's quota.
    await releaseDaily(db, project.id, 'capture', take.length - captured, now);
  }
  return { body: { captured, skipped: units.length - captured } };
};
