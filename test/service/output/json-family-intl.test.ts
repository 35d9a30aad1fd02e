// The json family read by its ICU runtime: `json`, `nested_json` and `angular_json` pulls of a
// version hold ICU messages, and intl-messageformat formats each one in en, pl and ar as an app would show it.
// Angular's own runtime ($localize) reads `{$NAME}` placeholders and plural/select only: a synced Angular file keeps
// its placeholders and gets each language's categories, which the last test checks.
import test from 'ava';
import { IntlMessageFormat } from 'intl-messageformat';
import { translate } from '../../../packages/client/src/index.js';
import {
  createTestProject,
  publishSkipping,
  pullText,
  startTestService,
  type TestProject,
  type TestService,
} from '../../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const setCell = (p: TestProject, key: string, lang: string, value: string) =>
  svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key, lang } },
    body: { value, status: 'reviewed' },
  });

const publish = publishSkipping;
const pull = (p: TestProject, version: string, format: string, lang: string) => pullText(svc, p, version, format, lang);

type Tree = { [k: string]: string | Tree };

/** The messages of a pulled file by key, each file read the way its runtime reads it. */
function messages(format: string, text: string): Record<string, string> {
  const root = JSON.parse(text) as Tree;
  if (format === 'angular_json') return root.translations as Record<string, string>;
  if (format === 'json') return root as Record<string, string>;
  const out: Record<string, string> = {};
  const walk = (t: Tree, prefix: string) => {
    for (const [k, v] of Object.entries(t)) {
      if (typeof v === 'string') out[prefix + k] = v;
      else walk(v, `${prefix}${k}.`);
    }
  };
  walk(root, '');
  return out;
}

const SOURCES: Record<string, string> = {
  'cart.items': '{count, plural, =0 {Your cart is empty} one {# item} other {# items}}',
  'profile.updated':
    '{gender, select, female {She updated her profile} male {He updated his profile} other {They updated their profile}}',
  'photos.added': '{name} added {count, plural, one {a photo} other {# photos}}',
  'order.total': 'Total: {amount, number, ::currency/EUR}',
  'order.placed': 'Placed on {when, date, long}',
  'order.share': '{share, number, percent} done',
};

const TRANSLATIONS: Record<'pl' | 'ar', Record<string, string>> = {
  pl: {
    'cart.items':
      '{count, plural, =0 {Koszyk jest pusty} one {# produkt} few {# produkty} many {# produktów} other {# produktu}}',
    'profile.updated':
      '{gender, select, female {Zaktualizowała swój profil} male {Zaktualizował swój profil} other {Zaktualizowano profil}}',
    'photos.added':
      '{name} {count, plural, one {dodał zdjęcie} few {dodał # zdjęcia} many {dodał # zdjęć} other {dodał # zdjęcia}}',
    'order.total': 'Razem: {amount, number, ::currency/EUR}',
    'order.placed': 'Złożono {when, date, long}',
    'order.share': 'Gotowe w {share, number, percent}',
  },
  ar: {
    'cart.items':
      '{count, plural, =0 {السلة فارغة} zero {لا منتجات} one {منتج واحد} two {منتجان} few {# منتجات} many {# منتجًا} other {# منتج}}',
    'profile.updated': '{gender, select, female {حدّثت ملفها الشخصي} male {حدّث ملفه الشخصي} other {حدّثوا ملفهم الشخصي}}',
    'photos.added':
      '{count, plural, zero {لم يضف {name} صورًا} one {أضاف {name} صورة} two {أضاف {name} صورتين} few {أضاف {name} # صور} many {أضاف {name} # صورة} other {أضاف {name} # صورة}}',
    'order.total': 'المجموع: {amount, number, ::currency/EUR}',
    'order.placed': 'تم الطلب في {when, date, long}',
    'order.share': 'اكتمل {share, number, percent}',
  },
};

const WHEN = new Date(Date.UTC(2026, 2, 5, 12));
const num = (lang: string, n: number, o?: Intl.NumberFormatOptions) => new Intl.NumberFormat(lang, o).format(n);
const longDate = (lang: string) =>
  new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'long', day: 'numeric' }).format(WHEN);

