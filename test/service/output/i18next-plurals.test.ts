// i18next v4 plural suffixes through the real API (spec: `syncCatalog`, `publishVersion`, `getTranslations`): a json
// or nested_json file's `cart.item_one` / `cart.item_other` is one plural key, filled and stored as one ICU plural per
// language, and pulled back as suffix keys with each language's CLDR categories, which real i18next then reads.
import test from 'ava';
import i18next from 'i18next';
import { sync as syncCall } from '../../../packages/client/src/index.js';
import {
  createTestProject,
  publishSkipping,
  pullText,
  startTestService,
  type TestProject,
  type TestService,
} from '../../helpers/service.js';
import { readKey } from '../../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
// Scoped to the test's project: no test runs another's jobs, so the tests run concurrently.
const runDue = (p: { projectId: string }) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
const sync = (p: TestProject, text: string, format: 'json' | 'nested_json') =>
  syncCall(p.client, p.projectId, { contentBase64: b64(text), fileName: 'en.json', format });
const setCell = (p: TestProject, key: string, lang: string, value: string) =>
  svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key, lang } },
    body: { value, status: 'reviewed' },
  });
const keyRows = async (p: TestProject) =>
  (await svc.admin.GET('/projects/{projectId}/keys', { params: { path: { projectId: p.projectId } } })).data!.keys;
const keyNames = async (p: TestProject) =>
  (await keyRows(p))
    .filter((k) => k.enabled)
    .map((k) => k.key)
    .sort();

const publish = publishSkipping;
const pull = (p: TestProject, version: string, format: string, lang: string) => pullText(svc, p, version, format, lang);

/** A fresh i18next instance reading `resources` as the app would (no ICU plugin, default `_` plural separator). */
async function i18n(lng: string, resources: unknown) {
  const inst = i18next.createInstance();
  await inst.init({
    lng,
    fallbackLng: false,
    resources: { [lng]: { translation: resources as Record<string, string> } },
    interpolation: { escapeValue: false },
  });
  return inst;
}

const NESTED = `${JSON.stringify(
  {
    cart: {
      item_zero: 'Your cart is empty',
      item_one: '{{count}} item in {{owner}}’s cart',
      item_other: '{{count}} items in {{owner}}’s cart',
      title: 'Cart',
    },
    greeting: 'Hello, {{name}}!',
    reason_other: 'Another reason',
    place_ordinal_one: '{{count}}st place',
    place_ordinal_two: '{{count}}nd place',
    place_ordinal_few: '{{count}}rd place',
    place_ordinal_other: '{{count}}th place',
  },
  null,
  2,
)}\n`;

const PL =
  '{count, plural, =0 {Koszyk jest pusty} one {# produkt w koszyku {owner}} few {# produkty w koszyku {owner}} many {# produktów w koszyku {owner}} other {# produktu w koszyku {owner}}}';
const AR =
  '{count, plural, zero {السلة فارغة} one {منتج واحد في سلة {owner}} two {منتجان في سلة {owner}} few {# منتجات في سلة {owner}} many {# منتجًا في سلة {owner}} other {# منتج في سلة {owner}}}';

