// TMX 1.4b (packages/core/src/formats/tmx.ts): a memory written and read back, the streaming writer, files in the
// shape Trados, memoQ, OmegaT and translate-toolkit write (inline codes, several languages per unit, `*all*`,
// UTF-16), language matching, and every file the import must refuse. Pure functions; the real consumer
// (translate-toolkit) is in test/e2e/standalone/tmx-tools.test.ts.
import test, { type ExecutionContext } from 'ava';
import { FormatError } from '../../packages/core/src/catalog.js';
import {
  parseTmx,
  TMX_MAX_BYTES,
  tmxChunks,
  tmxDate,
  TmxError,
  tmxStream,
  writeTmx,
  type TmxEntry,
  type TmxHeader,
  type TmxParsed,
  type TmxSkippedPair,
  type TmxParseOptions,
  type TmxRefusal,
} from '../../packages/core/src/formats/tmx.js';

const T1 = Date.UTC(2024, 0, 15, 10, 30, 0);
const T2 = Date.UTC(2025, 5, 1, 23, 59, 59);

/** A memory as the translation memory holds it: every field, scripts of several kinds, ICU and tags as text. */
const MEMORY: Required<TmxEntry>[] = [
  {
    sourceLanguage: 'en',
    targetLanguage: 'de',
    source: 'Hello {name}',
    target: 'Hallo {name}',
    ctx: 'greeting on the home screen',
    key: 'home.hello',
    project: 'p_demo',
    origin: 'human',
    status: 'approved',
    createdAt: T1,
    updatedAt: T2,
  },
  {
    sourceLanguage: 'en',
    targetLanguage: 'fr',
    source: 'Click <b>here</b> & "save" \'now\' ]]>',
    target: 'Cliquez <b>ici</b> & « enregistrez » ]]>',
    ctx: null,
    key: 'save.hint',
    project: 'p_demo',
    origin: 'ai',
    status: 'translated',
    createdAt: T1,
    updatedAt: T1,
  },
  {
    sourceLanguage: 'en',
    targetLanguage: 'ja',
    source: '{count, plural, one {# file} other {# files}}',
    target: '{count, plural, other {#個のファイル}}',
    ctx: null,
    key: null,
    project: null,
    origin: null,
    status: null,
    createdAt: null,
    updatedAt: null,
  },
  {
    sourceLanguage: 'en',
    targetLanguage: 'ar',
    source: 'Welcome, {name}! 🎉',
    target: 'مرحبًا، {name}! 🎉',
    ctx: 'RTL',
    key: 'welcome',
    project: 'p_demo',
    origin: 'human',
    status: 'reviewed',
    createdAt: T2,
    updatedAt: T2,
  },
  {
    sourceLanguage: 'en',
    targetLanguage: 'he',
    source: '  Two lines\nand a tab\there, a CR\r\nend  ',
    target: '  שתי שורות\nוטאב\tכאן, CR\r\nסוף  ',
    ctx: 'whitespace <is> text',
    key: 'ws',
    project: 'p_demo',
    origin: 'human',
    status: 'approved',
    createdAt: T1,
    updatedAt: T2,
  },
  {
    sourceLanguage: 'en',
    targetLanguage: 'zh-hant-tw',
    source: 'Family 👨‍👩‍👧 and 𝄞 (astral)',
    target: '家庭 👨‍👩‍👧 與 𝄞',
    ctx: null,
    key: 'family',
    project: 'p_demo',
    origin: 'human',
    status: 'approved',
    createdAt: T1,
    updatedAt: T1,
  },
  {
    sourceLanguage: 'fr',
    targetLanguage: 'pt-br',
    source: 'Bonjour',
    target: 'Olá',
    ctx: null,
    key: 'hello',
    project: 'p_other',
    origin: 'import',
    status: 'translated',
    createdAt: T1,
    updatedAt: T2,
  },
];

const body = writeTmx({ sourceLanguage: 'en', toolVersion: '0.1.0', createdAt: T1 }, MEMORY);

test('a memory written as TMX reads back with every field, script, emoji, tag and whitespace intact', (t) => {
  const back = parseTmx(body);
  t.deepEqual(back.entries, MEMORY);
  t.deepEqual(back.header, {
    sourceLanguage: 'en',
    creationTool: 'Glossa',
    creationToolVersion: '0.1.0',
    originalFormat: 'Glossa',
  });
  t.is(back.units, MEMORY.length);
  t.deepEqual(back.skipped, []);
  t.is(back.emptySegments, 0);
});

