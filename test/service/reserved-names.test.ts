// Names that are also members of Object.prototype (`__proto__`, `constructor`, `toString`, ...) are user data like any
// other: as whole keys, as first, middle and last segments, as ctx values, as ICU argument, plural and select names,
// and as nested JSON paths, through translate, sync, fill, publish (prepared, live and restore), every pull format and
// the delivery bundles. They must come out as data with their values, leave Object.prototype and its friends as they
// were (the service runs in this process), and never take the service down for another project.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { resourceName } from '../../packages/core/src/formats/android_xml.js';
import type { components } from '../../generated/openapi.js';
import type { FolderStore } from '../../server/infra/objects.js';
import { translate, type TranslateUnit } from '../../packages/client/src/index.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { arbName } from '../../packages/core/src/formats/arb.js';
import { json, type Schemas } from '../helpers/typed.js';

const NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
type Format = 'json' | 'nested_json' | 'angular_json' | 'arb' | 'ios_strings' | 'xcstrings' | 'android_xml' | 'po';
// At most two output formats per project: four projects per content set configure all eight between them.
const FORMAT_PAIRS: Array<[Format, Format]> = [
  ['json', 'nested_json'],
  ['angular_json', 'arb'],
  ['ios_strings', 'xcstrings'],
  ['android_xml', 'po'],
];
const ALL_FORMATS = FORMAT_PAIRS.flat();

// ---------------------------------------------------------------------------------------------------------------
// The realm's built-ins, taken before the service exists

function builtins() {
  const names = (o: object) => Reflect.ownKeys(o).map(String).sort();
  return {
    objectProto: names(Object.prototype),
    object: names(Object),
    functionProto: names(Function.prototype),
    arrayProto: names(Array.prototype),
    stringProto: names(String.prototype),
    map: names(Map.prototype),
    protoOfObjectProto: Object.getPrototypeOf(Object.prototype) as unknown,
    // Compared by identity, never called: Reflect.get reads them as `Object.prototype.toString` does.
    fns: [
      Object.keys,
      Object.entries,
      Reflect.get(Object.prototype, 'toString') as unknown,
      Reflect.get(Object.prototype, 'hasOwnProperty') as unknown,
      Reflect.get(Object.prototype, 'valueOf') as unknown,
      Object.prototype.constructor,
      JSON.stringify,
      JSON.parse,
    ],
  };
}
const BEFORE = builtins();

function intact(t: ExecutionContext, when: string) {
  const now = builtins();
  t.is(typeof Object.keys, 'function', `${when}: Object.keys`);
  t.is(({} as Record<string, unknown>).polluted, undefined, `${when}: ({}).polluted`);
  t.is(({} as Record<string, unknown>)['proto.polluted'], undefined, `${when}: ({})['proto.polluted']`);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the default stringification is what this checks
  t.is(String({}), '[object Object]', `${when}: String({})`);
  t.deepEqual({ ...now, fns: undefined }, { ...BEFORE, fns: undefined }, `${when}: own names of the built-ins`);
  t.true(
    now.fns.every((f, i) => f === BEFORE.fns[i]),
    `${when}: built-in functions`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Reading rendered files without ever touching a prototype

/** The value at `path`, following own properties only (JSON.parse makes `__proto__` an own property). */
function own(v: unknown, ...path: string[]): unknown {
  let node = v;
  for (const k of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, k)) return undefined;
    node = Object.getOwnPropertyDescriptor(node, k)!.value as unknown;
  }
  return node;
}

/** A JSON value with sorted own keys as [key, value] pairs, for comparisons that must see `__proto__` as a key. */
function pairs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pairs);
  if (v !== null && typeof v === 'object')
    return Object.keys(v)
      .sort()
      .map((k) => [k, pairs(own(v, k))]);
  return v;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Expect {
  /** The key's name in the file (a synced key's file spelling). */
  name: string;
  ctx?: string;
  /** Exact base value in ICU-valued formats (json, nested_json, angular_json, arb, xcstrings text), if checked. */
  en?: string;
}

