// A full or read-only disk under the object store or the SQLite database: writes answer `503 unavailable`
// saying what was left behind (the spec's 503 `unavailable`), nothing is half-minted, and reads go on. The disks are real
// small tmpfs mounts (the suite runs as root, as CI does), filled with a real file or remounted read-only.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { createTestProject, startTestService, type TestProject } from '../helpers/service.js';
import { json, type ApiError, type Schemas } from '../helpers/typed.js';

function mountTmpfs(sizeKb: number): {
  dir: string;
  fill(): void;
  unfill(): void;
  readOnly(on: boolean): void;
  unmount(): void;
} {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`This test mounts a small tmpfs and needs root (CI runs as root): ${(err as Error).message}`);
  }
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill() {
      // Whole blocks until the file system refuses one, then single bytes for the last partial block.
      for (const size of [65536, 4096, 1]) {
        for (;;) {
          try {
            writeFileSync(filler, Buffer.alloc(size), { flag: 'a' });
          } catch {
            break;
          }
        }
      }
    },
    unfill() {
      rmSync(filler, { force: true });
    },
    readOnly(on) {
      execFileSync('mount', ['-o', `remount,${on ? 'ro' : 'rw'}`, dir]);
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', dir]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The answer's status and JSON body, read as `T`: a refusal unless the call says what else. */
const api = <T = ApiError>(base: string, p: TestProject, method: string, route: string, body?: unknown) =>
  fetch(`${base}/projects/${p.projectId}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${p.apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: await json<T>(r) }));

test.serial(
  'a full or read-only object store: publish answers 503 unavailable, mints nothing, delivery keeps the previous version',
  async (t) => {
    const disk = mountTmpfs(1024);
    const svc = await startTestService({ OBJECT_STORE: `file://${disk.dir}/objects` });
    try {
      const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
      await api(svc.baseUrl, p, 'POST', '/translate', {
        units: Array.from({ length: 50 }, (_, i) => ({ source: `String number ${i} with some length to it` })),
      });
      await svc.admin.POST('/jobs/run-due', { body: {} });
      const first = await api<Schemas['PublishResult']>(svc.baseUrl, p, 'POST', '/publish');
      t.is(first.status, 201);
      const versions = async () => (await svc.service.app.db('versions').where({ project_id: p.projectId })).length;

      // A change, so the next publish has objects to write (unchanged languages' objects are linked, which a full
      // disk still allows: server/domain/publish/stream.ts `reusableFor`).
      await api(svc.baseUrl, p, 'POST', '/translate', { units: [{ source: 'One more string to render' }] });
      await svc.admin.POST('/jobs/run-due', { body: {} });
      disk.fill();
      const full = await api(svc.baseUrl, p, 'POST', '/publish', { label: 'on a full disk' });
      t.is(full.status, 503);
      t.is(full.body.error, 'unavailable');
      t.regex(
        full.body.message,
        new RegExp(`nothing was minted and delivery still serves ${first.body.versionId.replace(/\./g, '\\.')}`),
      );
      t.is(await versions(), 1);
      t.is(
        (await api<Schemas['ProjectMeta']>(svc.baseUrl, p, 'GET', '/meta')).body.currentVersion,
        first.body.versionId,
      );
      const manifest = await json<Schemas['Manifest']>(
        await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`),
      );
      t.is(manifest.versionId, first.body.versionId, 'delivery still serves the previous version');
      disk.unfill();

      disk.readOnly(true);
      const ro = await api(svc.baseUrl, p, 'POST', '/publish');
      t.is(ro.status, 503);
      t.is(ro.body.error, 'unavailable');
      t.is(await versions(), 1);
      disk.readOnly(false);

      const after = await api<Schemas['PublishResult']>(svc.baseUrl, p, 'POST', '/publish');
      t.is(after.status, 201, 'publishing works again once the store takes writes');
      t.is(
        (await json<Schemas['Manifest']>(await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`))).versionId,
        after.body.versionId,
      );
    } finally {
      await svc.stop();
      disk.unmount();
    }
  },
);

test.serial(
  'a full SQLite disk: reads still answer, writes answer 503 unavailable, and nothing is half-written',
  async (t) => {
    const disk = mountTmpfs(4096);
    const svc = await startTestService({}, `sqlite://${disk.dir}/service.db`);
    try {
      const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
      t.is(
        (await api(svc.baseUrl, p, 'POST', '/translate', { units: [{ source: 'Before the disk filled' }] })).status,
        200,
      );
      const keysBefore = Number((await svc.service.app.db('keys').count({ n: '*' }))[0].n);
      disk.fill();
      // Every request writes its rate-limit row; with the disk full it goes on uncounted rather than failing.
      for (const route of ['/meta', '/credential', '/translations?ref=before_the_disk_filled']) {
        t.is((await api(svc.baseUrl, p, 'GET', route)).status, 200, route);
      }
      const push = await api(svc.baseUrl, p, 'POST', '/translate', {
        units: Array.from({ length: 200 }, (_, i) => ({ source: `A new string ${i} `.repeat(20) })),
      });
      t.is(push.status, 503);
      t.is(push.body.error, 'unavailable');
      t.regex(push.body.message, /nothing it wrote remains/);
      disk.unfill();
      t.is(
        Number((await svc.service.app.db('keys').count({ n: '*' }))[0].n),
        keysBefore,
        'the refused push left no key',
      );
      t.is((await api(svc.baseUrl, p, 'POST', '/translate', { units: [{ source: 'After' }] })).status, 200);
    } finally {
      await svc.stop();
      disk.unmount();
    }
  },
);
