// The publisher's worker threads (server/domain/publish/pool.ts) give exactly what the inline path gives: the same
// objects for a publish of every format, the same file for a pull of a format the version did not render, the same
// restore. One service sends every task to a thread (PUBLISH_INLINE_KEYS=0), the other runs them inline.
import { readdirSync, readFileSync } from 'node:fs';
import test from 'ava';
import { threadTasksRun } from '../../server/domain/publish/pool.js';
import { BACKGROUND_NICE } from '../../server/infra/threads.js';
import { icuProject, type IcuProject } from '../helpers/icu-project.js';
import { startTestService, type TestService } from '../helpers/service.js';
import type { Schemas } from '../helpers/typed.js';

// A project has at most two output formats: one with Apple's (a companion file and a file of every language),
// one with Android's and Flutter's (the renames); every project renders the bundles.
const FORMATS = [
  ['ios_strings', 'xcstrings'],
  ['android_xml', 'arb'],
];
let threaded: TestService;
let inline: TestService;
let a: IcuProject;
let b: IcuProject;
const more: Array<[IcuProject, IcuProject]> = [];
test.before(async () => {
  threaded = await startTestService({ PUBLISH_THREADS: '1', PUBLISH_INLINE_KEYS: '0' });
  inline = await startTestService({ PUBLISH_THREADS: '0' });
  const before = threadTasksRun();
  a = await icuProject(threaded, FORMATS[0]);
  if (threadTasksRun() === before) throw new Error('the threaded service ran no task on a thread');
  b = await icuProject(inline, FORMATS[0]);
  more.push([await icuProject(threaded, FORMATS[1]), await icuProject(inline, FORMATS[1])]);
});
test.after.always(async () => {
  await threaded?.stop();
  await inline?.stop();
});

const manifestOf = async (svc: TestService, p: IcuProject) =>
  (await (await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`)).json()) as Schemas['Manifest'];
const pull = async (p: IcuProject, query: { version: string; format: string; lang: string }) => {
  const r = await p.client.GET('/projects/{projectId}/translations', {
    params: { path: { projectId: p.projectId }, query: query as { version: string } },
    parseAs: 'text',
  });
  return { status: r.response.status, body: r.data ?? JSON.stringify(r.error) };
};

test('a publish on threads writes the objects an inline publish writes, with the same warnings', async (t) => {
  t.is(a.published.versionId, b.published.versionId);
  const [ma, mb] = [await manifestOf(threaded, a), await manifestOf(inline, b)];
  t.deepEqual(ma.bundles, mb.bundles);
  t.deepEqual(ma.files, mb.files);
  t.deepEqual(Object.keys(ma.files), FORMATS[0]);
  t.deepEqual(a.published.formatWarnings, b.published.formatWarnings);
  t.is(a.published.formatWarningsTotal, b.published.formatWarningsTotal);
  for (const [x, y] of more) {
    const [mx, my] = [await manifestOf(threaded, x), await manifestOf(inline, y)];
    t.deepEqual(Object.keys(mx.files), FORMATS[1]);
    t.deepEqual(mx.bundles, my.bundles);
    t.deepEqual(mx.files, my.files);
    t.deepEqual(x.published.formatWarnings, y.published.formatWarnings);
  }
});

test('the threads run at a lower priority than the event loop', (t) => {
  // Linux keeps a nice value per thread (/proc/self/task/<tid>/stat, field 19): the loop's thread is the process's.
  const niceOf = (tid: string) =>
    Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
  const tasks = readdirSync('/proc/self/task');
  t.is(niceOf(String(process.pid)), 0);
  t.true(
    tasks.some((tid) => niceOf(tid) === BACKGROUND_NICE),
    `no thread at nice ${BACKGROUND_NICE} among ${tasks.length}`,
  );
});

test('a pull of a format the version did not render renders the same file on a thread', async (t) => {
  for (const lang of ['en', 'de', 'pt-BR']) {
    const q = { version: a.published.versionId, format: 'nested_json', lang };
    const [pa, pb] = [await pull(a, q), await pull(b, q)];
    t.is(pa.status, 200, pa.body);
    t.is(pa.body, pb.body, lang);
  }
});

test('a restore on threads gives what an inline restore gives', async (t) => {
  const restore = (p: IcuProject) =>
    p.client.POST('/projects/{projectId}/versions/{versionId}/restore', {
      params: { path: { projectId: p.projectId, versionId: p.published.versionId } },
    });
  const [ra, rb] = [(await restore(a)).data!, (await restore(b)).data!];
  t.is(ra.restoredFrom, a.published.versionId);
  t.deepEqual({ ...ra, snapshotAt: undefined }, { ...rb, snapshotAt: undefined });
  const [ma, mb] = [await manifestOf(threaded, a), await manifestOf(inline, b)];
  t.is(ma.versionId, ra.versionId);
  t.deepEqual(ma.files, mb.files);
});
