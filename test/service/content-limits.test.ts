// Content pushes under hostile texts (server/domain/content/prescan.ts, parse.ts, parse-pool.ts; README "Content
// documents", limits; docs/decisions/0006-bounded-content-parsing.md): a text whose parse would cost far more than
// its length is refused with 413 document_too_large, the parse runs on a parser thread under a deadline so no
// request of the process waits on it, a refused push still counts one of the day's pushes, and a push that creates
// a document carries its text (docs/guides/content.md, "Limits").
// test-batch: alone: it measures how fast its own process answers while it parses, which another file's work in the process would slow (scripts/test-batches.ts).
import test from 'ava';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';

// A short deadline, so that the texts only the deadline stops are refused quickly; every ordinary text of this file
// parses in a few milliseconds.
const DEADLINE_MS = 1_500;

let svc: TestService;
test.before(async () => {
  svc = await startTestService({ CONTENT_PARSE_DEADLINE_MS: String(DEADLINE_MS) });
});
test.after.always(async () => svc?.stop());

const contentProject = (): Promise<TestProject> => createTestProject(svc, { contentEnabled: true });

// The content push body limit (spec x-body-limit of putContentDocument): the 256 KB variants fill it.
const BODY_LIMIT = 262_144;
/** `unit` repeated to fill a push body of at most `bytes` as JSON (with `{"title":"t","text":…}` around it). */
const fill = (unit: string, bytes: number, suffix = '') => {
  const size = (s: string) => JSON.stringify(s).length - 2;
  return unit.repeat(Math.floor((bytes - 80 - size(suffix)) / size(unit))) + suffix;
};

/** PUT /content/{docId} as raw HTTP: the status and the error code, whatever the answer. */
async function push(p: TestProject, docId: string, body: Record<string, unknown>) {
  const r = await fetch(`${svc.baseUrl}/projects/${p.projectId}/content/${docId}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await r.json()) as { error?: string; message?: string; created?: boolean; changed?: boolean };
  return { status: r.status, ...json };
}

const HOSTILE: Array<{ name: string; body: Record<string, unknown> }> = [
  { name: 'emphasis delimiters, 75 KB', body: { title: 't', text: '**_'.repeat(25_000) } },
  { name: 'emphasis delimiters, 256 KB', body: { title: 't', text: fill('**_', BODY_LIMIT) } },
  { name: 'one-line nested list, 10 KB', body: { title: 't', text: `${'- '.repeat(5_000)}x` } },
  { name: 'one-line nested list, 256 KB', body: { title: 't', text: fill('- ', BODY_LIMIT, 'x') } },
  { name: 'nested block quotes, 10 KB', body: { title: 't', text: `${'>'.repeat(10_000)}x` } },
  { name: 'nested HTML, 100 KB', body: { title: 't', text: `${'<div>'.repeat(20_000)}x`, format: 'html' } },
  { name: 'nested HTML, 256 KB', body: { title: 't', text: fill('<div>', BODY_LIMIT, 'x'), format: 'html' } },
  // Under the pre-scan's limits in every paragraph, yet a parse of tens of seconds: only the deadline stops these.
  {
    name: 'dense emphasis in many paragraphs, 256 KB',
    body: { title: 't', text: fill(`${'*a_'.repeat(200)}\n\n`, BODY_LIMIT), format: 'markdown' },
  },
  // Format detection itself (regular expressions over the text) runs on the parser thread, under the deadline.
  { name: 'unclosed tags to detect, 256 KB', body: { title: 't', text: fill('<p ', BODY_LIMIT) } },
];

test('while hostile texts are pushed, light requests of the process are answered within 100 ms', async (t) => {
  t.timeout(180_000);
  const attacker = await contentProject();
  const other = await contentProject();
  const light = async (url: string, headers: Record<string, string> = {}) => {
    const start = performance.now();
    const r = await fetch(url, { headers });
    await r.arrayBuffer();
    return { ms: performance.now() - start, status: r.status };
  };
  // Warm both paths (and the parser thread) so that the samples measure waiting, not first-use costs.
  await light(`${svc.deliveryUrl}/health`);
  t.is((await push(attacker, 'warm', { title: 't', text: '# Warm\n\nUp.' })).status, 201);

  /** One round: every hostile text pushed at once, light requests sampled until the last answer. */
  const round = async (n: number) => {
    let inFlight = true;
    const pushes = Promise.all(HOSTILE.map((h, i) => push(attacker, `hostile-${n}-${i}`, h.body))).finally(() => {
      inFlight = false;
    });
    const samples: number[] = [];
    for (let i = 0; inFlight; i++) {
      // Mostly the delivery origin's health check; every tenth sample another tenant's project metadata (its rate
      // limit of 120 a minute stays far away).
      const r =
        i % 10 === 9
          ? await light(`${svc.baseUrl}/projects/${other.projectId}/meta`, { authorization: `Bearer ${other.apiKey}` })
          : await light(`${svc.deliveryUrl}/health`);
      t.is(r.status, 200);
      if (inFlight) samples.push(r.ms);
      // A short pause: on a quiet machine the refusals take a few hundred milliseconds in all, and the round needs
      // its ten samples while they are in flight.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const answers = await pushes;
    answers.forEach((a, i) => {
      t.is(a.status, 413, `${HOSTILE[i].name}: ${JSON.stringify(a)}`);
      t.is(a.error, 'document_too_large', HOSTILE[i].name);
    });
    samples.sort((x, y) => x - y);
    const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
    t.log(
      `round ${n}: ${samples.length} light requests, median ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms`,
    );
    return { count: samples.length, median: at(0.5) };
  };

  // The machine's cores are shared with other test processes, whose load can take a core from any one sample for
  // longer than 100 ms: the assertion is on the median of the samples taken while the pushes are in flight, and a
  // round whose median missed (a burst of load from elsewhere) is measured again, up to three rounds. Before the
  // parse moved to its thread, every sample of every round waited seconds for the parse in progress.
  let best = { count: 0, median: Infinity };
  for (let n = 1; n <= 3 && !(best.count >= 10 && best.median < 100); n++) {
    const r = await round(n);
    if (r.count >= 10 && r.median < best.median) best = r;
  }
  t.true(best.count >= 10, 'no round answered ten light requests while the pushes were in flight');
  t.true(best.median < 100, `the best round's median was ${best.median} ms`);

  // Nothing was written, and the parser thread stopped at the deadline was replaced: an ordinary push still lands.
  const doc = await svc.service.app.db('content_docs').where({ project_id: attacker.projectId }).select('doc_id');
  t.deepEqual(
    doc.map((d) => d.doc_id),
    ['warm'],
  );
  t.is((await push(attacker, 'after', { title: 't', text: '# After\n\nAll is well.' })).status, 201);
});

