// The ICU gate and the translation engines, without the service: pseudo in-process, openai against a real local
// HTTP server speaking the chat-completions protocol (test/helpers/fake-openai.ts).
import test from 'ava';
import { loadConfig } from '../../server/infra/config.js';
import {
  conformPlurals,
  formsToIcu,
  icuToForms,
  isValidIcu,
  parseIcu,
  placeholders,
  pluralCategories,
  tags,
} from '../../packages/core/src/icu.js';
import { checkFill, checkTranslation } from '../../packages/core/src/gates.js';
import { createEngine } from '../../server/infra/engines/index.js';
import { OpenAIEngine, parseTranslations } from '../../server/infra/engines/openai.js';
import { PseudoEngine, pseudoLocalize } from '../../server/infra/engines/pseudo.js';
import { EngineUnavailableError, type TranslationItem } from '../../server/infra/engines/types.js';
import {
  completion,
  errorReply,
  requestItems,
  requestPayload,
  sequence,
  startFakeOpenAI,
  translateAll,
  type FakeOpenAI,
} from '../helpers/fake-openai.js';

const PLURAL_EN = '{count, plural, one {# file} other {# files}}';

// ---------------------------------------------------------------------------------------------------- icu

test('icu: plural categories come in CLDR order', (t) => {
  t.deepEqual(pluralCategories('pl'), ['one', 'few', 'many', 'other']);
  t.deepEqual(pluralCategories('ja'), ['other']);
  t.deepEqual(pluralCategories('ar'), ['zero', 'one', 'two', 'few', 'many', 'other']);
  t.deepEqual(pluralCategories('en'), ['one', 'other']);
  t.deepEqual(pluralCategories('pt-br'), pluralCategories('pt-BR'));
  // A caller mutating the answer must not poison the cache.
  pluralCategories('pl').push('bogus');
  t.deepEqual(pluralCategories('pl'), ['one', 'few', 'many', 'other']);
});

test('icu: formsToIcu and icuToForms round trip', (t) => {
  const forms = { other: '# files in {dir}', one: "# file isn't '{x}'", '=0': 'no <b>files</b>' };
  const msg = formsToIcu(forms);
  t.is(msg, "{count, plural, =0 {no <b>files</b>} one {# file isn't '{x}'} other {# files in {dir}}}");
  t.true(isValidIcu(msg));
  t.deepEqual(icuToForms(msg), { arg: 'count', forms });
  t.deepEqual(icuToForms(formsToIcu({ other: '#件' }, 'n')), { arg: 'n', forms: { other: '#件' } });
  // Only a message that is exactly one cardinal plural has forms.
  t.is(icuToForms(`You have ${PLURAL_EN}`), null);
  t.is(icuToForms('{g, select, a {x} other {y}}'), null);
  t.is(icuToForms('{n, selectordinal, one {#st} other {#th}}'), null);
  t.is(icuToForms('{n, plural, offset:1 one {x} other {y}}'), null);
  t.is(icuToForms('{broken'), null);
});

test('icu: parseIcu throws, placeholders and tags list arguments and tag names', (t) => {
  t.throws(() => parseIcu('Hello {name'), { instanceOf: SyntaxError });
  t.throws(() => parseIcu('<b>bold</i>'));
  t.false(isValidIcu('{n, plural, one {x}}'), 'other is required');
  const msg =
    'Hi <b>{name}</b>, {n, number} on {d, date, short}: {count, plural, one {# <i>x</i>} other {{g, select, a {<b>y</b>} other {z}}}}';
  t.deepEqual([...placeholders(msg)].sort(), ['count', 'd', 'g', 'n', 'name']);
  t.deepEqual(tags(msg), ['b', 'b', 'i']);
  t.deepEqual(tags('Line<br/>break'), [], 'a self-closing tag is literal text to the parser');
});

