// The termbase's matcher (packages/core/src/terms/): terms found in sources in their inflected forms in ten
// languages, multi-word terms, case, abbreviations, Unicode word edges, scripts written without spaces, and the
// glossary check's holding of a translation to the terms (required in any form, forbidden in none, names kept).
import test from 'ava';
import type { Term } from '../../packages/core/src/checks/types.js';
import { glossaryFindings } from '../../packages/core/src/terms/check.js';
import { leftmostLongest, TermIndex, type TermPattern } from '../../packages/core/src/terms/matcher.js';
import { stemPolish } from '../../packages/core/src/terms/polish.js';

/** The texts of `text` that the patterns match, with the pattern's text, in order. */
function found(patterns: Array<TermPattern | string>, lang: string, text: string): string[] {
  const ps = patterns.map((p) => (typeof p === 'string' ? { text: p } : p));
  return new TermIndex(ps, lang).find(text).map((h) => `${ps[h.pattern].text}=${text.slice(h.start, h.end)}`);
}

// One term per language and a sentence using it in inflected forms (plural, case endings), each a real form.
const INFLECTED: Array<{ lang: string; term: string; text: string; forms: string[] }> = [
  { lang: 'en', term: 'account', text: "Delete the accounts and the account's files", forms: ['accounts', 'account'] },
  {
    lang: 'de',
    term: 'Benutzer',
    text: 'Die Rechte des Benutzers gelten für allen Benutzern',
    forms: ['Benutzers', 'Benutzern'],
  },
  {
    lang: 'fr',
    term: 'fichier',
    text: 'Supprimer les fichiers du dossier et le fichier',
    forms: ['fichiers', 'fichier'],
  },
  { lang: 'es', term: 'cuenta', text: 'Tus cuentas y la cuenta principal', forms: ['cuentas', 'cuenta'] },
  { lang: 'pt', term: 'arquivo', text: 'Os arquivos foram enviados', forms: ['arquivos'] },
  { lang: 'it', term: 'fattura', text: 'Scarica le fatture del mese', forms: ['fatture'] },
  { lang: 'nl', term: 'gebruiker', text: "Alle gebruikers en hun foto's", forms: ['gebruikers'] },
  {
    lang: 'ru',
    term: 'пользователь',
    text: 'Список пользователей и права пользователя',
    forms: ['пользователей', 'пользователя'],
  },
  {
    lang: 'pl',
    term: 'plik',
    text: 'Usuń pliki z folderu, nie ma plików ani plikach',
    forms: ['pliki', 'plików', 'plikach'],
  },
  { lang: 'sv', term: 'användare', text: 'Användaren och alla användarna', forms: ['Användaren', 'användarna'] },
];

for (const c of INFLECTED)
  test(`${c.lang}: “${c.term}” is found in its inflected forms`, (t) => {
    t.deepEqual(
      found([c.term], c.lang, c.text),
      c.forms.map((f) => `${c.term}=${f}`),
    );
  });

test('Russian ё and е are one letter for matching (счёт, счета, счетов)', (t) => {
  t.deepEqual(found(['счёт'], 'ru', 'Ваши счета и история счетов'), ['счёт=счета', 'счёт=счетов']);
});

test('the light Polish stemmer: case endings of nouns, and rz before -e', (t) => {
  for (const [word, stem] of [
    ['faktura', 'faktur'],
    ['faktury', 'faktur'],
    ['fakturze', 'faktur'],
    ['fakturę', 'faktur'],
    ['fakturami', 'faktur'],
    ['użytkownikowi', 'użytkownik'],
    ['użytkownikiem', 'użytkownik'],
    ['kot', 'kot'],
    ['ul', 'ul'],
  ])
    t.is(stemPolish(word), stem, word);
});

test('a language without a stemmer matches the exact words, case aside', (t) => {
  t.deepEqual(found(['tili'], 'et', 'Sinu tili ja Tili'), ['tili=tili', 'tili=Tili']);
  t.deepEqual(found(['tili'], 'et', 'tilid'), []);
});

