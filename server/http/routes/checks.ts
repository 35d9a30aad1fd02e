// The quality checks' stored results and settings (docs/guides/checks.md): GET /checks for CI (spec:
// `listCheckResults`), and the project's check settings as the dashboard reads and sets them (internal.yaml
// `internalGetCheckSettings`, `internalPutCheckSettings`).
import { listLanguages } from '../../domain/project/projects.js';
import { normalizeLanguage } from '../../domain/project/languages.js';
import { revisionMoved } from '../../domain/project/revision.js';
import { checkContext } from '../../domain/checks/context.js';
import { listResults } from '../../domain/checks/read.js';
import { checkState, checking, saveSettings, validateSettings } from '../../domain/checks/settings.js';
import { retryContended, type Db } from '../../infra/db.js';
import { invalidArgument } from '../../infra/errors.js';
import type { Handler } from '../pipeline.js';

/** The project's live languages, base first: whose results are listed (the base language's are the sources'). */
async function languagesOf(db: Db, p: { id: string; base_lang: string }): Promise<string[]> {
  return [p.base_lang, ...(await listLanguages(db, p.id)).map((l) => l.code).filter((c) => c !== p.base_lang)];
}

export const listCheckResults: Handler<'listCheckResults'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const q = ctx.query;
  let langs = await languagesOf(db, p);
  if (q.lang !== undefined) {
    const lang = normalizeLanguage(q.lang);
    if (!langs.includes(lang)) throw invalidArgument(`${lang} is not a language of this project.`);
    langs = [lang];
  }
  return { body: await listResults(db, p, langs, q) };
};

async function settingsView(db: Db, projectId: string) {
  const state = await checkState(db, projectId);
  return { settings: state.settings, checking: checking(state) };
}

export const internalGetCheckSettings: Handler<'internalGetCheckSettings'> = async (ctx) => ({
  body: await settingsView(ctx.app.db, ctx.project.id),
});

export const internalPutCheckSettings: Handler<'internalPutCheckSettings'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  // Refused whole (400) before anything is written.
  const settings = validateSettings(ctx.body, await languagesOf(db, p));
  const now = Date.now();
  // Another project's job queued at the same moment may meet this one's in the jobs' unique index (MySQL): again.
  await retryContended(() =>
    db.transaction(async (trx) => {
      await saveSettings(trx, p.id, settings, now, await checkContext(trx, p.id));
      // A publish reads `blockPublishOnErrors`: one prepared before does not hold. None is prepared again until the
      // re-check has brought the results it counts up to date (it marks the content changed as it ends).
      await revisionMoved(trx, p.id);
    }),
  );
  return { body: await settingsView(db, p.id) };
};
