// The issue-12 fixture project itself: every value passes the publish gates, and each format renders its version.
import test from 'ava';
import { icuProject, ICU_KEYS, ICU_LANGS } from '../../helpers/icu-project.js';
import { startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(() => svc?.stop());

test('the ICU fixture project publishes every value it holds, in every language', async (t) => {
  const p = await icuProject(svc);
  const res = await p.pull('json', 'pl');
  t.is(res.status, 200);
  const pl = (await res.json()) as Record<string, string>;
  for (const k of ICU_KEYS) t.is(pl[k.key], k.values.pl ?? k.source, k.key);
  for (const lang of ICU_LANGS) t.is((await p.pull('json', lang)).status, 200, lang);
});
