// A translator's projects and languages (migration 037, spec TranslatorGrants, docs/decisions/0032-translator-role.md):
// the pipeline admits a translator only to a granted project's routes (server/http/pipeline.ts), and the
// translation edit saves only in a granted language (server/http/routes/keys.ts).
import type { Db } from '../../infra/db.js';
import { invalidArgument } from '../../infra/errors.js';
import { listLanguages } from '../project/projects.js';

export type Grants = Array<{ projectId: string; langs: string[] }>;

/** Each user's grants, projects and languages in code order (users without any are absent). */
export async function grantsOf(db: Db, userIds: string[]): Promise<Map<string, Grants>> {
  const out = new Map<string, Grants>();
  if (!userIds.length) return out;
  const rows = (await db('translator_grants')
    .whereIn('user_id', userIds)
    .orderBy(['user_id', 'project_id', 'lang'])) as Array<{ user_id: string; project_id: string; lang: string }>;
  for (const r of rows) {
    let grants = out.get(r.user_id);
    if (!grants) out.set(r.user_id, (grants = []));
    const last = grants.at(-1);
    if (last?.projectId === r.project_id) last.langs.push(r.lang);
    else grants.push({ projectId: r.project_id, langs: [r.lang] });
  }
  return out;
}

/** The languages `userId` translates in `projectId` (none: the project is not theirs). */
export async function grantedLangs(db: Db, userId: string, projectId: string): Promise<string[]> {
  return db('translator_grants').where({ user_id: userId, project_id: projectId }).orderBy('lang').pluck('lang');
}

/**
 * Replaces a user's grants, in the caller's transaction. Each project must exist and each language be one of its
 * target languages (`400`, nothing written).
 */
export async function setGrants(trx: Db, userId: string, grants: Grants): Promise<void> {
  const rows: Array<{ user_id: string; project_id: string; lang: string }> = [];
  const seen = new Set<string>();
  for (const g of grants) {
    const project = await trx('projects')
      .where({ id: g.projectId })
      .whereNull('deleted_at')
      .first<{ base_lang: string } | undefined>('base_lang');
    if (!project) throw invalidArgument(`grants: there is no project ${g.projectId}.`);
    const targets = (await listLanguages(trx, g.projectId)).map((l) => l.code);
    for (const lang of g.langs) {
      if (lang === project.base_lang || !targets.includes(lang))
        throw invalidArgument(`grants: ${lang} is not a target language of ${g.projectId}.`);
      if (seen.has(`${g.projectId}\n${lang}`)) continue;
      seen.add(`${g.projectId}\n${lang}`);
      rows.push({ user_id: userId, project_id: g.projectId, lang });
    }
  }
  await trx('translator_grants').where({ user_id: userId }).delete();
  if (rows.length) await trx('translator_grants').insert(rows);
}