for (const format of ['nested_json', 'json'] as const) {
  test(`${format}: an i18next v4 file's plural suffixes are one key, pulled back with each language's categories and read by i18next`, async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'pl' }, { code: 'ar' }, { code: 'ja' }] });
    const file =
      format === 'json'
        ? `${JSON.stringify(
            {
              'cart.item_zero': 'Your cart is empty',
              'cart.item_one': '{{count}} item in {{owner}}’s cart',
              'cart.item_other': '{{count}} items in {{owner}}’s cart',
              'cart.title': 'Cart',
              greeting: 'Hello, {{name}}!',
              reason_other: 'Another reason',
              place_ordinal_one: '{{count}}st place',
              place_ordinal_two: '{{count}}nd place',
              place_ordinal_few: '{{count}}rd place',
              place_ordinal_other: '{{count}}th place',
            },
            null,
            2,
          )}\n`
        : NESTED;
    const r = await sync(p, file, format);
    t.is(r.response.status, 200, JSON.stringify(r.error));
    t.is(r.data!.created, 5);
    // One plural key (its zero form is i18next's "count is 0", ICU `=0` in English); a lone `_other` is a name.
    t.deepEqual(await keyNames(p), ['cart.item', 'cart.title', 'greeting', 'place', 'reason_other']);
    const key = (await keyRows(p)).find((k) => k.key === 'cart.item')!;
    t.deepEqual(key.forms, {
      '=0': 'Your cart is empty',
      one: '# item in {owner}’s cart',
      other: '# items in {owner}’s cart',
    });

    // The fill translates the key as one plural per language: each gets its own categories.
    await runDue(p);
    const ja = (await readKey(p.client, p.projectId, 'cart.item', 'ja')).data!.translations.ja;
    t.is(ja.status, 'translated');
    t.regex(ja.value!, /^\{count, plural, =0 \{.*\} other \{.*\}\}$/);
    // A person writes the Polish and Arabic plurals.
    t.is((await setCell(p, 'cart.item', 'pl', PL)).response.status, 200);
    t.is((await setCell(p, 'cart.item', 'ar', AR)).response.status, 200);
    // Ordinal suffixes are one `selectordinal` key; Polish writes every ordinal the same way.
    const place = (await keyRows(p)).find((k) => k.key === 'place')!;
    t.is(place.source, '{count, selectordinal, one {#st place} two {#nd place} few {#rd place} other {#th place}}');
    t.is((await setCell(p, 'place', 'pl', '{count, selectordinal, other {#. miejsce}}')).response.status, 200);
    const version = await publish(p);

    // Polish: one, few, many, other (plus `_zero` for `=0`), read by i18next's own plural rules.
    const pl = JSON.parse(await pull(p, version, format, 'pl')) as Record<string, unknown>;
    const plKeys = format === 'json' ? Object.keys(pl) : Object.keys(pl.cart as object);
    const prefix = format === 'json' ? 'cart.' : '';
    t.deepEqual(
      plKeys.filter((k) => k.startsWith(`${prefix}item`)),
      ['zero', 'one', 'few', 'many', 'other'].map((c) => `${prefix}item_${c}`),
    );
    // The file's dots are keys, not paths, in flat json: i18next reads it with keySeparator off.
    const plT = await i18n('pl', pl);
    const tp = (count: number) =>
      format === 'json'
        ? plT.t('cart.item', { count, owner: 'Ani', keySeparator: false })
        : plT.t('cart.item', { count, owner: 'Ani' });
    t.is(tp(1), '1 produkt w koszyku Ani');
    t.is(tp(2), '2 produkty w koszyku Ani');
    t.is(tp(5), '5 produktów w koszyku Ani');
    t.is(tp(22), '22 produkty w koszyku Ani');
    t.is(tp(1.5), '1.5 produktu w koszyku Ani');
    t.is(tp(0), 'Koszyk jest pusty');
    t.is(plT.t('place', { count: 3, ordinal: true }), '3. miejsce');
    t.false(Object.hasOwn(pl, 'place_ordinal_one'), 'Polish has only the `other` ordinal');
    // Plain keys stay plain (their pseudo fill): i18next interpolates them.
    t.regex(
      format === 'json' ? plT.t('greeting', { name: 'Ola', keySeparator: false }) : plT.t('greeting', { name: 'Ola' }),
      /Ola/,
    );

    // Arabic: all six categories; `count: 0` shows the zero form.
    const ar = JSON.parse(await pull(p, version, format, 'ar')) as Record<string, unknown>;
    const arT = await i18n('ar', ar);
    const ta = (count: number) =>
      format === 'json'
        ? arT.t('cart.item', { count, owner: 'سارة', keySeparator: false })
        : arT.t('cart.item', { count, owner: 'سارة' });
    t.is(ta(0), 'السلة فارغة');
    t.is(ta(1), 'منتج واحد في سلة سارة');
    t.is(ta(2), 'منتجان في سلة سارة');
    t.is(ta(3), '3 منتجات في سلة سارة');
    t.is(ta(11), '11 منتجًا في سلة سارة');
    t.is(ta(100), '100 منتج في سلة سارة');

    // Japanese has only `other` (and i18next's `_zero` for the `=0` the source has).
    const jaFile = JSON.parse(await pull(p, version, format, 'ja')) as Record<string, unknown>;
    const jaKeys = format === 'json' ? Object.keys(jaFile) : Object.keys(jaFile.cart as object);
    t.deepEqual(
      jaKeys.filter((k) => k.startsWith(`${prefix}item`)),
      ['zero', 'other'].map((c) => `${prefix}item_${c}`),
    );

    // Round trip: the base file comes back byte for byte, in the same suffix style.
    const en = await pull(p, version, format, 'en');
    t.is(en, file);
    const enT = await i18n('en', JSON.parse(en));
    const ord = (count: number) => enT.t('place', { count, ordinal: true });
    t.deepEqual([1, 2, 3, 4, 11, 21, 22].map(ord), [
      '1st place',
      '2nd place',
      '3rd place',
      '4th place',
      '11th place',
      '21st place',
      '22nd place',
    ]);
  });
}

