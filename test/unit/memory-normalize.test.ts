// What a translation-memory match ignores (server/domain/memory/normalize.ts): case, whitespace and the names of
// placeholders of every kind, and how a stored target's placeholders are renamed into the request's.
import test from 'ava';
import {
  adaptTarget,
  indexTokens,
  indexWords,
  normKey,
  normalize,
  placeholderMap,
  readParts,
} from '../../server/domain/memory/normalize.js';

const same = (a: string, b: string) => normalize(a).norm === normalize(b).norm;

test('case and runs of whitespace do not count; words and punctuation do', (t) => {
  t.true(same('Save  the\tfile ', 'save the FILE'));
  t.true(same('ÉCRAN', 'écran'));
  t.false(same('Save the file', 'Save the file.'));
  t.false(same('Save the file', 'Save a file'));
  // Composed and decomposed forms of one letter are one text.
  t.true(same('Cafe\u0301', 'Café'));
});

test('ICU arguments: names do not count, their order and format do', (t) => {
  t.true(same('Hello {name}', 'Hello {user}'));
  t.true(same('Hello { name }', 'Hello {user}'));
  t.true(same('{a} of {b}', '{x} of {y}'));
  t.false(same('{a} of {a}', '{x} of {y}'), 'one argument twice is not two arguments');
  t.false(same('{n} files', '{n, number} files'), 'a format is part of the meaning');
  t.true(same('{n, number} files', '{count, number} files'));
  t.true(same('On {d, date, short}', 'On {when, date,short}'));
  // ICU without any plural: a message of arguments only.
  t.true(same('{user} shared {file} with {team}', '{a} shared {b} with {c}'));
});

test('a plural or select keeps its branches as text, its argument as a placeholder', (t) => {
  const a = '{count, plural, one {# file} other {# files}}';
  t.true(same(a, '{n, plural, one {# file} other {# files}}'));
  t.false(same(a, '{n, plural, one {# item} other {# items}}'));
  t.true(same('{g, select, female {She} other {They}} left', '{who, select, female {She} other {They}} left'));
  // A branch holding only a word is not an argument.
  t.true(same('{n, plural, one {file} other {files}}', '{m, plural, one {file} other {files}}'));
  const read = normalize('{count, plural, one {{name} has # file} other {{name} has # files}}');
  t.deepEqual(
    read.placeholders.map((p) => [p.kind, p.name]),
    [
      ['arg', 'count'],
      ['arg', 'name'],
      ['arg', 'name'],
    ],
  );
});

test('printf specifiers, i18next interpolations and tags are placeholders too', (t) => {
  t.true(same('Hello %s', 'Hello %@'));
  t.true(same('%1$s of %2$d', '%1$@ of %2$lld'));
  t.false(same('100%% done', '100% done'), '%% is a percent sign');
  t.true(same('Hello {{name}}', 'Hello {{user}}'));
  t.false(same('Hello {{name}}', 'Hello {name}'), 'an i18next placeholder is not an ICU argument');
  t.true(same('Click <b>here</b>', 'Click <strong>here</strong>'));
  t.true(same('Read <a href="https://a.example">the guide</a>', 'Read <a href="/guide">the guide</a>'));
  t.true(same('Line<br/>break', 'Line<br />break'));
  t.true(same('Press <1>OK</1>', 'Press <0>OK</0>'));
  t.false(same('a <b>x</b>', 'a <b>x<b>'), 'an opening tag is not a closing one');
  t.deepEqual(
    readParts('Hi %1$s, <b>{n}</b> {{x}}').filter((p) => typeof p !== 'string'),
    [
      { kind: 'printf', name: '%1$s', pre: '', post: '' },
      { kind: 'tag', name: '<b>', pre: '', post: '' },
      { kind: 'arg', name: 'n', pre: '{', post: '}' },
      { kind: 'tag', name: '</b>', pre: '', post: '' },
      { kind: 'i18n', name: 'x', pre: '{{', post: '}}' },
    ],
  );
});

