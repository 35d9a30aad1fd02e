// Flutter ARB as gen-l10n reads it. Flutter itself is not installed here, so the test holds each pulled file to the
// rules of flutter_tools/lib/src/localizations (gen_l10n.dart, gen_l10n_types.dart, message_parser.dart): resource
// names, `@@locale` against the file name, placeholders declared in the template with types and formats gen-l10n
// knows, and messages within its grammar. Then it shows what the app's user sees: each message is formatted the way
// gen-l10n's generated code does (plural cases through `Intl.pluralLogic`, typed placeholders through NumberFormat and
// DateFormat), with intl-messageformat and Intl standing in for package:intl, and compared with the ICU message.
import test, { type ExecutionContext } from 'ava';
import {
  parse,
  SKELETON_TYPE,
  TYPE,
  type DateElement,
  type MessageFormatElement,
  type PluralOrSelectOption,
} from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat } from 'intl-messageformat';
import { icuProject, ICU_KEYS, ICU_LANGS, type IcuProject } from '../../helpers/icu-project.js';
import { createTestProject, startTestService, type TestService } from '../../helpers/service.js';
import { arbName } from '../../../packages/core/src/formats/arb.js';
import { FORMATS, REGISTRY } from '../../../packages/core/src/formats/index.js';
import { bcp47 } from '../../../packages/core/src/languages.js';
import type { Catalog, FormatWarning } from '../../../packages/core/src/catalog.js';

let svc: TestService;
let p: IcuProject;
test.before(async () => {
  svc = await startTestService();
  p = await icuProject(svc, ['arb']);
});
test.after.always(() => svc?.stop());

// ---------------------------------------------------------------------------------------------------------------
// gen-l10n's rules, from the Flutter source

const DART_RESERVED = new Set(
  (
    'assert break case catch class const continue default do else enum extends false final finally for if in is new ' +
    'null rethrow return super switch this throw true try var void while with'
  ).split(' '),
);
/** `_isValidGetterAndMethodName` (gen_l10n.dart), plus Dart's reserved words, which would not compile. */
const validName = (n: string) => /^[a-z][A-Za-z0-9_]*$/.test(n) && !DART_RESERVED.has(n);
/** gen_l10n_types.dart `validDateFormats` and `_validNumberFormats`. */
const DATE_FORMATS = new Set(
  (
    'd E EEEE LLL LLLL M Md MEd MMM MMMd MMMEd MMMM MMMMd MMMMEEEEd QQQ QQQQ y yM yMd yMEd yMMM yMMMd yMMMEd yMMMM ' +
    'yMMMMd yMMMMEEEEd yQQQ yQQQQ H Hm Hms j jm jms jmv jmz jv jz m ms s'
  ).split(' '),
);
const NUMBER_FORMATS = new Set(
  (
    'compact compactCurrency compactSimpleCurrency compactLong currency decimalPattern decimalPatternDigits ' +
    'decimalPercentPattern percentPattern scientificPattern simpleCurrency'
  ).split(' '),
);
/** message_parser.dart's plural cases and gen_l10n.dart `pluralCases`: `=0`/`=1`/`=2` share zero/one/two's slot. */
const PLURAL_SLOT: Record<string, string> = {
  '=0': 'zero',
  '=1': 'one',
  '=2': 'two',
  zero: 'zero',
  one: 'one',
  two: 'two',
  few: 'few',
  many: 'many',
  other: 'other',
};

interface Decl {
  type?: string;
  format?: string;
  optionalParameters?: Record<string, unknown>;
  isCustomDateFormat?: string | boolean;
}
type Arb = Record<string, unknown>;
type Template = Map<string, Record<string, Decl>>;

const elements = (msg: string) => parse(msg, { ignoreTag: true, requiresOtherClause: true });

