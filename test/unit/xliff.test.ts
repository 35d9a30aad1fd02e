// XLIFF 1.2 and 2.0 (packages/core/src/formats/xliff.ts): render from a project's catalog, parse back, detection, the
// states each cell status becomes, and the files the import route must refuse. Pure functions, no service; the real
// consumers (translate-toolkit, the xliff npm package) are in test/e2e/standalone/xliff-tools.test.ts.
import test from 'ava';
import { FormatError, type Catalog, type CatalogValue } from '../../packages/core/src/catalog.js';
import { detectFormat, REGISTRY } from '../../packages/core/src/formats/index.js';
import { xliff12, xliff20 } from '../../packages/core/src/formats/xliff.js';
import { renderFile } from '../../packages/core/src/delivery.js';
import type { Snapshot } from '../../packages/core/src/snapshot.js';

const text = (t: string, state?: string): CatalogValue =>
  state ? { kind: 'text', text: t, state } : { kind: 'text', text: t };

/** A French catalog as publish builds it: the source on each entry, the French value with its cell status. */
const CATALOG: Catalog = {
  format: 'xliff12',
  sourceLanguage: null,
  language: 'fr',
  entries: [
    {
      fileKey: 'home.title',
      source: text('Welcome back, <b>{name}</b> & "friends"'),
      ctx: 'menu',
      comment: 'Title of the home screen\nkeep it short',
      values: { fr: text('Bon retour, <b>{name}</b> & « amis »', 'approved') },
    },
    {
      fileKey: 'files',
      source: { kind: 'plural', arg: 'count', forms: { one: '# file', other: '# files' } },
      values: {
        fr: {
          kind: 'plural',
          arg: 'count',
          forms: { one: '# fichier', many: '# de fichiers', other: '# fichiers' },
          state: 'reviewed',
        },
      },
    },
    { fileKey: 'saved', source: text('Saved'), values: { fr: text('Enregistré', 'translated') } },
    { fileKey: 'not yet', source: text('  Spaced\nand on two lines '), values: {} },
    { fileKey: 'baked', source: text('Fallback'), values: { fr: text('Fallback', 'fallback') } },
  ],
};

const render = (m: typeof xliff12, lang = 'fr') => m.render(CATALOG, { languages: [lang], baseLanguage: 'en' });

for (const [name, m] of [
  ['xliff12', xliff12],
  ['xliff20', xliff20],
] as const) {
  test(`${name}: a render parses back to the same sources, targets, ctx and comments; missing and fallback cells have no target`, (t) => {
    const body = render(m);
    const back = m.parse(body);
    t.is(back.format, name);
    t.is(back.sourceLanguage, 'en');
    t.is(back.language, 'fr');
    t.deepEqual(
      back.entries.map((e) => e.fileKey),
      ['home.title', 'files', 'saved', 'not yet', 'baked'],
    );
    const [home, files, saved, notYet, baked] = back.entries;
    t.is(home.values.en.kind === 'text' && home.values.en.text, 'Welcome back, <b>{name}</b> & "friends"');
    t.is(home.values.fr.kind === 'text' && home.values.fr.text, 'Bon retour, <b>{name}</b> & « amis »');
    t.is(home.ctx, 'menu');
    t.is(home.comment, 'Title of the home screen\nkeep it short');
    t.is(
      files.values.fr.kind === 'text' && files.values.fr.text,
      '{count, plural, one {# fichier} many {# de fichiers} other {# fichiers}}',
    );
    t.is(files.values.en.kind === 'text' && files.values.en.text, '{count, plural, one {# file} other {# files}}');
    t.is(saved.values.fr.kind === 'text' && saved.values.fr.text, 'Enregistré');
    t.is(notYet.values.en.kind === 'text' && notYet.values.en.text, '  Spaced\nand on two lines ');
    t.false('fr' in notYet.values);
    t.false('fr' in baked.values, 'a source baked in for a missing cell is no translation');
    t.is(m.render(back, { languages: ['fr'], baseLanguage: 'en' }).length > 0, true);
    t.is(detectFormat(body), name);
    t.is(detectFormat(body, 'fr.xlf'), name);
  });
}

