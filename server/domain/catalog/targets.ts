// Which languages a push fills: the project's live AI-mode targets, or the `langs` it names.
import type { ProjectRow } from '../../infra/tables.js';
import { listLanguages } from '../project/projects.js';
import { normalizeLanguage } from '../project/languages.js';
import type { Db } from '../../infra/db.js';
import { Refusal, invalidArgument } from '../../infra/errors.js';

export async function resolveTargets(db: Db, p: ProjectRow, langs: string[] | undefined): Promise<string[]> {
  const live = await listLanguages(db, p.id);
  const ai = live.filter((l) => l.fill_mode === 'ai').map((l) => l.code);
  if (!langs) return ai;
  const out: string[] = [];
  for (const raw of langs) {
    const code = normalizeLanguage(raw);
    const lang = live.find((l) => l.code === code);
    if (!lang)
      throw invalidArgument(
        code === p.base_lang
          ? `${code} is the base language, not a target.`
          : `${code} is not a language of this project.`,
      );
    if (lang.fill_mode === 'manual')
      throw new Refusal('fill_mode_manual', `${code} is in manual fill mode and is never an AI target.`);
    if (!out.includes(code)) out.push(code);
  }
  return out;
}