test('multi-word terms match word for word, each word inflected; a longer term and its part both match', (t) => {
  t.deepEqual(found(['user account', 'account'], 'en', 'Two user accounts'), [
    'user account=user accounts',
    'account=accounts',
  ]);
  t.deepEqual(found(['sign in'], 'en', 'Sign-in failed; please sign in again'), ['sign in=Sign-in', 'sign in=sign in']);
  t.deepEqual(found(['user account'], 'en', 'user settings of the account'), []);
  const idx = new TermIndex([{ text: 'user account' }, { text: 'account' }], 'en');
  t.deepEqual(
    leftmostLongest(idx.find('user accounts')).map((h) => h.pattern),
    [0],
    'the editor highlights the longest term',
  );
});

test('case-sensitive terms match their case, inflected forms included; others match any case', (t) => {
  t.deepEqual(found([{ text: 'Apple', caseSensitive: true }], 'en', 'Apples, apple, APPLE'), ['Apple=Apples']);
  t.deepEqual(found(['apple'], 'en', 'Apples, apple, APPLE'), ['apple=Apples', 'apple=apple', 'apple=APPLE']);
});

test('abbreviations match their exact words only: not inflected, not in another case', (t) => {
  t.deepEqual(found([{ text: 'PIN', exact: true }], 'en', 'Your PIN, pins, pin, PINs and the PIN’s digits'), [
    'PIN=PIN',
    'PIN=PIN',
  ]);
});

test('words end at Unicode word edges: a term is never found inside a word, in any script', (t) => {
  t.deepEqual(found(['art'], 'en', 'party cart art-house'), ['art=art']);
  t.deepEqual(
    found(['café'], 'fr', 'Le cafe\u0301 et les cafés'),
    ['café=cafe\u0301', 'café=cafés'],
    'NFD text, NFC term',
  );
  t.deepEqual(found(['кот'], 'ru', 'котлета и кот'), ['кот=кот']);
  t.deepEqual(found(['ab'], 'en', 'ab1 1ab ab'), ['ab=ab']);
  t.deepEqual(found(['naïve'], 'en', 'naïveté naïve'), ['naïve=naïve']);
});

test('terms written with other characters than letters match as substrings that cut no word', (t) => {
  t.deepEqual(found(['C++', '.NET', 'R&D'], 'en', 'C++11 and C+, ASP.NET, .NETWORK, R&D team'), [
    'C++=C++',
    '.NET=.NET',
    'R&D=R&D',
  ]);
});

test('Chinese, Japanese, Korean and Thai terms match as substrings (no spaces between words)', (t) => {
  t.deepEqual(found(['账户'], 'zh', '删除账户吗？您的账户将被删除'), ['账户=账户', '账户=账户']);
  t.deepEqual(found(['アカウント'], 'ja', 'アカウントを作成してください'), ['アカウント=アカウント']);
  t.deepEqual(found(['계정'], 'ko', '계정을 삭제하시겠습니까? 계정이'), ['계정=계정', '계정=계정']);
  t.deepEqual(found(['บัญชี'], 'th', 'ลบบัญชีของคุณ'), ['บัญชี=บัญชี']);
  t.deepEqual(found(['iPhone'], 'ja', 'iPhoneで撮影'), ['iPhone=iPhone'], 'a Latin term inside Japanese text');
});

test('one index holds 10,000 terms and finds each of them', (t) => {
  const words = Array.from({ length: 10_000 }, (_, i) => `term${i.toString(36)} word${i % 97}`);
  const idx = new TermIndex(
    words.map((text) => ({ text })),
    'en',
  );
  t.deepEqual(
    idx.find(`see ${words[4321]} and ${words[9999]}s`).map((h) => h.pattern),
    [4321, 9999],
  );
});

// The glossary check's rules (the check engine's `glossary`, packages/core/src/checks/rules/translation.ts).
const check = (terms: Term[], source: string, target: string, targetLang: string) =>
  glossaryFindings(terms, source, target, 'en', targetLang).map((f) => f.message);

