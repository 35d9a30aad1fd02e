// The AI fill's dashboard page over real HTTP (server/web/fill.ts): the style guide and the review rule saved by an
// owner, refused for a reviewer and for a bad threshold with nothing written, hostile text escaped, the cost of the
// last fills per 1,000 strings from the tokens the engine reported, and the key list's AI scores and filter.
import test from 'ava';
import { translate } from '../../../packages/client/src/index.js';
import { openAiEnv, startFakeOpenAI, translateAll, type FakeOpenAI } from '../../helpers/fake-openai.js';
import { createTestProject, startTestService, type TestService } from '../../helpers/service.js';
import { FormBrowser } from '../../helpers/form-browser.js';

let svc: TestService;
let fake: FakeOpenAI;
let origin: string;
const PASSWORD = 'a long enough password';
const OWNER = { name: 'Fay Fill', email: 'fill-owner@example.test', password: PASSWORD, role: 'owner' as const };
const REVIEWER = {
  name: 'Rey Fill',
  email: 'fill-reviewer@example.test',
  password: PASSWORD,
  role: 'reviewer' as const,
};
test.before(async () => {
  fake = await startFakeOpenAI(translateAll((item) => `DE ${item.source}`));
  svc = await startTestService(openAiEnv(fake));
  origin = svc.internalUrl.replace('/internal/v1', '');
  await svc.admin.POST('/users', { body: OWNER });
  await svc.admin.POST('/users', { body: REVIEWER });
});
test.after.always(async () => {
  await svc?.stop();
  await fake?.close();
});

/** The dashboard over real HTTP, signed in as `who` (test/helpers/form-browser.ts). */
const signedIn = (who: { email: string; password: string }) => new FormBrowser(origin).signInWaiting(who);

test.serial(
  'an owner saves the style guide and the review rule; a bad threshold and a reviewer change nothing',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
    const owner = await signedIn(OWNER);
    const path = `/projects/${p.projectId}/fill`;
    const page = await (await owner.fetch(path)).text();
    t.regex(page, /<label for="guide-de">For de<\/label>/);
    t.regex(page, /No fill has run yet\./);
    let csrf = await owner.csrfOf(path);
    const bad = await owner.fetch(path, { csrf, project: 'Formal.', reviewBelow: '7' });
    t.is(bad.status, 400);
    t.regex(await bad.text(), /The review threshold is a number from 0 to 1\. Nothing was saved\./);
    const read = async () =>
      (await svc.admin.GET('/projects/{projectId}', { params: { path: { projectId: p.projectId } } })).data!;
    t.is((await read()).fillInstructions, null);
    const saved = await owner.fetch(path, {
      csrf,
      project: 'Formal. <script>alert(1)</script>',
      'lang-de': 'Sie, never du.',
      'lang-fr': '',
      reviewBelow: '0.7',
    });
    t.is(saved.status, 303);
    t.like(await read(), {
      fillInstructions: { project: 'Formal. <script>alert(1)</script>', languages: { de: 'Sie, never du.' } },
      aiReviewBelow: 0.7,
    });
    const shown = await (await owner.fetch(path)).text();
    t.regex(shown, /Formal\. &lt;script&gt;alert\(1\)&lt;\/script&gt;<\/textarea/);
    t.false(shown.includes('<script>alert'));
    t.regex(shown, /value="0.7"/);
    const reviewer = await signedIn(REVIEWER);
    const ro = await (await reviewer.fetch(path)).text();
    t.regex(ro, /Only an owner can change these\./);
    csrf = await reviewer.csrfOf(path);
    const refused = await reviewer.fetch(path, { csrf, project: 'Casual.', reviewBelow: '' });
    t.is(refused.status, 403);
    t.is((await read()).fillInstructions?.project, 'Formal. <script>alert(1)</script>');
    t.is((await owner.fetch(path, { project: 'x' })).status, 403, 'no CSRF token');
  },
);

test.serial(
  'the page shows the tokens and credits per 1,000 strings; the key list shows and filters AI scores',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    // The fake reports 1 prompt and 1 completion token per request (test/helpers/fake-openai.ts completion()).
    const units = Array.from({ length: 4 }, (_, i) => ({
      key: `row.n${i}`,
      source: `Row ${i}`,
      ctx: 'Button [CHAR LIMIT=6]',
    }));
    await translate(p.client, p.projectId, { units });
    await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
    const usage = (
      await svc.admin.GET('/projects/{projectId}/fill/usage', { params: { path: { projectId: p.projectId } } })
    ).data!;
    t.is(usage.fills.length, 1);
    // Every answer ("DE Row 1", 8 characters) is over the 6: one request, one repair request.
    t.like(usage.fills[0], { strings: 4, promptTokens: 2, completionTokens: 2, requests: 2 });
    t.deepEqual(usage.perThousand, {
      promptTokens: 500,
      completionTokens: 500,
      requests: 500,
      credits: (usage.fills[0].chargedMc * 1000) / 4 / 1000,
    });
    const owner = await signedIn(OWNER);
    const page = (await (await owner.fetch(`/projects/${p.projectId}/fill`)).text()).replace(/\s+/g, ' ');
    t.regex(
      page,
      /Per 1,000 strings over the last 1 fills: 500 prompt tokens, 500 completion tokens, 500 engine requests/,
    );
    t.regex(page, /4 keys with AI values scored below 0.7/);
    const keys = (await (await owner.fetch(`/projects/${p.projectId}/keys?aiScoreBelow=0.7`)).text()).replace(
      /\s+/g,
      ' ',
    );
    t.regex(keys, /AI values scored below 0.7/);
    t.regex(keys, /AI score 0\.60 \(over the length limit; needed a repair request: length: /);
  },
);