test('a 10 KB one-line nested list or deep HTML is refused with 413, never a 500', async (t) => {
  const p = await contentProject();
  const list = await push(p, 'list', { title: 't', text: `${'- '.repeat(5_000)}x` });
  t.is(list.status, 413);
  t.is(list.error, 'document_too_large');
  t.regex(list.message ?? '', /nested lists or quotes/);
  const quotes = await push(p, 'quotes', { title: 't', text: `${'> '.repeat(5_000)}x`, format: 'markdown' });
  t.is(quotes.status, 413);
  const html = await push(p, 'html', { title: 't', text: `<p>${'<b>'.repeat(3_000)}x`, format: 'html' });
  t.is(html.status, 413);
  // Refused by its depth (or, on a machine loaded enough, by the deadline first): never a stack overflow.
  t.is(html.error, 'document_too_large');
  // Ordinary nesting is kept: lists and quotes a few levels deep, HTML a few dozen.
  const nested = `${Array.from({ length: 8 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n')}\n\n> > > quoted`;
  t.is((await push(p, 'nested-md', { title: 't', text: nested })).status, 201);
  const deep = `${'<div>'.repeat(40)}<p>Deep <b>text</b>.</p>${'</div>'.repeat(40)}`;
  t.is((await push(p, 'nested-html', { title: 't', text: deep, format: 'html' })).status, 201);
});

test('a refused text still counts one of the day’s pushes, and a push over the quota is refused before its parse', async (t) => {
  const p = await contentProject();
  const db = svc.service.app.db;
  const day = new Date().toISOString().slice(0, 10);
  const key = { project_id: p.projectId, kind: 'content_push', day };
  // 498 of the 500 pushes of the day used (docs/guides/api.md "Limits").
  await db('daily_counts').insert({ ...key, n: 498 });
  t.is((await push(p, 'too-many-blocks', { title: 't', text: 'p\n\n'.repeat(2_001) })).status, 413);
  t.is(Number((await db('daily_counts').where(key).first())?.n), 499);
  t.is((await push(p, 'refused', { title: 't', text: '**_'.repeat(25_000) })).status, 413);
  t.is(Number((await db('daily_counts').where(key).first())?.n), 500);
  const over = await push(p, 'ok', { title: 't', text: '# Fine\n\nText.' });
  t.is(over.status, 429);
  t.is(over.error, 'import_quota_exceeded');
  const hostile = await push(p, 'hostile', { title: 't', text: '*a_'.repeat(200), format: 'markdown' });
  t.is(hostile.status, 429);
  t.is(Number((await db('daily_counts').where(key).first())?.n), 500);
  t.is(await db('content_docs').where({ project_id: p.projectId }).first(), undefined);
});

test('a push that creates a document without text is 400 invalid_argument and writes nothing', async (t) => {
  const p = await contentProject();
  const put = await push(p, 'doc', { title: 'Only a title' });
  t.is(put.status, 400);
  t.is(put.error, 'invalid_argument');
  t.regex(put.message ?? '', /text is required/);
  const post = await fetch(`${svc.baseUrl}/projects/${p.projectId}/content`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Only a title', fields: { seoTitle: 'x' } }),
  });
  t.is(post.status, 400);
  t.is(((await post.json()) as { error: string }).error, 'invalid_argument');
  t.is(await svc.service.app.db('content_docs').where({ project_id: p.projectId }).first(), undefined);
  // The document is created by the first push that carries its text; a later push may update only its fields.
  const created = await push(p, 'doc', { title: 'Only a title', text: 'Hello.' });
  t.is(created.status, 201);
  t.true(created.created);
  const fields = await push(p, 'doc', { fields: { seoTitle: 'Hello' } });
  t.is(fields.status, 200);
  t.true(fields.changed);
});
