// The fill's guards and score (packages/core/src/guard.ts): what goes to the engine as tokens, how an answer's
// tokens are counted and put back, what a value is held to, and the score's formula (docs/guides/translation.md).
import test from 'ava';
import { judgeValue, maskSource, scoreValue, unmask } from '../../packages/core/src/guard.js';

const KEPT = [{ source: 'GitHub', targets: [], nonTranslatable: true }];

test('placeholders, formatted arguments, tags, printf and kept names become tokens; plural structure stays', (t) => {
  t.deepEqual(maskSource('Hi {name}, you have {n, number} <b>new</b> %d items on GitHub', 'en', KEPT), {
    text: 'Hi ⟦1⟧, you have ⟦2⟧ ⟦3⟧new⟦4⟧ ⟦5⟧ items on ⟦6⟧',
    tokens: ['{name}', '{n, number}', '<b>', '</b>', '%d', 'GitHub'],
    counts: [1, 1, 1, 1, 1, 1],
    branched: false,
  });
  const plural = maskSource('{count, plural, one {# file by {user}} other {# files by {user}}}', 'en');
  t.is(plural?.text, '{count, plural, one {# file by ⟦1⟧} other {# files by ⟦1⟧}}');
  t.true(plural?.branched);
  t.is(maskSource('Read the <a href="/terms">terms</a>', 'en')?.text, 'Read the ⟦1⟧terms⟦2⟧');
  t.is(maskSource('Nothing to keep', 'en'), null, 'no token: the source goes as it is');
  t.is(maskSource('Sneaky ⟦1⟧ {x}', 'en'), null, 'a source holding the brackets is not masked');
  t.is(maskSource('Broken {', 'en'), null);
});

test('pseudo: kept names and the uses of terms with a required translation alone, spelled as that translation', (t) => {
  const terms = [
    ...KEPT,
    { source: 'account', targets: ['Konto'] },
    { source: 'password', targets: ['Kennwort'], forbidden: true },
    { source: 'user', targets: [] },
  ];
  const m = maskSource(
    '{n, plural, one {# account} other {# Accounts}} of {user} on GitHub, password',
    'en',
    terms,
    'pseudo',
  )!;
  // Argument names and structure stay as written; a forbidden term and a term without a translation are not spelled.
  t.is(m.text, '{n, plural, one {# ⟦1⟧} other {# ⟦1⟧}} of {user} on ⟦2⟧, password');
  t.deepEqual(m.tokens, ['Konto', 'GitHub']);
  t.deepEqual(unmask('{n, plural, one {# ⟦1⟧} other {# ⟦1⟧}} öƒ {user} öñ ⟦2⟧', m), {
    value: '{n, plural, one {# Konto} other {# Konto}} öƒ {user} öñ GitHub',
  });
  t.is(maskSource('Hi {name}', 'en', terms, 'pseudo'), null, 'nothing of the termbase: no token');
  // A translation holding ICU syntax goes in as text: the value stays the message it was.
  const odd = maskSource('Open the account', 'en', [{ source: 'account', targets: ["{Konto} #1 l'"] }], 'pseudo')!;
  t.deepEqual(unmask('Öffne ⟦1⟧', odd), { value: "Öffne '{'Konto'}' '#'1 l''" });
});

test('an answer is held to its tokens: missing, repeated, unknown; its original spelling counts as kept', (t) => {
  const m = maskSource('Hello {name}', 'en')!;
  t.deepEqual(unmask('Hallo ⟦1⟧', m), { value: 'Hallo {name}' });
  t.deepEqual(unmask('Hallo {name}', m), { value: 'Hallo {name}' });
  t.regex((unmask('Hallo', m) as { problem: string }).problem, /⟦1⟧ \(\{name\}\) is missing/);
  t.regex((unmask('Hallo ⟦1⟧ ⟦1⟧', m) as { problem: string }).problem, /appears 2 times/);
  t.regex((unmask('Hallo ⟦1⟧ ⟦2⟧', m) as { problem: string }).problem, /⟦2⟧ is not in the source/);
  const plural = maskSource('{count, plural, one {# by {user}} other {# by {user}}}', 'en')!;
  t.deepEqual(
    unmask('{count, plural, one {# von ⟦1⟧} few {# von ⟦1⟧} many {# von ⟦1⟧} other {# von ⟦1⟧}}', plural),
    { value: '{count, plural, one {# von {user}} few {# von {user}} many {# von {user}} other {# von {user}}}' },
    'a token in every branch, however many branches the language has',
  );
});

test('a value is held to ICU with the language’s plural categories (hard) and to terms and length (soft)', (t) => {
  const input = { source: '{count, plural, one {# file} other {# files}}', sourceLang: 'en', targetLang: 'ru' };
  t.regex(judgeValue('{count, plural, one {# файл} other {# файлов}}', input).hard ?? '', /lacks few, many/);
  t.regex(judgeValue('{count, plural, one {# файл', input).hard ?? '', /invalid ICU/);
  t.deepEqual(judgeValue('{count, plural, one {# файл} few {# файла} many {# файлов} other {# файла}}', input), {
    value: '{count, plural, one {# файл} few {# файла} many {# файлов} other {# файла}}',
    soft: [],
  });
  const terms = [{ source: 'account', targets: ['Konto'] }];
  const v = judgeValue('Dein Benutzerprofil speichern', {
    source: 'Save your account',
    sourceLang: 'en',
    targetLang: 'de',
    terms,
    maxLength: 12,
  });
  t.is(v.value, 'Dein Benutzerprofil speichern');
  t.deepEqual(v.soft, ['term: “account” is translated as “Konto”', 'length: 29 characters; the limit is 12']);
});

test('the score: penalties of the checks, memory agreement, and the engine’s confidence only lowering it', (t) => {
  t.deepEqual(scoreValue({ value: 'x' }), { score: 1, reason: 'placeholders, terms and length checked' });
  t.deepEqual(scoreValue({ value: 'x', failures: ['term: a', 'term: b', 'term: c'], repaired: true }), {
    score: 0.4,
    reason: '3 terms not followed; needed a repair request',
  });
  t.is(scoreValue({ value: 'x', failures: ['length: 20 characters; the limit is 12'] }).score, 0.7);
  t.deepEqual(scoreValue({ value: 'Konto', references: [{ target: 'Konto', score: 100 }] }), {
    score: 1,
    reason: 'agrees with a 100% memory match',
  });
  t.is(scoreValue({ value: 'Account', references: [{ target: 'Konto', score: 100 }] }).score, 0.85);
  t.is(scoreValue({ value: 'Account', references: [{ target: 'Konto', score: 80 }] }).score, 1, 'a fuzzy match');
  t.deepEqual(scoreValue({ value: 'x', confidence: 0.5 }), { score: 0.8, reason: 'engine confidence 0.5' });
  t.is(scoreValue({ value: 'x', confidence: 1, repaired: true }).score, 0.9, 'confidence never raises it');
});