/** A simple ICU message as the xcstrings renderer writes a pushed key: `%@`, or `%1$@`… with several arguments. */
function xcstringsPrintf(icu: string | undefined): string | undefined {
  if (icu === undefined) return undefined;
  // A select has no Apple form: its `other` branch, reported (README "What each file can express").
  const select = /^\{\w+, select, .* other \{([^{}]*)\}\}$/.exec(icu);
  if (select) return select[1];
  const names = [...new Set([...icu.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))];
  return icu.replace(/\{(\w+)\}/g, (_, n: string) => (names.length === 1 ? '%@' : `%${names.indexOf(n) + 1}$@`));
}

/** Checks that a rendered file of `format` holds every expected key as data (and its base value where given). */
function checkFile(t: ExecutionContext, format: Format, lang: string, text: string, expect: Expect[], label: string) {
  const where = (e: Expect) => `${label} ${format} ${lang}: ${e.name}`;
  const isJson = format !== 'ios_strings' && format !== 'android_xml' && format !== 'po';
  const doc = isJson ? (JSON.parse(text) as unknown) : null;
  for (const e of expect) {
    let value: unknown;
    if (format === 'json') value = own(doc, e.name);
    // ARB names are Dart identifiers (packages/core/src/formats/arb.ts arbName), the one rename this file cannot avoid.
    else if (format === 'arb') value = own(doc, arbName(e.name));
    else if (format === 'nested_json') value = own(doc, ...e.name.split('.'));
    else if (format === 'angular_json') value = own(doc, 'translations', e.name);
    else if (format === 'xcstrings') {
      const loc = own(doc, 'strings', e.name, 'localizations', lang);
      t.truthy(loc, where(e));
      value = own(loc, 'stringUnit', 'value') ?? own(loc, 'variations');
    } else if (format === 'ios_strings') {
      t.regex(text, new RegExp(`^"${escapeRe(e.name)}" = ".+";$`, 'm'), where(e));
      continue;
    } else if (format === 'android_xml') {
      // The resource name the renderer writes (`a.b` → `a_b`), the one packages/core/src/collisions.ts checks.
      t.regex(text, new RegExp(`<(string|plurals) name="${escapeRe(resourceName(e.name))}">`), where(e));
      continue;
    } else {
      // gettext looks a message up by its text: the key name is its extracted comment (`#. name`).
      const ctx = e.ctx === undefined ? '' : `(?:#.*\\n)*msgctxt "${escapeRe(e.ctx)}"\\n`;
      t.regex(text, new RegExp(`^#\\. ${escapeRe(e.name)}\\n${ctx}`, 'm'), where(e));
      continue;
    }
    t.truthy(value, where(e));
    // ARB's placeholders are Dart parameter names too (`{__proto__}` is `{proto}`); a pushed key's xcstrings value
    // is printf, as Xcode writes it (`%@` for a lone argument, else positional).
    const en =
      format === 'arb'
        ? e.en?.replace(/\{(\w+)\}/g, (_, n: string) => `{${arbName(n)}}`)
        : format === 'xcstrings'
          ? xcstringsPrintf(e.en)
          : e.en;
    if (lang === 'en' && en !== undefined && typeof value === 'string') t.is(value, en, where(e));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The service

let svc: TestService;
let victim: TestProject;
test.before(async () => {
  svc = await startTestService({ PREPARE_DELAY_MS: '0' });
});
test.after.always(async () => {
  await svc?.stop();
});

/** Every answer of this file, checked for 5xx as it arrives. */
function no5xx(t: ExecutionContext, what: string, status: number) {
  t.true(status < 500, `${what} answered ${status}`);
}

const runDue = async (t: ExecutionContext) => {
  // Twice: a fill in the first round may store its values after the sweep prepared the project.
  for (let i = 0; i < 2; i++)
    no5xx(t, 'run-due', (await svc.admin.POST('/jobs/run-due', { body: {} })).response.status);
};

async function addFormats(t: ExecutionContext, p: TestProject, formats: Format[]) {
  for (const format of formats) {
    const r = await p.client.POST('/projects/{projectId}/output-formats', {
      params: { path: { projectId: p.projectId } },
      body: { format },
    });
    t.is(r.response.status, 200, `output format ${format}: ${JSON.stringify(r.error)}`);
  }
}

async function publish(t: ExecutionContext, p: TestProject, body?: components['schemas']['PublishRequest']) {
  const r = await p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
    ...(body ? { body } : {}),
  });
  no5xx(t, 'publish', r.response.status);
  t.is(r.response.status, 201, `publish: ${JSON.stringify(r.error)}`);
  return r.data!;
}

