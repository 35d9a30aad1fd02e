// Seeds a bench database (workspace, projects with keys, optionally translated keys) and prints what it made.
//
// Options (environment, all optional):
//   BENCH_LANGS=de,fr,...      the projects' target languages (base language: en); default de
//   BENCH_PROJECTS=n           how many projects, each with an API key; default 1
//   BENCH_SCOPES=read,...      the API keys' scopes; default read
//   BENCH_SEED_KEYS=n          the first project gets n keys, translated into every language (status translated)
//   BENCH_FORMATS=json,...     with BENCH_SEED_KEYS: the first project's output formats; default json
//   BENCH_SEED_TEXT=real       with BENCH_SEED_KEYS: sources taken in turn from the fixture catalogs' real strings
//                              (test/helpers/fixture-pairs.ts), each language's value the pseudo engine's, instead of
//                              one pattern: what the quality checks read (bench/checks-recheck.ts)
//   BENCH_PENDING_KEYS=n       the first project gets n more keys (after the seeded ones) whose every language is a
//                              pending marker queued for a fill, as pushes of BENCH_PENDING_JOB_KEYS keys would queue
//                              them (queue.ts's enqueueFill: one fill job per push, its estimate held); the jobs are
//                              due at once, for run-due or the workers
//   BENCH_PENDING_JOB_KEYS=n   keys per queued fill job; default 500 (the size of a push)
//   BENCH_PENDING_HOLD=1       the queued fill jobs wait (run_at far ahead) until the scenario makes them due
//                              (`update jobs set run_at = 0 where kind = 'fill'`), e.g. once its load is running
// It runs in a process of its own, before the server starts: a bulk-seeding loop inside the server process
// would teach V8 to pretenure allocation sites the request path shares (Node's own promise and tick objects),
// and every later request would pay for it in old-space garbage. A real server is not seeded that way.
import { writeFileSync } from 'node:fs';
import { createApiKey, type Scope } from '../../server/http/apikeys.js';
import { createApp } from '../../server/app/app.js';
import { loadConfig } from '../../server/infra/config.js';
import { contentChanged } from '../../server/domain/project/revision.js';
import { chunks } from '../../server/infra/db.js';
import { pairCost } from '../../server/domain/billing/credits.js';
import { enqueueFill } from '../../server/domain/fill/queue.js';
import { createProject } from '../../server/domain/project/projects.js';
import { createWorkspace } from '../../server/domain/project/workspaces.js';
import { pseudoLocalize } from '../../server/infra/engines/pseudo.js';
import { isValidIcu } from '../../packages/core/src/icu.js';

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', WORKERS: 'off', ADMIN_TOKEN: 'bench' });
const { db, jobs } = await createApp(config);
const langs = (process.env.BENCH_LANGS ?? 'de').split(',');
const ws = await createWorkspace(db, { name: 'bench', creditsMc: 1_000_000_000 });
// Load is spread over many projects, as on a shared server, so the real 120/minute limit stays in force
// without any scenario hitting it.
const projects = [];
for (let i = 0; i < Number(process.env.BENCH_PROJECTS ?? 1); i++) {
  const project = await createProject(db, {
    workspaceId: ws.workspaceId,
    name: `bench ${i}`,
    baseLang: 'en',
    languages: langs.map((code) => ({ code })),
  });
  const key = await createApiKey(db, project.projectId, {
    scopes: (process.env.BENCH_SCOPES ?? 'read').split(',') as Scope[],
  });
  projects.push({ projectId: project.projectId, apiKey: key.apiKey });
}
// BENCH_SEED_KEYS: fill the first project with that many keys, translated into every language.
const seed = Number(process.env.BENCH_SEED_KEYS ?? 0);
if (seed) {
  const { projectId } = projects[0];
  const now = Date.now();
  // Imported only here: reading the fixture catalogs is work the other scenarios' seeds need not do.
  const real =
    process.env.BENCH_SEED_TEXT === 'real'
      ? [...new Set((await import('../../test/helpers/fixture-pairs.js')).FIXTURE_PAIRS.map((p) => p.source))].filter(
          (s) => isValidIcu(s) && s.length < 300,
        )
      : null;
  const sourceOf = (i: number) => (real ? real[i % real.length] : `Label number ${i} for {name}`);
  const pseudo = new Map<string, string>();
  const valueOf = (i: number, lang: string) => {
    const k = `${i % real!.length}|${lang}`;
    let v = pseudo.get(k);
    if (v === undefined) pseudo.set(k, (v = pseudoLocalize(sourceOf(i), lang)));
    return v;
  };
  const keys = Array.from({ length: seed }, (_, i) => ({
    project_id: projectId,
    name: `screen_${Math.floor(i / 100)}.label_${i}`,
    token: `seed${i}`.padEnd(32, 'x'),
    source: sourceOf(i),
    forms: null,
    ctx: null,
    enabled: true,
    source_verified: true,
    captured: false,
    created_by: 'seed',
    source_updated_at: now,
    created_at: now,
    updated_at: now,
  }));
  for (const slice of chunks(keys)) await db('keys').insert(slice);
  const ids = (await db('keys').where({ project_id: projectId }).select('id')).map((r) => Number(r.id));
  const cells = ids.flatMap((id, i) =>
    langs.map((lang) => ({
      key_id: id,
      lang,
      project_id: projectId,
      value: real ? valueOf(i, lang) : `${lang} ${i} für {name}`,
      status: 'translated',
      origin: 'ai',
      job_id: null,
      updated_at: now,
    })),
  );
  for (const slice of chunks(cells)) await db('translations').insert(slice);
  await db('projects')
    .where({ id: projectId })
    .update({ output_formats: JSON.stringify((process.env.BENCH_FORMATS ?? 'json').split(',')) });
  await contentChanged(db, projectId, now);
}
const pending = Number(process.env.BENCH_PENDING_KEYS ?? 0);
if (pending) {
  const { projectId } = projects[0];
  const jobKeys = Number(process.env.BENCH_PENDING_JOB_KEYS ?? 500);
  const now = Date.now();
  for (let from = 0; from < pending; from += jobKeys) {
    const keys = Array.from({ length: Math.min(pending, from + jobKeys) - from }, (_, n) => from + n).map((i) => ({
      project_id: projectId,
      name: `pending_${Math.floor(i / 100)}.label_${i}`,
      token: `pend${i}`.padEnd(32, 'x'),
      source: `Item ${i}: you have {count} new <b>messages</b>`,
      forms: null,
      ctx: null,
      enabled: true,
      source_verified: true,
      captured: false,
      created_by: 'seed',
      source_updated_at: now,
      created_at: now,
      updated_at: now,
    }));
    await db.transaction(async (trx) => {
      for (const slice of chunks(keys)) await trx('keys').insert(slice);
      const ids = await trx('keys')
        .where({ project_id: projectId })
        .whereIn(
          'token',
          keys.map((k) => k.token),
        )
        .select('id', 'source');
      const pairs = ids.flatMap((k) =>
        langs.map((lang) => ({ keyId: Number(k.id), lang, cost: pairCost(String(k.source), null) })),
      );
      const cells = pairs.map((q) => ({
        key_id: q.keyId,
        lang: q.lang,
        project_id: projectId,
        value: null,
        status: 'pending',
        origin: null,
        job_id: null,
        updated_at: now,
      }));
      for (const slice of chunks(cells)) await trx('translations').insert(slice);
      await enqueueFill(trx, jobs, { id: projectId, workspace_id: ws.workspaceId }, pairs, now);
      await contentChanged(trx, projectId, now);
    });
  }
  if (process.env.BENCH_PENDING_HOLD === '1')
    await db('jobs')
      .where({ kind: 'fill', state: 'queued' })
      .update({ run_at: now + 365 * 86_400_000 });
}
await db.destroy();
writeFileSync(process.env.SEED_OUT!, JSON.stringify({ projects }));
