// kill -9 during publishes: the service runs as its own process (`scripts/start.ts`) and is killed at the instant
// its manifest lands, and at random instants of a publish; after a restart the manifest names the database's
// current version, that version pulls, and the next publish takes the next number. On SQLite and MySQL.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { objectKeys } from '../../server/infra/objects.js';
import type { operations as InternalOps } from '../../generated/internal.js';
import { kill9, startProcess } from '../helpers/process.js';
import { ADMIN_TOKEN, testDatabase } from '../helpers/service.js';
import type { InternalSchemas, Reply, Schemas } from '../helpers/typed.js';

/** The answer's status and JSON body (null when it has none), read as `T`. */
const json = <T>(url: string, init: RequestInit = {}, token = ADMIN_TOKEN) =>
  fetch(url, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as T }));

/** Polls the manifest file every millisecond; resolves with its versionId once it names another than `than`. */
function manifestChange(file: string, than: string | null, signal: { stop: boolean }): Promise<string | null> {
  return new Promise((resolve) => {
    const tick = () => {
      if (signal.stop) return resolve(null);
      try {
        statSync(file);
        const v = (JSON.parse(readFileSync(file, 'utf8')) as Schemas['Manifest']).versionId;
        if (v !== than) return resolve(v);
      } catch {
        /* not there yet, or mid-rename */
      }
      setImmediate(tick);
    };
    tick();
  });
}

test('kill -9 while publishing never leaves delivery naming a version the database does not hold', async (t) => {
  const db = await testDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'glossa-crash-'));
  const env = { DATABASE_URL: db.url, DATA_DIR: dataDir };
  let proc = await startProcess(env);
  try {
    const ws = await json<InternalSchemas['Workspace']>(`${proc.internal}/workspaces`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Crash', creditsMc: 10_000_000 }),
    });
    const project = await json<InternalSchemas['Project']>(`${proc.internal}/projects`, {
      method: 'POST',
      body: JSON.stringify({
        workspaceId: ws.body.workspaceId,
        name: 'Crash',
        baseLang: 'en',
        languages: [{ code: 'de' }],
      }),
    });
    const projectId = project.body.projectId;
    const key = await json<Reply<InternalOps['internalCreateApiKey'], 201>>(
      `${proc.internal}/projects/${projectId}/api-keys`,
      {
        method: 'POST',
        body: JSON.stringify({ scopes: ['admin'] }),
      },
    );
    const apiKey = key.body.apiKey;
    const units = Array.from({ length: 300 }, (_, i) => ({ source: `Crash test string ${i}` }));
    t.is(
      (
        await json(
          `${proc.base}/projects/${projectId}/translate`,
          { method: 'POST', body: JSON.stringify({ units }) },
          apiKey,
        )
      ).status,
      200,
    );
    await json(`${proc.internal}/jobs/run-due`, { method: 'POST', body: '{}' });
    const manifestFile = path.join(dataDir, 'objects', objectKeys.manifest(projectId));

    const check = async (label: string) => {
      // A restart catches the manifest up with the database (repair on start); give it a moment.
      let meta!: Schemas['ProjectMeta'];
      let manifest: Schemas['Manifest'] | null = null;
      for (let i = 0; i < 100; i++) {
        meta = (await json<Schemas['ProjectMeta']>(`${proc.base}/projects/${projectId}/meta`, {}, apiKey)).body;
        manifest = await fetch(`${proc.delivery}/projects/${projectId}/manifest`).then((r) =>
          r.ok ? (r.json() as Promise<Schemas['Manifest']>) : null,
        );
        if ((manifest?.versionId ?? null) === meta.currentVersion) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      t.is(manifest?.versionId ?? null, meta.currentVersion, `${label}: the manifest names the current version`);
      if (meta.currentVersion) {
        const pulled = await fetch(
          `${proc.base}/projects/${projectId}/translations?version=${meta.currentVersion}&format=json&lang=de`,
          { headers: { authorization: `Bearer ${apiKey}` } },
        );
        t.is(pulled.status, 200, `${label}: the version delivery names pulls`);
      }
      return meta.currentVersion;
    };

    let current: string | null = null;
    for (let trial = 0; trial < 6; trial++) {
      // Odd trials: killed the instant the manifest lands; even ones: at a random instant of the publish.
      const signal = { stop: false };
      const landed = manifestChange(manifestFile, current, signal);
      const publish = json(
        `${proc.base}/projects/${projectId}/publish`,
        { method: 'POST', body: JSON.stringify({ label: `trial ${trial}` }) },
        apiKey,
      ).catch(() => null);
      if (trial % 2 === 1) await Promise.race([landed, publish]);
      else await new Promise((r) => setTimeout(r, Math.random() * 40));
      await kill9(proc);
      signal.stop = true;
      await publish;
      proc = await startProcess(env);
      const now = await check(`trial ${trial}`);
      const next = await json<Schemas['PublishResult']>(
        `${proc.base}/projects/${projectId}/publish`,
        { method: 'POST', body: '{}' },
        apiKey,
      );
      t.is(next.status, 201, `trial ${trial}: the next publish mints`);
      if (now)
        t.true(
          next.body.versionId > now || Number(next.body.versionId.split('.').pop()) > Number(now.split('.').pop()),
          `trial ${trial}: ${next.body.versionId} follows ${now}`,
        );
      current = await check(`trial ${trial} after the next publish`);
      t.is(current, next.body.versionId);
    }
  } finally {
    await kill9(proc);
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