async function pull(t: ExecutionContext, p: TestProject, format: Format, lang: string): Promise<string> {
  const res = await fetch(
    `${svc.baseUrl}/projects/${p.projectId}/translations?${new URLSearchParams({ version: 'current', format, lang })}`,
    { headers: { authorization: `Bearer ${p.apiKey}` } },
  );
  const text = await res.text();
  no5xx(t, `pull ${format} ${lang}`, res.status);
  t.is(res.status, 200, `pull ${format} ${lang}: ${text.slice(0, 300)}`);
  return text;
}

/** The version's objects are hard links to prepared ones: the background prepare rendered them. */
function prepared(p: TestProject, versionId: string): boolean {
  const dir = path.join(
    (svc.service.app.objects as FolderStore).root,
    'v1',
    'projects',
    p.projectId,
    'bundles',
    versionId,
  );
  return readdirSync(dir).every((f) => statSync(path.join(dir, f)).nlink >= 2);
}

/** Every object of `versionId` is either its own (one link) or the same file as `previousId`'s object of that name. */
function rendered(p: TestProject, versionId: string, previousId: string): boolean {
  const dir = (v: string) =>
    path.join((svc.service.app.objects as FolderStore).root, 'v1', 'projects', p.projectId, 'bundles', v);
  return readdirSync(dir(versionId)).every((f) => {
    const st = statSync(path.join(dir(versionId), f));
    return st.nlink === 1 || st.ino === statSync(path.join(dir(previousId), f)).ino;
  });
}

/** The manifest, every bundle and every configured file of the current version, from the delivery origin. */
/** A path in a bundle, its base-language value, and whether only the base language has it (a category de lacks). */
type BundleCheck = [path: string[], en: string, baseOnly?: boolean];

async function delivered(
  t: ExecutionContext,
  p: TestProject,
  formats: Format[],
  bundle: BundleCheck[],
  expect: Expect[],
  label: string,
) {
  const manifestUrl = `${svc.deliveryUrl}/projects/${p.projectId}/manifest`;
  const res = await fetch(manifestUrl);
  no5xx(t, 'manifest', res.status);
  t.is(res.status, 200);
  const m = await json<Schemas['Manifest']>(res);
  const get = async (url: string) => {
    const r = await fetch(new URL(url, manifestUrl));
    no5xx(t, `delivery ${url}`, r.status);
    t.is(r.status, 200, url);
    return r.text();
  };
  for (const lang of ['en', 'de']) {
    const tree = JSON.parse(await get(m.bundles[lang].url)) as unknown;
    for (const [at, value, baseOnly] of bundle) {
      if (lang !== 'en' && baseOnly) continue;
      const got = own(tree, ...at);
      if (lang === 'en') t.is(got, value, `${label} bundle en: ${at.join(' > ')}`);
      else t.is(typeof got, 'string', `${label} bundle ${lang}: ${at.join(' > ')}`);
    }
    for (const format of formats)
      checkFile(t, format, lang, await get(m.files[format][lang].url), expect, `${label} delivered`);
  }
}

/** Every pull format in both languages. */
async function pullAll(t: ExecutionContext, p: TestProject, expect: Expect[], label: string) {
  for (const format of ALL_FORMATS)
    for (const lang of ['en', 'de'])
      checkFile(t, format, lang, await pull(t, p, format, lang), expect, `${label} pull`);
}

// ---------------------------------------------------------------------------------------------------------------
// Content pushed through translate

interface Unit {
  unit: TranslateUnit;
  /** Expected name, when the unit names its key. */ key?: string;
  en: string;
  bundle: BundleCheck[];
}

