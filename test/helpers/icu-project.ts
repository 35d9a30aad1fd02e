// One project with every ICU feature the formats must carry to their runtimes, in en, de, fr,
// ja, ar, pl, ru, zh-Hans and pt-BR, made and published through the real API: sources pushed with POST /translate,
// translations set as a person sets them (internal PUT …/translations/{lang}), every language manual so no engine
// touches them. Each consumer test pulls its file from the published version and asserts what a user would see.
import { createTestProject, type TestProject, type TestService } from './service.js';
import type { Schemas } from './typed.js';

export const ICU_LANGS = ['de', 'fr', 'ja', 'ar', 'pl', 'ru', 'zh-hans', 'pt-br'] as const;
type Lang = (typeof ICU_LANGS)[number];

interface FixtureKey {
  key: string;
  ctx?: string;
  source: string;
  /** What a person entered per language; a language left out falls back to the source on publish. */
  values: Partial<Record<Lang, string>>;
}

export const ICU_KEYS: FixtureKey[] = [
  {
    key: 'home.welcome',
    source: 'Welcome, {name}!',
    values: {
      de: 'Willkommen, {name}!',
      fr: 'Bienvenue, {name} !',
      ja: 'ようこそ、{name}さん！',
      ar: 'مرحبًا، {name}!',
      pl: 'Witaj, {name}!',
      ru: 'Добро пожаловать, {name}!',
      'zh-hans': '欢迎，{name}！',
      'pt-br': 'Bem-vindo, {name}!',
    },
  },
  {
    key: 'menu.open',
    ctx: 'menu action (verb)',
    source: 'Open',
    values: {
      de: 'Öffnen',
      fr: 'Ouvrir',
      ja: '開く',
      ar: 'فتح',
      pl: 'Otwórz',
      ru: 'Открыть',
      'zh-hans': '打开',
      'pt-br': 'Abrir',
    },
  },
  {
    key: 'status.open',
    ctx: 'shop state (adjective)',
    source: 'Open',
    values: {
      de: 'Geöffnet',
      fr: 'Ouvert',
      ja: '営業中',
      ar: 'مفتوح',
      pl: 'Otwarte',
      ru: 'Открыто',
      'zh-hans': '营业中',
      'pt-br': 'Aberto',
    },
  },
  {
    key: 'cart.items',
    source: '{count, plural, =0 {Your cart is empty} one {# item in your cart} other {# items in your cart}}',
    values: {
      de: '{count, plural, =0 {Dein Warenkorb ist leer} one {# Artikel im Warenkorb} other {# Artikel im Warenkorb}}',
      fr: '{count, plural, =0 {Votre panier est vide} one {# article dans votre panier} many {# d’articles dans votre panier} other {# articles dans votre panier}}',
      ja: '{count, plural, =0 {カートは空です} other {カートに#個の商品}}',
      ar: '{count, plural, =0 {سلتك فارغة} zero {لا عناصر} one {عنصر واحد} two {عنصران} few {# عناصر} many {# عنصرًا} other {# عنصر}}',
      pl: '{count, plural, =0 {Twój koszyk jest pusty} one {# produkt w koszyku} few {# produkty w koszyku} many {# produktów w koszyku} other {# produktu w koszyku}}',
      ru: '{count, plural, =0 {Ваша корзина пуста} one {# товар в корзине} few {# товара в корзине} many {# товаров в корзине} other {# товара в корзине}}',
      'zh-hans': '{count, plural, =0 {购物车是空的} other {购物车中有#件商品}}',
      'pt-br':
        '{count, plural, =0 {Seu carrinho está vazio} one {# item no carrinho} many {# de itens no carrinho} other {# itens no carrinho}}',
    },
  },
  {
    key: 'photos.added',
    source: '{name} added {count, plural, one {a photo} other {# photos}}',
    values: {
      de: '{name} hat {count, plural, one {ein Foto} other {# Fotos}} hinzugefügt',
      fr: '{name} a ajouté {count, plural, one {une photo} many {# de photos} other {# photos}}',
      ja: '{name}さんが{count, plural, other {#枚の写真}}を追加しました',
      ar: 'أضاف {name} {count, plural, zero {لا صور} one {صورة واحدة} two {صورتين} few {# صور} many {# صورة} other {# صورة}}',
      pl: '{name} dodał(a) {count, plural, one {zdjęcie} few {# zdjęcia} many {# zdjęć} other {# zdjęcia}}',
      ru: '{name} добавил(а) {count, plural, one {# фото} few {# фото} many {# фото} other {# фото}}',
      'zh-hans': '{name}添加了{count, plural, other {#张照片}}',
      'pt-br': '{name} adicionou {count, plural, one {uma foto} many {# de fotos} other {# fotos}}',
    },
  },
  {
    key: 'post.liked',
    source: '{gender, select, female {She liked your post} male {He liked your post} other {They liked your post}}',
    values: {
      de: '{gender, select, female {Sie mag deinen Beitrag} male {Er mag deinen Beitrag} other {Sie mögen deinen Beitrag}}',
      fr: '{gender, select, female {Elle a aimé votre publication} male {Il a aimé votre publication} other {Iel a aimé votre publication}}',
      ja: '{gender, select, female {彼女がいいねしました} male {彼がいいねしました} other {いいねがつきました}}',
      ar: '{gender, select, female {أعجبها منشورك} male {أعجبه منشورك} other {أعجبهم منشورك}}',
      pl: '{gender, select, female {Polubiła twój post} male {Polubił twój post} other {Polubili twój post}}',
      ru: '{gender, select, female {Ей понравилась ваша запись} male {Ему понравилась ваша запись} other {Им понравилась ваша запись}}',
      'zh-hans': '{gender, select, female {她赞了你的帖子} male {他赞了你的帖子} other {他们赞了你的帖子}}',
      'pt-br':
        '{gender, select, female {Ela curtiu sua publicação} male {Ele curtiu sua publicação} other {Curtiram sua publicação}}',
    },
  },
  {
    key: 'race.place',
    source: 'You finished {place, selectordinal, one {#st} two {#nd} few {#rd} other {#th}}',
    values: {
      de: 'Du bist {place, selectordinal, other {#.}} geworden',
      fr: 'Vous avez terminé {place, selectordinal, one {#er} other {#e}}',
      ja: '{place, selectordinal, other {#位}}でゴールしました',
      pl: 'Ukończyłeś na {place, selectordinal, other {#.}} miejscu',
      'pt-br': 'Você terminou em {place, selectordinal, other {#º}} lugar',
    },
  },
  {
    key: 'order.total',
    source: 'Total: {amount, number, ::currency/EUR}',
    values: {
      de: 'Gesamt: {amount, number, ::currency/EUR}',
      fr: 'Total : {amount, number, ::currency/EUR}',
      ja: '合計：{amount, number, ::currency/EUR}',
      ar: 'المجموع: {amount, number, ::currency/EUR}',
      pl: 'Razem: {amount, number, ::currency/EUR}',
      ru: 'Итого: {amount, number, ::currency/EUR}',
      'zh-hans': '合计：{amount, number, ::currency/EUR}',
      'pt-br': 'Total: {amount, number, ::currency/EUR}',
    },
  },
  {
    key: 'stats.done',
    source: '{ratio, number, percent} done',
    values: {
      de: '{ratio, number, percent} erledigt',
      fr: '{ratio, number, percent} terminé',
      ja: '{ratio, number, percent}完了',
      pl: '{ratio, number, percent} gotowe',
      'pt-br': '{ratio, number, percent} concluído',
    },
  },
  {
    key: 'event.starts',
    source: 'Starts on {when, date, medium} at {when, time, short}',
    values: {
      de: 'Beginnt am {when, date, medium} um {when, time, short}',
      fr: 'Commence le {when, date, medium} à {when, time, short}',
      ja: '{when, date, medium} {when, time, short}に開始',
      pl: 'Zaczyna się {when, date, medium} o {when, time, short}',
      'pt-br': 'Começa em {when, date, medium} às {when, time, short}',
    },
  },
  {
    key: 'event.next',
    source: 'Next session: {day, date, ::yMMMd}',
    values: {
      de: 'Nächste Sitzung: {day, date, ::yMMMd}',
      fr: 'Prochaine session : {day, date, ::yMMMd}',
      ja: '次回：{day, date, ::yMMMd}',
      pl: 'Następna sesja: {day, date, ::yMMMd}',
      'pt-br': 'Próxima sessão: {day, date, ::yMMMd}',
    },
  },
  {
    key: 'help.braces',
    // What a user sees: Use {curly} braces, it's easy
    source: "Use '{'curly'}' braces, it''s easy",
    values: {
      de: "Nutze '{'geschweifte'}' Klammern, das ist einfach",
      fr: "Utilisez des accolades '{'ainsi'}', c''est simple",
      ja: "'{'波括弧'}'を使ってください",
      pl: "Użyj nawiasów '{'klamrowych'}'",
      'pt-br': "Use chaves '{'assim'}', é fácil",
    },
  },
  {
    key: 'legal.terms',
    source: 'By continuing you accept the <a href="/terms">terms</a>',
    values: {
      de: 'Wenn du fortfährst, akzeptierst du die <a href="/terms">Bedingungen</a>',
      fr: 'En continuant, vous acceptez les <a href="/terms">conditions</a>',
      ja: '続行すると<a href="/terms">利用規約</a>に同意したことになります',
      ar: 'بالمتابعة فإنك توافق على <a href="/terms">الشروط</a>',
      pl: 'Kontynuując, akceptujesz <a href="/terms">warunki</a>',
      ru: 'Продолжая, вы принимаете <a href="/terms">условия</a>',
      'zh-hans': '继续即表示您接受<a href="/terms">条款</a>',
      'pt-br': 'Ao continuar, você aceita os <a href="/terms">termos</a>',
    },
  },
  {
    key: 'inbox.summary',
    source:
      '{gender, select, female {{count, plural, one {She has # message} other {She has # messages}}} other {{count, plural, one {They have # message} other {They have # messages}}}}',
    values: {
      de: '{gender, select, female {{count, plural, one {Sie hat # Nachricht} other {Sie hat # Nachrichten}}} other {{count, plural, one {Sie haben # Nachricht} other {Sie haben # Nachrichten}}}}',
      pl: '{gender, select, female {{count, plural, one {Ona ma # wiadomość} few {Ona ma # wiadomości} many {Ona ma # wiadomości} other {Ona ma # wiadomości}}} other {{count, plural, one {Mają # wiadomość} few {Mają # wiadomości} many {Mają # wiadomości} other {Mają # wiadomości}}}}',
      ja: '{gender, select, female {{count, plural, other {彼女には#件のメッセージがあります}}} other {{count, plural, other {#件のメッセージがあります}}}}',
    },
  },
  {
    key: 'game.players',
    source:
      '{count, plural, offset:1 =0 {Nobody is playing} =1 {{host} is playing} one {{host} and # other are playing} other {{host} and # others are playing}}',
    values: {
      de: '{count, plural, offset:1 =0 {Niemand spielt} =1 {{host} spielt} one {{host} und # weitere Person spielen} other {{host} und # weitere spielen}}',
      pl: '{count, plural, offset:1 =0 {Nikt nie gra} =1 {{host} gra} one {{host} i # inna osoba grają} few {{host} i # inne osoby grają} many {{host} i # innych osób gra} other {{host} i # innej osoby gra}}',
    },
  },
];

