// gettext as gettext programs read it: the fixture project's PO files, pulled from a published
// version, compiled by GNU msgfmt --check and looked up by Python's gettext module the way a Python app does it
// (`gettext`, `pgettext`, `ngettext`, then `str.format`). What the app shows is compared with what
// intl-messageformat shows for the original ICU message. And the export-collision check refuses exactly the keys
// gettext cannot hold as one message.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { IntlMessageFormat } from 'intl-messageformat';
import { type Catalog, type CatalogValue, type FormatWarning } from '../../../packages/core/src/catalog.js';
import { sync } from '../../../packages/client/src/index.js';
import { findCollisions } from '../../../packages/core/src/collisions.js';
import { FORMATS } from '../../../packages/core/src/formats/index.js';
import type { Snapshot } from '../../../packages/core/src/snapshot.js';
import { icuProject, ICU_KEYS, ICU_LANGS, type IcuProject } from '../../helpers/icu-project.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../../helpers/service.js';
import { snapshotOf } from '../../helpers/snapshots.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(() => svc?.stop());

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'gettext-runtime-'));
test.after.always(() => fs.rmSync(TMP, { recursive: true, force: true }));

const LANGS = ['en', ...ICU_LANGS];

function run(cmd: string, args: string[], input?: string) {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.error) throw new Error(`${cmd}: ${r.error.message} (the gettext and python3 Debian packages, see .ci/run)`);
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** One lookup a Python app makes: the gettext call, then `.format(**args)` on what it returns. */
type Lookup =
  | { fn: 'gettext'; msgid: string; args?: Record<string, string | number> }
  | { fn: 'pgettext'; ctx: string; msgid: string; args?: Record<string, string | number> }
  | { fn: 'ngettext'; msgid: string; plural: string; n: number; args?: Record<string, string | number> };

// Python's gettext module on the compiled catalog, every lookup in one process.
const PYTHON = `
import gettext, json, sys
t = gettext.GNUTranslations(open(sys.argv[1], 'rb'))
out = []
for q in json.load(sys.stdin):
    if q['fn'] == 'gettext': s = t.gettext(q['msgid'])
    elif q['fn'] == 'pgettext': s = t.pgettext(q['ctx'], q['msgid'])
    else: s = t.ngettext(q['msgid'], q['plural'], q['n'])
    out.append(s.format(**q.get('args', {})))
print(json.dumps(out, ensure_ascii=False))
`;