const whole: Unit[] = NAMES.flatMap(
  (n, i) =>
    [
      // As a whole key, whose value names an ICU argument after it.
      {
        unit: { key: n, source: `Whole ${i} {${n}}` },
        key: n,
        en: `Whole ${i} {${n}}`,
        bundle: [[[n], `Whole ${i} {{${n}}}`]],
      },
      {
        unit: { key: `last.${n}`, source: `Last ${i}` },
        key: `last.${n}`,
        en: `Last ${i}`,
        bundle: [[['last', n], `Last ${i}`]],
      },
      {
        unit: { key: `mid.${n}.x`, source: `Middle ${i}` },
        key: `mid.${n}.x`,
        en: `Middle ${i}`,
        bundle: [[['mid', n, 'x'], `Middle ${i}`]],
      },
      // A plural whose argument is the name, and a count plural: both i18next suffix keys (the first passed as count).
      ((s) => ({
        unit: { key: `plural.${n}`, source: s },
        key: `plural.${n}`,
        en: s,
        bundle: [
          [['plural', `${n}_one`], `{{count, number}} thing ${i}`],
          [['plural', `${n}_other`], `{{count, number}} things ${i}`],
        ],
      }))(`{${n}, plural, one {# thing ${i}} other {# things ${i}}}`),
      {
        unit: { key: `count.${n}`, forms: { one: `# item ${i}`, other: `# items ${i}` } },
        key: `count.${n}`,
        en: `{count, plural, one {# item ${i}} other {# items ${i}}}`,
        bundle: [
          [['count', `${n}_one`], `{{count, number}} item ${i}`],
          [['count', `${n}_other`], `{{count, number}} items ${i}`],
        ],
      },
    ] as Unit[],
).concat([
  ((s) => ({
    unit: { key: 'select.options', source: s },
    key: 'select.options',
    en: s,
    // i18next context keys: `options___proto__`, …, the `other` branch as the bare key.
    bundle: [
      [['select', 'options'], 'other option'],
      ...NAMES.map((n): BundleCheck => [['select', `options_${n}`], `${n} option`]),
    ],
  }))(`{kind, select, ${NAMES.map((n) => `${n} {${n} option}`).join(' ')} other {other option}}`),
]);

const firstSegments: Unit[] = NAMES.flatMap(
  (n, i) =>
    [
      {
        unit: { key: `${n}.first`, source: `First ${i}` },
        key: `${n}.first`,
        en: `First ${i}`,
        bundle: [[[n, 'first'], `First ${i}`]],
      },
      {
        unit: { key: `${n}.${n}`, source: `Twice ${i} {${n}}` },
        key: `${n}.${n}`,
        en: `Twice ${i} {${n}}`,
        bundle: [[[n, n], `Twice ${i} {{${n}}}`]],
      },
      // The name as ctx: it becomes the key's first segment (lowercased, letters and digits only) and the PO msgctxt.
      { unit: { source: `In context ${i}`, ctx: n }, en: `In context ${i}`, bundle: [] },
    ] as Unit[],
).concat([
  // The reported crashes: `constructor.keys` minted from ctx by a translate-only key, and `__proto__.polluted`.
  {
    unit: { source: 'keys', ctx: 'constructor' },
    key: 'constructor.keys',
    en: 'keys',
    bundle: [[['constructor', 'keys'], 'keys']],
  },
  {
    unit: { key: '__proto__.polluted', source: 'Polluted' },
    key: '__proto__.polluted',
    en: 'Polluted',
    bundle: [[['__proto__', 'polluted'], 'Polluted']],
  },
  // Not `proto.polluted`: ARB's Dart names would make it `protoPolluted` like `__proto__.polluted`, a collision
  // publishing refuses (409 export_collision, test/service/output/arb-runtime.test.ts), not the prototype this set is about.
  {
    unit: { source: 'polluted by ctx', ctx: '__proto__' },
    key: 'proto.polluted_by_ctx',
    en: 'polluted by ctx',
    bundle: [[['proto', 'polluted_by_ctx'], 'polluted by ctx']],
  },
]);