const TARGETS: Array<{ lang: string; translation: string; good: string; bad: string }> = [
  { lang: 'de', translation: 'Datei', good: 'Alle Dateien löschen', bad: 'Alle Akten löschen' },
  { lang: 'fr', translation: 'fichier', good: 'Supprimer tous les fichiers', bad: 'Supprimer tous les documents' },
  { lang: 'es', translation: 'archivo', good: 'Eliminar todos los archivos', bad: 'Eliminar todos los ficheros' },
  { lang: 'pt', translation: 'ficheiro', good: 'Eliminar todos os ficheiros', bad: 'Eliminar todos os arquivos' },
  { lang: 'it', translation: 'documento', good: 'Elimina tutti i documenti', bad: 'Elimina tutti i file' },
  { lang: 'nl', translation: 'bestand', good: 'Alle bestanden verwijderen', bad: 'Alle documenten verwijderen' },
  { lang: 'ru', translation: 'файл', good: 'Удалить все файлы', bad: 'Удалить все документы' },
  { lang: 'pl', translation: 'plik', good: 'Usuń wszystkie pliki', bad: 'Usuń wszystkie dokumenty' },
  { lang: 'sv', translation: 'fil', good: 'Ta bort alla filerna', bad: 'Ta bort alla dokument' },
];

for (const c of TARGETS)
  test(`${c.lang}: a required translation is found in an inflected form of the translation`, (t) => {
    const terms: Term[] = [{ source: 'file', targets: [c.translation] }];
    t.deepEqual(check(terms, 'Delete all files', c.good, c.lang), []);
    t.deepEqual(check(terms, 'Delete all files', c.bad, c.lang), [`“file” is translated as “${c.translation}”`]);
  });

test('a forbidden translation is found in any form, with where it stands', (t) => {
  const terms: Term[] = [{ source: 'file', targets: ['Akte'], forbidden: true }];
  const f = glossaryFindings(terms, 'Delete the files', 'Die Akten löschen', 'en', 'de');
  t.deepEqual(f, [{ message: '“Akten” is not to be used for “file”', spans: [{ start: 4, end: 9 }] }]);
  t.deepEqual(check(terms, 'Delete the files', 'Die Dateien löschen', 'de'), []);
  t.deepEqual(check(terms, 'Delete the folder', 'Die Akten löschen', 'de'), [], 'only where the source uses the term');
});

test('a non-translatable term is kept as written, in its case', (t) => {
  const terms: Term[] = [{ source: 'GitHub', targets: [], nonTranslatable: true }];
  t.deepEqual(check(terms, 'Sign in with GitHub', 'Mit GitHub anmelden', 'de'), []);
  t.deepEqual(check(terms, 'Sign in with GitHub', 'Mit Github anmelden', 'de'), [
    '“GitHub” is kept as it is, not translated',
  ]);
  t.deepEqual(check(terms, 'Sign in with GitHub', 'Connexion avec GitHub', 'fr'), []);
});

test('terms of the same text are one requirement: any of their translations will do', (t) => {
  const terms: Term[] = [
    { source: 'account', targets: ['Konto'] },
    { source: 'account', targets: ['Benutzerkonto'] },
  ];
  t.deepEqual(check(terms, 'Your account', 'Ihr Benutzerkonto', 'de'), []);
  t.deepEqual(check(terms, 'Your account', 'Ihr Zugang', 'de'), [
    '“account” is translated as “Konto” or “Benutzerkonto”',
  ]);
});

test('abbreviations and case-sensitive terms are held to their case on both sides', (t) => {
  const terms: Term[] = [{ source: 'PIN', targets: ['PIN'], abbreviation: true }];
  t.deepEqual(check(terms, 'Enter your pin code', 'Code eingeben', 'de'), [], 'pin is not PIN');
  t.deepEqual(check(terms, 'Enter your PIN', 'Geben Sie Ihre Pin ein', 'de'), ['“PIN” is translated as “PIN”']);
  t.deepEqual(check(terms, 'Enter your PIN', 'Geben Sie Ihre PIN ein', 'de'), []);
});

test('Japanese targets: a required translation found as a substring', (t) => {
  const terms: Term[] = [{ source: 'account', targets: ['アカウント'] }];
  t.deepEqual(check(terms, 'Delete your account', 'アカウントを削除', 'ja'), []);
  t.deepEqual(check(terms, 'Delete your account', '口座を削除', 'ja'), ['“account” is translated as “アカウント”']);
});

test('no terms, or none the source uses: nothing to say', (t) => {
  t.deepEqual(check([], 'Delete', 'Löschen', 'de'), []);
  t.deepEqual(check([{ source: 'file', targets: ['Datei'] }], 'Delete', 'Löschen', 'de'), []);
});
