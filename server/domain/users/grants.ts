// The projects of a person whose role is `translator`, with the role they hold in each (migrations 037 and 038, spec
// TranslatorGrants, docs/decisions/0032-translator-role.md and 0033-project-roles.md): the pipeline admits them only
// to a granted project's routes, with that project's role (server/http/pipeline.ts), and a translator in a project
// saves only in its granted languages (server/http/routes/keys.ts). A project owner's or reviewer's grant is one row
// whose language is ALL_LANGS.
import type { Db } from '../../infra/db.js';
import { invalidArgument } from '../../infra/errors.js';
import { listLanguages } from '../project/projects.js';

export type ProjectRole = 'owner' | 'reviewer' | 'translator';
export type Grants = Array<{ projectId: string; role?: ProjectRole; langs?: string[] }>;
/** A grant as read: its role, and its languages (empty for an owner or reviewer of the project). */
export interface Grant {
  projectId: string;
  role: ProjectRole;
  langs: string[];
}

const ALL_LANGS = '*';

interface GrantRow {
  user_id: string;
  project_id: string;
  lang: string;
  role: ProjectRole;
}

/** Each user's grants, projects and languages in code order (users without any are absent). */
export async function grantsOf(db: Db, userIds: string[]): Promise<Map<string, Grant[]>> {
  const out = new Map<string, Grant[]>();
  if (!userIds.length) return out;
  const rows = await db<GrantRow>('translator_grants').whereIn('user_id', userIds);
  // Sorted here, in code order: a MySQL database's collation may ignore case, and ids differ by case alone.
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  rows.sort((a, b) => cmp(a.user_id, b.user_id) || cmp(a.project_id, b.project_id) || cmp(a.lang, b.lang));
  for (const r of rows) {
    let grants = out.get(r.user_id);
    if (!grants) out.set(r.user_id, (grants = []));
    const last = grants.at(-1);
    if (last?.projectId !== r.project_id) grants.push({ projectId: r.project_id, role: r.role, langs: [] });
    if (r.lang !== ALL_LANGS) grants.at(-1)!.langs.push(r.lang);
  }
  return out;
}

/** The ids of the projects `userId` is granted, as a subquery (`whereIn('id', grantedProjects(...))`). */
export const grantedProjects = (db: Db, userId: string) =>
  db('translator_grants').where({ user_id: userId }).distinct('project_id');

/** The role and languages `userId` holds in `projectId` (undefined: the project is not theirs). */
export async function grantIn(db: Db, userId: string, projectId: string): Promise<Grant | undefined> {
  const rows = await db<GrantRow>('translator_grants')
    .where({ user_id: userId, project_id: projectId })
    .select('lang', 'role');
  if (!rows.length) return undefined;
  const langs = rows.map((r) => r.lang).filter((l) => l !== ALL_LANGS);
  return { projectId, role: rows[0].role, langs: langs.sort() };
}

/**
 * Replaces a user's grants, in the caller's transaction. Each project must exist, a project appear once, a
 * translator's languages be target languages of the project (at least one), and an owner or reviewer of a project
 * be given no languages (`400`, nothing written).
 */
export async function setGrants(trx: Db, userId: string, grants: Grants): Promise<void> {
  const rows: GrantRow[] = [];
  const projects = new Set<string>();
  for (const g of grants) {
    const role = g.role ?? 'translator';
    const langs = [...new Set(g.langs ?? [])];
    if (projects.has(g.projectId)) throw invalidArgument(`grants: ${g.projectId} is named twice.`);
    projects.add(g.projectId);
    const project = await trx('projects')
      .where({ id: g.projectId })
      .whereNull('deleted_at')
      .first<{ base_lang: string } | undefined>('base_lang');
    if (!project) throw invalidArgument(`grants: there is no project ${g.projectId}.`);
    const row = { user_id: userId, project_id: g.projectId, role };
    if (role !== 'translator') {
      if (langs.length) throw invalidArgument(`grants: a project ${role} works in every language; give no langs.`);
      rows.push({ ...row, lang: ALL_LANGS });
      continue;
    }
    if (!langs.length) throw invalidArgument(`grants: a translator of ${g.projectId} needs at least one language.`);
    const targets = (await listLanguages(trx, g.projectId)).map((l) => l.code);
    for (const lang of langs) {
      if (lang === project.base_lang || !targets.includes(lang))
        throw invalidArgument(`grants: ${lang} is not a target language of ${g.projectId}.`);
      rows.push({ ...row, lang });
    }
  }
  await trx('translator_grants').where({ user_id: userId }).delete();
  if (rows.length) await trx('translator_grants').insert(rows);
}