function python(mo: string, lookups: Lookup[]): string[] {
  const r = run('python3', ['-c', PYTHON, mo], JSON.stringify(lookups));
  if (r.status !== 0) throw new Error(`python3 gettext: ${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}

/** msgfmt --check of a pulled file, compiled to a .mo; the header fields naming people and dates are all it may note. */
function msgfmt(t: import('ava').ExecutionContext, name: string, po: string): string {
  const file = path.join(TMP, `${name}.po`);
  const mo = path.join(TMP, `${name}.mo`);
  fs.writeFileSync(file, po);
  const r = run('msgfmt', ['--check', '-o', mo, file]);
  t.is(r.status, 0, `msgfmt --check refused ${name}:\n${r.stderr}`);
  const notes = r.stderr
    .split('\n')
    .filter((l) => l && !/header field '(Project-Id-Version|PO-Revision-Date|Last-Translator|Language-Team)'/.test(l));
  t.deepEqual(notes, [], `msgfmt --check on ${name}`);
  return mo;
}

const icuOf = (key: string, lang: string): string => {
  const k = ICU_KEYS.find((x) => x.key === key)!;
  return lang === 'en' ? k.source : (k.values[lang as keyof typeof k.values] ?? k.source);
};

/** What intl-messageformat shows for the original ICU message (Latin digits, as Python's format writes them). */
const intl = (key: string, lang: string, args: Record<string, string | number> = {}) =>
  String(new IntlMessageFormat(icuOf(key, lang), `${lang}-u-nu-latn`, undefined, { ignoreTag: true }).format(args));

/** The app formats numbers for display (Python's `{count}` alone writes 1000000); ICU's `#` does it this way. */
const eur = (lang: string, n: number) =>
  new Intl.NumberFormat(`${lang}-u-nu-latn`, { style: 'currency', currency: 'EUR' }).format(n);
const num = (lang: string, n: number) => new Intl.NumberFormat(`${lang}-u-nu-latn`).format(n);

let project: IcuProject | undefined;
const fixture = async () => (project ??= await icuProject(svc, ['po']));

// icuProject publishes with po configured: menu.open and status.open share `Open` in two contexts, two messages.
test.serial('every pulled PO file passes msgfmt --check and declares its language and plural rule', async (t) => {
  const p = await fixture();
  for (const lang of LANGS) {
    const res = await p.pull('po', lang);
    t.is(res.status, 200, lang);
    const po = await res.text();
    msgfmt(t, `check-${lang}`, po);
    const header = po.slice(0, po.indexOf('\n\n')).replace(/"\n"/g, '');
    const posix = { 'zh-hans': 'zh_Hans', 'pt-br': 'pt_BR' }[lang] ?? lang;
    t.regex(header, new RegExp(`Language: ${posix}\\\\n`), lang);
    t.regex(header, /Content-Type: text\/plain; charset=utf-8/i, lang);
    const nplurals = Number(/Plural-Forms: nplurals=(\d+);/.exec(header)?.[1]);
    t.is(nplurals, new Intl.PluralRules(lang).resolvedOptions().pluralCategories.length, `${lang} nplurals`);
    // The key name stays with its message, for the people who look it up in the service.
    for (const k of ICU_KEYS) t.regex(po, new RegExp(`^#\\. ${k.key.replace('.', '\\.')}$`, 'm'), `${lang} ${k.key}`);
  }
});

test.serial('a Python app shows the translated text: gettext, pgettext, ngettext and format()', async (t) => {
  const p = await fixture();
  for (const lang of LANGS) {
    const mo = msgfmt(t, `py-${lang}`, await (await p.pull('po', lang)).text());
    const ns = [1, 2, 3, 4, 5, 11, 12, 14, 21, 22, 25, 100, 101, 102, 111, 1000000];
    const lookups: Lookup[] = [
      { fn: 'gettext', msgid: 'Welcome, {name}!', args: { name: 'Ana' } },
      { fn: 'pgettext', ctx: 'menu action (verb)', msgid: 'Open' },
      { fn: 'pgettext', ctx: 'shop state (adjective)', msgid: 'Open' },
      { fn: 'gettext', msgid: "Use {{curly}} braces, it's easy" },
      { fn: 'gettext', msgid: 'By continuing you accept the <a href="/terms">terms</a>' },
      ...ns.map((n): Lookup => ({
        fn: 'ngettext',
        msgid: '{count} item in your cart',
        plural: '{count} items in your cart',
        n,
        args: { count: num(lang, n) },
      })),
      ...ns.map((n): Lookup => ({
        fn: 'ngettext',
        msgid: '{name} added a photo',
        plural: '{name} added {count} photos',
        n,
        args: { name: 'Ana', count: num(lang, n) },
      })),
    ];
    const want = [
      intl('home.welcome', lang, { name: 'Ana' }),
      intl('menu.open', lang),
      intl('status.open', lang),
      intl('help.braces', lang),
      intl('legal.terms', lang),
      ...ns.map((n) => intl('cart.items', lang, { count: n })),
      ...ns.map((n) => intl('photos.added', lang, { name: 'Ana', count: n })),
    ];
    t.deepEqual(python(mo, lookups), want, lang);
  }
  // What the issue names, spelled out.
  const pl = msgfmt(t, 'py-pl-spelled', await (await p.pull('po', 'pl')).text());
  const en = msgfmt(t, 'py-en-spelled', await (await p.pull('po', 'en')).text());
  const de = msgfmt(t, 'py-de-spelled', await (await p.pull('po', 'de')).text());
  t.deepEqual(
    python(pl, [
      {
        fn: 'ngettext',
        msgid: '{count} item in your cart',
        plural: '{count} items in your cart',
        n: 5,
        args: { count: 5 },
      },
      { fn: 'pgettext', ctx: 'menu action (verb)', msgid: 'Open' },
      { fn: 'pgettext', ctx: 'shop state (adjective)', msgid: 'Open' },
      {
        fn: 'ngettext',
        msgid: '{name} added a photo',
        plural: '{name} added {count} photos',
        n: 5,
        args: { name: 'Ana', count: 5 },
      },
    ]),
    ['5 produktów w koszyku', 'Otwórz', 'Otwarte', 'Ana dodał(a) 5 zdjęć'],
  );
  t.deepEqual(python(en, [{ fn: 'gettext', msgid: "Use {{curly}} braces, it's easy" }]), [
    "Use {curly} braces, it's easy",
  ]);
  t.deepEqual(python(de, [{ fn: 'gettext', msgid: "Use {{curly}} braces, it's easy" }]), [
    'Nutze {geschweifte} Klammern, das ist einfach',
  ]);
});

test.serial(
  'fallbacks as documented: select and selectordinal as `other`, =0 dropped, offset passed by the app',
  async (t) => {
    const p = await fixture();
    for (const lang of ['en', 'de', 'pl', 'ja']) {
      const mo = msgfmt(t, `fallback-${lang}`, await (await p.pull('po', lang)).text());
      const got = python(mo, [
        { fn: 'gettext', msgid: 'They liked your post' },
        {
          fn: 'ngettext',
          msgid: 'They have {count} message',
          plural: 'They have {count} messages',
          n: 5,
          args: { count: 5 },
        },
        { fn: 'gettext', msgid: 'You finished {place}th', args: { place: 4 } },
        // `=0` is gone: 0 takes its category's form.
        {
          fn: 'ngettext',
          msgid: '{count} item in your cart',
          plural: '{count} items in your cart',
          n: 0,
          args: { count: 0 },
        },
        // offset:1: the app passes count minus 1 (3 players: the host and 2 others).
        {
          fn: 'ngettext',
          msgid: '{host} and {count} other are playing',
          plural: '{host} and {count} others are playing',
          n: 2,
          args: { host: 'Ana', count: 2 },
        },
        // The app formats the amount, as ICU's skeleton would.
        { fn: 'gettext', msgid: 'Total: {amount}', args: { amount: eur(lang, 5) } },
        { fn: 'gettext', msgid: 'You finished {place}th', args: { place: 1 } },
      ]);
      const zeroForm = new Intl.PluralRules(lang).select(0);
      const cartZero = new IntlMessageFormat(
        icuOf('cart.items', lang).replace(/=0 \{[^}]*\} /, ''),
        `${lang}-u-nu-latn`,
      );
      t.deepEqual(
        got,
        [
          intl('post.liked', lang, { gender: 'other' }),
          intl('inbox.summary', lang, { gender: 'other', count: 5 }),
          // gettext has one sentence for every place: the `other` branch (de, pl, ja have only that one).
          intl('race.place', lang, { place: 4 }),
          String(cartZero.format({ count: 0 })),
          intl('game.players', lang, { host: 'Ana', count: 3 }),
          intl('order.total', lang, { amount: 5 }),
          // Only the `other` branch: English's `1st` is lost (de, pl and ja have one branch).
          lang === 'en' ? 'You finished 1th' : intl('race.place', lang, { place: 1 }),
        ],
        `${lang} (0 is ${zeroForm})`,
      );
      // ICU shows its =0 sentence; gettext cannot, and the publish said so (unit test below).
      t.not(String(cartZero.format({ count: 0 })), intl('cart.items', lang, { count: 0 }));
    }
  },
);

// ---------------------------------------------------------------------------------------------------------------
// The renderer's fallbacks, each reported

const text = (s: string): CatalogValue => ({ kind: 'text', text: s });

function renderWarnings(entries: Array<{ key: string; ctx?: string; en: string; de?: string }>, lang: string) {
  const catalog: Catalog = {
    format: 'po',
    sourceLanguage: null,
    entries: entries.map((e) => ({
      fileKey: e.key,
      ctx: e.ctx ?? null,
      source: text(e.en),
      values: { en: text(e.en), ...(e.de !== undefined ? { de: text(e.de) } : {}) },
    })),
  };
  const warnings: FormatWarning[] = [];
  const po = FORMATS.po.render(catalog, { languages: [lang], baseLanguage: 'en', warn: (w) => warnings.push(w) });
  return { po, warnings };
}

test('every fallback the PO renderer applies is reported, and a message it writes natively is not', (t) => {
  const { po, warnings } = renderWarnings(
    [
      {
        key: 'plain',
        en: 'Hello {name}, {n, plural, one {# file} other {# files}}',
        de: 'Hallo {name}, {n, plural, one {# Datei} other {# Dateien}}',
      },
      {
        key: 'select',
        en: '{g, select, female {She} other {They}}',
        de: '{g, select, female {Sie} other {Sie (pl.)}}',
      },
      { key: 'ordinal', en: '{p, selectordinal, one {#st} other {#th}}', de: '{p, selectordinal, other {#.}}' },
      {
        key: 'exact',
        en: '{n, plural, =0 {None} =1 {One} one {# one} other {# more}}',
        de: '{n, plural, =0 {Keins} one {# eins} other {# mehr}}',
      },
      {
        key: 'offset',
        en: '{n, plural, offset:1 one {# other} other {# others}}',
        de: '{n, plural, offset:1 one {# weiterer} other {# weitere}}',
      },
      {
        key: 'number',
        en: 'Pay {a, number, ::currency/EUR} or {b, number}',
        de: 'Zahle {a, number, ::currency/EUR} oder {b, number}',
      },
      { key: 'when', en: 'On {d, date} at {d, time, short}', de: 'Am {d, date} um {d, time, short}' },
      {
        key: 'nested',
        en: '{a, plural, one {{b, plural, one {x} other {y}}} other {z}}',
        de: '{a, plural, one {{b, plural, one {X} other {Y}}} other {Z}}',
      },
      { key: 'notIcu', en: 'Broken {brace', de: 'Kaputt {Klammer' },
      { key: 'pluralTarget', en: 'Files', de: '{n, plural, one {Datei} other {Dateien}}' },
      { key: 'twin.a', en: 'Same', de: 'Gleich' },
      { key: 'twin.b', en: 'Same', de: 'Anders' },
    ],
    'de',
  );
  const reasons = (key: string) => warnings.filter((w) => w.key === key).map((w) => w.reason);
  t.deepEqual(reasons('plain'), []);
  t.true(warnings.every((w) => w.lang === 'de'));
  t.deepEqual(reasons('select'), [
    'select {g} (gettext chooses forms by a number only): written as its `other` branch',
  ]);
  t.deepEqual(reasons('ordinal'), ['selectordinal {p} (gettext has no ordinal forms): written as its `other` branch']);
  t.deepEqual(reasons('exact'), ['`=0` of plural {n} dropped (gettext chooses forms by category only)']);
  t.deepEqual(reasons('offset'), [
    'plural {n} offset:1: gettext has no offset; the app passes {n} minus 1 to ngettext and format()',
  ]);
  t.deepEqual(reasons('number'), ['{a, number, ::currency/EUR} written as {a}: the app formats it']);
  t.deepEqual(reasons('when'), [
    '{d, date} written as {d}: the app formats it',
    '{d, time, short} written as {d}: the app formats it',
  ]);
  t.deepEqual(reasons('nested'), [
    'plural {b} inside plural {a} (a gettext message has one plural): written as its `other` branch',
  ]);
  t.deepEqual(reasons('notIcu'), ['not an ICU message: written as it is']);
  t.deepEqual(reasons('pluralTarget'), ['plural {n} of a message whose source has none: written as its `other` form']);
  t.deepEqual(reasons('twin.b'), [
    "same msgctxt and msgid as twin.a with another translation: gettext holds one message, twin.a's",
  ]);
  // What was written instead
  t.regex(po, /msgid "They"\nmsgstr "Sie \(pl\.\)"/);
  t.regex(po, /msgid "\{p\}th"\nmsgstr "\{p\}\."/);
  t.regex(po, /msgid "\{n\} one"\nmsgid_plural "\{n\} more"\nmsgstr\[0\] "\{n\} eins"\nmsgstr\[1\] "\{n\} mehr"/);
  t.regex(po, /msgid "Pay \{a\} or \{b\}"\nmsgstr "Zahle \{a\} oder \{b\}"/);
  t.regex(po, /msgid "y"\nmsgid_plural "z"\nmsgstr\[0\] "Y"\nmsgstr\[1\] "Z"/);
  // Not ICU: its text as it is, a literal brace doubled like any other, so that format() shows it.
  t.regex(po, /#\. notIcu\n#, python-brace-format\nmsgid "Broken \{\{brace"\nmsgstr "Kaputt \{\{Klammer"/);
  t.regex(po, /#\. twin\.a\nmsgid "Same"\nmsgstr "Gleich"/);
  t.notRegex(po, /Anders/);

  // A language whose plural rule gettext has no expression for here keeps its `other` form, and says so.
  const gd = renderWarnings([{ key: 'files', en: '{n, plural, one {# file} other {# files}}' }], 'gd');
  t.deepEqual(
    gd.warnings.map((w) => w.reason),
    ['plural: no gettext Plural-Forms known for gd, written as its `other` form'],
  );
  t.regex(gd.po, /nplurals=1; plural=0;/);
});

test('the base language file holds msgstr = msgid, and the python-brace-format flag marks format strings', (t) => {
  const { po, warnings } = renderWarnings(
    [
      { key: 'k.plain', en: 'Just text' },
      { key: 'k.arg', en: 'Hi {name}' },
      { key: 'k.quoted', en: "Use '{'x'}' and it''s fine" },
      { key: 'k.plural', en: '{n, plural, one {# file} other {# files}}', ctx: 'disk' },
    ],
    'en',
  );
  t.deepEqual(warnings, []);
  t.regex(po, /#\. k\.plain\nmsgid "Just text"\nmsgstr "Just text"/);
  t.regex(po, /#\. k\.arg\n#, python-brace-format\nmsgid "Hi \{name\}"\nmsgstr "Hi \{name\}"/);
  t.regex(
    po,
    /#\. k\.quoted\n#, python-brace-format\nmsgid "Use \{\{x\}\} and it's fine"\nmsgstr "Use \{\{x\}\} and it's fine"/,
  );
  t.regex(
    po,
    /#\. k\.plural\n#, python-brace-format\nmsgctxt "disk"\nmsgid "\{n\} file"\nmsgid_plural "\{n\} files"\nmsgstr\[0\] "\{n\} file"\nmsgstr\[1\] "\{n\} files"/,
  );
});

// ---------------------------------------------------------------------------------------------------------------
// Export collisions: the renderer's rule

const snapshot = (keys: Array<{ name: string; ctx?: string; source: string; de?: string }>): Snapshot =>
  snapshotOf(
    keys.map(({ de, ...k }): Parameters<typeof snapshotOf>[0][number] => ({
      ...k,
      values: de === undefined ? {} : { de },
    })),
    { languages: ['de'] },
  );

test('findCollisions(po) refuses exactly what gettext cannot hold as one message', (t) => {
  const po = (s: Snapshot) => findCollisions(s, ['po']);
  // Same text, same translations: one message.
  t.deepEqual(
    po(
      snapshot([
        { name: 'a', source: 'Save', de: 'Sichern' },
        { name: 'b', source: 'Save', de: 'Sichern' },
      ]),
    ),
    [],
  );
  // Same text, another context: two messages.
  t.deepEqual(
    po(
      snapshot([
        { name: 'a', source: 'Open', ctx: 'verb', de: 'Öffnen' },
        { name: 'b', source: 'Open', ctx: 'adj', de: 'Offen' },
      ]),
    ),
    [],
  );
  // Different translations: refused, both keys named.
  t.deepEqual(
    po(
      snapshot([
        { name: 'a', source: 'Save', de: 'Sichern' },
        { name: 'b', source: 'Save', de: 'Speichern' },
      ]),
    ),
    [{ format: 'po', name: 'Save', keys: ['a', 'b'] }],
  );
  t.deepEqual(
    po(
      snapshot([
        { name: 'a', source: 'Save', ctx: 'file', de: 'Sichern' },
        { name: 'b', source: 'Save', ctx: 'file' },
      ]),
    ),
    [{ format: 'po', name: 'file | Save', keys: ['a', 'b'] }],
  );
  // Sources that differ in ICU but are one msgid once converted: a select's `other` branch and its plain text.
  t.deepEqual(
    po(
      snapshot([
        {
          name: 'a',
          source: '{g, select, female {She left} other {They left}}',
          de: '{g, select, female {Sie ging} other {Sie gingen}}',
        },
        { name: 'b', source: 'They left', de: 'Sie gingen' },
      ]),
    ),
    [],
  );
  // One msgid with a plural form and one without: gettext has one msgid_plural per message.
  t.deepEqual(
    po(
      snapshot([
        { name: 'a', source: '{n, plural, one {File} other {Files}}' },
        { name: 'b', source: 'File' },
      ]),
    ),
    [{ format: 'po', name: 'File', keys: ['a', 'b'] }],
  );
});

async function sharedTextProject(de: [string, string]): Promise<TestProject> {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  const projectId = p.projectId;
  const f = await p.client.POST('/projects/{projectId}/output-formats', {
    params: { path: { projectId } },
    body: { format: 'po' },
  });
  t0(f.error);
  // A push would make one key of one text (its content token); a synced file keeps both, as an app's file has them.
  const file = { 'toolbar.save': 'Save', 'dialog.save': 'Save', 'home.title': 'Home' };
  const synced = await sync(p.client, projectId, {
    contentBase64: Buffer.from(JSON.stringify(file)).toString('base64'),
    fileName: 'en.json',
  });
  t0(synced.error);
  const values: Array<[string, string]> = [
    ['toolbar.save', de[0]],
    ['dialog.save', de[1]],
    ['home.title', 'Start'],
  ];
  for (const [key, value] of values) {
    const r = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId, key, lang: 'de' } },
      body: { value, status: 'approved' },
    });
    t0(r.error);
  }
  return p;
}

function t0(error: unknown) {
  if (error) throw new Error(JSON.stringify(error));
}

test.serial('two keys with one English text and the same translations publish as one gettext message', async (t) => {
  const p = await sharedTextProject(['Speichern', 'Speichern']);
  const published = await p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
  });
  t.is(published.response.status, 201, JSON.stringify(published.error));
  const res = await fetch(
    `${svc.baseUrl}/projects/${p.projectId}/translations?${new URLSearchParams({ version: published.data!.versionId, format: 'po', lang: 'de' })}`,
    { headers: { Authorization: `Bearer ${p.apiKey}` } },
  );
  const po = await res.text();
  t.regex(po, /#\. toolbar\.save\n#\. dialog\.save\nmsgid "Save"\nmsgstr "Speichern"/);
  t.is(po.match(/^msgid "Save"$/gm)?.length, 1);
  const mo = msgfmt(t, 'merged-de', po);
  t.deepEqual(
    python(mo, [
      { fn: 'gettext', msgid: 'Save' },
      { fn: 'gettext', msgid: 'Home' },
    ]),
    ['Speichern', 'Start'],
  );
});

test.serial(
  'two keys with one English text and different translations are refused with export_collision',
  async (t) => {
    const p = await sharedTextProject(['Speichern', 'Sichern']);
    const r = await p.client.POST('/projects/{projectId}/publish', { params: { path: { projectId: p.projectId } } });
    t.is(r.response.status, 409);
    t.like(r.error, {
      error: 'export_collision',
      groups: [{ format: 'po', name: 'Save', keys: ['toolbar.save', 'dialog.save'] }],
    });
  },
);