test('icu: checkTranslation accepts a faithful translation and names what is wrong otherwise', (t) => {
  const src = `Hi <b>{name}</b>, you have ${PLURAL_EN}`;
  const good = 'Cześć <b>{name}</b>, masz {count, plural, one {# plik} few {# pliki} many {# plików} other {# pliku}}';
  t.is(checkTranslation(src, good, 'pl'), null);
  t.regex(checkTranslation(src, good.replace('{name}', 'Jan'), 'pl') ?? '', /missing placeholder \{name\}/);
  t.regex(checkTranslation(src, good.replace('{name}', '{nome}'), 'pl') ?? '', /missing placeholder \{name\}/);
  // Tags are the markup gate's, counted branch by branch: checkFill (what an engine calls) adds it to the ICU verdict.
  t.is(checkTranslation(src, good.replace(/<(\/?)b>/g, '<$1strong>'), 'pl'), null);
  t.regex(checkFill(src, good.replace(/<(\/?)b>/g, '<$1strong>'), 'pl') ?? '', /tags differ/);
  t.regex(
    checkTranslation(src, 'Cześć <b>{name}</b>, masz {count, plural, one {# plik} other {# pliku}}', 'pl') ?? '',
    /plural \{count\}.*one, few, many, other/,
  );
  t.regex(checkTranslation(src, good.replace('</b>', ''), 'pl') ?? '', /invalid ICU syntax/);
  t.regex(
    checkTranslation(src, 'Cześć <b>{name}</b>, masz {count} plików', 'pl') ?? '',
    /\{count\} must stay a plural/,
  );
  // =N selectors are allowed beside the categories.
  t.is(checkTranslation(PLURAL_EN, '{count, plural, =0 {なし} other {#件}}', 'ja'), null);
  t.regex(checkTranslation(PLURAL_EN, '{count, plural, one {#件} other {#件}}', 'ja') ?? '', /ja needs other/);
  const sel = '{g, select, male {He} female {She} other {They}} left';
  t.is(checkTranslation(sel, '{g, select, female {Ona} male {On} other {Oni}} wyszli', 'pl'), null);
  t.regex(checkTranslation(sel, '{g, select, male {On} other {Oni}} wyszli', 'pl') ?? '', /select \{g\} options/);
  t.regex(checkTranslation(sel, '{g, select, male {On} femme {Ona} other {Oni}}', 'pl') ?? '', /select \{g\} options/);
  // selectordinal categories are not the gate's business.
  t.is(
    checkTranslation(
      '{n, selectordinal, one {#st} two {#nd} few {#rd} other {#th}}',
      '{n, selectordinal, other {#.}}',
      'pl',
    ),
    null,
  );
});

test('icu: conformPlurals copies other into missing categories and drops foreign ones', (t) => {
  const pl = conformPlurals('Masz {count, plural, =0 {nic} one {# plik} other {# plików}} w {dir}', 'pl');
  t.is(pl, 'Masz {count, plural, =0 {nic} one {# plik} few {# plików} many {# plików} other {# plików}} w {dir}');
  t.is(
    checkTranslation(`You have {count, plural, =0 {nothing} one {# file} other {# files}} in {dir}`, pl, 'pl'),
    null,
  );
  t.is(conformPlurals(PLURAL_EN, 'ja'), '{count, plural, other {# files}}');
  t.deepEqual(Object.keys(icuToForms(conformPlurals(PLURAL_EN, 'ar'))!.forms), [
    'zero',
    'one',
    'two',
    'few',
    'many',
    'other',
  ]);
  // Nested plurals, tags and apostrophes survive the rewrite.
  const nested = "{g, select, a {<b>{n, plural, one {# x} other {# y's}}</b>} other {don't}}";
  const out = conformPlurals(nested, 'pl');
  t.is(out, "{g, select, a {<b>{n, plural, one {# x} few {# y's} many {# y's} other {# y's}}</b>} other {don't}}");
  t.is(checkTranslation(nested, out, 'pl'), null);
  // Already conforming or unparseable: the very same string comes back.
  const ok = '{count, plural, one {# plik} few {# pliki} many {# plików} other {# pliku}}';
  t.is(conformPlurals(ok, 'pl'), ok);
  t.is(conformPlurals('{broken', 'pl'), '{broken');
  t.is(conformPlurals('{n, selectordinal, one {#st} other {#th}}', 'ja'), '{n, selectordinal, one {#st} other {#th}}');
});

