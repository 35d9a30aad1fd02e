// A large fill checks its values on the check threads before it writes them (server/domain/fill/checks-ahead.ts), on
// SQLite and MySQL: what it stores is what a writer checking inline stores (the same rows, counts and results, terms
// included), and the threads answer with no fallback to the event loop.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import { checkTranslation, rowOf, type CheckRow, type KeyInput } from '../../server/domain/checks/compute.js';
import { checkContext } from '../../server/domain/checks/context.js';
import { AHEAD_MIN_PAIRS, checkAhead } from '../../server/domain/fill/checks-ahead.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';
import { hostile } from '../helpers/typed.js';

let svc: TestService;
const warnings: string[] = [];
test.before(async () => {
  svc = await startTestService({}, undefined, {
    logDestination: {
      write(line: string) {
        if (line.includes('check threads')) warnings.push(line);
      },
    },
  });
});
test.after.always(() => svc?.stop());

const LANGS = ['de', 'fr', 'ja', 'ar', 'ru', 'pl', 'es', 'it', 'nl', 'sv'];
/** Sources that trip checks in some languages (the pseudo engine writes Latin letters into Japanese, keeps URLs...). */
const sourceOf = (i: number) =>
  [
    `Item ${i}: you have {count} new <b>messages</b>`,
    `Open your account ${i} at https://example.com/a/${i}`,
    `Save ${i}?`,
    `{n, plural, one {# file ${i}} other {# files ${i}}}`,
  ][i % 4];

async function bigProject(): Promise<TestProject> {
  const p = await createTestProject(svc, { languages: LANGS.map((code) => ({ code })) });
  const r = await p.client.POST('/projects/{projectId}/terms', {
    params: { path: { projectId: p.projectId } },
    body: hostile({ text: 'account', translations: { de: 'Konto', fr: 'compte' } }),
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  const keys = Math.ceil(AHEAD_MIN_PAIRS / LANGS.length);
  await translate(p.client, p.projectId, {
    units: Array.from({ length: keys }, (_, i) => ({
      key: `k.${i}`,
      source: sourceOf(i),
      ...(i % 8 ? {} : { ctx: `Button [CHAR LIMIT=8]` }),
    })),
  });
  return p;
}

/** A stored cell_checks row, as compute.ts makes it. */
type Stored = CheckRow;

test('a fill of more pairs than AHEAD_MIN_PAIRS stores what an inline check stores, checked on the threads', async (t) => {
  const p = await bigProject();
  const run = await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  t.is(run.response.status, 200);
  const { db } = svc.service.app;
  const ctx = await checkContext(db, p.projectId);
  const keys = await db<KeyInput & { project_id: string }>('keys')
    .where({ project_id: p.projectId })
    .select('id', 'name', 'source', 'ctx', 'comment');
  const byId = new Map(keys.map((k) => [Number(k.id), { ...k, id: Number(k.id) }]));
  const cells = await db<{
    key_id: number;
    lang: string;
    value: string;
    project_id: string;
    status: string;
    origin: string;
  }>('translations')
    .where({ project_id: p.projectId, status: 'translated', origin: 'ai' })
    .select('key_id', 'lang', 'value');
  t.is(cells.length, byId.size * LANGS.length, 'every pair filled');
  const stored = new Map(
    (
      await db<Stored & { project_id: string }>('cell_checks')
        .where({ project_id: p.projectId })
        .whereNot({ lang: 'en' })
        .select('key_id', 'lang', 'errors', 'warnings', 'infos', 'ids', 'results')
    ).map((r) => [`${r.key_id}|${r.lang}`, r]),
  );
  let withResults = 0;
  for (const c of cells) {
    const expected = rowOf(
      Number(c.key_id),
      c.lang,
      checkTranslation(ctx, byId.get(Number(c.key_id))!, c.lang, c.value),
    );
    const got = stored.get(`${c.key_id}|${c.lang}`);
    if (expected) withResults++;
    t.deepEqual(
      got && {
        ...got,
        key_id: Number(got.key_id),
        errors: Number(got.errors),
        warnings: Number(got.warnings),
        infos: Number(got.infos),
      },
      expected ? { ...expected, key_id: Number(c.key_id) } : undefined,
      `${c.key_id} ${c.lang}`,
    );
  }
  t.true(withResults > 100, `the values trip checks (${withResults})`);
  t.deepEqual(warnings, [], 'no fallback to the event loop');
});

test('checkAhead answers each write with the rows an inline check gives, from the threads', async (t) => {
  const p = await bigProject();
  const { app } = svc.service;
  const ctx = await checkContext(app.db, p.projectId);
  const keys = new Map(
    (
      await app
        .db<KeyInput & { project_id: string }>('keys')
        .where({ project_id: p.projectId })
        .select('id', 'name', 'source', 'ctx', 'comment')
    ).map((k) => [Number(k.id), { ...k, id: Number(k.id) }]),
  );
  const values = [...keys.values()].flatMap((k) =>
    LANGS.map((lang) => ({ keyId: k.id, lang, value: `${k.source.replace('account', 'Account')} ` })),
  );
  const writes = [values.slice(0, 400), values.slice(400)];
  const ahead = await checkAhead(app, p.projectId, keys, writes);
  t.is(ahead?.length, 2);
  for (const [i, promise] of ahead!.entries()) {
    const got = await promise;
    t.truthy(got, `write ${i} was checked on the threads`);
    t.is(got!.rev, ctx.rev);
    t.is(got!.rows.size, writes[i].length);
    for (const v of writes[i]) {
      const expected = rowOf(v.keyId, v.lang, checkTranslation(ctx, keys.get(v.keyId)!, v.lang, v.value));
      t.deepEqual(got!.rows.get(`${v.keyId}|${v.lang}`), { value: v.value, row: expected });
    }
  }
  t.deepEqual(warnings, []);
});