test.serial('another project, made before the hostile content, publishes', async (t) => {
  intact(t, 'at start');
  victim = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const r = await victim.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: victim.projectId } },
    body: { units: [{ source: 'Hello victim' }] },
  });
  t.is(r.response.status, 200);
  await runDue(t);
  await publish(t, victim);
});

for (const [set, units] of [
  ['whole, last and middle segments', whole],
  ['first segments and ctx', firstSegments],
] as const) {
  for (const formats of FORMAT_PAIRS) {
    test.serial(
      `translate, fill, publish (prepared, live, restore), pull and deliver: ${set}, configured ${formats.join(' + ')}`,
      async (t) => {
        const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
        await addFormats(t, p, formats);
        // A translate-only key, as in the report.
        const translator = svc.client(await createTestKey(svc, p.projectId, ['translate']));
        const r = await translate(translator, p.projectId, { units: units.map((u) => u.unit) });
        no5xx(t, 'translate', r.response.status);
        t.is(r.response.status, 200, JSON.stringify(r.error));
        const names = r.data!.units.map((u) => u.key);
        units.forEach((u, i) => {
          if (u.key) t.is(names[i], u.key);
        });
        const expect: Expect[] = units.map((u, i) => ({
          name: names[i],
          en: u.en,
          ...(typeof u.unit.ctx === 'string' ? { ctx: u.unit.ctx } : {}),
        }));
        // Text values only: a plural renders as forms in some formats.
        for (const e of expect) if (e.en?.includes('plural')) delete e.en;
        const bundle = units.flatMap((u) => u.bundle);
        await runDue(t);
        intact(t, 'after the fill and the prepare');

        const v1 = await publish(t, p);
        t.true(prepared(p, v1.versionId), 'the first publish copied the background preparation');
        await delivered(t, p, formats, bundle, expect, set);
        const v2 = await publish(t, p, { incompleteMode: 'skip' });
        // Other flags do not take the prepared publish: each of v2's objects is rendered live (one link) or, for a
        // language unchanged since v1 whose files wrote no fallback, copied from v1 (the same file).
        t.true(rendered(p, v2.versionId, v1.versionId), 'other flags render live or copy v1');
        await delivered(t, p, formats, bundle, expect, set);
        const restored = await p.client.POST('/projects/{projectId}/versions/{versionId}/restore', {
          params: { path: { projectId: p.projectId, versionId: v1.versionId } },
        });
        no5xx(t, 'restore', restored.response.status);
        t.is(restored.response.status, 201);
        await delivered(t, p, formats, bundle, expect, set);
        await pullAll(t, p, expect, set);
        intact(t, 'after publishing and pulling');
      },
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Content synced from files (written as text: a JS object literal would turn a "__proto__" key into a prototype)

const b64 = (s: string) => Buffer.from(s).toString('base64');

async function sync(t: ExecutionContext, p: TestProject, text: string, fileName: string) {
  const r = await p.client.POST('/projects/{projectId}/sync', {
    params: { path: { projectId: p.projectId } },
    body: { contentBase64: b64(text), fileName },
  });
  no5xx(t, `sync ${fileName}`, r.response.status);
  return r;
}

const FLAT = `{
  "__proto__": "Proto {{__proto__}}",
  "constructor": "Constructor {{constructor}}",
  "prototype": "Prototype",
  "toString": "To string {name}",
  "hasOwnProperty": "Has own property",
  "valueOf": "{count, plural, one {# value} other {# values}}",
  "last.__proto__": "Last proto",
  "mid.constructor.x": "Middle constructor"
}
`;

const NESTED = `{
  "constructor": {
    "keys": "Keys"
  },
  "__proto__": {
    "polluted": "Polluted {{__proto__}}"
  },
  "a": {
    "toString": {
      "b": "B"
    },
    "valueOf": "Value"
  },
  "prototype": {
    "hasOwnProperty": "Has"
  },
  "hasOwnProperty": {
    "__proto__": {
      "constructor": "Deep"
    }
  }
}
`;

const ANGULAR = `{
  "locale": "en",
  "translations": {
    "__proto__": "Hello {$__proto__}",
    "constructor": "Constructor",
    "toString": "To {$constructor}",
    "1234567890123456789": "Digest"
  }
}
`;

const unit = (value: string) => `{ "stringUnit" : { "state" : "translated", "value" : ${JSON.stringify(value)} } }`;
const XCSTRINGS = `{
  "sourceLanguage" : "en",
  "__proto__" : { "polluted" : true },
  "strings" : {
    "__proto__" : {
      "comment" : "A key named __proto__",
      "constructor" : "an unknown field",
      "localizations" : { "en" : ${unit('Proto')} }
    },
    "constructor" : {
      "localizations" : { "en" : { "variations" : { "plural" : { "one" : ${unit('%lld constructor')}, "other" : ${unit('%lld constructors')} } } } }
    },
    "toString" : {
      "localizations" : { "en" : {
        "stringUnit" : { "state" : "translated", "value" : "%#@__proto__@ left" },
        "substitutions" : { "__proto__" : { "argNum" : 1, "formatSpecifier" : "lld", "variations" : { "plural" : { "one" : ${unit('%arg item')}, "other" : ${unit('%arg items')} } } } }
      } }
    },
    "hasOwnProperty" : {
      "localizations" : { "en" : { "variations" : { "plural" : { "__proto__" : ${unit('proto form')}, "other" : ${unit('other form')} } } } }
    },
    "valueOf" : {
      "localizations" : { "en" : { "variations" : { "device" : { "__proto__" : ${unit('Proto device')}, "other" : ${unit('Other device')} } } } }
    },
    "prototype" : {
      "extractionState" : "manual",
      "localizations" : { "de" : ${unit('Prototyp')}, "en" : ${unit('Prototype')} }
    }
  },
  "version" : "1.0"
}`;

const syncCases: Array<{
  label: string;
  fileName: string;
  text: string;
  format: Format;
  formats: [Format, Format];
  expect: Expect[];
  bundle: BundleCheck[];
}> = [
  {
    label: 'flat json',
    fileName: 'en.json',
    text: FLAT,
    format: 'json',
    formats: ['json', 'android_xml'],
    expect: [
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'valueOf',
      'last.__proto__',
      'mid.constructor.x',
    ].map((name) => ({ name })),
    bundle: [
      [['proto'], 'Proto {{__proto__}}'],
      [['constructor'], 'Constructor {{constructor}}'],
      [['prototype'], 'Prototype'],
      [['to', 'string'], 'To string {{name}}'],
      [['value', 'of_one'], '{{count, number}} value'],
      [['last', 'proto'], 'Last proto'],
      [['mid', 'constructor', 'x'], 'Middle constructor'],
    ],
  },
  {
    label: 'nested json',
    fileName: 'en.json',
    text: NESTED,
    format: 'nested_json',
    formats: ['nested_json', 'ios_strings'],
    expect: [
      'constructor.keys',
      '__proto__.polluted',
      'a.toString.b',
      'a.valueOf',
      'prototype.hasOwnProperty',
      'hasOwnProperty.__proto__.constructor',
    ].map((name) => ({ name })),
    bundle: [
      [['constructor', 'keys'], 'Keys'],
      [['proto', 'polluted'], 'Polluted {{__proto__}}'],
      [['a', 'to', 'string', 'b'], 'B'],
      [['has', 'own', 'property', 'proto', 'constructor'], 'Deep'],
    ],
  },
  {
    label: 'angular json',
    fileName: 'messages.json',
    text: ANGULAR,
    format: 'angular_json',
    formats: ['angular_json', 'arb'],
    expect: ['__proto__', 'constructor', 'toString', '1234567890123456789'].map((name) => ({ name })),
    bundle: [
      [['proto'], 'Hello {{__proto__}}'],
      [['constructor'], 'Constructor'],
      [['k1234567890123456789'], 'Digest'],
    ],
  },
  {
    label: 'xcstrings',
    fileName: 'Localizable.xcstrings',
    text: XCSTRINGS,
    format: 'xcstrings',
    formats: ['xcstrings', 'po'],
    expect: NAMES.map((name) => ({ name })),
    bundle: [
      [['proto'], 'Proto'],
      [['constructor_one'], '%lld constructor'],
      [['has', 'own', 'property___proto__'], 'proto form', true],
      [['has', 'own', 'property_other'], 'other form'],
      [['prototype'], 'Prototype'],
    ],
  },
];

for (const c of syncCases) {
  test.serial(`sync ${c.label}, fill, publish, pull every format and deliver`, async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    await addFormats(t, p, c.formats);
    const r = await sync(t, p, c.text, c.fileName);
    t.is(r.response.status, 200, JSON.stringify(r.error));
    await runDue(t);
    intact(t, 'after the sync, the fill and the prepare');
    const v = await publish(t, p);
    t.true(prepared(p, v.versionId), 'the publish copied the background preparation');
    await delivered(t, p, c.formats, c.bundle, c.expect, c.label);
    await pullAll(t, p, c.expect, c.label);

    // The file comes back as it went in, reserved names included.
    const back = JSON.parse(await pull(t, p, c.format, 'en')) as unknown;
    const sent = JSON.parse(c.text) as unknown;
    if (c.format === 'xcstrings') {
      t.deepEqual(pairs(own(back, '__proto__')), pairs({ polluted: true }), 'a root field named __proto__');
      t.is(own(back, 'strings', '__proto__', 'constructor'), 'an unknown field');
      t.is(own(back, 'strings', '__proto__', 'comment'), 'A key named __proto__');
      t.deepEqual(
        pairs(own(back, 'strings', 'toString', 'localizations', 'en')),
        pairs(own(sent, 'strings', 'toString', 'localizations', 'en')),
        'a substitution named __proto__',
      );
      t.deepEqual(
        pairs(own(back, 'strings', 'hasOwnProperty', 'localizations', 'en')),
        pairs(own(sent, 'strings', 'hasOwnProperty', 'localizations', 'en')),
        'a plural category named __proto__',
      );
      t.deepEqual(
        pairs(own(back, 'strings', 'valueOf', 'localizations', 'en')),
        pairs(own(sent, 'strings', 'valueOf', 'localizations', 'en')),
        'a device variation named __proto__',
      );
      t.is(own(back, 'strings', 'prototype', 'localizations', 'de', 'stringUnit', 'value'), 'Prototyp');
    } else {
      t.deepEqual(pairs(back), pairs(sent));
    }
    if (c.format === 'nested_json') t.is(own(back, 'constructor', 'keys'), 'Keys');
    intact(t, 'after publishing and pulling');
  });
}

test.serial(
  'a language named like a prototype member is refused as not a language, before anything is written',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    for (const lang of ['__proto__', 'constructor', 'hasOwnProperty']) {
      const text = `{ "sourceLanguage" : "en", "strings" : { "a" : { "localizations" : { "en" : ${unit('A')}, ${JSON.stringify(lang)} : ${unit('X')} } } }, "version" : "1.0" }`;
      const r = await sync(t, p, text, 'Localizable.xcstrings');
      t.is(r.response.status, 400, lang);
      t.is(r.error?.error, 'invalid_argument', lang);
    }
    t.is(Number((await svc.service.app.db('keys').where({ project_id: p.projectId }).count({ n: '*' }))[0].n), 0);
    intact(t, 'after refused syncs');
  },
);

test.serial('afterwards the built-ins are intact and the other project still answers', async (t) => {
  await runDue(t);
  intact(t, 'at the end');
  const params = { params: { path: { projectId: victim.projectId } } };
  const pushed = await victim.client.POST('/projects/{projectId}/translate', {
    ...params,
    body: { units: [{ source: 'Still here' }] },
  });
  t.is(pushed.response.status, 200);
  await runDue(t);
  await publish(t, victim);
  t.is((await victim.client.GET('/projects/{projectId}/meta', params)).response.status, 200);
  t.is((await svc.admin.GET('/projects/{projectId}', params)).response.status, 200);
  const text = JSON.parse(await pull(t, victim, 'json', 'de')) as Schemas['RenderedJsonFile'];
  t.deepEqual(Object.keys(text).sort(), ['hello_victim', 'still_here']);
  const manifest = await fetch(`${svc.deliveryUrl}/projects/${victim.projectId}/manifest`);
  t.is(manifest.status, 200);
});