// ---------------------------------------------------------------------------------------------------- pseudo

const CORPUS = [
  'Save',
  'Hello {name}, welcome back!',
  "Don't <b>click</b> <link>here</link> & 50% off at https://example.com/a?b=c &amp; %1$s",
  PLURAL_EN,
  'You have {count, plural, =0 {no files} one {# file} other {# files}} in {dir}',
  '{gender, select, male {He} female {She} other {They}} liked <b>{count, plural, one {# post} other {# posts}}</b>',
  'Paid {amount, number, ::currency/EUR} on {day, date, short} at {t, time, short}',
  "It''s '{literal}' and {n, selectordinal, one {#st} two {#nd} few {#rd} other {#th}}",
  '',
];

test('pseudo: accents text, expands ~30%, brackets, keeps structure', (t) => {
  const out = pseudoLocalize('Hello {name}, <b>welcome</b> back!', 'fr');
  t.regex(out, /^\[.*\]$/);
  t.true(out.includes('{name}') && out.includes('<b>') && out.includes('</b>'));
  t.false(/[a-z]{2}/.test(out.replace(/\{name\}|<\/?b>/g, '')), `no plain ASCII words left: ${out}`);
  t.deepEqual(tags(out), ['b']);
  for (const src of ['Save', 'Hello world, this is a longer sentence.', 'Hello {name}, welcome back!']) {
    const p = pseudoLocalize(src, 'de');
    t.true(p.length >= src.length * 1.3, `${src} → ${p}`);
  }
  const html = pseudoLocalize(CORPUS[2], 'de');
  for (const kept of ['&amp;', '%1$s', 'https://example.com/a?b=c', '<link>', '</link>'])
    t.true(html.includes(kept), `${kept} in ${html}`);
  const sel = pseudoLocalize(CORPUS[5], 'de');
  t.regex(sel, /\{gender, select, male \{.+\} female \{.+\} other \{.+\}\}/);
  t.true(sel.includes('# '), 'the # of a plural stays');
  t.is(pseudoLocalize(CORPUS[4], 'en'), pseudoLocalize(CORPUS[4], 'en'), 'deterministic');
});

test("pseudo: react-i18next's numbered tags stay as written and pass the fill's gate", (t) => {
  const src = 'Hello <1>{name}</1>, you have <3>{count} new</3> messages.<5/>';
  const out = pseudoLocalize(src, 'de');
  for (const kept of ['<1>{name}</1>', '<3>', '</3>', '<5/>']) t.true(out.includes(kept), `${kept} in ${out}`);
  t.is(checkFill(src, out, 'de'), null);
});