/** Every way gen-l10n would refuse `file` (the template's placeholders given), as messages; [] when it takes it. */
function genL10nProblems(file: Arb, fileName: string, template: Template): string[] {
  const problems: string[] = [];
  const locale = file['@@locale'];
  // AppResourceBundle: `@@locale` must match the locale in the file name; LocaleInfo: language[_Script][_REGION].
  const named = /^[^_]*_(\w+)\.arb$/.exec(fileName)?.[1];
  if (locale !== named) problems.push(`@@locale ${String(locale)} is not the file name's ${named}`);
  if (typeof locale !== 'string' || !/^[a-z]{2,3}(_[A-Z][a-z]{3})?(_[A-Z]{2}|_\d{3})?$/.test(locale))
    problems.push(`@@locale ${String(locale)} is not a locale gen-l10n reads`);
  for (const [name, value] of Object.entries(file)) {
    if (name.startsWith('@')) continue;
    const decls = template.get(name);
    if (!validName(name)) problems.push(`${name}: not a valid Dart method name`);
    if (!decls) problems.push(`${name}: not in the template`);
    if (typeof value !== 'string') {
      problems.push(`${name}: not a string`);
      continue;
    }
    let ast: MessageFormatElement[];
    try {
      ast = elements(value);
    } catch (e) {
      problems.push(`${name}: ${(e as Error).message}`);
      continue;
    }
    const uses = (arg: string, as: string) => {
      const d = decls?.[arg];
      if (!d) return problems.push(`${name}: {${arg}} is not declared in the template's @${name}.placeholders`);
      if (as === 'plural' && !['num', 'int'].includes(d.type ?? 'num')) problems.push(`${name}: plural {${arg}} type`);
      if (as === 'select' && (d.type ?? 'String') !== 'String') problems.push(`${name}: select {${arg}} type`);
      if (as === 'date' && (d.type ?? 'DateTime') !== 'DateTime') problems.push(`${name}: date {${arg}} type`);
    };
    const walk = (els: MessageFormatElement[]) => {
      for (const el of els) {
        if (el.type === TYPE.literal) {
          if (/[{}]/.test(el.value)) problems.push(`${name}: a literal brace`);
        } else if (el.type === TYPE.argument) uses(el.value, 'arg');
        else if (el.type === TYPE.pound) problems.push(`${name}: # (gen-l10n shows it as text)`);
        else if (el.type === TYPE.number) problems.push(`${name}: {${el.value}, number} is not gen-l10n syntax`);
        else if (el.type === TYPE.date || el.type === TYPE.time) {
          // message_parser.dart's argumentExpr: `{name, date|time, ::DateFormatName}`.
          const style = el.style;
          if (!style || typeof style === 'string' || !DATE_FORMATS.has(style.pattern))
            problems.push(`${name}: {${el.value}, ${el.type === TYPE.date ? 'date' : 'time'}} needs ::DateFormatName`);
          uses(el.value, 'date');
        } else if (el.type === TYPE.plural) {
          if (el.pluralType === 'ordinal') problems.push(`${name}: selectordinal`);
          if (el.offset) problems.push(`${name}: offset`);
          const slots = new Set<string>();
          for (const k of Object.keys(el.options)) {
            const slot = Object.hasOwn(PLURAL_SLOT, k) ? PLURAL_SLOT[k] : undefined;
            if (!slot) problems.push(`${name}: plural case ${k}`);
            else if (slots.has(slot)) problems.push(`${name}: plural case ${k} overrides another (${slot})`);
            if (slot) slots.add(slot);
          }
          uses(el.value, 'plural');
          for (const o of Object.values(el.options)) walk(o.value);
        } else if (el.type === TYPE.select) {
          for (const k of Object.keys(el.options))
            if (k !== 'other' && (!/^[A-Za-z0-9_|]+$/.test(k) || ['plural', 'select', 'date', 'time'].includes(k)))
              problems.push(`${name}: select case ${k}`);
          uses(el.value, 'select');
          for (const o of Object.values(el.options)) walk(o.value);
        } else problems.push(`${name}: element ${el.type}`);
      }
    };
    walk(ast);
  }
  return problems;
}