/** What a user sees, per language: [key, arguments, text]. */
const EXPECTED: Record<'en' | 'pl' | 'ar', Array<[string, Record<string, unknown>, string]>> = {
  en: [
    ['cart.items', { count: 0 }, 'Your cart is empty'],
    ['cart.items', { count: 1 }, '1 item'],
    ['cart.items', { count: 5 }, '5 items'],
    ['profile.updated', { gender: 'female' }, 'She updated her profile'],
    ['profile.updated', { gender: 'x' }, 'They updated their profile'],
    ['photos.added', { name: 'Ann', count: 1 }, 'Ann added a photo'],
    ['photos.added', { name: 'Ann', count: 3 }, 'Ann added 3 photos'],
    ['order.total', { amount: 1234.5 }, 'Total: €1,234.50'],
    ['order.placed', { when: WHEN }, 'Placed on March 5, 2026'],
    ['order.share', { share: 0.25 }, '25% done'],
  ],
  pl: [
    ['cart.items', { count: 0 }, 'Koszyk jest pusty'],
    ['cart.items', { count: 1 }, '1 produkt'],
    ['cart.items', { count: 2 }, '2 produkty'],
    ['cart.items', { count: 5 }, '5 produktów'],
    ['cart.items', { count: 22 }, '22 produkty'],
    ['cart.items', { count: 1.5 }, '1,5 produktu'],
    ['profile.updated', { gender: 'female' }, 'Zaktualizowała swój profil'],
    ['photos.added', { name: 'Ola', count: 3 }, 'Ola dodał 3 zdjęcia'],
    ['photos.added', { name: 'Ola', count: 12 }, 'Ola dodał 12 zdjęć'],
    ['order.total', { amount: 1234.5 }, `Razem: ${num('pl', 1234.5, { style: 'currency', currency: 'EUR' })}`],
    ['order.placed', { when: WHEN }, 'Złożono 5 marca 2026'],
    ['order.share', { share: 0.25 }, `Gotowe w ${num('pl', 0.25, { style: 'percent' })}`],
  ],
  ar: [
    ['cart.items', { count: 0 }, 'السلة فارغة'],
    ['cart.items', { count: 1 }, 'منتج واحد'],
    ['cart.items', { count: 2 }, 'منتجان'],
    ['cart.items', { count: 3 }, `${num('ar', 3)} منتجات`],
    ['cart.items', { count: 11 }, `${num('ar', 11)} منتجًا`],
    ['cart.items', { count: 100 }, `${num('ar', 100)} منتج`],
    ['profile.updated', { gender: 'male' }, 'حدّث ملفه الشخصي'],
    ['photos.added', { name: 'سارة', count: 2 }, 'أضاف سارة صورتين'],
    ['order.total', { amount: 1234.5 }, `المجموع: ${num('ar', 1234.5, { style: 'currency', currency: 'EUR' })}`],
    ['order.placed', { when: WHEN }, `تم الطلب في ${longDate('ar')}`],
  ],
};

test.serial(
  'json, nested_json and angular_json pulls are ICU that intl-messageformat shows right in en, pl and ar',
  async (t) => {
    const p = await createTestProject(svc, {
      languages: [
        { code: 'pl', fillMode: 'manual' },
        { code: 'ar', fillMode: 'manual' },
      ],
    });
    const pushed = await translate(p.client, p.projectId, {
      units: Object.entries(SOURCES).map(([key, source]) => ({ key, source })),
    });
    t.is(pushed.response.status, 200, JSON.stringify(pushed.error));
    for (const lang of ['pl', 'ar'] as const)
      for (const [key, value] of Object.entries(TRANSLATIONS[lang])) {
        const r = await setCell(p, key, lang, value);
        t.is(r.response.status, 200, `${key} [${lang}]: ${JSON.stringify(r.error)}`);
      }
    const version = await publish(p);
    for (const format of ['json', 'nested_json', 'angular_json']) {
      for (const lang of ['en', 'pl', 'ar'] as const) {
        const msgs = messages(format, await pull(p, version, format, lang));
        t.deepEqual(Object.keys(msgs).sort(), Object.keys(SOURCES).sort(), `${format} ${lang}: every key`);
        for (const [key, args, shown] of EXPECTED[lang]) {
          const text = new IntlMessageFormat(msgs[key], lang).format(args);
          t.is(text, shown, `${format} ${lang} ${key} ${JSON.stringify(args)}`);
        }
      }
    }
  },
);

test.serial(
  'angular_json: a synced Angular file keeps its {$NAME} placeholders and gets each language its plural categories',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'pl', fillMode: 'manual' }] });
    const file = `${JSON.stringify(
      {
        locale: 'en',
        translations: {
          '4286451273117902052': 'Hello {$INTERPOLATION}!',
          cartItems: '{VAR_PLURAL, plural, =0 {Your cart is empty} =1 {One item} other {{$INTERPOLATION} items}}',
        },
      },
      null,
      2,
    )}\n`;
    const r = await p.client.POST('/projects/{projectId}/sync', {
      params: { path: { projectId: p.projectId } },
      body: { contentBase64: Buffer.from(file).toString('base64'), fileName: 'messages.json' },
    });
    t.is(r.response.status, 200, JSON.stringify(r.error));
    t.is((await setCell(p, 'k4286451273117902052', 'pl', 'Cześć {INTERPOLATION}!')).response.status, 200);
    const pl =
      '{VAR_PLURAL, plural, =0 {Koszyk jest pusty} =1 {Jeden produkt} one {{INTERPOLATION} produkt} few {{INTERPOLATION} produkty} many {{INTERPOLATION} produktów} other {{INTERPOLATION} produktu}}';
    t.is((await setCell(p, 'cart.items', 'pl', pl)).response.status, 200);
    const version = await publish(p);
    t.is(await pull(p, version, 'angular_json', 'en'), file);
    const pulled = JSON.parse(await pull(p, version, 'angular_json', 'pl')) as {
      locale: string;
      translations: Record<string, string>;
    };
    t.is(pulled.locale, 'pl');
    t.deepEqual(pulled.translations, {
      '4286451273117902052': 'Cześć {$INTERPOLATION}!',
      cartItems:
        '{VAR_PLURAL, plural, =0 {Koszyk jest pusty} =1 {Jeden produkt} one {{$INTERPOLATION} produkt} few {{$INTERPOLATION} produkty} many {{$INTERPOLATION} produktów} other {{$INTERPOLATION} produktu}}',
    });
  },
);