test('pseudo: plurals get exactly the target language categories, bracketed per branch', (t) => {
  const forms = (lang: string) => icuToForms(pseudoLocalize(PLURAL_EN, lang));
  t.deepEqual(Object.keys(forms('pl')!.forms), ['one', 'few', 'many', 'other']);
  t.deepEqual(Object.keys(forms('ja')!.forms), ['other']);
  t.deepEqual(Object.keys(forms('ar')!.forms), ['zero', 'one', 'two', 'few', 'many', 'other']);
  for (const form of Object.values(forms('pl')!.forms)) t.regex(form, /^\[# ƒîļé.*~\]$/);
  const inner = pseudoLocalize(CORPUS[4], 'pl');
  t.regex(inner, /=0 \{.+\} one \{.+\} few \{.+\} many \{.+\} other \{.+\}/);
});

test('pseudo: every output passes the ICU gate, bad sources are per-item errors', async (t) => {
  const engine = new PseudoEngine();
  const langs = ['pl', 'ja', 'ar', 'en', 'de', 'pt-br', 'zh-hant', 'ru'];
  const items: TranslationItem[] = [];
  for (const lang of langs)
    CORPUS.forEach((source, i) =>
      items.push({ id: `${lang}-${i}`, key: `k${i}`, source, sourceLang: 'en', targetLang: lang }),
    );
  items.push({ id: 'badlang', key: 'badlang', source: 'Hello', sourceLang: 'en', targetLang: 'not a tag' });
  items.push({ id: 'bad', key: 'bad', source: 'Hello {name', sourceLang: 'en', targetLang: 'pl' });
  const out = await engine.translate(items);
  t.deepEqual(
    out.map((o) => o.id),
    items.map((i) => i.id),
  );
  for (const [i, o] of out.entries()) {
    if (o.id.startsWith('bad')) continue;
    t.is(o.error, undefined, `${o.id}: ${o.error}`);
    t.is(checkTranslation(items[i].source, o.value!, items[i].targetLang), null, o.value);
    t.is(conformPlurals(o.value!, items[i].targetLang), o.value!, 'already conformed');
  }
  t.regex(out.at(-2)!.error ?? '', /invalid language tag/);
  t.regex(out.at(-1)!.error ?? '', /not valid ICU/);
  t.is(out.at(-1)!.value, undefined);
});

test('pseudo: translates a batch of 5,000 strings, each with a value (its speed: npm run bench)', async (t) => {
  const engine = new PseudoEngine();
  const items = Array.from({ length: 5000 }, (_, i): TranslationItem => ({
    id: String(i),
    key: `screen.${i}.title`,
    source: i % 4 === 0 ? PLURAL_EN : `Save the changes to {name} before leaving (${i})`,
    sourceLang: 'en',
    targetLang: 'pl',
  }));
  await engine.translate(items.slice(0, 500));
  const t0 = performance.now();
  const out = await engine.translate(items);
  const perItem = ((performance.now() - t0) * 1000) / items.length;
  t.log(`${perItem.toFixed(1)} µs per string`);
  t.true(out.every((o) => o.value));
  // Speed is measured by `npm run bench` (the fill scenario), never asserted here: a loaded machine would fail it.
});

// ---------------------------------------------------------------------------------------------------- openai

const item = (id: string, source: string, extra: Partial<TranslationItem> = {}): TranslationItem => ({
  id,
  key: `key.${id}`,
  ctx: `context of ${id}`,
  source,
  sourceLang: 'en',
  targetLang: 'pl',
  ...extra,
});

async function withFake(
  t: { teardown(fn: () => Promise<void>): void },
  handler?: Parameters<typeof startFakeOpenAI>[0],
): Promise<FakeOpenAI> {
  const fake = await startFakeOpenAI(handler);
  t.teardown(() => fake.close());
  return fake;
}

const fast = { model: 'test-model', backoffBaseMs: 1, timeoutMs: 5000 };

test('openai: one request carries the batch, with model, key, ctx, schema and Authorization', async (t) => {
  const fake = await withFake(
    t,
    translateAll((it) =>
      it.source === PLURAL_EN
        ? '{count, plural, one {# plik} few {# pliki} many {# plików} other {# pliku} zero {# plików}}'
        : `PL ${it.source}`,
    ),
  );
  const engine = new OpenAIEngine({ ...fast, baseUrl: fake.url, apiKey: 'sk-test-123' });
  const items = [
    item('a', 'Save'),
    item('b', 'Hello <b>{name}</b>'),
    item('c', PLURAL_EN, { ctx: null }),
    item('d', 'Bye'),
  ];
  const out = await engine.translate(items);
  t.is(fake.requests.length, 1);
  const req = fake.requests[0];
  t.is(req.url, '/v1/chat/completions');
  t.is(req.headers.authorization, 'Bearer sk-test-123');
  const body = req.body!;
  t.is(body.model, 'test-model');
  t.is(body.response_format.type, 'json_schema');
  t.true(body.response_format.json_schema!.strict);
  t.deepEqual(body.response_format.json_schema!.schema.required, ['translations']);
  const prompt = body.messages
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
  for (const needle of [
    'key.a',
    'context of b',
    // Sent as tokens the engine copies (packages/core/src/guard.ts), put back in the answer.
    'Hello ⟦1⟧⟦2⟧⟦3⟧',
    'ICU MessageFormat',
    'one, few, many, other',
    'Polish',
  ]) {
    t.true(prompt.includes(needle), needle);
  }
  t.deepEqual(
    requestItems(req).map((i) => i.id),
    ['a', 'b', 'c', 'd'],
  );
  t.is(requestItems(req)[2].context, null);
  t.deepEqual(out, [
    { id: 'a', value: 'PL Save' },
    { id: 'b', value: 'PL Hello <b>{name}</b>' },
    // The answer had a category Polish lacks; the engine dropped it.
    { id: 'c', value: '{count, plural, one {# plik} few {# pliki} many {# plików} other {# pliku}}' },
    { id: 'd', value: 'PL Bye' },
  ]);
});

test('openai: batches split by target language and maxBatch, outcomes keep input order', async (t) => {
  const fake = await withFake(t);
  const engine = new OpenAIEngine({ ...fast, baseUrl: fake.url, maxBatch: 2 });
  const items = [
    item('1', 'One'),
    item('2', 'Two', { targetLang: 'de' }),
    item('3', 'Three'),
    item('4', 'Four'),
    item('5', 'Five', { targetLang: 'de' }),
  ];
  const out = await engine.translate(items);
  t.deepEqual(out, [
    { id: '1', value: 'pl: One' },
    { id: '2', value: 'de: Two' },
    { id: '3', value: 'pl: Three' },
    { id: '4', value: 'pl: Four' },
    { id: '5', value: 'de: Five' },
  ]);
  const batches = fake.requests
    .map(
      (r) =>
        `${requestPayload(r).targetLanguage}:${requestItems(r)
          .map((i) => i.id)
          .join(',')}`,
    )
    .sort();
  t.deepEqual(batches, ['de:2,5', 'pl:1,3', 'pl:4']);
  t.is(fake.requests[0].headers.authorization, undefined, 'no key, no Authorization header');
  const bad = await engine.translate([item('x', 'Hello', { targetLang: 'not a tag' })]);
  t.regex(bad[0].error ?? '', /invalid language tag/);
  t.is(fake.requests.length, 3, 'nothing asked for an invalid language');
});

test('openai: broken or missing answers are retried once, only those items, then reported', async (t) => {
  const fake = await withFake(
    t,
    sequence([
      translateAll((it) => ({ a: 'Zapisz', b: 'Cześć ⟦1⟧ {', d: 'Cześć' })[it.id]),
      translateAll((it) => ({ b: 'Cześć {imie}', c: 'Żegnaj ⟦1⟧⟦2⟧⟦3⟧' })[it.id]),
    ]),
  );
  const engine = new OpenAIEngine({ ...fast, baseUrl: fake.url });
  const items = [item('a', 'Save'), item('b', 'Hello {name}'), item('c', 'Bye <b>{name}</b>'), item('d', 'Hi {name}')];
  const out = await engine.translate(items);
  t.is(fake.requests.length, 2);
  const followUp = requestItems(fake.requests[1]);
  t.deepEqual(
    followUp.map((i) => i.id),
    ['b', 'c', 'd'],
  );
  t.regex(followUp[0].problem ?? '', /invalid ICU syntax/);
  t.regex(followUp[1].problem ?? '', /no translation returned/);
  t.regex(followUp[2].problem ?? '', /⟦1⟧ \(\{name\}\) is missing/);
  t.deepEqual(out[0], { id: 'a', value: 'Zapisz' });
  t.is(out[1].id, 'b');
  t.regex(out[1].error ?? '', /⟦1⟧ \(\{name\}\) is missing/);
  t.deepEqual(out[2], { id: 'c', value: 'Żegnaj <b>{name}</b>', repaired: true });
  t.regex(out[3].error ?? '', /no translation returned/);
  t.is(out[1].value, undefined);
});

test('openai: JSON in ``` fences and unreadable answers', async (t) => {
  const fake = await withFake(
    t,
    sequence([
      () => completion('Here you go:\n```json\n{"translations":[{"id":"a","value":"Zapisz"}]}\n```'),
      () => completion('Sorry, I cannot help with that.'),
      () => completion('{"translations": [{"id": "b", "val', { finishReason: 'length' }),
    ]),
  );
  const engine = new OpenAIEngine({ ...fast, baseUrl: fake.url });
  t.deepEqual(await engine.translate([item('a', 'Save')]), [{ id: 'a', value: 'Zapisz' }]);
  const out = await engine.translate([item('b', 'Bye')]);
  t.is(fake.requests.length, 3);
  t.regex(requestItems(fake.requests[2])[0].problem ?? '', /not the requested JSON/);
  t.regex(out[0].error ?? '', /cut off/);
  t.deepEqual([...parseTranslations('[{"id": 7, "value": "x"}]')!], [['7', 'x']]);
  t.deepEqual([...parseTranslations('<think>hmm {"id"}</think>{"a": "x"}')!], [['a', 'x']]);
});

test('openai: 429 with Retry-After is waited out (capped) and retried', async (t) => {
  // An hour's Retry-After: capped, the wait is 150 ms; uncapped, the test could never finish. The bound below tells
  // the two apart by orders of magnitude, so a loaded machine cannot make it fail.
  const fake = await withFake(t, sequence([() => errorReply(429, { 'retry-after': '3600' })]));
  const engine = new OpenAIEngine({ ...fast, baseUrl: fake.url, retryAfterCapMs: 150 });
  const t0 = Date.now();
  const out = await engine.translate([item('a', 'Save')]);
  const elapsed = Date.now() - t0;
  t.deepEqual(out, [{ id: 'a', value: 'pl: Save' }]);
  t.is(fake.requests.length, 2);
  t.true(elapsed >= 140, `waited ${elapsed} ms`);
  t.true(elapsed < 60_000, `the hour's Retry-After is capped, waited ${elapsed} ms`);
});

test('openai: 500 three times then success; four times is a retryable batch failure', async (t) => {
  const e500 = () => errorReply(500);
  const fake = await withFake(t, sequence([e500, e500, e500]));
  const engine = new OpenAIEngine({ ...fast, baseUrl: fake.url, maxAttempts: 4 });
  t.deepEqual(await engine.translate([item('a', 'Save')]), [{ id: 'a', value: 'pl: Save' }]);
  t.is(fake.requests.length, 4);

  fake.setHandler(e500);
  const err = await t.throwsAsync(engine.translate([item('a', 'Save')]), { instanceOf: EngineUnavailableError });
  t.true(err.retryable);
  t.is(err.status, 500);
  t.regex(err.message, /after 4 attempts: HTTP 500: fake error 500/);
  t.is(fake.requests.length, 8);
});

test('openai: 401 fails at once, not retryable, and never echoes the key', async (t) => {
  const fake = await withFake(t, () => errorReply(401, {}, 'Incorrect API key provided'));
  const engine = new OpenAIEngine({ ...fast, baseUrl: fake.url, apiKey: 'sk-secret-999' });
  const err = await t.throwsAsync(engine.translate([item('a', 'Save')]), { instanceOf: EngineUnavailableError });
  t.false(err.retryable);
  t.is(err.status, 401);
  t.false(err.message.includes('sk-secret-999'));
  t.is(fake.requests.length, 1);
});

test('openai: a slow endpoint times out per attempt and the batch fails', async (t) => {
  const fake = await withFake(t, translateAll(undefined, { delayMs: 6000 }));
  // 1 s, not less: on a loaded CI machine a 500 ms attempt has ended before the fake had even read the request.
  const engine = new OpenAIEngine({ ...fast, baseUrl: fake.url, timeoutMs: 1000, maxAttempts: 2 });
  const t0 = Date.now();
  const err = await t.throwsAsync(engine.translate([item('a', 'Save')]), { instanceOf: EngineUnavailableError });
  t.true(Date.now() - t0 < 5900, 'both attempts gave up before the first answer would have come');
  t.regex(err.message, /no answer within 1000 ms/);
  t.true(err.retryable);
  t.is(fake.requests.length, 2);
});

test('openai: an endpoint that is down is a retryable batch failure', async (t) => {
  const fake = await startFakeOpenAI();
  await fake.close();
  const engine = new OpenAIEngine({ ...fast, baseUrl: fake.url, maxAttempts: 2 });
  const err = await t.throwsAsync(engine.translate([item('a', 'Save')]), { instanceOf: EngineUnavailableError });
  t.regex(err.message, /network error/);
  t.true(err.retryable);
});

test('openai: a server refusing json_schema gets json_object instead', async (t) => {
  const fake = await withFake(
    t,
    sequence([
      () => errorReply(400, {}, "Invalid parameter: 'response_format' of type 'json_schema' is not supported"),
    ]),
  );
  const engine = new OpenAIEngine({ ...fast, baseUrl: fake.url });
  t.deepEqual(await engine.translate([item('a', 'Save')]), [{ id: 'a', value: 'pl: Save' }]);
  t.is(fake.requests[0].body!.response_format.type, 'json_schema');
  t.deepEqual(fake.requests[1].body!.response_format, { type: 'json_object' });
});

test('openai: concurrent translate() calls share the in-flight bound', async (t) => {
  const fake = await withFake(t, translateAll(undefined, { delayMs: 60 }));
  const engine = new OpenAIEngine({ ...fast, baseUrl: fake.url, concurrency: 3 });
  const outs = await Promise.all(Array.from({ length: 10 }, (_, i) => engine.translate([item(`i${i}`, `Text ${i}`)])));
  t.deepEqual(
    outs.map((o) => o[0].value),
    Array.from({ length: 10 }, (_, i) => `pl: Text ${i}`),
  );
  t.is(fake.requests.length, 10);
  t.true(fake.maxInFlight <= 3, `max in flight ${fake.maxInFlight}`);
  t.true(fake.maxInFlight >= 2, 'requests do run in parallel');
});

// ---------------------------------------------------------------------------------------------------- createEngine

test('createEngine follows TRANSLATION_ENGINE', (t) => {
  t.is(createEngine(loadConfig({}))?.name, 'pseudo');
  t.is(createEngine(loadConfig({ TRANSLATION_ENGINE: 'none' })), null);
  t.throws(() => createEngine(loadConfig({ TRANSLATION_ENGINE: 'openai' })), {
    message: /OPENAI_BASE_URL and OPENAI_MODEL/,
  });
  t.throws(
    () => createEngine(loadConfig({ TRANSLATION_ENGINE: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' })),
    { message: /OPENAI_MODEL/ },
  );
  t.throws(
    () => createEngine(loadConfig({ TRANSLATION_ENGINE: 'openai', OPENAI_BASE_URL: 'localhost', OPENAI_MODEL: 'm' })),
    { message: /absolute URL/ },
  );
  const engine = createEngine(
    loadConfig({
      TRANSLATION_ENGINE: 'openai',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_MODEL: 'llama3.1',
    }),
  );
  t.true(engine instanceof OpenAIEngine);
  t.is(engine!.maxBatch, 40);
});

test('pseudo: printf specifiers with length modifiers and positions, %%, ICU arguments and attributed markup survive', (t) => {
  const printf = '%lld files, %1$@ at %.2f%% {name} %ld %zu %hd';
  t.is(pseudoLocalize(printf, 'de'), '[%lld ƒîļéš, %1$@ áţ %.2f%% {name} %ld %zu %hd~~~~~~~~~~~~]');
  const terms = 'By continuing you accept the <a href="/terms">terms</a>';
  t.is(pseudoLocalize(terms, 'de'), '[Ɓý çöñţîñûîñĝ ýöû áççéþţ ţĥé <a href="/terms">ţéŕɱš</a>~~~~~~~~~~~]');
  // Markup that is not rich text inside a plural: the tag as written, the plural given Polish categories.
  t.is(
    pseudoLocalize("Don't <a href='x'>go</a> {n, plural, one {# file} other {# files}}", 'pl'),
    "[Ðöñ'ţ <a href='x'>ĝö</a> {n, plural, one {# ƒîļé} few {# ƒîļéš} many {# ƒîļéš} other {# ƒîļéš}}~~~~~~~~~~]",
  );
  for (const source of [printf, terms]) t.is(checkTranslation(source, pseudoLocalize(source, 'ja'), 'ja'), null);
});
