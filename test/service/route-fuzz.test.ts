// Hostile input thrown at every route of the route table, on all three surfaces: the public API (/v1 on the main
// origin), the internal API (/internal/v1, admin token) and the delivery origin (projects' paths and custom
// domains). Mixed in: names that are members of Object.prototype (`__proto__`, `constructor`, ...) as JSON
// property names written as raw JSON text, path parameters, query names and values, key names, ctx, ICU argument
// names and inside synced files; 70,000-character strings and 300-character path segments; wrong types in every
// field; repeated and array-shaped query parameters; lone surrogates and invalid UTF-8. The database is healthy
// and the engine is the pseudo one, so no answer may be a 5xx (501 only where a route has no implementation), every
// non-2xx answer is a JSON `{error, message}`, Object.prototype stays as it was (the service runs in this process)
// and a project the fuzz never touched still reads, pushes and publishes.
// Debugging: FUZZ_VERBOSE=<regexp> logs the answer of each case whose "operationId label" matches; FUZZ_TIMING=1
// logs the time spent per route.
import http from 'node:http';
import { Writable } from 'node:stream';
import test from 'ava';
import { routes, type RouteSpec } from '../../generated/routes.js';
import { implemented } from '../../server/app/implementations.js';
import {
  ADMIN_TOKEN,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { rng } from '../helpers/rng.js';
import type { InternalSchemas, Schemas } from '../helpers/typed.js';

// ---------------------------------------------------------------------------------------------------------------
// The realm, before the service exists

const OBJECT_PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();
const SEED = 20260307;
/** Authenticated /v1 requests per project, setup included; its closing publish makes one more (the limit is 120). */
const PER_PROJECT = 105;
/** Cases per route that has no implementation yet (they answer 501 after the shared pipeline stages). */
const UNIMPLEMENTED_CASES = 6;

// ---------------------------------------------------------------------------------------------------------------
// JSON with what object literals cannot say: own `__proto__` properties, raw number tokens, invalid UTF-8

/** A JSON token written verbatim (a number JSON.stringify cannot produce, or bytes that are not UTF-8). */
class Raw {
  constructor(readonly bytes: Buffer) {}
  static of(text: string | Buffer) {
    return new Raw(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'));
  }
}

type Json = unknown;

/** An object with exactly these own properties (`__proto__` included: defineProperty never calls the setter). */
function own(...entries: Array<[string, Json]>): Record<string, Json> {
  const o: Record<string, Json> = {};
  for (const [k, v] of entries)
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

function clone(v: Json): Json {
  if (v instanceof Raw || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(clone);
  return own(...Object.keys(v).map((k): [string, Json] => [k, clone(Object.getOwnPropertyDescriptor(v, k)!.value)]));
}

function getOwn(v: Json, k: string): Json {
  return Object.getOwnPropertyDescriptor(v, k)?.value as Json;
}

/** A copy of `doc` with the value at `path` set (created where missing), through own properties only. */
function setAt(doc: Json, path: string[], value: Json): Json {
  const out = clone(doc) as object; // setAt is only given objects
  let node = out;
  for (const k of path.slice(0, -1)) {
    let next = getOwn(node, k);
    if (next === null || typeof next !== 'object' || next instanceof Raw) {
      next = {};
      Object.defineProperty(node, k, { value: next, enumerable: true, writable: true, configurable: true });
    }
    node = next as object; // an object either way
  }
  Object.defineProperty(node, path[path.length - 1], { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** Every path to a value inside `doc` (object properties and array items, at any depth). */
function paths(doc: Json, prefix: string[] = []): string[][] {
  if (doc === null || typeof doc !== 'object' || doc instanceof Raw) return [];
  const keys = Array.isArray(doc) ? doc.map((_, i) => String(i)) : Object.keys(doc);
  return keys.flatMap((k) => [[...prefix, k], ...paths(getOwn(doc, k), [...prefix, k])]);
}

/** Paths to the objects inside `doc`, the root included. */
function objectPaths(doc: Json, prefix: string[] = []): string[][] {
  if (doc === null || typeof doc !== 'object' || doc instanceof Raw || Array.isArray(doc)) return [];
  return [prefix, ...Object.keys(doc).flatMap((k) => objectPaths(getOwn(doc, k), [...prefix, k]))];
}

function toJson(v: Json): Buffer {
  const raws: Raw[] = [];
  const text = JSON.stringify(v, (_k, x: unknown) => (x instanceof Raw ? `\u0000RAW${raws.push(x) - 1}\u0000` : x));
  const parts = text.split(/"\\u0000RAW(\d+)\\u0000"/);
  return Buffer.concat(parts.map((p, i) => (i % 2 ? raws[Number(p)].bytes : Buffer.from(p, 'utf8'))));
}

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

// ---------------------------------------------------------------------------------------------------------------
// Hostile values

const RESERVED = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const LONG = 'x'.repeat(70_000);
const INVALID_UTF8 = Raw.of(
  Buffer.concat([
    Buffer.from('"a'),
    Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf0, 0x28, 0x8c]),
    Buffer.from('b"'),
  ]),
);

interface Hostile {
  label: string;
  value: Json;
}

const POLLUTE = () => own(['__proto__', own(['polluted', 'yes'])]);
const POLLUTE_CTOR = () => own(['constructor', own(['prototype', own(['polluted', 'yes'])])]);

/** What every body field gets, in place of its valid value. */
const FIELD_VALUES: Hostile[] = [
  { label: 'null', value: null },
  { label: 'true', value: true },
  { label: '-1', value: -1 },
  { label: '1.5', value: 1.5 },
  { label: '1e308', value: 1e308 },
  { label: 'raw 1e400', value: Raw.of('1e400') },
  { label: 'raw -0', value: Raw.of('-0') },
  { label: 'raw 2^53+1', value: Raw.of('9007199254740993') },
  { label: '2^31', value: 2_147_483_648 },
  { label: 'raw 2^63', value: Raw.of('9223372036854775808') },
  { label: '[]', value: [] },
  { label: '[null]', value: [null] },
  { label: '[[[]]]', value: [[[]]] },
  { label: '["__proto__"]', value: ['__proto__'] },
  { label: '{}', value: {} },
  { label: '{"__proto__":{"polluted":"yes"}}', value: POLLUTE() },
  { label: '{"constructor":{"prototype":{"polluted":"yes"}}}', value: POLLUTE_CTOR() },
  { label: '""', value: '' },
  { label: '70,000 characters', value: LONG },
  { label: '70,000 three-byte characters', value: '€'.repeat(70_000) },
  { label: '300 characters', value: 'k'.repeat(300) },
  ...RESERVED.map((n) => ({ label: JSON.stringify(n), value: n })),
  { label: 'lone high surrogate', value: '\ud800' },
  { label: 'lone low surrogate inside', value: 'a\udfffb' },
  { label: 'invalid UTF-8 bytes', value: INVALID_UTF8 },
  { label: 'NUL', value: 'a\u0000b' },
  { label: 'ICU {constructor}', value: 'Hi {constructor} and {__proto__} and {toString}' },
  { label: 'ICU plural on __proto__', value: '{__proto__, plural, one {# item} other {# items}}' },
  {
    label: 'ICU select with reserved options',
    value: '{constructor, select, __proto__ {a} constructor {b} prototype {c} other {d}}',
  },
];

/** Date-times the format accepts that Date.parse may not (a leap second, year 0, lowercase designators). */
const DATE_VALUES: Hostile[] = [
  '2016-12-31T23:59:60Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999999Z',
  '1970-01-01T00:00:00+23:59',
  '2024-01-01t00:00:00z',
  '2024-01-01 00:00:00Z',
].map((d) => ({ label: `date ${d}`, value: d }));

/** Path parameters, already percent-encoded as sent. */
const PATH_VALUES: Hostile[] = [
  ...RESERVED.map((n) => ({ label: n, value: n })),
  { label: '__proto__[polluted]', value: '__proto__%5Bpolluted%5D' },
  { label: '300 characters', value: 'a'.repeat(300) },
  { label: '300 digits', value: '9'.repeat(300) },
  { label: 'version with a 300-digit sequence', value: `2026.01.01.${'9'.repeat(300)}` },
  { label: '300-digit version day', value: `${'2'.repeat(300)}.01.01.1` },
  { label: '12,000 characters', value: 'b'.repeat(12_000) },
  { label: '70,000 characters', value: 'c'.repeat(70_000) },
  { label: 'encoded lone surrogate', value: '%ED%A0%80' },
  { label: 'invalid UTF-8', value: '%FF%FE' },
  { label: 'truncated UTF-8', value: '%E2%82' },
  { label: 'bare percent', value: '%' },
  { label: 'bad escape', value: '%zz' },
  { label: 'NUL', value: 'a%00b' },
  { label: 'encoded slash', value: 'a%2Fb' },
  { label: 'encoded dot-dot', value: '%2e%2e' },
  { label: 'dot-dot segment', value: '..' },
  { label: 'trailing dot', value: 'a.' },
  { label: 'euro', value: '%E2%82%AC' },
];

/** Query strings, appended to each route's own query. */
const QUERY_VALUES: string[] = [
  '__proto__[polluted]=1',
  '__proto__=1',
  '__proto__=1&__proto__=2',
  '__proto__.polluted=1',
  'constructor=1',
  'constructor[prototype][polluted]=1',
  'prototype=1',
  'toString=1',
  'hasOwnProperty=1',
  'valueOf=1',
  'dryRun[]=true',
  'dryRun=true&dryRun=false',
  'dryRun[__proto__]=true',
  'dryRun=__proto__',
  'lang=de&lang=fr',
  'lang[]=de',
  'lang=__proto__',
  'lang=toString',
  'ref=__proto__',
  'ref=constructor',
  'ref=toString',
  'ref=hasOwnProperty',
  'version=__proto__',
  'version=current&version=current',
  'format=__proto__',
  'format=constructor',
  'format[]=json',
  'trackingToken=__proto__',
  'trackingToken[]=x',
  'captured=__proto__',
  'captured=true&captured=false',
  'captured[]=true',
  `ref=${'r'.repeat(300)}`,
  `version=2026.01.01.${'9'.repeat(300)}`,
  `lang=${'l'.repeat(300)}`,
  'ref=%ED%A0%80',
  'lang=%FF',
  `x=${'q'.repeat(70_000)}`,
];

/** GET /translations reads: every format and language of a version pull, key reads of reserved names, polls. */
const TRANSLATIONS_QUERIES: Array<(fx: Fixture) => string> = [
  ...['json', 'nested_json', 'angular_json', 'ios_strings', 'xcstrings', 'android_xml', 'arb', 'po', undefined].flatMap(
    (format) =>
      ['de', 'en', 'fr', 'DE_de', 'toString', '__proto__', undefined].map(
        (lang) => () =>
          ['version=current', format && `format=${format}`, lang && `lang=${lang}`].filter(Boolean).join('&'),
      ),
  ),
  (fx) => `version=${fx.versionId}&format=json&lang=de`,
  () => `version=2026.01.01.${'9'.repeat(300)}&format=json&lang=de`,
  () => 'version=0000.00.00.0&format=po&lang=de',
  () => 'version=current&format=json&lang=de&ref=__proto__',
  ...[...RESERVED, 'fz.constructor.prototype', 'a.__proto__.b', 'fz.hello'].flatMap((ref) =>
    ['', '&lang=de', '&lang=__proto__', '&lang=toString'].map((lang) => () => `ref=${encodeURIComponent(ref)}${lang}`),
  ),
  ...[...RESERVED, 't'.repeat(300), 'trk_%ED%A0%80'].map((tok) => () => `trackingToken=${tok}`),
];

/** Authorization headers that are no key (none spends a project's budget). */
const AUTH_VALUES = [
  'Bearer __proto__',
  `Bearer glk_constructor0_${'A'.repeat(43)}`,
  'Bearer glk___proto___x',
  'Basic X19wcm90b19fOng=',
  'Bearer',
  `Bearer ${'z'.repeat(300)}`,
];

/** Synced files that carry reserved names as keys, nested paths, catalog keys and language codes. */
const SYNC_FILES: Array<{ label: string; fileName?: string; text: string }> = [
  {
    label: 'flat json with reserved keys',
    fileName: 'en.json',
    text: `{${RESERVED.map((n) => `"${n}":"${n} value {${n}}"`).join(',')}}`,
  },
  { label: 'flat json __proto__ object', fileName: 'en.json', text: '{"__proto__":{"polluted":"yes"},"ok":"OK"}' },
  {
    label: 'nested json constructor.keys',
    fileName: 'en.json',
    text: '{"constructor":{"keys":"K","prototype":{"polluted":"P"}},"__proto__":{"toString":"T"}}',
  },
  {
    label: 'nested json declared',
    fileName: 'en.json',
    text: '{"a":{"__proto__":{"valueOf":"V"}},"hasOwnProperty":{"x":"X"}}',
  },
  {
    label: 'angular json reserved ids',
    fileName: 'messages.json',
    text: '{"locale":"en","translations":{"__proto__":"A","constructor":"B","toString":"{constructor}"}}',
  },
  {
    label: 'angular json __proto__ translations',
    fileName: 'messages.json',
    text: '{"locale":"en","translations":{"__proto__":{"polluted":"yes"}}}',
  },
  { label: 'json reserved @@locale', fileName: 'en.json', text: '{"@@locale":"__proto__","a":"A"}' },
  {
    label: 'xcstrings reserved string keys and languages',
    fileName: 'Localizable.xcstrings',
    text: `{"sourceLanguage":"en","version":"1.0","strings":{${RESERVED.map((n) => `"${n}":{"localizations":{"en":{"stringUnit":{"state":"translated","value":"${n} {${n}}"}},"de":{"stringUnit":{"state":"translated","value":"DE ${n}"}}}}`).join(',')}}}`,
  },
  {
    label: 'xcstrings reserved language codes',
    fileName: 'Localizable.xcstrings',
    text: '{"sourceLanguage":"en","version":"1.0","strings":{"k":{"localizations":{"en":{"stringUnit":{"state":"translated","value":"K"}},"__proto__":{"stringUnit":{"state":"translated","value":"P"}},"constructor":{"stringUnit":{"state":"translated","value":"C"}},"toString":{"stringUnit":{"state":"translated","value":"T"}}}}}}',
  },
  {
    label: 'xcstrings __proto__ as sourceLanguage',
    fileName: 'Localizable.xcstrings',
    text: '{"sourceLanguage":"__proto__","version":"1.0","strings":{"k":{"localizations":{"__proto__":{"stringUnit":{"state":"translated","value":"K"}}}}}}',
  },
  {
    label: 'xcstrings toString as sourceLanguage',
    fileName: 'Localizable.xcstrings',
    text: '{"sourceLanguage":"toString","version":"1.0","strings":{"k":{}}}',
  },
  {
    label: 'xcstrings __proto__ strings',
    fileName: 'Localizable.xcstrings',
    text: '{"sourceLanguage":"en","version":"1.0","strings":{"__proto__":{"polluted":"yes"}}}',
  },
  {
    label: 'xcstrings reserved plural categories',
    fileName: 'Localizable.xcstrings',
    text: '{"sourceLanguage":"en","version":"1.0","strings":{"n":{"localizations":{"en":{"variations":{"plural":{"__proto__":{"stringUnit":{"state":"translated","value":"x"}},"constructor":{"stringUnit":{"state":"translated","value":"y"}},"other":{"stringUnit":{"state":"translated","value":"%lld z"}}}}}}}}}',
  },
  {
    label: 'xcstrings reserved substitutions',
    fileName: 'Localizable.xcstrings',
    text: '{"sourceLanguage":"en","version":"1.0","strings":{"s":{"localizations":{"en":{"stringUnit":{"state":"translated","value":"%#@constructor@"},"substitutions":{"constructor":{"argNum":1,"formatSpecifier":"lld","variations":{"plural":{"other":{"stringUnit":{"state":"translated","value":"%arg"}}}}},"__proto__":{"polluted":"yes"}}}}}}}',
  },
  { label: 'json lone surrogate escapes', fileName: 'en.json', text: '{"\\ud800":"\\udfff","k":"a\\ud800b"}' },
  {
    label: 'json 70,000-character key and value',
    fileName: 'en.json',
    text: `{"${'K'.repeat(70_000)}":"${'V'.repeat(70_000)}"}`,
  },
  {
    label: 'json invalid UTF-8',
    fileName: 'en.json',
    text: Buffer.from([0x7b, 0x22, 0x6b, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x28, 0x22, 0x7d]).toString('latin1'),
  },
];

// ---------------------------------------------------------------------------------------------------------------
// The routes, their valid requests, and the fixture projects they run against

interface Fixture {
  n: number;
  projectId: string;
  workspaceId: string;
  apiKey: string;
  spareKeyId: string;
  versionId: string;
  bundleFile: string;
  host: string;
}

const PREFIX: Record<RouteSpec['origin'], string> = { main: '/v1', delivery: '/v1', internal: '/internal/v1' };

const PATH_DEFAULTS: Record<string, (fx: Fixture) => string> = {
  projectId: (fx) => fx.projectId,
  versionId: (fx) => fx.versionId,
  file: (fx) => fx.bundleFile,
  requestId: () => 'constructor',
  workspaceId: (fx) => fx.workspaceId,
  code: () => 'fr',
  keyId: (fx) => fx.spareKeyId,
  key: () => '__proto__',
  lang: () => 'de',
  operationId: () => 'op_1',
  docId: () => 'doc-1',
  webhookId: () => 'wh_1',
  deliveryId: () => 'dl_1',
};

/** The query each route needs to do something (GET /translations takes exactly one selector). */
const QUERY_DEFAULTS: Record<string, string> = { getTranslations: 'ref=__proto__' };

/** A valid body per route (`i` makes request ids unique), and the optional fields it leaves out. */
const BODIES: Record<string, { body: (fx: Fixture, i: number) => Json; extra?: Array<[string[], Json]> }> = {
  translateUnits: {
    body: (_fx, i) => ({
      units: [
        { source: `Hello {name} ${i}`, key: `fz.k${i}`, ctx: 'c' },
        { forms: { one: '# file', other: '# files' } },
      ],
      langs: ['de'],
      requestId: `fz-t${i}`,
    }),
    extra: [
      [['units', '0', 'previousSource'], 'Hello {name}'],
      [['units', '0', 'previousCtx'], 'c'],
      [['units', '0', 'previousToken'], 't_x'],
      [['units', '1', 'forms', 'few'], '# files'],
      [['operationId'], 'op_1'],
      [['attemptId'], 'a1'],
      [['batchIndex'], 0],
      [['batchSha256'], 'f'.repeat(64)],
    ],
  },
  syncCatalog: {
    body: (_fx, i) => ({
      contentBase64: b64(
        `{"fz.title":"Title ${i}","welcomeMessage":"Hi {name}","__proto__":"P","constructor":{"keys":"K"}}`,
      ),
      fileName: 'en.json',
      format: 'nested_json',
      onConflict: 'server',
      requestId: `fz-s${i}`,
    }),
    extra: [
      [['pulledAt'], '2026-01-01T00:00:00Z'],
      [['operationId'], 'op_1'],
      [['attemptId'], 'a1'],
      [['batchIndex'], 0],
      [['batchSha256'], 'f'.repeat(64)],
      [['onConflict'], 'file'],
      ...['json', 'angular_json', 'xcstrings', 'po', 'arb', 'android_xml', 'ios_strings'].map((f): [string[], Json] => [
        ['format'],
        f,
      ]),
    ],
  },
  captureUnits: { body: (_fx, i) => ({ units: [{ source: `Captured ${i}`, ctx: 'c' }] }) },
  addLanguage: {
    body: () => ({ code: 'it', fillMode: 'ai' }),
    extra: [
      [['fillMode'], 'manual'],
      [['code'], 'PT_br'],
      [['code'], 'zh-Hant-TW'],
      [['code'], 'en-US'],
      [['code'], 'i-klingon'],
      [['code'], 'en-u-ca-gregory-x-private'],
    ],
  },
  addOutputFormat: {
    body: () => ({ format: 'json', mode: 'add' }),
    extra: ['nested_json', 'angular_json', 'ios_strings', 'xcstrings', 'android_xml', 'arb', 'po'].flatMap(
      (f): Array<[string[], Json]> => [
        [['format'], f],
        [['mode'], 'adopt'],
      ],
    ),
  },
  publishVersion: {
    body: () => ({
      label: 'fuzz',
      incompleteMode: 'source',
      approvedOnly: false,
      require_complete: false,
      skipIfIdentical: true,
    }),
    extra: [
      [['requiredOutputFormat'], 'json'],
      [['requiredOutputFormat'], 'po'],
      [['operationId'], 'op_1'],
      [['incompleteMode'], 'skip'],
      [['incompleteMode'], 'hold'],
      [['approvedOnly'], true],
      [['require_complete'], true],
      [['skipIfIdentical'], null],
      [['skipIfIdentical'], false],
    ],
  },
  restoreVersion: { body: () => ({}), extra: [[['operationId'], 'op_1']] },
  createOperation: { body: (fx) => ({ action: 'publish', scope: { project_id: fx.projectId } }) },
  createContentDocument: { body: () => ({ title: 'T', text: 'Hello', format: 'plaintext', fields: { a: 'b' } }) },
  putContentDocument: { body: () => ({ title: 'T', text: 'Hello' }) },
  runContentDocument: { body: () => ({ dryRun: true }) },
  createWebhook: { body: () => ({ url: 'https://203.0.113.10/hook', events: ['strings.published'] }) },
  updateWebhook: { body: () => ({ enabled: true }) },
  internalCreateWorkspace: {
    body: () => ({
      name: 'W',
      creditsMc: 1000,
      requireApproval: false,
      spendingCapMc: null,
      keyLimit: null,
      documentLimit: null,
    }),
  },
  internalUpdateWorkspace: {
    body: () => ({ requireApproval: false }),
    extra: [
      [['creditsMc'], 1_000_000],
      [['spendingCapMc'], null],
      [['keyLimit'], null],
      [['documentLimit'], null],
    ],
  },
  internalAdjustCredits: { body: () => ({ mc: 1000 }) },
  internalCreateProject: {
    body: (fx) => ({
      workspaceId: fx.workspaceId,
      name: 'P',
      baseLang: 'en',
      languages: [{ code: 'de', fillMode: 'ai' }],
      mode: 'b',
      autoVerify: false,
      contentEnabled: false,
      costWarningMc: null,
    }),
  },
  internalUpdateProject: {
    body: () => ({ autoVerify: false }),
    extra: [
      [['contentEnabled'], false],
      [['costWarningMc'], null],
      [['deliveryHost'], 'fuzz.cdn.test'],
    ],
  },
  internalCreateApiKey: { body: () => ({ scopes: ['read'], requiresOperationApproval: false, name: 'k' }) },
  internalApproveOperation: { body: () => ({ authorizedCredits: 1 }) },
  internalUpdateKey: { body: () => ({ enabled: true }), extra: [[['sourceVerified'], true]] },
  internalPutTranslation: { body: () => ({ value: 'Wert', status: 'translated' }) },
  internalRetryFill: { body: () => ({ langs: ['de'] }) },
  internalPublishContent: { body: () => ({ docIds: ['doc-1'] }) },
  internalRollbackContent: { body: () => ({ versionId: 'v1' }) },
  internalRunDueJobs: { body: () => ({}), extra: [[['now'], '2026-01-01T00:00:00Z']] },
};

interface Req {
  method: string;
  /** Replaces the credentials the surface takes. */
  authorization?: string;
  headers?: Record<string, string>;
  /** Path and query as sent, prefix included. */
  path: string;
  origin: RouteSpec['origin'];
  auth: 'key' | 'admin' | 'none';
  host?: string;
  contentType?: string;
  body?: Buffer;
}

interface Case {
  route: RouteSpec;
  label: string;
  /** Builds the request against a fixture project. */
  make: (fx: Fixture, i: number) => Req;
}

function fill(route: RouteSpec, fx: Fixture, override: Record<string, string> = {}): string {
  const p = route.path.replace(
    /\{(\w+)\}/g,
    (_, k: string) => override[k] ?? encodeURIComponent(PATH_DEFAULTS[k]?.(fx) ?? 'x1'),
  );
  return PREFIX[route.origin] + p;
}

function withQuery(path: string, ...qs: Array<string | undefined>): string {
  const q = qs.filter(Boolean).join('&');
  return q ? `${path}?${q}` : path;
}

function baseReq(route: RouteSpec, fx: Fixture): Omit<Req, 'path'> {
  const auth = route.origin === 'internal' ? 'admin' : route.public ? 'none' : 'key';
  const domain = route.origin === 'delivery' && !route.path.startsWith('/projects/') && route.path !== '/health';
  return { method: route.method, origin: route.origin, auth, host: domain ? fx.host : undefined };
}

function casesFor(route: RouteSpec): Case[] {
  const out: Case[] = [];
  const spec = BODIES[route.operationId];
  /** Undefined when the route takes no body. */
  const validBody = (fx: Fixture, i: number): Json => (route.hasBody && spec ? spec.body(fx, i) : undefined);
  const defaultQuery = QUERY_DEFAULTS[route.operationId];
  const add = (label: string, make: Case['make']) => out.push({ route, label, make });
  const json = (
    fx: Fixture,
    i: number,
    path: string,
    /** Undefined: no body. */
    body: Json,
    contentType = 'application/json',
  ): Req => ({
    ...baseReq(route, fx),
    path,
    ...(body === undefined ? {} : { body: toJson(body), contentType }),
  });

  // The valid request itself: the fuzz's baseline.
  add('valid', (fx, i) => json(fx, i, withQuery(fill(route, fx), defaultQuery), validBody(fx, i)));

  // Path parameters.
  for (const param of [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
    for (const v of PATH_VALUES) {
      add(`path ${param} = ${v.label}`, (fx, i) =>
        json(fx, i, withQuery(fill(route, fx, { [param]: String(v.value) }), defaultQuery), validBody(fx, i)),
      );
    }
  }

  // Credentials that are no key or token.
  for (const a of AUTH_VALUES) {
    add(`authorization ${a.slice(0, 40)}`, (fx, i) => ({
      ...json(fx, i, withQuery(fill(route, fx), defaultQuery), validBody(fx, i)),
      authorization: a,
    }));
  }
  // HEAD on every GET route, and a method no route of the path has.
  if (route.method === 'GET')
    add('HEAD', (fx, i) => ({ ...json(fx, i, withQuery(fill(route, fx), defaultQuery), undefined), method: 'HEAD' }));
  add('method PATCH', (fx, i) => ({
    ...json(fx, i, withQuery(fill(route, fx), defaultQuery), validBody(fx, i)),
    method: route.method === 'PATCH' ? 'PUT' : 'PATCH',
  }));
  if (route.operationId === 'getTranslations') {
    for (const q of TRANSLATIONS_QUERIES)
      add(`query ${q({ versionId: '{versionId}' } as Fixture).slice(0, 80)}`, (fx, i) =>
        json(fx, i, withQuery(fill(route, fx), q(fx)), undefined),
      );
  }

  // Query names and values.
  for (const q of QUERY_VALUES) {
    add(`query ${q.length > 80 ? `${q.slice(0, 40)}…(${q.length})` : q}`, (fx, i) =>
      json(fx, i, withQuery(fill(route, fx), defaultQuery, q), validBody(fx, i)),
    );
  }

  // Conditional reads of the delivery origin.
  if (route.origin === 'delivery') {
    for (const tag of [
      '__proto__',
      '"constructor"',
      'W/"toString"',
      '*',
      `"${'e'.repeat(300)}"`,
      ',,,',
      'W/',
      '"a", W/"b", c, *',
    ]) {
      add(`If-None-Match ${tag.slice(0, 40)}`, (fx, i) => ({
        ...json(fx, i, fill(route, fx), undefined),
        headers: { 'if-none-match': tag },
      }));
    }
  }

  // The custom domain's Host header.
  if (baseReq(route, { host: 'h' } as Fixture).host) {
    for (const h of [
      ...RESERVED,
      'h'.repeat(300),
      `${'a'.repeat(63)}.`.repeat(5),
      '__proto__:8081',
      'FUZZ-0.CDN.TEST',
      '',
    ]) {
      add(`host ${h.slice(0, 40)}`, (fx, i) => ({ ...json(fx, i, fill(route, fx), undefined), host: h }));
    }
  }

  if (!route.hasBody) return out;

  // The body as a whole.
  const wholeBodies: Array<[string, (fx: Fixture, i: number) => Buffer, string?]> = [
    ['body null', () => Buffer.from('null')],
    ['body []', () => Buffer.from('[]')],
    ['body "string"', () => Buffer.from('"__proto__"')],
    ['body 1e400', () => Buffer.from('1e400')],
    ['body truncated JSON', (fx, i) => toJson(validBody(fx, i) ?? {}).subarray(0, 7)],
    ['body empty', () => Buffer.alloc(0)],
    ['body invalid UTF-8', () => Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
    [
      'body UTF-16 BOM',
      (fx, i) =>
        Buffer.concat([
          Buffer.from([0xff, 0xfe]),
          Buffer.from(toJson(validBody(fx, i) ?? {}).toString('utf8'), 'utf16le'),
        ]),
    ],
    ['body deep nesting', () => Buffer.from(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`)],
    ['body duplicate __proto__', () => Buffer.from('{"__proto__":{"a":1},"__proto__":{"polluted":"yes"}}')],
    ['body as text/plain', (fx, i) => toJson(validBody(fx, i) ?? {}), 'text/plain'],
    [
      'body as form',
      () => Buffer.from('__proto__[polluted]=yes&constructor[prototype][polluted]=yes'),
      'application/x-www-form-urlencoded',
    ],
    ['body as application/__proto__+json', (fx, i) => toJson(validBody(fx, i) ?? {}), 'application/__proto__+json'],
  ];
  for (const [label, body, type] of wholeBodies) {
    add(label, (fx, i) => ({
      ...baseReq(route, fx),
      path: withQuery(fill(route, fx), defaultQuery),
      body: body(fx, i),
      contentType: type ?? 'application/json',
    }));
  }
  if (!spec) return out;

  // Reserved names as property names, at the top level and inside every object of the body.
  const sample = spec.body({ projectId: 'p', workspaceId: 'w' } as Fixture, 0);
  for (const at of objectPaths(sample)) {
    for (const name of RESERVED) {
      add(`property ${[...at, name].join('.')}`, (fx, i) =>
        json(
          fx,
          i,
          withQuery(fill(route, fx), defaultQuery),
          setAt(validBody(fx, i), [...at, name], name === '__proto__' ? own(['polluted', 'yes']) : 'x'),
        ),
      );
    }
  }

  // Every field, present or optional, gets every hostile value.
  const seen = new Set<string>();
  const fields = [...paths(sample), ...(spec.extra ?? []).map(([p]) => p)].filter(
    (p) => !seen.has(p.join('\u0000')) && seen.add(p.join('\u0000')),
  );
  for (const field of fields) {
    const values = /(At|^now)$/.test(field[field.length - 1]) ? [...FIELD_VALUES, ...DATE_VALUES] : FIELD_VALUES;
    for (const v of values) {
      add(`field ${field.join('.')} = ${v.label}`, (fx, i) =>
        json(fx, i, withQuery(fill(route, fx), defaultQuery), setAt(validBody(fx, i), field, v.value)),
      );
    }
  }
  // The optional fields with their valid values, so the handlers run with them.
  for (const [field, value] of spec.extra ?? []) {
    add(`field ${field.join('.')} valid ${JSON.stringify(value)}`, (fx, i) =>
      json(fx, i, withQuery(fill(route, fx), defaultQuery), setAt(validBody(fx, i), field, value)),
    );
  }

  // Synced files with reserved names inside, real runs and dry runs.
  if (route.operationId === 'syncCatalog') {
    for (const f of SYNC_FILES) {
      for (const dry of [false, true]) {
        add(`sync file ${f.label}${dry ? ' (dry run)' : ''}`, (fx, i) =>
          json(fx, i, withQuery(fill(route, fx), dry ? 'dryRun=true' : undefined), {
            contentBase64: b64(Buffer.from(f.text, f.label.includes('invalid UTF-8') ? 'latin1' : 'utf8')),
            ...(f.fileName ? { fileName: f.fileName } : {}),
            requestId: `fz-f${i}`,
          }),
        );
      }
    }
  }
  // Units whose key, ctx and ICU arguments are reserved names, as data that must simply work.
  if (route.operationId === 'translateUnits' || route.operationId === 'captureUnits') {
    for (const n of RESERVED) {
      add(`units named ${n}`, (fx, i) =>
        json(fx, i, fill(route, fx), {
          units:
            route.operationId === 'captureUnits'
              ? [
                  { source: n, ctx: n },
                  { source: `{${n}} ${i}`, ctx: n },
                ]
              : [
                  { source: `{${n}} says hi`, key: n, ctx: n },
                  { source: `{${n}, plural, one {# ${n}} other {# ${n}s}}`, key: `${n}.${n}`, ctx: n },
                  { forms: { one: `{${n}} one`, other: `{${n}} other` }, key: `a.${n}.b`, ctx: n },
                  { source: `{${n}, select, __proto__ {p} constructor {c} other {o}}`, ctx: `${n} ${i}` },
                ],
        }),
      );
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Sending

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function send(svc: TestService, apiKey: string, r: Req): Promise<Answer> {
  const port = r.origin === 'delivery' ? svc.service.delivery.info.port : svc.service.main.info.port;
  const headers: Record<string, string> = {};
  if (r.auth === 'key') headers.authorization = `Bearer ${apiKey}`;
  if (r.auth === 'admin') headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  if (r.authorization !== undefined) headers.authorization = r.authorization;
  Object.assign(headers, r.headers);
  if (r.body) {
    headers['content-type'] = r.contentType ?? 'application/json';
    headers['content-length'] = String(r.body.length);
  }
  headers.host = r.host ?? `127.0.0.1:${port}`;
  return new Promise((resolve, reject) => {
    let req: http.ClientRequest;
    try {
      req = http.request(
        { host: '127.0.0.1', port, method: r.method, path: r.path, headers, agent, setHost: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err))); // http.request throws Errors (bad header, path)
      return;
    }
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.end(r.body);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The service

let svc: TestService;
/** A pino line as far as the fuzz reads it ({msg} alone for a line that was not JSON). */
interface LogLine {
  level?: number;
  msg?: string;
  err?: { stack?: string; type?: string; code?: string | number; message?: string };
}
const logLines: LogLine[] = [];
test.before(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) {
        try {
          logLines.push(JSON.parse(l) as LogLine);
        } catch {
          logLines.push({ msg: l });
        }
      }
      done();
    },
  });
  svc = await startTestService({ LOG_LEVEL: 'error' }, undefined, { logDestination: sink });
});
test.after.always(async () => {
  agent.destroy();
  await svc?.stop();
});

async function publicCall(p: { apiKey: string }, method: string, path: string, body?: Json): Promise<Answer> {
  return send(svc, p.apiKey, {
    method,
    origin: 'main',
    auth: 'key',
    path: `/v1${path}`,
    ...(body === undefined ? {} : { body: toJson(body), contentType: 'application/json' }),
  });
}

/** Runs one project's due jobs: the fuzz's streams run at once, and each fills and publishes its own projects. */
const runDue = (projectId: string) =>
  send(svc, '', {
    method: 'POST',
    origin: 'internal',
    auth: 'admin',
    path: '/internal/v1/jobs/run-due',
    body: Buffer.from(JSON.stringify({ projectId })),
    contentType: 'application/json',
  });

const SETUP_UNITS = [
  ...RESERVED.map((n) => ({ source: `{${n}} ${n}`, key: n, ctx: n })),
  { source: 'Plural {__proto__, plural, one {# a} other {# b}}', key: 'fz.constructor.prototype' },
  { source: 'Hello {name}', key: 'fz.hello' },
];
const FORMAT_PAIRS = [
  ['json', 'nested_json'],
  ['xcstrings', 'po'],
  ['angular_json', 'arb'],
  ['android_xml', 'ios_strings'],
];

/** A fuzz project: keys named after Object.prototype's members, filled, published, with a custom domain. */
async function makeFixture(n: number): Promise<{ fx: Fixture; used: number }> {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  const spare = await svc.admin.POST('/projects/{projectId}/api-keys', {
    params: { path: { projectId: p.projectId } },
    body: { scopes: ['read'] },
  });
  if (!spare.data) throw new Error(`spare key: ${JSON.stringify(spare.error)}`);
  const host = `fuzz-${n}.cdn.test`;
  const patched = await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { deliveryHost: host },
  });
  if (!patched.data) throw new Error(`deliveryHost: ${JSON.stringify(patched.error)}`);
  let used = 0;
  // A setup call that lost a race with another stream's transaction (503 contended) is sent again, as the
  // contract tells a client to.
  const must = async (what: string, call: () => Promise<Answer>, ok: number[]) => {
    used++;
    let r = await call();
    for (let retry = 0; retry < 3 && r.status === 503 && r.text.includes('"contended"'); retry++) r = await call();
    if (!ok.includes(r.status)) throw new Error(`fixture ${what}: ${r.status} ${r.text.slice(0, 300)}`);
    return r;
  };
  await must(
    'translate',
    () => publicCall(p, 'POST', `/projects/${p.projectId}/translate`, { units: SETUP_UNITS, requestId: 'constructor' }),
    [200],
  );
  await runDue(p.projectId);
  for (const format of FORMAT_PAIRS[n % FORMAT_PAIRS.length]) {
    await must(
      `format ${format}`,
      () => publicCall(p, 'POST', `/projects/${p.projectId}/output-formats`, { format }),
      [200],
    );
  }
  const pub = await must(
    'publish',
    () => publicCall(p, 'POST', `/projects/${p.projectId}/publish`, { label: '__proto__' }),
    [201],
  );
  const versionId = (JSON.parse(pub.text) as Schemas['PublishResult']).versionId;
  const manifest = await send(svc, '', {
    method: 'GET',
    origin: 'delivery',
    auth: 'none',
    path: `/v1/projects/${p.projectId}/manifest`,
  });
  if (manifest.status !== 200) throw new Error(`fixture manifest: ${manifest.status} ${manifest.text.slice(0, 300)}`);
  const urls = [...manifest.text.matchAll(/"url"\s*:\s*"([^"]+)"/g)].map((m) => m[1]);
  const bundleFile = urls.map((u) => u.split('/').pop()!).find((f) => f.includes('.')) ?? 'de.0123456789abcdef.json';
  return {
    fx: {
      n,
      projectId: p.projectId,
      workspaceId: p.workspaceId,
      apiKey: p.apiKey,
      spareKeyId: spare.data.keyId,
      versionId,
      bundleFile,
      host,
    },
    used,
  };
}

/**
 * After its share of the fuzz, a project's content (whatever the fuzz left in it) is filled, published and
 * delivered: every object the manifest names, from the project's path and from its custom domain.
 */
async function closing(fx: Fixture): Promise<Array<{ what: string; res: Answer }>> {
  const out: Array<{ what: string; res: Answer }> = [];
  out.push({ what: 'run-due', res: await runDue(fx.projectId) });
  out.push({ what: 'publish', res: await publicCall(fx, 'POST', `/projects/${fx.projectId}/publish`, {}) });
  const project = await send(svc, '', {
    method: 'GET',
    origin: 'internal',
    auth: 'admin',
    path: `/internal/v1/projects/${fx.projectId}`,
  });
  out.push({ what: 'internal project', res: project });
  // The fuzz may have set any string as the domain; only one a Host header can carry is tried.
  const stored = project.status === 200 ? (JSON.parse(project.text) as InternalSchemas['Project']).deliveryHost : null;
  const host = stored && /^[\x21-\x7e]{1,253}$/.test(stored) ? stored : null;
  const manifest = await send(svc, '', {
    method: 'GET',
    origin: 'delivery',
    auth: 'none',
    path: `/v1/projects/${fx.projectId}/manifest`,
  });
  out.push({ what: 'manifest', res: manifest });
  if (manifest.status !== 200) return out;
  const urls = [...new Set([...manifest.text.matchAll(/"url"\s*:\s*"([^"]+)"/g)].map((m) => m[1]))];
  for (const u of urls) {
    const file = new URL(u, `http://x/v1/projects/${fx.projectId}/manifest`).pathname;
    out.push({
      what: `bundle ${file}`,
      res: await send(svc, '', { method: 'GET', origin: 'delivery', auth: 'none', path: file }),
    });
    if (host) {
      const domainPath = file.replace(`/projects/${fx.projectId}`, '');
      out.push({
        what: `bundle ${domainPath} on ${host}`,
        res: await send(svc, '', { method: 'GET', origin: 'delivery', auth: 'none', path: domainPath, host }),
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The fuzz

interface Failure {
  what: string;
  detail: string;
}

function describe(c: Case, r: Req, fx: Fixture): string {
  const shown = (s: string) => (s.length > 240 ? `${s.slice(0, 200)}…(${s.length} chars)` : s);
  const body = r.body ? ` body=${shown(r.body.toString('utf8'))}` : '';
  return `${c.route.operationId} [${c.label}]: ${r.method} ${shown(r.path.replaceAll(fx.projectId, '{projectId}'))}${r.host ? ` Host: ${shown(r.host)}` : ''}${body}`;
}

test('every route answers hostile input without a 5xx, with JSON errors, and leaves the realm and other projects intact', async (t) => {
  // About 12,600 cases over 105 routes: minutes on MySQL when the machine is busy.
  t.timeout(12 * 60_000);
  const started = Date.now();
  const r = rng(SEED);

  // The control project, before the fuzz: filled and published.
  const control: TestProject = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  const controlUnits = {
    units: [
      { source: 'Control {name}', key: 'control.hello' },
      { source: '{n, plural, one {# thing} other {# things}}', key: 'control.count' },
    ],
  };
  t.is(
    (await publicCall(control, 'POST', `/projects/${control.projectId}/translate`, controlUnits)).status,
    200,
    'control push',
  );
  await runDue(control.projectId);
  t.is(
    (await publicCall(control, 'POST', `/projects/${control.projectId}/publish`, {})).status,
    201,
    'control publish',
  );

  // Every route of the table; the routes with no implementation get a few cases (they answer 501).
  const all: Case[] = [];
  for (const route of routes) {
    let cs = casesFor(route);
    if (!implemented.has(route.operationId)) {
      const shuffled = cs
        .map((c) => [r(), c] as const)
        .sort((a, b) => a[0] - b[0])
        .map(([, c]) => c);
      cs = [cs[0], ...shuffled.filter((c) => c !== cs[0]).slice(0, UNIMPLEMENTED_CASES - 1)];
    }
    all.push(...cs);
  }
  // A seeded shuffle: one route's writes meet the next route's reads.
  const cases = all
    .map((c) => [r(), c] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, c]) => c);
  t.log(
    `${cases.length} cases over ${routes.length} routes (${routes.filter((x) => implemented.has(x.operationId)).length} implemented)`,
  );

  const failures: Failure[] = [];
  const tally = new Map<string, number>();
  const timing = new Map<string, number>();
  let fixtures = 0;
  let delivered = 0;
  let closingMs = 0;
  const close = async (done: Fixture) => {
    const t0 = Date.now();
    for (const { what, res } of await closing(done)) {
      delivered++;
      const k = `closing ${what.split(' ')[0]} ${res.status}`;
      tally.set(k, (tally.get(k) ?? 0) + 1);
      const bad =
        res.status >= 500 ||
        (res.status >= 300 &&
          res.status !== 304 &&
          (() => {
            try {
              return typeof (JSON.parse(res.text) as { error?: unknown }).error !== 'string';
            } catch {
              return true;
            }
          })());
      if (bad)
        failures.push({
          what: `closing of fuzz project ${done.n}: ${what}`,
          detail: `answered ${res.status} ${res.text.slice(0, 300)}`,
        });
    }
    closingMs += Date.now() - t0;
  };
  // The cases run in FUZZ_CONCURRENCY streams (3 unless set) that take the next case in the seeded order, each
  // on fuzz projects of its own: a request waits mostly on the database, so on MySQL three streams take well under
  // half the time of one. A server error is pinned to its case by the log lines written while it ran, which with
  // several streams may also hold another stream's: FUZZ_CONCURRENCY=1 replays the exact attribution.
  let next = 0;
  const stream = async () => {
    let fx: Fixture | undefined;
    let spent = PER_PROJECT;
    while (next < cases.length) {
      const i = next++;
      const c = cases[i];
      const counts = c.route.origin === 'main' && !c.route.public;
      if (!fx || (counts && spent >= PER_PROJECT)) {
        if (fx) await close(fx);
        const made = await makeFixture(fixtures++);
        fx = made.fx;
        spent = made.used;
      }
      if (counts) spent++;
      await runCase(c, i, fx);
    }
    if (fx) await close(fx);
  };
  const runCase = async (c: Case, i: number, fx: Fixture) => {
    const req = c.make(fx, i);
    const logsBefore = logLines.length;
    let res: Answer;
    const t0 = Date.now();
    try {
      res = await send(svc, fx.apiKey, req);
      // A transaction that lost a race with another stream's is answered 503 contended, whose documented
      // client action is to send it again.
      for (let retry = 0; retry < 3 && res.status === 503 && res.text.includes('"contended"'); retry++)
        res = await send(svc, fx.apiKey, req);
      timing.set(c.route.operationId, (timing.get(c.route.operationId) ?? 0) + Date.now() - t0);
    } catch (err) {
      failures.push({ what: describe(c, req, fx), detail: `no answer: ${(err as Error).message}` });
      return;
    }
    const isImplemented = implemented.has(c.route.operationId);
    let error: string | undefined;
    /** The body, if JSON: any JSON value, its fields unknown until checked. */
    let parsed: { error?: unknown; message?: unknown } | null | undefined;
    try {
      parsed = JSON.parse(res.text) as typeof parsed;
    } catch {
      parsed = undefined;
    }
    const key = `${c.route.operationId} ${res.status}${typeof parsed?.error === 'string' && parsed.error ? ` ${parsed.error}` : ''}`;
    tally.set(key, (tally.get(key) ?? 0) + 1);
    const serverLog = logLines
      .slice(logsBefore)
      .filter((l) => (l.level ?? 0) >= 50)
      .map((l) => {
        const ours = String(l.err?.stack ?? '')
          .split('\n')
          .filter((f) => /(handlers|publisher)\//.test(f) && !f.includes('node_modules'))
          .slice(0, 2)
          .map((f) => f.trim());
        return `${l.msg}: ${l.err?.type ?? ''} ${l.err?.code ?? ''} ${l.err?.message ?? ''}${ours.length ? ` (${ours.join(' | ')})` : ''}`;
      });
    // No 5xx (501 only from a route with no implementation), and (c): every refusal is a JSON {error, message}.
    // A HEAD answer has no body to name the error by.
    const notImplemented =
      res.status === 501 && !isImplemented && (req.method === 'HEAD' || parsed?.error === 'not_implemented');
    if (res.status >= 500 && !notImplemented) {
      error = `answered ${res.status} ${res.text.slice(0, 300)}${serverLog.length ? `; server log: ${serverLog.join(' || ')}` : ''}`;
    } else if (res.status >= 300 && res.status !== 304 && req.method !== 'HEAD') {
      if (
        !parsed ||
        typeof parsed !== 'object' ||
        typeof parsed.error !== 'string' ||
        typeof parsed.message !== 'string'
      ) {
        error = `answered ${res.status} without a JSON {error, message} body: ${res.headers['content-type']} ${res.text.slice(0, 200)}`;
      }
    } else if (serverLog.length) {
      error = `answered ${res.status} but logged an error: ${serverLog.join(' || ')}`;
    }
    if (error) failures.push({ what: describe(c, req, fx), detail: error });
    if (process.env.FUZZ_VERBOSE && new RegExp(process.env.FUZZ_VERBOSE).test(`${c.route.operationId} ${c.label}`))
      t.log(`${c.route.operationId} [${c.label}] → ${res.status} ${res.text.slice(0, 160)}`);
  };
  const streams = Math.max(1, Number(process.env.FUZZ_CONCURRENCY ?? 3));
  await Promise.all(Array.from({ length: streams }, stream));
  const fuzzMs = Date.now() - started;

  // (a) The realm's built-ins, and (b) the control project, which still reads, pushes and publishes.
  const protoNames = Object.getOwnPropertyNames(Object.prototype).sort();
  const meta = await publicCall(control, 'GET', `/projects/${control.projectId}/meta`);
  const push = await publicCall(control, 'POST', `/projects/${control.projectId}/translate`, controlUnits);
  const pub = await publicCall(control, 'POST', `/projects/${control.projectId}/publish`, { skipIfIdentical: true });
  const after: Array<[boolean, string]> = [
    [typeof Object.keys === 'function', 'Object.keys is no longer a function'],
    [
      ({} as Record<string, unknown>).polluted === undefined,
      `({}).polluted is ${String(({} as Record<string, unknown>).polluted)}`,
    ],
    [
      JSON.stringify(protoNames) === JSON.stringify(OBJECT_PROTO_NAMES),
      `Object.prototype's own names changed: ${protoNames.join(', ')}`,
    ],
    [meta.status === 200, `control GET /meta answered ${meta.status} ${meta.text.slice(0, 300)}`],
    [push.status === 200, `control POST /translate answered ${push.status} ${push.text.slice(0, 300)}`],
    [
      pub.status === 200,
      `control POST /publish (skipIfIdentical, content unchanged) answered ${pub.status} ${pub.text.slice(0, 300)}`,
    ],
  ];
  for (const [ok, what] of after) if (!ok) failures.unshift({ what: 'after the fuzz', detail: what });

  t.log(
    `${cases.length} cases on ${fixtures} fuzz projects, then ${delivered} closing requests (publish and every delivered object, ${(closingMs / 1000).toFixed(1)} s), in ${(fuzzMs / 1000).toFixed(1)} s`,
  );
  if (process.env.FUZZ_TIMING)
    t.log(
      [...timing]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v} ms`)
        .join(', '),
    );
  t.log(
    [...tally]
      .sort()
      .map(([k, v]) => `${k}: ${v}`)
      .join(', '),
  );
  // Every failure in one assertion, since AVA shows only a test's first failed assertion: a line per case.
  const listed = failures
    .slice(0, 80)
    .map((f) => `${f.what}\n    → ${f.detail}`)
    .join('\n');
  t.is(
    failures.length,
    0,
    `${failures.length} failing cases:\n${listed}${failures.length > 80 ? `\n… and ${failures.length - 80} more` : ''}`,
  );
  // (a) and (b) again, one by one.
  t.is(typeof Object.keys, 'function');
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.deepEqual(protoNames, OBJECT_PROTO_NAMES);
  t.deepEqual(
    [meta.status, push.status, pub.status],
    [200, 200, 200],
    'control project: GET /meta, POST /translate, POST /publish',
  );
  t.is(
    (JSON.parse(pub.text) as Schemas['PublishResult']).unchanged,
    true,
    'the control publish found its content unchanged',
  );
});