/** The template's `@key.placeholders`, checked against what gen_l10n_types.dart `Placeholder` takes. */
function readTemplate(t: ExecutionContext, base: Arb): Template {
  const template: Template = new Map();
  for (const [name, value] of Object.entries(base)) {
    if (name.startsWith('@')) continue;
    const md = base[`@${name}`] as { description?: unknown; placeholders?: Record<string, Decl> } | undefined;
    t.truthy(md, `@${name}`);
    t.is(typeof md?.description, 'string', `@${name}.description`);
    const decls = md?.placeholders ?? {};
    for (const [arg, d] of Object.entries(decls)) {
      t.regex(arg, /^[A-Za-z][A-Za-z0-9_]*$/, `${name}: placeholder ${arg} is a Dart parameter name`);
      t.false(DART_RESERVED.has(arg), `${name}: placeholder ${arg}`);
      t.true(['String', 'Object', 'int', 'double', 'num', 'DateTime'].includes(d.type ?? 'Object'), `${name}.${arg}`);
      if (['int', 'double', 'num'].includes(d.type ?? '') && d.format)
        t.true(NUMBER_FORMATS.has(d.format), `${name}.${arg}: NumberFormat.${d.format}`);
      if (d.type === 'DateTime' && d.format && String(d.isCustomDateFormat) !== 'true')
        t.true(
          d.format.split('+').every((f) => DATE_FORMATS.has(f)),
          `${name}.${arg}: DateFormat.${d.format}`,
        );
    }
    t.is(typeof value, 'string');
    template.set(name, decls);
  }
  return template;
}

// ---------------------------------------------------------------------------------------------------------------
// What the app shows: the generated code's behaviour, with Intl for package:intl

const DATE_OPTIONS: Record<string, Intl.DateTimeFormatOptions> = {
  yMd: { year: 'numeric', month: 'numeric', day: 'numeric' },
  yMMMd: { year: 'numeric', month: 'short', day: 'numeric' },
  yMMMMd: { year: 'numeric', month: 'long', day: 'numeric' },
  yMMMMEEEEd: { year: 'numeric', month: 'long', day: 'numeric', weekday: 'long' },
  jm: { hour: 'numeric', minute: 'numeric' },
  jms: { hour: 'numeric', minute: 'numeric', second: 'numeric' },
};

const dateElement = (value: string, pattern: string): DateElement => {
  if (!Object.hasOwn(DATE_OPTIONS, pattern)) throw new Error(`no Intl options for DateFormat.${pattern} in this test`);
  return {
    type: TYPE.date,
    value,
    style: { type: SKELETON_TYPE.dateTime, pattern, parsedOptions: DATE_OPTIONS[pattern] },
  };
};

/** The ARB message as the generated Dart code formats it, rewritten as ICU that intl-messageformat runs alike. */
function asGenerated(els: MessageFormatElement[], decls: Record<string, Decl>): MessageFormatElement[] {
  const options = (opts: Record<string, PluralOrSelectOption>) =>
    Object.fromEntries(Object.entries(opts).map(([k, o]) => [k, { ...o, value: asGenerated(o.value, decls) }]));
  return els.map((el): MessageFormatElement => {
    if (el.type === TYPE.argument) {
      const d = decls[el.value] ?? {};
      if (d.type === 'DateTime' && d.format) return dateElement(el.value, d.format);
      if (!['int', 'double', 'num'].includes(d.type ?? '') || !d.format) return el;
      const currency = d.optionalParameters?.name;
      const icu = {
        decimalPattern: d.type === 'int' ? `{x, number, integer}` : `{x, number}`,
        percentPattern: `{x, number, percent}`,
        simpleCurrency: `{x, number, ::currency/${String(currency)}}`,
      }[d.format];
      if (!icu) throw new Error(`NumberFormat.${d.format}: not emulated by this test`);
      return { ...parse(icu)[0], value: el.value } as MessageFormatElement;
    }
    if (el.type === TYPE.date || el.type === TYPE.time)
      return dateElement(el.value, typeof el.style === 'object' && el.style ? el.style.pattern : '');
    if (el.type === TYPE.select) return { ...el, options: options(el.options) };
    if (el.type === TYPE.plural) {
      // Intl.pluralLogic: the zero/one/two slots first for exactly 0, 1, 2; else the CLDR category's slot, or other.
      const slots = options(el.options);
      const out: Record<string, PluralOrSelectOption> = {};
      for (const [k, o] of Object.entries(slots)) {
        const slot = PLURAL_SLOT[k];
        out[slot] = o;
        const exact = { zero: '=0', one: '=1', two: '=2' }[slot as 'zero'];
        if (exact) out[exact] = o;
      }
      return { ...el, options: out };
    }
    return el;
  });
}

