// The score of a memory entry against a request (server/domain/memory/score.ts) and the leverage bands.
import test from 'ava';
import {
  bandOf,
  compareMatches,
  matchRequest,
  scoreMatch,
  similarity,
  trusted,
} from '../../server/domain/memory/score.js';
import { normalize } from '../../server/domain/memory/normalize.js';

const entry = (source: string, target: string, ctx: string | null = null, key: string | null = null) => ({
  source,
  target,
  ctx,
  key,
});

test('101 in context: the same source, ctx and key name', (t) => {
  const r = matchRequest('Open', 'verb', 'file.open');
  t.is(scoreMatch(r, entry('Open', 'Öffnen', 'verb', 'file.open')).score, 101);
  t.is(scoreMatch(r, entry('Open', 'Öffnen', 'verb', 'menu.open')).score, 100, 'another key');
  t.is(scoreMatch(r, entry('open', 'öffnen', 'verb', 'file.open')).score, 100, 'the source as written differs');
  t.is(
    scoreMatch(matchRequest('Open', 'verb'), entry('Open', 'Öffnen', 'verb', 'file.open')).score,
    100,
    'no key asked',
  );
});

test('a ctx that differs caps the score at 99, exact text or not', (t) => {
  t.is(scoreMatch(matchRequest('Open', 'adjective'), entry('Open', 'Öffnen', 'verb')).score, 99);
  t.is(scoreMatch(matchRequest('Open', null), entry('Open', 'Öffnen', 'verb')).score, 99);
  t.is(scoreMatch(matchRequest('Open', 'verb'), entry('Open', 'Geöffnet', null)).score, 99);
  t.true(scoreMatch(matchRequest('Open the file', 'x'), entry('Open the files', 'y', 'z')).score < 99);
});

test('100 after normalisation, with the placeholders renamed into the request', (t) => {
  const m = scoreMatch(matchRequest('Hello {user}'), entry('Hello {name}', 'Hallo {name}'));
  t.deepEqual(m, { score: 100, target: 'Hallo {user}' });
  t.is(scoreMatch(matchRequest('HELLO   {user}'), entry('Hello {name}', 'Hallo {name}')).score, 100);
  // Placeholders that cannot map one to one: a reference only.
  t.is(scoreMatch(matchRequest('<i>x</i> <u>y</u>'), entry('<b>x</b> <b>y</b>', '<b>x</b> <b>y</b>')).score, 99);
});

test('fuzzy: the better of the character and the word similarity, floored, under 100', (t) => {
  // One word of four changed: words 3/4.
  t.is(scoreMatch(matchRequest('Delete this file forever'), entry('Delete this file permanently', 'x')).score, 75);
  // One letter added: characters 9/10.
  t.is(scoreMatch(matchRequest('Save files'), entry('Save file', 'x')).score, 90);
  t.is(similarity('abc', 'abc'), 1);
  t.is(similarity('', ''), 1);
  t.is(similarity('abc', 'xyz'), 0);
  // A long text with a tiny change floors at 99, never 100.
  const long = 'word '.repeat(300);
  t.is(scoreMatch(matchRequest(`${long}a`), entry(`${long}b`, 'x')).score, 99);
  // A placeholder counts as one character: 6 of 7 characters.
  t.is(scoreMatch(matchRequest('{veryLongArgumentName} files'), entry('{n} file', 'x')).score, 85);
});

test('CJK is compared character by character', (t) => {
  const s = scoreMatch(matchRequest('ファイルを削除しますか'), entry('ファイルを削除しました', 'x')).score;
  t.is(s, 81);
  t.is(similarity(normalize('删除文件').norm, normalize('删除文件夹').norm), 0.8);
});

test('bands and order', (t) => {
  t.deepEqual([101, 100, 99, 95, 94, 85, 84, 75, 74, 50, 49, null].map(bandOf), [
    '101',
    '100',
    '95-99',
    '95-99',
    '85-94',
    '85-94',
    '75-84',
    '75-84',
    '50-74',
    '50-74',
    'none',
    'none',
  ]);
  t.false(trusted({ origin: 'ai', status: 'translated' }));
  t.true(trusted({ origin: 'ai', status: 'reviewed' }));
  t.true(trusted({ origin: 'edit', status: 'translated' }));
  t.true(trusted({ origin: 'import', status: 'translated' }));
  const m = (score: number, status: string, origin: string, updatedAt = 0) => ({ score, status, origin, updatedAt });
  const sorted = [
    m(100, 'translated', 'ai'),
    m(100, 'approved', 'ai'),
    m(99, 'approved', 'edit'),
    m(100, 'reviewed', 'edit'),
    m(100, 'translated', 'edit', 5),
  ].sort(compareMatches);
  t.deepEqual(
    sorted.map((x) => `${x.score} ${x.status} ${x.origin}`),
    ['100 approved ai', '100 reviewed edit', '100 translated edit', '100 translated ai', '99 approved edit'],
  );
});
