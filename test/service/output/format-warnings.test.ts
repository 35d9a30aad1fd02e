// What a publish and a pull say about messages a platform cannot express (spec: PublishResult.formatWarnings, the
// version pull's Glossa-Format-Warnings and Content-Disposition): reported, never silent, and named where the
// platform keeps the file.
import test from 'ava';
import { icuProject, type IcuProject } from '../../helpers/icu-project.js';
import { startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
let p: IcuProject;
test.before(async () => {
  svc = await startTestService();
  p = await icuProject(svc, ['android_xml', 'json']);
});
test.after.always(() => svc?.stop());

test('the publish result lists the fallbacks of its files, capped, with the total', (t) => {
  const { formatWarnings, formatWarningsTotal } = p.published;
  t.true(formatWarningsTotal >= formatWarnings.length);
  t.true(formatWarnings.length <= 100);
  // A select has no Android resource: written as its `other` branch and said so, in every language that has it.
  t.true(
    formatWarnings.some((w) => /^post\.liked \[de\] android_xml: .*select \{gender\}/.test(w)),
    formatWarnings.join('\n'),
  );
  // The i18next bundles report theirs too: an offset has no i18next form.
  t.true(
    formatWarnings.some((w) => /^game\.players \[\w+\] bundle: .*offset/.test(w)),
    formatWarnings.join('\n'),
  );
  // ICU JSON expresses everything but tags with attributes, which its runtime (FormatJS) refuses (INVALID_TAG).
  const jsonWarnings = formatWarnings.filter((w) => / json: /.test(w));
  t.true(jsonWarnings.length > 0);
  t.true(
    jsonWarnings.every((w) => /^legal\.terms \[[\w-]+\] json: .*FormatJS/.test(w)),
    jsonWarnings.join('\n'),
  );
});

test('a pull counts its own fallbacks and names the file at its platform path', async (t) => {
  const android = await p.pull('android_xml', 'pt-br');
  t.is(android.status, 200);
  t.true(Number(android.headers.get('glossa-format-warnings')) > 0);
  t.regex(android.headers.get('content-disposition') ?? '', /^attachment; filename="values-pt-rBR\/strings\.xml"/);
  const zh = await p.pull('android_xml', 'zh-hans');
  t.regex(zh.headers.get('content-disposition') ?? '', /filename="values-b\+zh\+Hans\/strings\.xml"/);
  const base = await p.pull('android_xml', 'en');
  t.regex(base.headers.get('content-disposition') ?? '', /filename="values\/strings\.xml"/);
  const json = await p.pull('json', 'pt-br');
  // Only the `<a href>` message FormatJS cannot read.
  t.is(json.headers.get('glossa-format-warnings'), '1');
  t.regex(json.headers.get('content-disposition') ?? '', /filename="locales\/pt-BR\.json"/);
  const po = await p.pull('po', 'pt-br');
  t.regex(po.headers.get('content-disposition') ?? '', /filename="pt_BR\/LC_MESSAGES\/messages\.po"/);
  const arb = await p.pull('arb', 'zh-hans');
  t.regex(arb.headers.get('content-disposition') ?? '', /filename="app_zh_Hans\.arb"/);
  const strings = await p.pull('ios_strings', 'pt-br');
  t.regex(strings.headers.get('content-disposition') ?? '', /filename="pt-BR\.lproj\/Localizable\.strings"/);
});

test('part=stringsdict belongs to ios_strings alone', async (t) => {
  const r = await fetch(
    `${svc.baseUrl}/projects/${p.projectId}/translations?version=${p.versionId}&format=json&lang=de&part=stringsdict`,
    { headers: { authorization: `Bearer ${p.apiKey}` } },
  );
  t.is(r.status, 400);
  t.is(((await r.json()) as { error: string }).error, 'invalid_argument');
});

test('the manifest names languages in canonical BCP 47 and files with their platform path', async (t) => {
  const m = (await (await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`)).json()) as {
    baseLang: string;
    languages: Array<{ code: string }>;
    bundles: Record<string, { url: string }>;
    files: Record<string, Record<string, { path: string; url: string }>>;
  };
  t.is(m.baseLang, 'en');
  t.deepEqual(
    m.languages.map((l) => l.code),
    ['en', 'ar', 'de', 'fr', 'ja', 'pl', 'pt-BR', 'ru', 'zh-Hans'],
  );
  t.deepEqual(Object.keys(m.bundles).sort(), m.languages.map((l) => l.code).sort());
  t.regex(m.bundles['pt-BR'].url, /\/pt-BR\.[0-9a-f]{16}\.json$/);
  t.is(m.files.android_xml['pt-BR'].path, 'values-pt-rBR/strings.xml');
  t.is(m.files.json['zh-Hans'].path, 'locales/zh-Hans.json');
});

test('ios_strings comes with its .stringsdict: pulled with part=stringsdict and delivered beside the .strings', async (t) => {
  const apple = await icuProject(svc, ['ios_strings']);
  const r = await fetch(
    `${svc.baseUrl}/projects/${apple.projectId}/translations?version=${apple.versionId}&format=ios_strings&lang=pt-br&part=stringsdict`,
    { headers: { authorization: `Bearer ${apple.apiKey}` } },
  );
  t.is(r.status, 200);
  t.regex(r.headers.get('content-type') ?? '', /^application\/x-plist/);
  t.regex(r.headers.get('content-disposition') ?? '', /filename="pt-BR\.lproj\/Localizable\.stringsdict"/);
  const plist = await r.text();
  t.regex(plist, /<key>cart\.items<\/key>[\s\S]*?<key>NSStringLocalizedFormatKey<\/key>/);
  const strings = await apple.pull('ios_strings', 'pt-br');
  // Both describe the same messages: the same fallbacks, counted once in the publish result.
  t.is(r.headers.get('glossa-format-warnings'), strings.headers.get('glossa-format-warnings'));
  const m = (await (await fetch(`${svc.deliveryUrl}/projects/${apple.projectId}/manifest`)).json()) as {
    files: Record<string, Record<string, { path: string; url: string; stringsdict?: { url: string; path: string } }>>;
  };
  const pt = m.files.ios_strings['pt-BR'];
  t.is(pt.path, 'pt-BR.lproj/Localizable.strings');
  t.is(pt.stringsdict?.path, 'pt-BR.lproj/Localizable.stringsdict');
  const delivered = await fetch(
    new URL(pt.stringsdict!.url, `${svc.deliveryUrl}/projects/${apple.projectId}/manifest`),
  );
  t.is(await delivered.text(), plist);
});

test('a pull of a format the version rendered returns the stored object; another format is rendered', async (t) => {
  const m = (await (await fetch(`${svc.deliveryUrl}/projects/${p.projectId}/manifest`)).json()) as {
    files: Record<string, Record<string, { url: string; warnings: number }>>;
  };
  const de = m.files.android_xml.de;
  const delivered = await (await fetch(new URL(de.url, `${svc.deliveryUrl}/projects/${p.projectId}/manifest`))).text();
  const pulled = await p.pull('android_xml', 'de');
  t.is(await pulled.text(), delivered);
  t.is(pulled.headers.get('glossa-format-warnings'), String(de.warnings));
  t.regex(pulled.headers.get('content-type') ?? '', /^application\/xml/);
  // The stored bytes are what the pull answers: changed in the store (never done by the service), the pull says so.
  const key = `v1/projects/${p.projectId}/${de.url}`;
  await svc.service.app.objects.put(key, `${delivered}<!-- stored -->`, {
    contentType: 'application/xml; charset=utf-8',
    cacheControl: 'public, max-age=31536000, immutable',
  });
  t.is(await (await p.pull('android_xml', 'de')).text(), `${delivered}<!-- stored -->`);
  // po is not configured: rendered from the snapshot, with its own count.
  const po = await p.pull('po', 'de');
  t.is(po.status, 200);
  t.regex(await po.text(), /msgid "Welcome, \{name\}!"/);
});

test('the key list finds the keys whose cells a format writes in a fallback (warnings), as the editor shows them', async (t) => {
  const list = async (query: { warnings?: boolean; lang?: string }) => {
    const r = await svc.admin.GET('/projects/{projectId}/keys', {
      params: { path: { projectId: p.projectId }, query: { limit: 200, ...query } },
    });
    t.is(r.response.status, 200);
    return r.data!;
  };
  const all = await list({});
  // The editor renders each cell alone (internalGetKey's formatWarnings): the filter, which renders each language
  // whole, must agree with it key by key.
  const cellWarnings = new Map<string, string[]>();
  for (const k of all.keys) {
    const r = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: p.projectId, key: k.key } },
    });
    cellWarnings.set(
      k.key,
      r.data!.cells.filter((c) => c.formatWarnings.length).map((c) => c.lang),
    );
  }
  const expected = (lang?: string) =>
    [...cellWarnings]
      .filter(([, langs]) => (lang ? langs.includes(lang) : langs.length))
      .map(([k]) => k)
      .sort();
  const warned = await list({ warnings: true });
  const names = warned.keys.map((k) => k.key).sort();
  t.deepEqual(names, expected());
  t.true(names.includes('post.liked') && names.includes('game.players'), names.join(', '));
  const clean = await list({ warnings: false });
  t.is(warned.total + clean.total, all.total);
  t.false(clean.keys.some((k) => names.includes(k.key)));
  const de = await list({ warnings: true, lang: 'de' });
  t.deepEqual(de.keys.map((k) => k.key).sort(), expected('de'));
  t.true(de.total > 0 && de.total < warned.total + 1);
});