test('the file is TMX 1.4b: header attributes, one <tu> per entry, source <tuv> first, props, dates, escaped text', (t) => {
  t.true(body.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n'));
  t.regex(
    body,
    /<header creationtool="Glossa" creationtoolversion="0\.1\.0" segtype="sentence" o-tmf="Glossa" adminlang="en" srclang="en" datatype="plaintext" creationdate="20240115T103000Z"\/>/,
  );
  t.is(body.match(/<tu[ >]/g)?.length, MEMORY.length);
  t.regex(
    body,
    /<tu creationdate="20240115T103000Z" changedate="20250601T235959Z">\n {6}<prop type="x-glossa-ctx">greeting on the home screen<\/prop>\n {6}<prop type="x-glossa-key">home\.hello<\/prop>\n {6}<prop type="x-glossa-project">p_demo<\/prop>\n {6}<prop type="x-glossa-origin">human<\/prop>\n {6}<prop type="x-glossa-status">approved<\/prop>\n {6}<tuv xml:lang="en"><seg>Hello \{name\}<\/seg><\/tuv>\n {6}<tuv xml:lang="de"><seg>Hallo \{name\}<\/seg><\/tuv>\n {4}<\/tu>/,
  );
  // Markup is text: escaped, never an element; `]]>` cannot end anything outside CDATA.
  t.true(body.includes('<seg>Click &lt;b&gt;here&lt;/b&gt; &amp; "save" \'now\' ]]&gt;</seg>'));
  // A carriage return is a reference (a parser reads a raw one as a newline); languages in BCP 47 casing.
  t.true(body.includes('CR&#13;\nend  </seg>'));
  t.true(body.includes('<tuv xml:lang="zh-Hant-TW">'));
  // An entry in another source language than the header's names its own.
  t.regex(
    body,
    /<tu srclang="fr" [^>]*>[\s\S]*?<tuv xml:lang="fr"><seg>Bonjour<\/seg><\/tuv>\n {6}<tuv xml:lang="pt-BR">/,
  );
  // No date: no attribute (not an empty one); an entry without createdAt is created when it was updated.
  t.true(body.includes('<tu>\n      <tuv xml:lang="en"><seg>{count, plural'));
  t.deepEqual(
    parseTmx(writeTmx({ sourceLanguage: 'en' }, [{ ...MEMORY[0], createdAt: undefined }])).entries[0].createdAt,
    T2,
  );
});

test('tmxDate writes YYYYMMDDThhmmssZ in UTC, and dates outside four-digit years are left out', (t) => {
  t.is(tmxDate(Date.UTC(2002, 0, 25, 21, 6, 0)), '20020125T210600Z');
  t.is(tmxDate(0), '19700101T000000Z');
  t.is(tmxDate(Number.NaN), null);
  t.is(tmxDate(Date.UTC(10000, 0, 1)), null);
  const far = writeTmx({ sourceLanguage: 'en' }, [{ ...MEMORY[0], createdAt: Number.NaN, updatedAt: 8.64e15 }]);
  t.notRegex(far, /<tu [^>]*date/);
});

test('the streaming forms give the same bytes in chunks, from an iterable or an async iterable', async (t) => {
  const many = Array.from({ length: 3000 }, (_, i) => ({ ...MEMORY[i % MEMORY.length], key: `k.${i}` }));
  const header: TmxHeader = { sourceLanguage: 'en', createdAt: T1 };
  const whole = writeTmx(header, many);
  const chunks = [...tmxChunks(header, many)];
  t.true(chunks.length > 5, `${chunks.length} chunks`);
  t.true(chunks.every((c) => c.length < 70 * 1024));
  t.is(chunks.join(''), whole);
  async function* slowly() {
    for (const e of many) {
      await Promise.resolve();
      yield e;
    }
  }
  let streamed = '';
  for await (const c of tmxStream(header, slowly())) streamed += c;
  t.is(streamed, whole);
  t.is(parseTmx(streamed).entries.length, 3000);
  // An empty memory is a valid file with no units, and reads back as none.
  const empty = writeTmx(header, []);
  t.deepEqual(parseTmx(empty).entries, []);
});

test('characters XML 1.0 cannot hold are left out of the file, each entry warned of once', (t) => {
  const warnings: Array<{ index: number; reason: string }> = [];
  const file = writeTmx({ sourceLanguage: 'en', warn: (w) => warnings.push(w) }, [
    MEMORY[0],
    { ...MEMORY[0], source: 'Ding\u0007!', target: 'Dong\u0000\uFFFF!', ctx: 'lone \uD800 surrogate' },
  ]);
  for (const c of ['\u0000', '\u0007', '\uFFFF', '\uD800']) t.false(file.includes(c));
  t.deepEqual(
    warnings.map((w) => w.index),
    [1],
  );
  t.regex(warnings[0].reason, /XML 1\.0/);
  const back = parseTmx(file).entries[1];
  t.deepEqual([back.source, back.target, back.ctx], ['Ding!', 'Dong!', 'lone  surrogate']);
});

/** The tu/tuv/seg skeleton of the files tools write, around the units given. */
const tmx = (header: string, units: string, prolog = '<?xml version="1.0" encoding="UTF-8"?>\n') =>
  `${prolog}<tmx version="1.4">\n<header creationtool="T" creationtoolversion="1" segtype="sentence" o-tmf="T" adminlang="en" datatype="plaintext" ${header}/>\n<body>\n${units}\n</body>\n</tmx>\n`;

test('inline codes give their native code (Okapi, memoQ), empty ones nothing (Trados Studio), <hi> and <sub> their text', (t) => {
  const file = tmx(
    'srclang="en-US"',
    `<tu>
  <tuv xml:lang="en-US"><seg>See the <bpt i="1" type="link">&lt;A TITLE="<sub>Go to Notes</sub>"
HREF="notes.htm"></bpt>Notes<ept i="1">&lt;/A></ept> for <hi type="term">more</hi> details<ph x="2" type="image">&lt;img src="a.png"/&gt;</ph>.</seg></tuv>
  <tuv xml:lang="de-DE"><seg>Siehe <bpt i="1" type="link">&lt;A TITLE="<sub>Zu den Notizen</sub>"
HREF="notes.htm"></bpt>Notizen<ept i="1">&lt;/A></ept> für <hi type="term">weitere</hi> Details<ph x="2" type="image">&lt;img src="a.png"/&gt;</ph>.</seg></tuv>
</tu>
<tu>
  <tuv xml:lang="en-US"><seg>Press <bpt i="1" x="1" type="bold"/>Save<ept i="1"/> now<ph x="2" type="lb"/></seg></tuv>
  <tuv xml:lang="de-DE"><seg>Jetzt <bpt i="1" x="1" type="bold"/>Speichern<ept i="1"/> drücken<ph x="2" type="lb"/></seg></tuv>
</tu>
<tu>
  <tuv xml:lang="en-US"><seg><it pos="begin" x="1">&lt;i&gt;</it>Open {name}<ut>{\\b}</ut> <![CDATA[<b>&amp;</b>]]><!-- a comment --></seg></tuv>
  <tuv xml:lang="de-DE"><seg><it pos="begin" x="1">&lt;i&gt;</it>{name} öffnen<ut>{\\b}</ut> <![CDATA[<b>&amp;</b>]]></seg></tuv>
</tu>`,
  );
  const { entries } = parseTmx(file);
  t.deepEqual(
    entries.map((e) => [e.source, e.target]),
    [
      [
        'See the <A TITLE="Go to Notes"\nHREF="notes.htm">Notes</A> for more details<img src="a.png"/>.',
        'Siehe <A TITLE="Zu den Notizen"\nHREF="notes.htm">Notizen</A> für weitere Details<img src="a.png"/>.',
      ],
      ['Press Save now', 'Jetzt Speichern drücken'],
      ['<i>Open {name}{\\b} <b>&amp;</b>', '<i>{name} öffnen{\\b} <b>&amp;</b>'],
    ],
  );
  t.deepEqual(
    entries.map((e) => [e.sourceLanguage, e.targetLanguage]),
    Array(3).fill(['en-us', 'de-de']),
  );
});

test('a unit with several languages gives one pair per target; the options keep the wanted ones and count the rest', (t) => {
  const file = tmx(
    'srclang="en"',
    `<tu tuid="1" creationdate="20240115T103000Z">
  <tuv xml:lang="de"><seg>Datei</seg></tuv>
  <tuv xml:lang="en"><seg>File</seg></tuv>
  <tuv xml:lang="fr-FR" changedate="20250601T235959Z"><seg>Fichier</seg></tuv>
  <tuv xml:lang="ja"><seg>ファイル</seg></tuv>
  <tuv xml:lang="en-GB"><seg>File</seg></tuv>
</tu>
<tu tuid="2"><tuv xml:lang="en"><seg>Edit</seg></tuv><tuv xml:lang="ja"><seg>編集</seg></tuv><tuv xml:lang="de"><seg></seg></tuv></tu>
<tu srclang="fr"><tuv xml:lang="fr"><seg>Ouvrir</seg></tuv><tuv xml:lang="de"><seg>Öffnen</seg></tuv></tu>`,
  );
  const all = parseTmx(file);
  t.deepEqual(
    all.entries.map((e) => `${e.sourceLanguage}>${e.targetLanguage}: ${e.source} = ${e.target}`),
    [
      'en>de: File = Datei',
      'en>fr-fr: File = Fichier',
      'en>ja: File = ファイル',
      'en>en-gb: File = File',
      'en>ja: Edit = 編集',
      'fr>de: Ouvrir = Öffnen',
    ],
  );
  // A target's own date, else the unit's.
  t.deepEqual(
    all.entries.slice(0, 2).map((e) => [e.createdAt, e.updatedAt]),
    [
      [T1, T1],
      [T1, T2],
    ],
  );
  t.is(all.emptySegments, 1, 'the empty German <seg> of unit 2');

  // The project translates English into German and French: the file's fr-FR is its fr; Japanese, British English
  // and the French-source unit are counted per pair, not dropped in silence.
  const some = parseTmx(file, { sourceLanguage: 'en', targetLanguages: ['de', 'fr'] });
  t.deepEqual(
    some.entries.map((e) => `${e.sourceLanguage}>${e.targetLanguage}: ${e.target}`),
    ['en>de: Datei', 'en>fr: Fichier'],
  );
  t.deepEqual<TmxSkippedPair[], TmxSkippedPair[]>(some.skipped, [
    { sourceLanguage: 'en', targetLanguage: 'ja', count: 2 },
    { sourceLanguage: 'en', targetLanguage: 'en-gb', count: 1 },
    { sourceLanguage: 'fr', targetLanguage: 'de', count: 1 },
  ]);

  // A whole file in another source language: nothing taken, everything counted.
  const wrong = parseTmx(file, { sourceLanguage: 'es', targetLanguages: ['de'] });
  t.deepEqual(wrong.entries, []);
  t.is(
    wrong.skipped.reduce((n, s) => n + s.count, 0),
    6,
  );
});

test('languages: codes normalised, TMX 1.1 lang, regions matched only when one side has none, scripts never', (t) => {
  const file = tmx(
    'srclang="EN-US"',
    `<tu><tuv xml:lang="en-us"><seg>One</seg></tuv><tuv lang="DE_de"><seg>Eins</seg></tuv><tuv xml:lang="de-AT"><seg>Oans</seg></tuv><tuv xml:lang="zh-TW"><seg>一</seg></tuv><tuv xml:lang="zh-CN"><seg>一个</seg></tuv><tuv xml:lang="pt"><seg>Um</seg></tuv></tu>`,
  );
  t.deepEqual(
    parseTmx(file).entries.map((e) => e.targetLanguage),
    ['de-de', 'de-at', 'zh-tw', 'zh-cn', 'pt'],
  );
  const pairs = (options: TmxParseOptions) => {
    const parsed: TmxParsed = parseTmx(file, options);
    return parsed.entries.map((e) => `${e.sourceLanguage}>${e.targetLanguage}=${e.target}`);
  };
  // A project's `de` takes the file's de-DE (the first match) and its de-AT; `de-de` takes de-DE only.
  t.deepEqual(pairs({ sourceLanguage: 'en', targetLanguages: ['de'] }), ['en>de=Eins', 'en>de=Oans']);
  t.deepEqual(pairs({ sourceLanguage: 'en-US', targetLanguages: ['de-DE', 'de-CH'] }), ['en-us>de-de=Eins']);
  // zh-Hans takes zh-CN (Hans), never zh-TW (Hant); the file's `pt` serves a project's pt-BR.
  t.deepEqual(pairs({ sourceLanguage: 'en', targetLanguages: ['zh-Hans', 'pt-BR'] }), [
    'en>zh-hans=一个',
    'en>pt-br=Um',
  ]);
  // en-GB as the wanted source is not the file's en-US.
  t.deepEqual(pairs({ sourceLanguage: 'en-GB' }), []);
});

test('srclang *all*: the wanted language is the source; a unit without it is counted; without one the file is refused', (t) => {
  const file = tmx(
    'srclang="*all*"',
    `<tu><tuv xml:lang="de"><seg>Datei</seg></tuv><tuv xml:lang="en"><seg>File</seg></tuv></tu>
<tu><tuv xml:lang="de"><seg>Bearbeiten</seg></tuv><tuv xml:lang="fr"><seg>Modifier</seg></tuv></tu>`,
  );
  const en = parseTmx(file, { sourceLanguage: 'en' });
  t.deepEqual(
    en.entries.map((e) => [e.sourceLanguage, e.targetLanguage, e.source, e.target]),
    [['en', 'de', 'File', 'Datei']],
  );
  t.is(en.unitsWithoutSource, 1);
  t.is(en.header.sourceLanguage, '*all*');
  const de = parseTmx(file, { sourceLanguage: 'de' });
  t.deepEqual(
    de.entries.map((e) => `${e.targetLanguage}=${e.target}`),
    ['en=File', 'fr=Modifier'],
  );
  refuses(t, file, 'no_source', /srclang \*all\*.*name the source language/);
  // A header without srclang (some Trados exports write `<header/>`) reads the same way.
  const bare =
    '<tmx><header/><body><tu><tuv xml:lang="en-GB"><seg>Hi</seg></tuv><tuv xml:lang="fr-FR"><seg>Salut</seg></tuv></tu></body></tmx>';
  t.deepEqual(
    parseTmx(bare, { sourceLanguage: 'en' }).entries.map((e) => [e.sourceLanguage, e.targetLanguage, e.target]),
    [['en', 'fr-fr', 'Salut']],
  );
  refuses(t, bare, 'no_source', /no srclang/);
});

test('files in the shape other tools write: translate-toolkit and memoQ DOCTYPE, Trados props and dates, OmegaT 1.1', (t) => {
  // translate-toolkit (and so Weblate) and memoQ name the DTD, which is never fetched.
  const toolkit = tmx(
    'srclang="en"',
    '<tu><tuv xml:lang="en"><seg>Hello {name}</seg></tuv><tuv xml:lang="de"><seg>Hallo {name}</seg></tuv></tu>',
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tmx SYSTEM "tmx14.dtd">\n',
  );
  t.is(parseTmx(toolkit).entries[0].target, 'Hallo {name}');
  const memoq = `<?xml version="1.0"?>
<!DOCTYPE tmx SYSTEM "tmx14.dtd">
<tmx version="1.4">
<header creationtool="MemoQ" creationtoolversion="7.0.70" segtype="sentence" adminlang="en-us" creationid="Karsten Weiss" srclang="en" o-tmf="MemoQTM" datatype="unknown">
  <prop type="defdomain">IT - Network &amp; Infrastructure</prop>
  <prop type="targetlang">zh-CN</prop>
</header>
<body>
  <tu changedate="20141017T092614Z" creationdate="20141016T091130Z" creationid="CN_Merlin_5" changeid="CN_Merlin_6">
    <prop type="client">Ooyala</prop>
    <prop type="x-document">backlot_integrate_with_tinypass.xml</prop>
    <tuv xml:lang="en">
      <prop type="x-context-post">&lt;seg&gt;Paywalls enable you to require payment.&lt;/seg&gt;</prop>
      <seg>Integrate with Tinypass</seg>
    </tuv>
    <tuv xml:lang="zh-CN">
      <seg>与 Tinypass 集成</seg>
    </tuv>
  </tu>
  </body>
  </tmx>`;
  const m = parseTmx(memoq);
  t.deepEqual(m.header, {
    sourceLanguage: 'en',
    creationTool: 'MemoQ',
    creationToolVersion: '7.0.70',
    originalFormat: 'MemoQTM',
  });
  t.like(m.entries[0], {
    sourceLanguage: 'en',
    targetLanguage: 'zh-cn',
    source: 'Integrate with Tinypass',
    target: '与 Tinypass 集成',
    project: null,
    createdAt: Date.UTC(2014, 9, 16, 9, 11, 30),
    updatedAt: Date.UTC(2014, 9, 17, 9, 26, 14),
  });
  const trados = `<?xml version="1.0" encoding="utf-8"?>
<tmx version="1.4">
  <header creationtool="SDL Language Platform" creationtoolversion="8.0" o-tmf="SDL TM8 Format" datatype="xml" segtype="sentence" adminlang="fr-FR" srclang="fr-FR" creationdate="20140903T145309Z" creationid="irina">
    <prop type="x-Recognizers">RecognizeAll</prop>
  </header>
  <body>
    <tu creationdate="20100730T095222Z" creationid="NICHOLAS" changedate="20100929T143902Z" changeid="DATASIA\\iboukhtoiarova" lastusagedate="20101227T181136Z" usagecount="5">
      <prop type="x-Context">0, 0</prop>
      <prop type="x-Origin">TM</prop>
      <tuv xml:lang="fr-FR">
        <seg>Timepieces</seg>
      </tuv>
      <tuv xml:lang="en-GB">
        <seg>Timepieces</seg>
      </tuv>
    </tu>
  </body>
</tmx>`;
  const tr = parseTmx(trados, { sourceLanguage: 'fr', targetLanguages: ['en'] });
  t.deepEqual(
    tr.entries.map((e) => [e.sourceLanguage, e.targetLanguage, e.source, e.target, e.origin, e.updatedAt]),
    [['fr', 'en', 'Timepieces', 'Timepieces', null, Date.UTC(2010, 8, 29, 14, 39, 2)]],
  );
  // OmegaT writes TMX 1.1 with its own DOCTYPE; a date TMX does not define is no date.
  const omegat = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE tmx SYSTEM "tmx11.dtd">
<tmx version="1.1">
  <header creationtool="OmegaT" o-tmf="OmegaT TMX" adminlang="EN-US" datatype="plaintext" creationtoolversion="1" segtype="sentence" srclang="EN-US"/>
  <body>
    <tu>
      <tuv lang="EN-US"><seg>Line one
Line two</seg></tuv>
      <tuv lang="RU" changedate="2019-01-01T00:00:00Z"><seg>Строка один
Строка два</seg></tuv>
    </tu>
  </body>
</tmx>`;
  const o = parseTmx(omegat).entries[0];
  t.deepEqual([o.targetLanguage, o.target, o.updatedAt], ['ru', 'Строка один\nСтрока два', null]);
});

test('bytes are decoded as the file says: UTF-8 with or without BOM, UTF-16 both ways (Trados), a declared 8-bit set', (t) => {
  const text = tmx(
    'srclang="en"',
    '<tu><tuv xml:lang="en"><seg>Café 🎉</seg></tuv><tuv xml:lang="ja"><seg>カフェ 🎉</seg></tuv></tu>',
  );
  const utf8 = new TextEncoder().encode(text);
  // UTF-16 code units (an emoji is two), each way round, after the BOM.
  const le = new Uint8Array(text.length * 2);
  const be = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    [le[2 * i], le[2 * i + 1]] = [u & 0xff, u >> 8];
    [be[2 * i], be[2 * i + 1]] = [u >> 8, u & 0xff];
  }
  const utf16le = new Uint8Array([0xff, 0xfe, ...le]);
  const utf16be = new Uint8Array([0xfe, 0xff, ...be]);
  for (const [name, bytes] of [
    ['utf-8', utf8],
    ['utf-8 with BOM', new Uint8Array([0xef, 0xbb, 0xbf, ...utf8])],
    ['utf-16le', utf16le],
    ['utf-16be', utf16be],
  ] as const) {
    const e = parseTmx(bytes).entries;
    t.deepEqual(
      e.map((x) => [x.source, x.target]),
      [['Café 🎉', 'カフェ 🎉']],
      name,
    );
  }
  t.is(parseTmx('\uFEFF' + text).entries.length, 1, 'a string with a BOM');
  const latin1 = Uint8Array.from(
    '<?xml version="1.0" encoding="ISO-8859-1"?><tmx version="1.4"><header srclang="fr"/><body><tu><tuv xml:lang="fr"><seg>\xe9t\xe9</seg></tuv><tuv xml:lang="en"><seg>summer</seg></tuv></tu></body></tmx>',
    (c) => c.charCodeAt(0),
  );
  t.is(parseTmx(latin1).entries[0].source, 'été');
  // Lines ended by CR LF (a file saved on Windows) read as newlines; a &#13; stays a carriage return.
  const crlf = tmx(
    'srclang="en"',
    '<tu><tuv xml:lang="en"><seg>a\r\nb&#13;</seg></tuv><tuv xml:lang="de"><seg>c\rd</seg></tuv></tu>',
  );
  t.deepEqual(
    parseTmx(crlf).entries.map((e) => [e.source, e.target]),
    [['a\nb\r', 'c\nd']],
  );
});

function refuses(
  t: ExecutionContext,
  input: string | Uint8Array,
  reason: TmxRefusal,
  message: RegExp,
  options?: TmxParseOptions,
) {
  const err = t.throws(() => parseTmx(input, options), undefined, reason);
  t.true(err instanceof TmxError && err instanceof FormatError, String(err));
  const e = err as TmxError;
  t.is(e.reason, reason, e.message);
  t.is(e.code, reason === 'not_tmx' ? 'format_mismatch' : 'invalid_argument');
  t.regex(e.message, message);
}

const unit = '<tu><tuv xml:lang="en"><seg>a</seg></tuv><tuv xml:lang="de"><seg>b</seg></tuv></tu>';

test('DTDs that declare anything are refused: billion laughs, external entities, a second or late DOCTYPE', (t) => {
  refuses(
    t,
    `<?xml version="1.0"?><!DOCTYPE tmx [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><tmx version="1.4"><header srclang="en"/><body><tu><tuv xml:lang="en"><seg>&lol2;</seg></tuv></tu></body></tmx>`,
    'dtd',
    /line 1: a TMX file may name its DTD but declare nothing/,
  );
  refuses(
    t,
    `<?xml version="1.0"?>\n<!DOCTYPE tmx SYSTEM "tmx14.dtd" [\n<!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>\n${tmx('srclang="en"', '<tu><tuv xml:lang="en"><seg>&xxe;</seg></tuv></tu>', '')}`,
    'dtd',
    /line 2/,
  );
  refuses(
    t,
    `<!DOCTYPE tmx PUBLIC "-//x" "http://example.com/x.dtd" [ ]>${tmx('srclang="en"', unit, '')}`,
    'dtd',
    /DTD/,
  );
  refuses(t, tmx('srclang="en"', `<!DOCTYPE tmx SYSTEM "tmx14.dtd">${unit}`), 'dtd', /line 5/);
  refuses(
    t,
    `<!DOCTYPE tmx SYSTEM "a.dtd"><!DOCTYPE tmx SYSTEM "b.dtd">${tmx('srclang="en"', unit, '')}`,
    'dtd',
    /DTD/,
  );
  refuses(t, tmx('srclang="en"', `<tu><!-- <!ENTITY x "y"> -->${unit.slice(4)}`), 'dtd', /ENTITY/);
  // Named, never fetched: SYSTEM or PUBLIC alone passes.
  t.is(
    parseTmx(
      `<!DOCTYPE tmx PUBLIC "-//LISA OSCAR:1998//DTD for Translation Memory eXchange//EN" "tmx14.dtd">${tmx('srclang="en"', unit, '')}`,
    ).entries.length,
    1,
  );
});

test('size: over the limit refused before parsing, counted in UTF-8 bytes for a string', (t) => {
  const file = tmx('srclang="en"', unit);
  refuses(t, file, 'too_large', /over 100 bytes/, { maxBytes: 100 });
  refuses(t, new TextEncoder().encode(file), 'too_large', new RegExp(`over 100 bytes \\(${file.length}\\)`), {
    maxBytes: 100,
  });
  // 40 two-byte characters and 10 emoji are 120 bytes as UTF-8 though the string's length is 60.
  const wide = tmx(
    'srclang="en"',
    `<tu><tuv xml:lang="en"><seg>${'é'.repeat(40)}${'🎉'.repeat(10)}</seg></tuv><tuv xml:lang="de"><seg>x</seg></tuv></tu>`,
  );
  const bytes = new TextEncoder().encode(wide).length;
  t.is(parseTmx(wide, { maxBytes: bytes }).entries.length, 1);
  refuses(t, wide, 'too_large', /over/, { maxBytes: bytes - 1 });
  t.is(TMX_MAX_BYTES, 50 * 1024 * 1024);
});

test('empty files, files that are not TMX and XML of other kinds are refused', (t) => {
  refuses(t, '', 'empty', /empty/);
  refuses(t, ' \n\t', 'empty', /empty/);
  refuses(t, new Uint8Array([0xef, 0xbb, 0xbf]), 'empty', /empty/);
  refuses(t, '{"a": "b"}', 'not_tmx', /not XML/);
  refuses(t, 'msgid "a"\nmsgstr "b"\n', 'not_tmx', /not XML/);
  refuses(t, '<?xml version="1.0"?><!-- nothing -->', 'not_tmx', /no root element/);
  refuses(
    t,
    '<xliff version="1.2"><file source-language="en"><body/></file></xliff>',
    'not_tmx',
    /its root is <xliff>, not <tmx>/,
  );
  refuses(t, '<resources><string name="a">x</string></resources>', 'not_tmx', /<resources>/);
  refuses(t, '<tmx version="2.0"><header srclang="en"/><body/></tmx>', 'not_tmx', /version 2\.0/);
});

test('malformed XML is refused, with the line where it can say', (t) => {
  const cases: Array<[string, RegExp]> = [
    [tmx('srclang="en"', '<tu><tuv xml:lang="en"><seg>a</tuv></tu>'), /<\/tuv> on line 5 closes <seg>/],
    ['<tmx><header srclang="en"/><body>', /<body> is not closed/],
    ['<tmx/><tmx/>', /more than one root/],
    ['<tmx/>junk', /text outside the root element/],
    ['<tmx/><![CDATA[x]]>', /CDATA outside the root/],
    ['<tmx><body></tmx>', /<\/tmx> on line 1 closes <body>/],
    ['</tmx>', /closes no element/],
    ['<tmx version=1.4/>', /markup not understood/],
    ['<tmx version="1.4" version="1.4"/>', /attribute version is repeated/],
    ['<tmx><!-- never closed </tmx>', /markup not understood/],
    ['<tmx a="1"b="2"/>', /markup not understood/],
    ['<tmx>< body/></tmx>', /markup not understood/],
    [tmx('srclang="en"', '<tu><tuv xml:lang="en"><seg>a &nbsp; b</seg></tuv></tu>'), /&nbsp; is not an XML reference/],
    [tmx('srclang="en"', '<tu><tuv xml:lang="en"><seg>a &#1; b</seg></tuv></tu>'), /&#1; is not an XML reference/],
    [tmx('srclang="en"', '<tu><tuv xml:lang="en"><seg>a &#xD800; b</seg></tuv></tu>'), /&#xD800;/],
    [tmx('srclang="en"', '<tu><tuv xml:lang="en"><seg>a & b</seg></tuv></tu>'), /& is not an XML reference/],
    [tmx('srclang="en"', '<tu><tuv xml:lang="en"><seg>a\u0001b</seg></tuv></tu>'), /line 5: the character U\+0001/],
    [tmx('srclang="en"', '<tu><tuv xml:lang="en"><seg>a</seg><seg>b</seg></tuv></tu>'), /holds one <seg>, not 2/],
    [tmx('srclang="en"', '<tu tuid="7"><tuv xml:lang="a<b"><seg>a</seg></tuv></tu>'), /a < in an attribute value/],
  ];
  for (const [file, message] of cases) refuses(t, file, 'malformed', message);
  // Invalid UTF-8 and an encoding nobody reads.
  refuses(t, new Uint8Array([0x3c, 0x74, 0x6d, 0x78, 0x3e, 0xff, 0x3c]), 'malformed', /not valid utf-8/);
  refuses(t, new TextEncoder().encode('<?xml version="1.0" encoding="x-klingon"?><tmx/>'), 'malformed', /x-klingon/);
});

test('a unit without its source <tuv>, a <tuv> without a language, a code that is none: refused naming the unit', (t) => {
  refuses(
    t,
    tmx(
      'srclang="en"',
      `${unit}\n<tu tuid="x-2"><tuv xml:lang="de"><seg>b</seg></tuv><tuv xml:lang="fr"><seg>c</seg></tuv></tu>`,
    ),
    'no_source',
    /translation unit 2 \(tuid "x-2"\): no <tuv> in its source language en/,
  );
  refuses(t, tmx('srclang="en"', '<tu/>'), 'no_source', /translation unit 1: no <tuv>/);
  refuses(
    t,
    tmx('srclang="en"', '<tu><tuv><seg>a</seg></tuv></tu>'),
    'language',
    /translation unit 1, <tuv> 1: no xml:lang/,
  );
  refuses(
    t,
    tmx('srclang="en"', '<tu><tuv xml:lang="en"><seg>a</seg></tuv><tuv xml:lang="not a code!"><seg>b</seg></tuv></tu>'),
    'language',
    /<tuv> 2: "not a code!" is not a language code/,
  );
  refuses(t, tmx('srclang="english please"', unit), 'language', /<header>/);
  refuses(t, tmx('srclang="en"', unit), 'language', /"\?\?" is not a language code/, { targetLanguages: ['??'] });
});

test('elements TMX does not allow in a <seg>, or any element in a <prop>, are refused (markup must be escaped)', (t) => {
  refuses(
    t,
    tmx('srclang="en"', '<tu><tuv xml:lang="en"><seg>Click <b>here</b></seg></tuv></tu>'),
    'inline',
    /translation unit 1, <tuv> 1: <b> is not allowed here.*written escaped/,
  );
  refuses(
    t,
    tmx('srclang="en"', '<tu><tuv xml:lang="en"><seg>Hi <g id="1">you</g></seg></tuv></tu>'),
    'inline',
    /<g> is not allowed/,
  );
  refuses(
    t,
    tmx('srclang="en"', `<tu><prop type="x-glossa-key">a<ph/>b</prop>${unit.slice(4)}`),
    'inline',
    /<prop type="x-glossa-key">: <ph> is not allowed/,
  );
});

test('hostile shapes end in a refusal at once: unterminated markup repeated, attributes by the million, deep nesting', (t) => {
  const n = 2_000_000;
  refuses(t, `<tmx><body>${'<!--'.repeat(n)}`, 'malformed', /markup not understood/);
  refuses(t, `<tmx><body><tu><tuv xml:lang="en"><seg>${'<![CDATA['.repeat(n)}`, 'malformed', /markup not understood/);
  refuses(t, `<tmx><body><tu a="${'<'.repeat(n)}`, 'malformed', /markup not understood/);
  refuses(t, `<tmx ${'a="1" '.repeat(n)}>`, 'malformed', /repeated/);
  refuses(
    t,
    `<tmx ${Array.from({ length: 200_000 }, (_, i) => `a${i}="1"`).join(' ')}`,
    'malformed',
    /markup not understood/,
  );
  refuses(t, `<tmx><body><tu><tuv xml:lang="en"><seg>${'<hi>'.repeat(n / 4)}`, 'malformed', /<hi> is not closed/);
  refuses(t, `<!DOCTYPE tmx ${'SYSTEM '.repeat(n)}`, 'dtd', /DTD/);
});