test('quoted ICU text and stray braces stay text', (t) => {
  t.false(same("Use '{name}' literally", 'Use {name} literally'));
  t.true(same('a { b', 'A { B'));
  t.deepEqual(normalize("It''s {n}").placeholders.length, 1);
});

test('a stored target gets the request placeholder names', (t) => {
  const map = placeholderMap(normalize('Hello {name}').placeholders, normalize('Hello {user}').placeholders)!;
  t.is(adaptTarget('Hallo {name}!', map), 'Hallo {user}!');
  const swap = placeholderMap(normalize('{a} of {b}').placeholders, normalize('{b} of {a}').placeholders)!;
  t.is(adaptTarget('{b} von {a}', swap), '{a} von {b}', 'names are swapped, not chained');
  const plural = placeholderMap(
    normalize('{count, plural, one {# file} other {# files}}').placeholders,
    normalize('{n, plural, one {# file} other {# files}}').placeholders,
  )!;
  t.is(
    adaptTarget('{count, plural, one {# Datei} other {# Dateien}}', plural),
    '{n, plural, one {# Datei} other {# Dateien}}',
  );
  const i18n = placeholderMap(normalize('Hi {{name}}').placeholders, normalize('Hi {{ user }}').placeholders)!;
  t.is(adaptTarget('Hallo {{name}}', i18n), 'Hallo {{user}}');
  const tags = placeholderMap(
    normalize('Click <b>here</b>').placeholders,
    normalize('Click <i>here</i>').placeholders,
  )!;
  t.is(adaptTarget('<b>Hier</b> klicken', tags), '<i>Hier</i> klicken');
  const printf = placeholderMap(normalize('Hello %s').placeholders, normalize('Hello %@').placeholders)!;
  t.is(adaptTarget('Hallo %s', printf), 'Hallo %@');
  // One stored tag that would have to become two different ones: no certain adaptation.
  t.is(placeholderMap(normalize('<b>x</b> <b>y</b>').placeholders, normalize('<i>x</i> <u>y</u>').placeholders), null);
});

test('index words: prefixes of words, pairs of characters where a script writes no spaces', (t) => {
  t.deepEqual(indexWords(normalize('Delete the files permanently').norm), ['delete', 'the', 'files', 'perman']);
  t.deepEqual(indexWords(normalize('ファイルを削除').norm), ['ファ', 'ァイ', 'イル', 'ルを', 'を削', '削除']);
  t.deepEqual(indexWords(normalize('删除').norm), ['删除']);
  t.deepEqual(indexWords(normalize('ลบไฟล์').norm).length, 5);
  t.deepEqual(indexWords(normalize('iPhone版を削除').norm), ['iphone', '版を', 'を削', '削除']);
  // Placeholders are not words.
  t.deepEqual(indexWords(normalize('{count} files').norm), ['files']);
});

test('index tokens: words and pairs of adjacent words, 32-bit, salted by their memory', (t) => {
  const a = indexTokens(normalize('Open the file').norm, 'w_1\u0000en');
  const b = indexTokens(normalize('Open the file').norm, 'w_2\u0000en');
  t.is(a.length, 5, 'three words, two pairs');
  for (const tok of a) t.true(Number.isInteger(tok) && tok >= 0 && tok < 2 ** 32);
  t.deepEqual(
    a.filter((x) => b.includes(x)),
    [],
  );
  t.deepEqual(a, indexTokens(normalize('OPEN  the file').norm, 'w_1\u0000en'));
  // A repeated word is one token.
  t.is(indexTokens(normalize('go go go').norm, 's').length, 2);
});

test('the lookup key is a safe integer, equal for equal normalised texts', (t) => {
  const k = normKey(normalize('Hello {name}').norm);
  t.true(Number.isSafeInteger(k) && k >= 0);
  t.is(k, normKey(normalize('hello {user}').norm));
  t.not(k, normKey(normalize('Hello {name}!').norm));
});
