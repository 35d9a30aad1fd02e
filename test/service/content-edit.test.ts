// A person's edit of a document's translation, unit by unit (internalEditContentUnit), on SQLite and MySQL: a
// translation that keeps the source's markup is stored and published; markup added or left out is refused with
// nothing written; a stale unit shows the source it was translated from and its previous translation can be kept
// for the new source; edits made from an old source or an old translation, or while a run translates the
// language, are conflicts; two people saving the same unit at once, one wins and the other is told.
import test from 'ava';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => svc?.stop());

const TEXT = [
  '# Shipping',
  'Orders leave our warehouse **within two days** of payment.',
  'Read [the returns page](https://example.com/returns) first.',
].join('\n\n');

async function translatedDoc(docId: string): Promise<TestProject> {
  const p = await createTestProject(svc, { languages: [{ code: 'fr' }], contentEnabled: true });
  const path = { projectId: p.projectId, docId };
  const pushed = await p.client.PUT('/projects/{projectId}/content/{docId}', {
    params: { path },
    body: { title: 'Shipping', text: TEXT, format: 'markdown', fields: { summary: 'How orders ship' } },
  });
  if (!pushed.data) throw new Error(JSON.stringify(pushed.error));
  const run = await p.client.POST('/projects/{projectId}/content/{docId}/run', {
    params: { path, header: { 'Idempotency-Key': `run-${docId}` } },
    body: { lang: 'fr' },
  });
  if (!run.data) throw new Error(JSON.stringify(run.error));
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  return p;
}

const working = async (p: TestProject, docId: string) => {
  const w = await svc.admin.GET('/projects/{projectId}/content/{docId}', {
    params: { path: { projectId: p.projectId, docId } },
  });
  return w.data!;
};
const unitsOf = async (p: TestProject, docId: string) => (await working(p, docId)).langs[0].units;
const paragraph = async (p: TestProject, docId: string, n: number) =>
  (await unitsOf(p, docId)).filter((u) => !u.id.startsWith('@'))[n];

const edit = (
  p: TestProject,
  docId: string,
  unitId: string,
  body: { text?: string; keep?: true; sourceHash: string; baseUpdatedAt: string | null },
  lang = 'fr',
) =>
  svc.admin.PUT('/projects/{projectId}/content/{docId}/langs/{lang}/units/{unitId}', {
    params: { path: { projectId: p.projectId, docId, lang, unitId } },
    body,
  });

test('a translation keeping the source markup is stored and published; markup added or left out is refused', async (t) => {
  const p = await translatedDoc('ship');
  const unit = await paragraph(p, 'ship', 2);
  t.is(unit.state, 'translated');
  await svc.admin.PUT('/projects/{projectId}/content/{docId}/langs/{lang}/stage', {
    params: { path: { projectId: p.projectId, docId: 'ship', lang: 'fr' } },
    body: { stage: 'approved' },
  });
  const refusals = [
    ['Les commandes partent **sous deux jours**.', 'markup the source does not have: **…**'],
    ['Lisez la page des retours.', 'markup of the source left out: […](https://example.com/returns)'],
    ['Lisez [la page](https://evil.example/) <script>alert(1)</script>', 'markup the source does not have'],
    ['Lisez [la page](javascript:alert(1)).', 'markup the source does not have'],
  ];
  for (const [text, why] of refusals) {
    const r = await edit(p, 'ship', unit.id, { text, sourceHash: unit.sourceHash, baseUpdatedAt: unit.updatedAt });
    t.is(r.response.status, 400, text);
    t.is(r.error?.error, 'invalid_argument');
    t.true(r.error!.message.includes(why), r.error!.message);
  }
  t.deepEqual(await paragraph(p, 'ship', 2), unit, 'nothing was written');
  t.is((await working(p, 'ship')).langs[0].stage, 'approved');

  const text = 'Lisez d’abord [la page des retours](https://example.com/returns) & *pas* avant.';
  const added = await edit(p, 'ship', unit.id, { text, sourceHash: unit.sourceHash, baseUpdatedAt: unit.updatedAt });
  t.is(added.response.status, 400, 'emphasis the source does not have, even among kept markup');
  const ok = await edit(p, 'ship', unit.id, {
    text: 'Lisez d’abord [la page des retours](https://example.com/returns) & avant.',
    sourceHash: unit.sourceHash,
    baseUpdatedAt: unit.updatedAt,
  });
  t.is(ok.response.status, 200, JSON.stringify(ok.error));
  t.is(ok.data!.state, 'translated');
  // Literal text that could read as markup is escaped, as in a run's answer (server/domain/content/inline.ts).
  t.is(ok.data!.text, 'Lisez d’abord [la page des retours](https://example.com/returns) \\& avant.');
  t.not(ok.data!.updatedAt, unit.updatedAt);
  t.is((await working(p, 'ship')).langs[0].stage, 'translated', 'new text is not reviewed');

  // The title is one line of plain text: markup characters are text, a line break is refused.
  const title = (await unitsOf(p, 'ship')).find((u) => u.id === '@title')!;
  const broken = await edit(p, 'ship', '@title', {
    text: 'Expédition\nIgnore',
    sourceHash: title.sourceHash,
    baseUpdatedAt: title.updatedAt,
  });
  t.is(broken.response.status, 400);
  const titled = await edit(p, 'ship', '@title', {
    text: 'Expédition <b>rapide</b>',
    sourceHash: title.sourceHash,
    baseUpdatedAt: title.updatedAt,
  });
  t.is(titled.data?.text, 'Expédition <b>rapide</b>');

  await svc.admin.POST('/projects/{projectId}/content/publish', {
    params: { path: { projectId: p.projectId } },
    body: {},
  });
  const pulled = await p.client.GET('/projects/{projectId}/content/{docId}', {
    params: { path: { projectId: p.projectId, docId: 'ship' }, query: { lang: 'fr' } },
  });
  const fr = pulled.data!.content.fr;
  t.true(fr.text!.includes(ok.data!.text!), fr.text);
  t.is(fr.title, 'Expédition <b>rapide</b>');
});

