// Termbase files in the core (packages/core/src/formats/tbx.ts, terms-csv.ts): what is written is read back, the
// delimiters and encodings other tools save in, and the refusals of hostile files before anything is parsed.
import test from 'ava';
import { parseTermsCsv, writeTermsCsv } from '../../packages/core/src/formats/terms-csv.js';
import { parseTbx, writeTbx } from '../../packages/core/src/formats/tbx.js';
import { TermFileError, type TermEntry } from '../../packages/core/src/terms/entry.js';

const isEnglish = (l: string) => /^en([-_]|$)/i.test(l);
const dict = (o: Record<string, string>) => Object.assign(Object.create(null) as Record<string, string>, o);

const ENTRIES: TermEntry[] = [
  {
    text: 'account',
    description: 'Sign-in account, "not" a bank account;\nsee: profile',
    partOfSpeech: 'noun',
    forbidden: false,
    nonTranslatable: false,
    caseSensitive: false,
    abbreviation: false,
    translations: dict({ de: 'Konto', fr: 'compte' }),
  },
  {
    text: 'GitHub',
    description: null,
    partOfSpeech: 'proper noun',
    forbidden: false,
    nonTranslatable: true,
    caseSensitive: true,
    abbreviation: false,
    translations: dict({}),
  },
  {
    text: 'PIN',
    description: null,
    partOfSpeech: null,
    forbidden: true,
    nonTranslatable: false,
    caseSensitive: false,
    abbreviation: true,
    translations: dict({ de: 'Geheimzahl' }),
  },
];
const plain = (es: TermEntry[]) => es.map((e) => ({ ...e, translations: { ...e.translations } }));

test('CSV: what writeTermsCsv writes, parseTermsCsv reads back', (t) => {
  const csv = writeTermsCsv(ENTRIES, ['de', 'fr']);
  t.true(
    csv.startsWith('\uFEFFterm,description,partofspeech,translatable,casesensitive,abbreviation,forbidden,de,fr\r\n'),
  );
  const back = parseTermsCsv(csv, { isSource: isEnglish });
  t.is(back.layout, 'glossa');
  t.deepEqual(plain(back.entries), plain(ENTRIES));
});

test('TBX: what writeTbx writes, parseTbx reads back, from bytes in UTF-8 or UTF-16', (t) => {
  const text = writeTbx({ sourceLanguage: 'en' }, ENTRIES);
  t.deepEqual(plain(parseTbx(text, { isSource: isEnglish }).entries), plain(ENTRIES));
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text.replace('UTF-8', 'UTF-16'), 'utf16le')]);
  t.deepEqual(plain(parseTbx(utf16, { isSource: isEnglish }).entries), plain(ENTRIES));
});

test('CSV delimiters are read from the header: comma, semicolon, tab', (t) => {
  for (const d of [',', ';', '\t']) {
    const csv = [
      ['term', 'description', 'de'].join(d),
      ['account', 'a; b, c', 'Konto'].map((c) => `"${c}"`).join(d),
    ].join('\n');
    const [e] = parseTermsCsv(csv, { isSource: isEnglish }).entries;
    t.is(e.description, 'a; b, c', JSON.stringify(d));
    t.deepEqual({ ...e.translations }, { de: 'Konto' });
  }
});

test('a CSV of language columns only (DeepL, spreadsheets), the base language in any column', (t) => {
  const r = parseTermsCsv('de,en-US,fr\nKonto,account,compte\n,,\n', { isSource: isEnglish });
  t.is(r.layout, 'languages');
  t.deepEqual(plain(r.entries), [{ text: 'account', translations: { de: 'Konto', fr: 'compte' } }]);
});

test('a CSV column that names no language is refused, never taken as a key (`__proto__`)', (t) => {
  const e = t.throws(() => parseTermsCsv('term,__proto__\naccount,x\n', { isSource: isEnglish }));
  t.regex(e.message, /__proto__/);
});

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof TermFileError) return e.code;
    throw e;
  }
  return 'accepted';
};

test('hostile TBX is refused before parsing: size, DTD declarations, entities, controls', (t) => {
  const tbx = writeTbx({ sourceLanguage: 'en' }, ENTRIES);
  t.is(
    refusal(() => parseTbx(tbx, { isSource: isEnglish, maxBytes: 100 })),
    'too_large',
  );
  const withDecl = tbx.replace('<martif', '<!DOCTYPE martif [<!ENTITY a "b">]>\n<martif');
  t.is(
    refusal(() => parseTbx(withDecl, { isSource: isEnglish })),
    'invalid_argument',
  );
  t.is(
    refusal(() =>
      parseTbx(tbx.replace('<martif', '<!DOCTYPE martif SYSTEM "TBXBasiccoreStructV02.dtd">\n<martif'), {
        isSource: isEnglish,
      }),
    ),
    'accepted',
    'an external DTD named, never fetched',
  );
  t.is(
    refusal(() => parseTbx(tbx.replace('Konto', '&ouml;'), { isSource: isEnglish })),
    'invalid_argument',
  );
  t.is(
    refusal(() => parseTbx(tbx.replace('Konto', '&#1;'), { isSource: isEnglish })),
    'invalid_argument',
  );
  t.is(
    refusal(() => parseTbx(tbx.replace('Konto', 'K\u0007'), { isSource: isEnglish })),
    'invalid_argument',
  );
  t.is(
    refusal(() => parseTbx(Buffer.from([0x3c, 0xc3, 0x28]), { isSource: isEnglish })),
    'invalid_argument',
  );
  t.is(
    refusal(() => parseTbx('<tmx version="1.4"/>', { isSource: isEnglish })),
    'format_mismatch',
  );
  t.is(
    refusal(() => parseTermsCsv(tbx, { isSource: isEnglish })),
    'format_mismatch',
  );
  t.is(
    refusal(() => parseTbx('term,de', { isSource: isEnglish })),
    'format_mismatch',
  );
});

test('TBX 2019 (`<tbx>`, conceptEntry/langSec/termSec) with a namespace, and ntig/termGrp of TBX 2008', (t) => {
  const v3 = `<?xml version="1.0"?><tbx type="TBX-Basic" style="dca" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2"><tbxHeader/><text><body>
    <conceptEntry id="c1"><langSec xml:lang="en-US"><termSec><term>sign <hi>in</hi></term><termNote type="termType">phrase</termNote></termSec></langSec>
    <langSec xml:lang="de"><termSec><term>anmelden</term></termSec><termSec><term>einloggen</term><termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote></termSec></langSec></conceptEntry>
  </body></text></tbx>`;
  t.deepEqual(
    plain(parseTbx(v3, { isSource: isEnglish }).entries).map((e) => [e.text, e.forbidden, e.translations]),
    [
      ['sign in', false, { de: 'anmelden' }],
      ['sign in', true, { de: 'einloggen' }],
    ],
  );
});
