// ICU arguments as printf specifiers for Android and Apple files, numbered by the source's order.
import test from 'ava';
import {
  ANDROID,
  APPLE,
  argOrder,
  icuToPrintf,
  orderOf,
  printfSpecifiers,
  printfToIcu,
} from '../../packages/core/src/printf.js';

test('arguments are numbered by their first appearance in the source, in every language', (t) => {
  const order = argOrder('{user} shared {file} with {team}');
  t.deepEqual(order, ['user', 'file', 'team']);
  t.is(icuToPrintf('{team}: {user} hat {file} geteilt', [...order], ANDROID), '%3$s: %1$s hat %2$s geteilt');
  t.is(icuToPrintf('{user} shared {file}', [...order], APPLE), '%1$@ shared %2$@');
  t.is(icuToPrintf('{n, number} items', ['n'], APPLE), '%1$lld items');
});

test("a plural branch's # is its count; a literal % is doubled once the string is formatted", (t) => {
  const order = orderOf({
    kind: 'plural',
    arg: 'count',
    forms: { one: '# file in {folder}', other: '# files in {folder}' },
  });
  t.deepEqual(order, ['count', 'folder']);
  t.is(icuToPrintf('# Dateien in {folder}', [...order], ANDROID, 'count'), '%1$d Dateien in %2$s');
  t.is(icuToPrintf('# files, 100% done', [...order], ANDROID, 'count'), '%1$d files, 100%% done');
});

test('values without ICU arguments, or that printf cannot express, are written unchanged', (t) => {
  for (const text of ['%1$s of %2$s', "Don't stop", '100%', 'Plain text']) t.is(icuToPrintf(text, [], ANDROID), text);
  t.is(icuToPrintf('{g, select, a {x} other {y}}', ['g'], ANDROID), '{g, select, a {x} other {y}}');
  t.is(icuToPrintf('{broken', [], ANDROID), '{broken');
});

test('printfSpecifiers finds every conversion with its length modifier, position and precision', (t) => {
  const text = 'a %lld b %1$@ c %.2f d %% e %d %s %1$s %@ %ld %zu %hd %-5.1f %u 50% off';
  t.deepEqual(
    printfSpecifiers(text).map((s) => s.spec),
    ['%lld', '%1$@', '%.2f', '%%', '%d', '%s', '%1$s', '%@', '%ld', '%zu', '%hd', '%-5.1f', '%u'],
  );
  for (const s of printfSpecifiers(text)) t.is(text.slice(s.index, s.index + s.spec.length), s.spec);
  t.deepEqual(printfSpecifiers('No printf {name} here'), []);
});

test("printfToIcu reads a platform file's specifiers back as the source's ICU arguments (the import route)", (t) => {
  const order = argOrder('{user} shared {file} with {team}');
  for (const style of [ANDROID, APPLE]) {
    const text = '{team}: {user} hat {file} geteilt, 100% sicher';
    t.is(printfToIcu(icuToPrintf(text, [...order], style), order), text);
  }
  t.is(printfToIcu('%s und %@', ['a', 'b']), '{a} und {b}');
  t.is(printfToIcu('%1$lld Dateien', ['count'], 'count'), '# Dateien');
  t.is(printfToIcu('%1$d von %2$s', ['count', 'who'], 'count'), '# von {who}');
  t.is(printfToIcu('%3$s bleibt', ['a']), '%3$s bleibt', 'a specifier past the source is left for the gate');
});