function shown(arb: Arb, template: Template, name: string, lang: string, values: Record<string, unknown>): string {
  const msg = arb[name] as string;
  const ast = asGenerated(elements(msg), template.get(name) ?? {});
  return String(new IntlMessageFormat(ast, bcp47(lang), undefined, { ignoreTag: true }).format(values));
}

/** What ICU itself shows for the fixture's message: what the user must see. */
const icuShown = (icu: string, lang: string, values: Record<string, unknown>) =>
  String(new IntlMessageFormat(icu, bcp47(lang), undefined, { ignoreTag: true }).format(values));

const WHEN = new Date(Date.UTC(2025, 2, 14, 15, 30));
const ARGS: Array<Record<string, unknown>> = [0, 1, 2, 3, 5, 22, 101, 1234].flatMap((count) =>
  ['female', 'male', 'other'].map((gender) => ({
    count,
    gender,
    name: 'Ana',
    host: 'Ana',
    place: count,
    amount: 1234.5,
    ratio: 0.42,
    when: WHEN,
    day: WHEN,
  })),
);

// Where the ARB is a documented fallback, the user sees something else than the ICU message (the warning tests).
const FALLBACKS = new Set(['race.place', 'game.players', 'help.braces']);

async function pullArb(t: ExecutionContext, lang: string): Promise<{ arb: Arb; fileName: string }> {
  const res = await p.pull('arb', lang);
  t.is(res.status, 200, lang);
  return {
    arb: (await res.json()) as Arb,
    fileName: REGISTRY.arb
      .path(lang, lang === 'en')
      .split('/')
      .pop()!,
  };
}

// ---------------------------------------------------------------------------------------------------------------

test('every pulled ARB file is one gen-l10n takes: names, @@locale, declared and typed placeholders, grammar', async (t) => {
  const base = await pullArb(t, 'en');
  t.is(base.fileName, 'app_en.arb');
  const template = readTemplate(t, base.arb);
  t.deepEqual(genL10nProblems(base.arb, base.fileName, template), []);
  t.is(template.size, ICU_KEYS.length, 'every key is a message of the template');
  for (const lang of ICU_LANGS) {
    const { arb, fileName } = await pullArb(t, lang);
    t.deepEqual(genL10nProblems(arb, fileName, template), [], fileName);
    t.false(
      Object.keys(arb).some((k) => k.startsWith('@') && k !== '@@locale'),
      `${fileName}: no metadata`,
    );
  }
  const pt = await pullArb(t, 'pt-br');
  t.is(pt.fileName, 'app_pt_BR.arb');
  t.is(pt.arb['@@locale'], 'pt_BR');
  t.is((await pullArb(t, 'zh-hans')).arb['@@locale'], 'zh_Hans');
});

