// kill -9 during a content run: the service runs as its own process, translating through the OpenAI
// engine against a slow local endpoint, and is killed while run-due works through a document's runs. Started again on the same database, the runs' leases expire and the next claims
// finish them: every block is translated once, the workspace is charged exactly the estimate once, nothing stays
// held, and no language is left running. On SQLite and MySQL (TEST_DB=mysql).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { operations as InternalOps } from '../../generated/internal.js';
import { kill9, startProcess, type Proc } from '../helpers/process.js';
import { ADMIN_TOKEN, testDatabase } from '../helpers/service.js';
import type { InternalSchemas, Reply } from '../helpers/typed.js';
import { startFakeOpenAI, translateAll } from '../helpers/fake-openai.js';

const README = readFileSync(new URL('../fixtures/content/express-readme.md', import.meta.url), 'utf8');
const DOCS = readFileSync(new URL('../fixtures/content/hugo-page-bundles.md', import.meta.url), 'utf8');

const call = <T>(url: string, init: RequestInit = {}, token = ADMIN_TOKEN) =>
  fetch(url, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as T }));

const balanceOf = async (proc: Proc, workspaceId: string) =>
  (
    await call<InternalSchemas['Workspace']>(`${proc.internal}/workspaces/${workspaceId}`, {
      method: 'PATCH',
      body: JSON.stringify({ requireApproval: false }),
    })
  ).body;

test('kill -9 during content runs: the next process finishes them, charging the estimate once and holding nothing', async (t) => {
  const db = await testDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'glossa-content-crash-'));
  // An engine that takes a while per batch (a chat-completions endpoint on loopback), so the kill lands mid-run.
  const engine = await startFakeOpenAI(translateAll((item) => `xx: ${item.source}`, { delayMs: 60 }));
  const env = {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    TRANSLATION_ENGINE: 'openai',
    OPENAI_BASE_URL: engine.url,
    OPENAI_MODEL: 'fake-model',
    OPENAI_API_KEY: 'sk-test',
  };
  let proc = await startProcess(env);
  try {
    const ws = await call<InternalSchemas['Workspace']>(`${proc.internal}/workspaces`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Crash', creditsMc: 10_000_000 }),
    });
    const workspaceId = ws.body.workspaceId;
    const project = await call<InternalSchemas['Project']>(`${proc.internal}/projects`, {
      method: 'POST',
      body: JSON.stringify({
        workspaceId,
        name: 'Crash',
        baseLang: 'en',
        contentEnabled: true,
        languages: [{ code: 'de' }, { code: 'fr' }, { code: 'es' }, { code: 'it' }],
      }),
    });
    const projectId = project.body.projectId;
    const key = await call<Reply<InternalOps['internalCreateApiKey'], 201>>(
      `${proc.internal}/projects/${projectId}/api-keys`,
      { method: 'POST', body: JSON.stringify({ scopes: ['admin'] }) },
    );
    const apiKey = key.body.apiKey;
    const docUrl = `${proc.base}/projects/${projectId}/content/guide`;
    const pushed = await call(
      docUrl,
      { method: 'PUT', body: JSON.stringify({ title: 'Guide', text: `${DOCS}\n\n${README}` }) },
      apiKey,
    );
    t.is(pushed.status, 201);
    const preview = await call<{ estimatedMc: number }>(
      `${docUrl}/run`,
      { method: 'POST', body: JSON.stringify({ dryRun: true }) },
      apiKey,
    );
    const before = (await balanceOf(proc, workspaceId)).balance;
    const started = await call<{ jobs: unknown[] }>(`${docUrl}/run`, { method: 'POST', body: '{}' }, apiKey);
    t.is(started.body.jobs.length, 4);
    // run-due works through the four runs in this process, one language after the other; the process is killed
    // as soon as one language is done and another is not.
    void call(`${proc.internal}/jobs/run-due`, { method: 'POST', body: '{}' }).catch(() => undefined);
    const working = `${proc.internal}/projects/${projectId}/content/guide`;
    for (let i = 0; i < 3000; i++) {
      const w = await call<InternalSchemas['ContentWorkingDocument']>(working);
      if (w.body.langs.some((l) => !l.running) && w.body.langs.some((l) => l.running)) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await kill9(proc);
    proc = await startProcess(env);
    const interrupted = await call<InternalSchemas['ContentWorkingDocument']>(
      `${proc.internal}/projects/${projectId}/content/guide`,
    );
    t.true(
      interrupted.body.langs.some((l) => l.running),
      'the kill interrupted the runs',
    );
    // Past the lease of a run the killed process held (5 minutes): the next claim takes it over.
    const later = new Date(Date.now() + 6 * 60_000).toISOString();
    const due = await call<{ ran: number; failed: number }>(`${proc.internal}/jobs/run-due`, {
      method: 'POST',
      body: JSON.stringify({ now: later }),
    });
    t.is(due.status, 200);
    const doc = await call<InternalSchemas['ContentWorkingDocument']>(
      `${proc.internal}/projects/${projectId}/content/guide`,
    );
    for (const lang of doc.body.langs) {
      t.false(lang.running, lang.code);
      t.true(
        lang.units.every((u) => u.state === 'translated'),
        `${lang.code}: ${lang.units.filter((u) => u.state !== 'translated').length} units not translated`,
      );
    }
    const after = await balanceOf(proc, workspaceId);
    t.is(before - after.balance, preview.body.estimatedMc, 'charged the estimate exactly once');
    const overview = await call<InternalSchemas['ProjectOverview']>(`${proc.internal}/projects/${projectId}/overview`);
    t.is(overview.status, 200);
    t.is(overview.body.workspace.heldMc, 0, 'nothing stays held');
  } finally {
    await kill9(proc);
    await engine.close();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