export interface IcuProject extends TestProject {
  versionId: string;
  /** The publish result (formatWarnings among it). */
  published: Schemas['PublishResult'];
  /** GET /translations?version=…&format=…&lang=… of the published version. */
  pull(format: string, lang?: string): Promise<Response>;
}

/** Makes and publishes the fixture project; `formats`: its configured output formats (at most two). */
export async function icuProject(svc: TestService, formats: string[] = []): Promise<IcuProject> {
  const p = await createTestProject(svc, { languages: ICU_LANGS.map((code) => ({ code, fillMode: 'manual' })) });
  const projectId = p.projectId;
  for (const format of formats) {
    const r = await p.client.POST('/projects/{projectId}/output-formats', {
      params: { path: { projectId } },
      // The spec's format enum; a wrong id is the test's own mistake and fails here.
      body: { format: format as 'json' },
    });
    if (r.error) throw new Error(`output format ${format}: ${JSON.stringify(r.error)}`);
  }
  const pushed = await p.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId } },
    body: { units: ICU_KEYS.map(({ key, ctx, source }) => ({ key, source, ...(ctx ? { ctx } : {}) })) },
  });
  if (pushed.error) throw new Error(`push: ${JSON.stringify(pushed.error)}`);
  for (const { key, values } of ICU_KEYS) {
    for (const [lang, value] of Object.entries(values)) {
      const r = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
        params: { path: { projectId, key, lang } },
        body: { value, status: 'approved' },
      });
      if (r.error) throw new Error(`${key} [${lang}]: ${JSON.stringify(r.error)}`);
    }
  }
  const published = await p.client.POST('/projects/{projectId}/publish', { params: { path: { projectId } } });
  if (!published.data) throw new Error(`publish: ${JSON.stringify(published.error)}`);
  const versionId = published.data.versionId;
  const pull = (format: string, lang?: string) =>
    fetch(
      `${svc.baseUrl}/projects/${projectId}/translations?${new URLSearchParams({ version: versionId, format, ...(lang ? { lang } : {}) })}`,
      { headers: { Authorization: `Bearer ${p.apiKey}` } },
    );
  return { ...p, versionId, published: published.data, pull };
}

/** icuProject with its delivery manifest, as a browser or i18next-http-backend reads it from the delivery origin. */
export async function deliveredIcuProject(svc: TestService) {
  const p = await icuProject(svc);
  const manifestUrl = `${svc.deliveryUrl}/projects/${p.projectId}/manifest`;
  const manifest = (await (await fetch(manifestUrl)).json()) as Schemas['Manifest'];
  return { p, manifestUrl, manifest };
}