test('the checker refuses what gen-l10n refuses (so a pass means something)', (t) => {
  const template: Template = new Map([['ok', { count: { type: 'num' } }]]);
  const problems = genL10nProblems(
    {
      '@@locale': 'pt-br',
      'home.welcome': 'x',
      ok: '{count, plural, one {# item} other {{count} items}}',
      class: '{n, number}',
    },
    'app_pt_BR.arb',
    template,
  );
  t.true(problems.some((m) => m.startsWith('@@locale pt-br is not')));
  t.true(problems.includes('home.welcome: not a valid Dart method name'));
  t.true(problems.includes('ok: # (gen-l10n shows it as text)'));
  t.true(problems.includes('class: not a valid Dart method name'));
  t.true(problems.includes('class: {n, number} is not gen-l10n syntax'));
});

test('names follow the documented Dart rule, and the template carries ctx as the description', async (t) => {
  const { arb } = await pullArb(t, 'en');
  t.is(arb.homeWelcome, 'Welcome, {name}!');
  t.like(arb['@homeWelcome'], { description: 'Key: home.welcome', placeholders: { name: { type: 'String' } } });
  t.like(arb['@menuOpen'], { description: 'menu action (verb)\nKey: menu.open' });
  t.like(arb['@statusOpen'], { description: 'shop state (adjective)\nKey: status.open' });
  t.deepEqual(
    ['home.welcome', 'home_welcome', '_private', '404.title', 'class', 'café.ok', 'URL-open', 'toString', '...'].map(
      arbName,
    ),
    ['homeWelcome', 'homeWelcome', 'private', 'key404Title', 'class_', 'cafeOk', 'uRLOpen', 'toString_', 'key'],
  );
  for (const k of ['приветствие', 'a.b', 'x_1', '__proto__', 'constructor']) t.true(validName(arbName(k)), k);
});

test('what a Flutter user sees is what the ICU message says, in every language', async (t) => {
  const template = readTemplate(t, (await pullArb(t, 'en')).arb);
  for (const lang of ['en', ...ICU_LANGS]) {
    const { arb } = await pullArb(t, lang);
    for (const k of ICU_KEYS) {
      if (FALLBACKS.has(k.key)) continue;
      const icu = lang === 'en' ? k.source : ((k.values as Record<string, string | undefined>)[lang] ?? k.source);
      for (const values of ARGS)
        t.is(
          shown(arb, template, arbName(k.key), lang, values),
          icuShown(icu, lang, values),
          `${lang} ${k.key} ${JSON.stringify(values)}`,
        );
    }
  }
  const pl = (await pullArb(t, 'pl')).arb;
  t.is(shown(pl, template, 'cartItems', 'pl', { count: 5 }), '5 produktów w koszyku');
  t.is(shown(pl, template, 'cartItems', 'pl', { count: 0 }), 'Twój koszyk jest pusty');
  t.is(shown(pl, template, 'photosAdded', 'pl', { name: 'Ana', count: 3 }), 'Ana dodał(a) 3 zdjęcia');
  const de = (await pullArb(t, 'de')).arb;
  t.is(
    shown(de, template, 'orderTotal', 'de', { amount: 1234.5 }),
    `Gesamt: ${new Intl.NumberFormat('de', { style: 'currency', currency: 'EUR' }).format(1234.5)}`,
  );
  t.regex(shown(de, template, 'orderTotal', 'de', { amount: 1234.5 }), /1\.234,50\s€/);
  t.is(template.get('orderTotal')?.amount.format, 'simpleCurrency');
  t.deepEqual(template.get('orderTotal')?.amount.optionalParameters, { name: 'EUR' });
  t.regex(shown(de, template, 'statsDone', 'de', { ratio: 0.42 }), /^42\s%\serledigt$/);
});