test('keys a file does not make one plural stay separate: a lone _one, a base key beside its suffixes, _foo, an ordinal of a cardinal plural', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'pl' }] });
  const file = `${JSON.stringify(
    {
      lone_one: 'Only one',
      dup: 'Items',
      dup_one: 'One item',
      dup_other: '{{count}} items',
      x_foo: 'Foo',
      x_other: 'Other x',
      both_one: '{{count}} prize',
      both_other: '{{count}} prizes',
      both_ordinal_one: '{{count}}st prize',
      both_ordinal_other: '{{count}}th prize',
      __proto___one: 'one proto',
      __proto___other: '{{count}} protos',
      constructor_one: 'one constructor',
      constructor_other: '{{count}} constructors',
    },
    null,
    2,
  )}\n`;
  const r = await sync(p, file, 'json');
  t.is(r.response.status, 200, JSON.stringify(r.error));
  const names = await keyNames(p);
  // One key cannot be both a cardinal and an ordinal plural: `both` is the cardinal one, its ordinals stay keys.
  // `__proto__` and `constructor` are plural keys of their own (canonical names `proto` and `constructor`).
  t.deepEqual(names, [
    'both',
    'both_ordinal_one',
    'both_ordinal_other',
    'constructor',
    'dup',
    'dup_one',
    'dup_other',
    'lone_one',
    'proto',
    'x_foo',
    'x_other',
  ]);
  t.is(r.data!.created, 11);
  const version = await publish(p);
  t.is(await pull(p, version, 'json', 'en'), file);
  await runDue(p);
  const pl = JSON.parse(await pull(p, await publish(p), 'json', 'pl')) as Record<string, string>;
  // Hostile bases are data: Polish gets their four suffix keys.
  for (const base of ['__proto__', 'constructor'])
    for (const c of ['one', 'few', 'many', 'other']) t.true(Object.hasOwn(pl, `${base}_${c}`), `${base}_${c}`);
  t.false(Object.hasOwn(pl, 'lone_few'));
});

test('a project synced when suffix keys were separate keys moves to one plural key on the next sync', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'pl' }] });
  // The state an earlier sync left: two unrelated keys named by their suffixes.
  const push = await p.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: p.projectId } },
    body: {
      units: [
        { key: 'cart.item_one', source: '{count} item' },
        { key: 'cart.item_other', source: '{count} items' },
      ],
    },
  });
  t.is(push.response.status, 200, JSON.stringify(push.error));
  await runDue(p);
  const file = `${JSON.stringify({ cart: { item_one: '{{count}} item', item_other: '{{count}} items' } }, null, 2)}\n`;
  const r = await syncCall(p.client, p.projectId, { contentBase64: b64(file), format: 'nested_json' });
  t.is(r.response.status, 200, JSON.stringify(r.error));
  t.like(r.data, { created: 1, disabledOrphans: 2 });
  t.deepEqual(await keyNames(p), ['cart.item']);
  await runDue(p);
  const pl = JSON.parse(await pull(p, await publish(p), 'nested_json', 'pl')) as { cart: Record<string, string> };
  t.deepEqual(Object.keys(pl.cart), ['item_one', 'item_few', 'item_many', 'item_other']);
});