test('xliff12: states follow the cell status (translated, signed-off, final), approved="yes" on translated units only', (t) => {
  const body = render(xliff12);
  t.regex(body, /<trans-unit id="home.title" resname="home.title" approved="yes"[^>]*>[\s\S]*?<target state="final">/);
  t.regex(body, /<trans-unit id="files"[^>]*approved="yes"[\s\S]*?<target state="signed-off">/);
  t.regex(body, /<trans-unit id="saved"[^>]*>[\s\S]*?<target state="translated">/);
  t.regex(body, /<trans-unit id="not yet" resname="not yet" xml:space="preserve">/);
  t.regex(body, /target-language="fr"/);
  const states = xliff12.parse(body).entries.map((e) => e.values.fr?.state ?? null);
  t.deepEqual(states, ['final', 'signed-off', 'translated', null, null]);
});

test('xliff20: segment states (translated, reviewed, final, initial); ids are NMTOKENs, the key is the name', (t) => {
  const body = render(xliff20);
  t.regex(body, /<unit id="home.title" name="home.title"[^>]*>[\s\S]*?<segment state="final">/);
  t.regex(body, /<unit id="files"[^>]*>[\s\S]*?<segment state="reviewed">/);
  t.regex(body, /<unit id="k[0-9a-f]{8}" name="not yet"[^>]*>[\s\S]*?<segment state="initial">/);
  t.regex(body, /<note category="context">menu<\/note>/);
  const states = xliff20.parse(body).entries.map((e) => e.values.fr?.state ?? null);
  t.deepEqual(states, ['final', 'reviewed', 'translated', null, null]);
});

test('the base language renders sources only, with no target language', (t) => {
  const b12 = render(xliff12, 'en');
  t.notRegex(b12, /target-language|<target/);
  const b20 = render(xliff20, 'en');
  t.notRegex(b20, /trgLang|<target/);
  t.is(xliff20.parse(b20).entries.length, 5);
});

test('a control character XML cannot hold is left out and warned of, never written raw', (t) => {
  const warnings: string[] = [];
  const catalog: Catalog = {
    format: 'xliff12',
    sourceLanguage: null,
    entries: [{ fileKey: 'bell', source: text('Ding\u0007!'), values: { fr: text('Dong\u0007\r!') } }],
  };
  for (const m of [xliff12, xliff20]) {
    const body = m.render(catalog, { languages: ['fr'], baseLanguage: 'en', warn: (w) => warnings.push(w.reason) });
    t.false(body.includes('\u0007'));
    const fr = m.parse(body).entries[0].values.fr;
    t.is(fr.kind === 'text' && fr.text, 'Dong\r!');
  }
  t.is(warnings.length, 4);
});

test('files from other tools: groups, <mrk> annotations, CDATA, untranslated states and translate="no"', (t) => {
  const v12 = `<?xml version="1.0"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
 <file original="a.po" source-language="en-US" target-language="pl" datatype="po">
  <body>
   <group id="g1">
    <trans-unit id="1" resname="greeting"><source>Hello</source><target state="translated"><mrk mtype="seg" mid="1">Cześć</mrk></target></trans-unit>
    <trans-unit id="2"><source>Bye</source><target state="new">Bye</target></trans-unit>
    <trans-unit id="3"><source>Hi</source><target><![CDATA[<i>Hej</i> & co]]></target><note>from po</note></trans-unit>
    <trans-unit id="4" translate="no"><source>Brand</source><target>Brand</target></trans-unit>
   </group>
  </body>
 </file>
</xliff>`;
  const c = xliff12.parse(v12);
  t.deepEqual(
    c.entries.map((e) => [e.fileKey, e.values.pl?.kind === 'text' ? e.values.pl.text : null]),
    [
      ['greeting', 'Cześć'],
      ['2', null],
      ['3', '<i>Hej</i> & co'],
    ],
  );
  t.is(c.entries[2].comment, 'from po');
  const v20 = `<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">
 <file id="f"><group id="g"><unit id="u1"><segment state="translated"><source>One. </source><target>Eins. </target></segment><ignorable><source> </source></ignorable><segment><source>Two.</source><target>Zwei.</target></segment></unit>
 <unit id="u2"><segment state="initial"><source>Three</source><target>Three</target></segment></unit></group></file></xliff>`;
  const d = xliff20.parse(v20);
  t.deepEqual(
    d.entries.map((e) => [e.fileKey, e.values.de?.kind === 'text' ? e.values.de.text : null]),
    [
      ['u1', 'Eins.  Zwei.'],
      ['u2', null],
    ],
  );
});