test('the documented fallbacks: what the user sees instead, and a warning for every one', (t) => {
  const warnings: FormatWarning[] = [];
  const entry = (fileKey: string, source: string, value = source) => ({
    fileKey,
    source: { kind: 'text' as const, text: source },
    values: { fr: { kind: 'text' as const, text: value } },
  });
  const catalog: Catalog = {
    format: 'arb',
    sourceLanguage: null,
    entries: [
      entry(
        'race.place',
        'You finished {place, selectordinal, one {#st} two {#nd} few {#rd} other {#th}}',
        '{place, selectordinal, one {#er} other {#e}}',
      ),
      entry('game.players', '{count, plural, offset:1 =0 {nobody} other {{host} and # others}}'),
      entry('help.braces', "Use '{'curly'}' braces"),
      entry('far', '{n, plural, =5 {five} one {one} other {#}}'),
      entry('one', '{n, plural, =1 {just one} one {# one} other {#}}'),
      entry('who', '{g, select, männlich {er} date {date} female {she} other {someone}}'),
      entry('num', '{n, number, ::currency/EUR .00} paid'),
      entry('duplicate', 'A'),
      entry('duplicate_', 'B'),
    ],
  };
  const out = JSON.parse(
    FORMATS.arb.render(catalog, { languages: ['fr'], baseLanguage: 'fr', warn: (w) => warnings.push(w) }),
  ) as Arb;
  const reasons = (key: string) => warnings.filter((w) => w.key === key).map((w) => w.reason);
  t.is(out.racePlace, '{place}e');
  t.regex(reasons('race.place').join(), /selectordinal \{place\}.*`other` branch/);
  t.is(out.gamePlayers, '{count, plural, =0 {nobody} other {{host} and {count} others}}');
  t.regex(reasons('game.players').join(), /offset:1/);
  t.is(out.helpBraces, 'Use ｛curly｝ braces');
  t.regex(reasons('help.braces').join(), /literal \{ or \}/);
  t.is(out.far, '{n, plural, one {one} other {{n}}}');
  t.regex(reasons('far').join(), /=5: gen-l10n takes only =0, =1 and =2/);
  // French `one` holds 0 and 1: `=1` cannot share its slot.
  t.is(out.one, '{n, plural, one {{n} one} other {{n}}}');
  t.regex(reasons('one').join(), /=1: .*`one` case, which holds other numbers in fr/);
  t.is(out.who, '{g, select, female {she} other {someone}}');
  t.is(reasons('who').length, 2);
  t.is(out.num, '{n} paid');
  t.like((out['@num'] as { placeholders: unknown }).placeholders, {
    n: { type: 'num', format: 'simpleCurrency', optionalParameters: { name: 'EUR' } },
  });
  t.regex(reasons('num').join(), /minimumFractionDigits/);
  t.is(out.duplicate, 'A');
  t.regex(reasons('duplicate_').join(), /another key's/);
  // Nothing else warned: each reason above is one fallback.
  t.is(warnings.length, 9, JSON.stringify(warnings));
  // In English, `one` holds only 1: `=1` takes its slot and nothing is lost.
  const en = JSON.parse(
    FORMATS.arb.render(
      { ...catalog, entries: [{ ...catalog.entries[4], values: { en: catalog.entries[4].source! } }] },
      { languages: ['en'], baseLanguage: 'en', warn: (w) => warnings.push(w) },
    ),
  ) as Arb;
  t.is(en.one, '{n, plural, =1 {just one} other {{n}}}');
  t.is(warnings.length, 9);
});

test('keys that share an ARB name are refused at publish as export_collision', async (t) => {
  const c = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  const projectId = c.projectId;
  await c.client.POST('/projects/{projectId}/output-formats', {
    params: { path: { projectId } },
    body: { format: 'arb' },
  });
  const pushed = await c.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId } },
    body: {
      units: [
        { key: 'home.welcome', source: 'Welcome' },
        { key: 'home_welcome', source: 'Hello' },
      ],
    },
  });
  t.falsy(pushed.error);
  const r = await c.client.POST('/projects/{projectId}/publish', { params: { path: { projectId } } });
  t.is(r.response.status, 409);
  t.like(r.error, {
    error: 'export_collision',
    groups: [{ format: 'arb', name: 'homeWelcome', keys: ['home.welcome', 'home_welcome'] }],
  });
});