test('a stale unit shows the source it was made from; its translation is kept for the new source or replaced', async (t) => {
  const p = await translatedDoc('stale');
  const before = await paragraph(p, 'stale', 1);
  await p.client.PUT('/projects/{projectId}/content/{docId}', {
    params: { path: { projectId: p.projectId, docId: 'stale' } },
    body: { text: TEXT.replace('two days', 'three days') },
  });
  const stale = await paragraph(p, 'stale', 1);
  t.is(stale.state, 'stale');
  t.is(stale.candidate, before.text);
  t.is(stale.previousSource, 'Orders leave our warehouse **within two days** of payment.');
  t.not(stale.sourceHash, before.sourceHash);

  const old = await edit(p, 'stale', stale.id, {
    keep: true,
    sourceHash: before.sourceHash,
    baseUpdatedAt: stale.updatedAt,
  });
  t.is(old.response.status, 409);
  t.is(old.error?.error, 'edit_conflict');
  t.is(
    (old.error as { currentSource?: string }).currentSource,
    'Orders leave our warehouse **within three days** of payment.',
  );

  const kept = await edit(p, 'stale', stale.id, {
    keep: true,
    sourceHash: stale.sourceHash,
    baseUpdatedAt: stale.updatedAt,
  });
  t.is(kept.response.status, 200, JSON.stringify(kept.error));
  t.is(kept.data!.state, 'translated');
  t.is(kept.data!.text, before.text);
  const again = await edit(p, 'stale', stale.id, {
    keep: true,
    sourceHash: stale.sourceHash,
    baseUpdatedAt: kept.data!.updatedAt,
  });
  t.is(again.error?.error, 'conflict', 'nothing stale is left to keep');

  // Only the changed block read stale: every unit is translated now.
  t.deepEqual(
    (await unitsOf(p, 'stale')).map((u) => u.state),
    ['translated', 'translated', 'translated', 'translated', 'translated'],
  );
});

test('an edit made from an old translation, during a run, or of what does not exist is refused', async (t) => {
  const p = await translatedDoc('refuse');
  const unit = await paragraph(p, 'refuse', 1);
  const body = { text: 'Les commandes partent **sous deux jours** après paiement.', sourceHash: unit.sourceHash };
  const both = await edit(p, 'refuse', unit.id, { ...body, keep: true, baseUpdatedAt: unit.updatedAt });
  t.is(both.response.status, 400);
  t.is((await edit(p, 'refuse', unit.id, { ...body, baseUpdatedAt: null })).error?.error, 'edit_conflict');
  t.is((await edit(p, 'refuse', 'b999', { ...body, baseUpdatedAt: null })).response.status, 404);
  t.is((await edit(p, 'refuse', unit.id, { ...body, baseUpdatedAt: null }, 'ja')).response.status, 404);
  t.is((await edit(p, 'refuse', unit.id, { ...body, baseUpdatedAt: null }, 'en')).response.status, 404);

  // Two people save the same unit from the same base at once: one is stored, the other told.
  const [a, b] = await Promise.all([
    edit(p, 'refuse', unit.id, { ...body, baseUpdatedAt: unit.updatedAt }),
    edit(p, 'refuse', unit.id, {
      text: 'Nos commandes partent **en deux jours**.',
      sourceHash: unit.sourceHash,
      baseUpdatedAt: unit.updatedAt,
    }),
  ]);
  t.deepEqual([a.response.status, b.response.status].sort(), [200, 409]);
  const loser = a.response.status === 409 ? a : b;
  const winner = a.response.status === 200 ? a : b;
  t.is((loser.error as { current?: { text?: string } }).current?.text, winner.data!.text);
  t.is((await paragraph(p, 'refuse', 1)).text, winner.data!.text);

  // A run going for the language: the run would write over the edit, so the edit waits for it.
  await p.client.PUT('/projects/{projectId}/content/{docId}', {
    params: { path: { projectId: p.projectId, docId: 'refuse' } },
    body: { text: `${TEXT}\n\nOne more paragraph.` },
  });
  await p.client.POST('/projects/{projectId}/content/{docId}/run', {
    params: { path: { projectId: p.projectId, docId: 'refuse' }, header: { 'Idempotency-Key': 'second-run' } },
    body: { lang: 'fr' },
  });
  const now = await paragraph(p, 'refuse', 1);
  const during = await edit(p, 'refuse', now.id, { ...body, baseUpdatedAt: now.updatedAt });
  t.is(during.error?.error, 'run_in_progress');
  t.is((await paragraph(p, 'refuse', 1)).text, winner.data!.text);
});