const refuses = (t: import('ava').ExecutionContext, m: typeof xliff12, body: string, re: RegExp) => {
  const err = t.throws(() => m.parse(body));
  t.true(err instanceof FormatError, String(err));
  t.regex(err.message, re);
};

test('hostile and malformed files are refused with a FormatError naming the problem', (t) => {
  refuses(
    t,
    xliff12,
    `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><xliff version="1.2"><file source-language="en"><body><trans-unit id="a"><source>&lol2;</source></trans-unit></body></file></xliff>`,
    /DOCTYPE/,
  );
  refuses(
    t,
    xliff12,
    '<xliff version="1.2"><file source-language="en"><body><trans-unit id="a"><source>x</source>',
    /invalid XML/,
  );
  refuses(t, xliff12, '<resources><string name="a">x</string></resources>', /<xliff> root/);
  refuses(
    t,
    xliff12,
    '<xliff version="1.2"><file source-language="en" target-language="fr"><body><trans-unit id="a"><source>Hi <g id="1">you</g></source><target>Salut <g id="1">toi</g></target></trans-unit></body></file></xliff>',
    /inline element <g>/,
  );
  refuses(
    t,
    xliff12,
    '<xliff version="1.2"><file source-language="en" target-language="fr"><body><trans-unit id="a"><source>a</source></trans-unit><trans-unit id="a"><source>b</source></trans-unit></body></file></xliff>',
    /twice/,
  );
  refuses(
    t,
    xliff12,
    '<xliff version="1.2"><file source-language="en" target-language="fr"><body/></file><file source-language="en" target-language="de"><body/></file></xliff>',
    /one language pair/,
  );
  refuses(t, xliff20, '<xliff version="2.0"><file id="f"/></xliff>', /srcLang/);
  refuses(
    t,
    xliff20,
    '<xliff version="2.0" srcLang="en" trgLang="fr"><file id="f"><unit id="u"><segment><source>Hi <ph id="1"/></source></segment></unit></file></xliff>',
    /inline element <ph>/,
  );
  t.is(xliff12.detect('<xliff version="2.0" srcLang="en"/>'), 0);
  t.is(xliff20.detect('<xliff version="1.2"/>'), 0);
});

test('a version renders XLIFF from its snapshot with each cell status as the state (delivery.ts renderFile)', (t) => {
  const s: Snapshot = {
    baseLang: 'en',
    languages: ['fr'],
    catalogs: {},
    keys: [
      {
        name: 'a',
        fileKey: null,
        comment: null,
        meta: null,
        ctx: 'button',
        source: 'Save',
        forms: null,
        cells: { fr: { value: 'Enregistrer', status: 'approved' } },
      },
      {
        name: 'b',
        fileKey: null,
        comment: null,
        meta: null,
        ctx: null,
        source: 'Open',
        forms: null,
        cells: { fr: { value: 'Open', status: 'source', fallback: true } },
      },
    ],
  };
  const body = renderFile(s, 'xliff12', 'fr').body;
  t.regex(body, /<target state="final">Enregistrer<\/target>/);
  t.regex(body, /<note from="context">button<\/note>/);
  t.notRegex(body, /<target[^>]*>Open/);
  t.regex(renderFile(s, 'xliff20', 'fr').body, /<segment state="final">/);
  t.is(REGISTRY.xliff12.path('pt-br', false), 'xliff/pt-BR.xlf');
  t.is(REGISTRY.xliff20.path('pt-br', false), 'xliff2/pt-BR.xlf');
  // Other formats keep their values as they were: no state from the cell status.
  const json = renderFile(s, 'json', 'fr').body;
  t.is((JSON.parse(json) as Record<string, string>).a, 'Enregistrer');
});
