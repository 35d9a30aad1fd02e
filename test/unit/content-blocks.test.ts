// Content documents without the service: blocks cut from real documents (test/fixtures/content, see SOURCES.md),
// put back byte for byte, translated through the real pseudo engine with their markup protected, matched across
// revisions; and restore() held against engine answers that lose, duplicate or inject markup.
import { readFileSync } from 'node:fs';
import test from 'ava';
import {
  detectFormat,
  splitDocument,
  treeShape,
  type DocFormat,
  type ParsedBlock,
} from '../../server/domain/content/blocks.js';
import { assemble, matchBlocks } from '../../server/domain/content/revisions.js';
import { protectBlock } from '../../server/domain/content/inline.js';
import { PseudoEngine } from '../../server/infra/engines/pseudo.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/content/${name}`, import.meta.url), 'utf8');
const FIXTURES: Array<[string, DocFormat]> = [
  ['express-readme.md', 'markdown'],
  ['hugo-page-bundles.md', 'markdown'],
  ['kafka-blog.html', 'html'],
];

const engine = new PseudoEngine();

/** Every block through protect → pseudo engine → restore; fails the test on any engine or restore error. */
async function pseudoDocument(format: DocFormat, text: string, blocks: ParsedBlock[]): Promise<string> {
  const prot = blocks.map((b) => protectBlock(format, b.type, b.text));
  const outcomes = await engine.translate(
    prot.map((p, i) => ({ id: String(i), key: `b${i}`, source: p.message, sourceLang: 'en', targetLang: 'fr' })),
  );
  const texts = outcomes.map((o, i) => {
    if (o.value === undefined) throw new Error(`engine: block ${i}: ${o.error}`);
    const r = prot[i].restore(o.value);
    if ('error' in r) throw new Error(`restore: block ${i} ${JSON.stringify(blocks[i].text)}: ${r.error}`);
    return r.text;
  });
  return assemble(text, blocks, (i) => texts[i]);
}

/** The one engine answer for a message (the pseudo form), for tests that then tamper with it. */
async function pseudo(message: string): Promise<string> {
  const [o] = await engine.translate([{ id: '1', key: 'k', source: message, sourceLang: 'en', targetLang: 'fr' }]);
  if (o.value === undefined) throw new Error(o.error);
  return o.value;
}

for (const [name, format] of FIXTURES) {
  test(`${name}: detected as ${format}, split, and reassembled byte for byte`, (t) => {
    const text = fixture(name);
    t.is(detectFormat(text), format);
    const blocks = splitDocument(format, text);
    t.true(blocks.length > 20);
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i];
      t.is(text.slice(b.start, b.end), b.text);
      if (i) t.true(blocks[i - 1].end <= b.start, 'blocks never overlap');
      t.regex(b.hash, /^[0-9a-f]{16}$/);
    }
    t.is(
      assemble(text, blocks, () => undefined),
      text,
    );
  });

  test(`${name}: every block through the pseudo engine keeps the document's tree shape`, async (t) => {
    const text = fixture(name);
    const blocks = splitDocument(format, text);
    const out = await pseudoDocument(format, text, blocks);
    t.not(out, text);
    t.is(treeShape(format, out), treeShape(format, text));
    // Translating the translation again works too: restore's escaping reads back as the same text.
    const again = splitDocument(format, out);
    t.is(again.length, blocks.length);
    t.is(treeShape(format, await pseudoDocument(format, out, again)), treeShape(format, text));
  });
}

/** Every (fenced) code block, inline code span, URL, frontmatter block or script of `text`, by a simple scan. */
function untouchables(text: string, patterns: RegExp[]): string[] {
  return patterns.flatMap((p) => [...text.matchAll(p)].map((m) => m[0]));
}

test('markdown: code, inline code, frontmatter and URLs come out byte for byte', async (t) => {
  for (const name of ['express-readme.md', 'hugo-page-bundles.md']) {
    const text = fixture(name);
    const out = await pseudoDocument('markdown', text, splitDocument('markdown', text));
    const kept = untouchables(text, [/^```[\s\S]*?^```/gm, /^---\n[\s\S]*?\n---\n/g, /`[^`\n]+`/g, /\]\([^)\s]+\)/g]);
    t.true(kept.length > 10);
    for (const piece of kept) t.true(out.includes(piece), `${name}: ${piece.slice(0, 60)}`);
    // Reference definitions (the badges' URLs) are skeleton.
    for (const def of text.match(/^\[[^\]]+\]: .*$/gm) ?? []) t.true(out.includes(def));
  }
});

test('html: script, comments, attribute URLs and <code> come out byte for byte', async (t) => {
  const text = fixture('kafka-blog.html');
  const out = await pseudoDocument('html', text, splitDocument('html', text));
  const kept = untouchables(text, [
    /<script>[\s\S]*?<\/script>/g,
    /<!--[\s\S]*?-->/g,
    /href="[^"]*"/g,
    /<code>.*?<\/code>/g,
  ]);
  t.true(kept.length > 30);
  for (const piece of kept) t.true(out.includes(piece), piece.slice(0, 60));
  t.true(out.includes('ĜÉŢ /çöññéçţöŕš/{çöññéçţöŕ}/öƒƒšéţš'), 'ICU braces in text are text');
});

test('markdown block types: headings, paragraphs in lists and blockquotes, table cells; the rest is skeleton', (t) => {
  const text = [
    '---',
    'title: Doc',
    '---',
    '',
    '# Title',
    '',
    '- item *one*',
    '- item two',
    '',
    '> quoted line one',
    '> quoted line two',
    '',
    '| a | b |',
    '|---|---|',
    '| `x` | y \\| z |',
    '',
    '```js',
    'const a = 1;',
    '```',
    '',
    '    indented code',
    '',
    '***',
    '',
    '<div align="center">raw html</div>',
    '',
    '[ref]: https://example.com "Title"',
    '',
  ].join('\n');
  const blocks = splitDocument('markdown', text);
  t.deepEqual(
    blocks.map((b) => [b.type, b.text]),
    [
      ['heading', 'Title'],
      ['paragraph', 'item *one*'],
      ['paragraph', 'item two'],
      ['paragraph', 'quoted line one\n> quoted line two'],
      ['tableCell', 'a'],
      ['tableCell', 'b'],
      ['tableCell', '`x`'],
      ['tableCell', 'y \\| z'],
    ],
  );
  t.is(
    assemble(text, blocks, () => undefined),
    text,
  );
});

test('markdown: a multi-line blockquote paragraph keeps its inner > markers through the engine', async (t) => {
  const text = '> quoted line one\n> quoted line *two*\n>   and three\n';
  const [b] = splitDocument('markdown', text);
  const p = protectBlock('markdown', b.type, b.text);
  t.is(p.message, 'quoted line one{p0}quoted line <x0>two</x0>{p1}and three');
  const r = p.restore(await pseudo(p.message));
  if ('error' in r) return t.fail(r.error);
  const out = assemble(text, [b], () => r.text);
  t.regex(out, /^> \\\[.*\n> .*\*ţŵö\*\n> {3}.*\n$/);
  t.is(treeShape('markdown', out), treeShape('markdown', text));
});

test('markdown: images, links, references, autolinks, footnotes and inline HTML', async (t) => {
  const text = [
    'See ![the *logo*](logo.png "Logo") and [docs](https://x.dev/a_b "Docs"), [ref text][ref], [short],',
    '<https://auto.link>, https://bare.link, `code`, a footnote[^1], <kbd>Ctrl</kbd>, <em>html emph</em> &copy; 2024.',
    '',
    '[ref]: https://example.com',
    '[short]: https://example.com/short',
    '[^1]: The note.',
    '',
  ].join('\n');
  const blocks = splitDocument('markdown', text);
  const p = protectBlock('markdown', blocks[0].type, blocks[0].text);
  t.is(
    p.message,
    'See <x0>the *logo*</x0> and <x1>docs</x1>, <x2>ref text</x2>, {p0},\n{p1}, {p2}, {p3}, a footnote{p4}, ' +
      '{p5}, <x3>html emph</x3> {p6} 2024.',
  );
  const out = await pseudoDocument('markdown', text, blocks);
  t.is(treeShape('markdown', out), treeShape('markdown', text));
  for (const kept of [
    '](logo.png "Logo")',
    '](https://x.dev/a_b "Docs")',
    '][ref]',
    '[short]',
    '<https://auto.link>',
  ]) {
    t.true(out.includes(kept), kept);
  }
  for (const kept of ['https://bare.link', '`code`', '[^1]', '<kbd>', '</kbd>', '<em>', '</em>', '&copy;']) {
    t.true(out.includes(kept), kept);
  }
  t.true(out.includes('![ţĥé \\*ļöĝö\\*](logo.png "Logo")'), 'the alt text is translated');
});

test('html blocks: text elements, loose text, attributes, meta description; skeleton elements untouched', (t) => {
  const text = [
    '<!DOCTYPE html>',
    '<html><head>',
    '<title>My &amp; post</title>',
    '<meta name="description" content="A post about &quot;things&quot;">',
    '<meta name="viewport" content="width=device-width">',
    '<style>p { color: red }</style>',
    '</head><body>',
    '<article>Posted today <a href="/me">by me</a>',
    '<h1 title="Tip">Hello <em>world</em></h1>',
    '<img src="a.png" alt="A cat">',
    '<p>See <img src="b.png" alt="a dog"> here.<br>Next line</p>',
    '<pre>keep   this</pre>',
    '<div><code>only code</code></div>',
    '<ul><li>One</li><li>Two<ul><li>Nested</li></ul></li></ul>',
    '<input placeholder=\'Search…\' value="x">',
    '<script>var s = "<p>not text</p>";</script>',
    '</article></body></html>',
    '',
  ].join('\n');
  t.is(detectFormat(text), 'html');
  const blocks = splitDocument('html', text);
  t.deepEqual(
    blocks.map((b) => [b.type, b.text]),
    [
      ['title', 'My &amp; post'],
      ['attr', 'A post about &quot;things&quot;'],
      ['text', 'Posted today <a href="/me">by me</a>'],
      ['attr', 'Tip'],
      ['h1', 'Hello <em>world</em>'],
      ['attr', 'A cat'],
      ['p', 'See <img src="b.png" alt="a dog"> here.<br>Next line'],
      ['li', 'One'],
      ['text', 'Two'],
      ['li', 'Nested'],
      ['attr', 'Search…'],
    ],
  );
  t.is(
    assemble(text, blocks, () => undefined),
    text,
  );
});

test('html: attribute blocks are decoded for the engine and re-escaped for a quoted attribute', async (t) => {
  const p = protectBlock('html', 'attr', 'A post about &quot;things&quot; &amp; more');
  t.is(p.message, 'A post about "things" & more');
  t.true('error' in p.restore('Un article sur <b>plus</b>'), 'an unquoted <b> is an ICU tag nobody asked for');
  t.deepEqual(p.restore(`Un article sur "les choses" & '<b>plus</b>'`), {
    text: 'Un article sur &quot;les choses&quot; &amp; &lt;b&gt;plus&lt;/b&gt;',
  });
  t.deepEqual(p.restore("L'article"), { text: 'L&#39;article' });
  t.true('error' in p.restore('with {p0} argument'));
  const img = protectBlock('html', 'p', 'See <img src="b.png" alt="a &quot;dog&quot;"> here.');
  t.is(img.message, 'See <x0>a "dog"</x0> here.');
  t.deepEqual(img.restore('Voir <x0>un "chien"</x0> ici.'), {
    text: 'Voir <img src="b.png" alt="un &quot;chien&quot;"> ici.',
  });
  const r = img.restore(await pseudo(img.message));
  t.false('error' in r);
});

test('plaintext: paragraphs separated by blank lines; separators are skeleton', async (t) => {
  const text = '  First paragraph\nstill first.\n\n\n   Second {one} & <two>.\n\nThird\n';
  t.is(detectFormat(text), 'plaintext');
  const blocks = splitDocument('plaintext', text);
  t.deepEqual(
    blocks.map((b) => b.text),
    ['First paragraph\nstill first.', 'Second {one} & <two>.', 'Third'],
  );
  t.is(
    assemble(text, blocks, () => undefined),
    text,
  );
  const out = await pseudoDocument('plaintext', text, blocks);
  t.is(treeShape('plaintext', out), treeShape('plaintext', text));
  t.true(out.includes('{öñé} & <two>'), 'braces and tag-like text are text');
  const p = protectBlock('plaintext', 'paragraph', 'One');
  t.deepEqual(p.restore('Un\n\n\nDeux'), { text: 'Un\nDeux' }, 'a blank line would split the paragraph');
});

test('detectFormat', (t) => {
  t.is(detectFormat('<!doctype html><title>x</title>'), 'html');
  t.is(detectFormat('<p>Hello</p>\n<p>World</p>'), 'html');
  t.is(detectFormat('<div class="x">text</div>'), 'html');
  t.is(detectFormat('# Title\n\nSome *text* with a [link](https://x.y).'), 'markdown');
  t.is(
    detectFormat('<p align="center"><img src="logo.svg"></p>\n\n# Name\n\n- a\n- b\n\n```sh\nnpm i\n```\n'),
    'markdown',
  );
  t.is(detectFormat('Just words.\n\nMore words, nothing else.'), 'plaintext');
  t.is(detectFormat(''), 'plaintext');
});

// matchBlocks ----------------------------------------------------------------------------------------------------

const paragraphs = Array.from({ length: 20 }, (_, i) => `Paragraph number ${i + 1} says something.`);
const markdownOf = (ps: string[]) => `# Title\n\n${ps.join('\n\n')}\n`;
/** Ids for a first revision, as the store would keep them. */
function firstRevision(text: string) {
  const blocks = splitDocument('markdown', text);
  const ids = matchBlocks([], blocks);
  t0(ids.every((m) => m.status === 'new'));
  return blocks.map((b, i) => ({ id: ids[i].id, hash: b.hash }));
}
function t0(ok: boolean) {
  if (!ok) throw new Error('first revision: every block should be new');
}

test('matchBlocks: one paragraph of twenty edited keeps 20 same (title included) and 1 changed', (t) => {
  const previous = firstRevision(markdownOf(paragraphs));
  t.is(new Set(previous.map((p) => p.id)).size, previous.length, 'ids are unique');
  t.true(previous.every((p) => /^b[0-9a-f]{8}$/.test(p.id)));
  const edited = [...paragraphs];
  edited[7] = 'Paragraph number 8 now says something else.';
  const next = splitDocument('markdown', markdownOf(edited));
  const m = matchBlocks(previous, next);
  t.is(m.filter((x) => x.status === 'same').length, 20);
  t.deepEqual(m[8], { id: previous[8].id, status: 'changed' });
  t.deepEqual(
    m.map((x) => x.id),
    previous.map((p) => p.id),
  );
});

test('matchBlocks: a moved paragraph keeps its id; an inserted one is the only new id', (t) => {
  const previous = firstRevision(markdownOf(paragraphs));
  const moved = [...paragraphs];
  const [p3] = moved.splice(2, 1);
  moved.push(p3);
  const m = matchBlocks(previous, splitDocument('markdown', markdownOf(moved)));
  t.true(m.every((x) => x.status === 'same'));
  t.is(m[m.length - 1].id, previous[3].id);

  const inserted = [...paragraphs];
  inserted.splice(5, 0, 'A brand new paragraph.');
  const n = matchBlocks(previous, splitDocument('markdown', markdownOf(inserted)));
  t.deepEqual(
    n.map((x) => x.status),
    n.map((_, i) => (i === 6 ? 'new' : 'same')),
  );
  t.false(
    previous.some((p) => p.id === n[6].id),
    'a fresh id never reuses an old one',
  );
});

test('matchBlocks: duplicates in order, edits between anchors, deletions, fresh ids unique', (t) => {
  const previous = [
    { id: 'bA', hash: 'h1' },
    { id: 'bB', hash: 'dup' },
    { id: 'bC', hash: 'h2' },
    { id: 'bD', hash: 'dup' },
    { id: 'bE', hash: 'h3' },
  ];
  const next = [{ hash: 'dup' }, { hash: 'h1' }, { hash: 'x' }, { hash: 'dup' }, { hash: 'dup' }, { hash: 'y' }];
  const m = matchBlocks(previous, next);
  t.deepEqual(m.slice(0, 2), [
    { id: 'bB', status: 'same' },
    { id: 'bA', status: 'same' },
  ]);
  t.deepEqual(m[3], { id: 'bD', status: 'same' });
  // x sits where h2 (bC) was, between the anchors h1 and the second dup; after the last anchor, the third dup
  // takes the place of h3 (bE), and y, with no old block left, is new.
  t.deepEqual(m[2], { id: 'bC', status: 'changed' });
  t.deepEqual(m[4], { id: 'bE', status: 'changed' });
  t.is(m[5].status, 'new');
  t.false(m.some((x) => x.id === 'bA' && x.status !== 'same'));
  const again = matchBlocks([], [{ hash: 'same' }, { hash: 'same' }]);
  t.not(again[0].id, again[1].id);
  t.deepEqual(matchBlocks([], [{ hash: 'same' }, { hash: 'same' }]), again, 'fresh ids are deterministic');
});

// restore against hostile answers --------------------------------------------------------------------------------

test('restore refuses an answer that drops, duplicates or invents a tag or an argument', async (t) => {
  const p = protectBlock('markdown', 'paragraph', 'Run `npm test` to check **all** of [the docs](https://x.dev).');
  t.is(p.message, 'Run {p0} to check <x0>all</x0> of <x1>the docs</x1>.');
  const good = await pseudo(p.message);
  t.false('error' in p.restore(good));
  const bad = {
    'drops a tag': 'Lancez {p0} pour tout vérifier dans <x1>la doc</x1>.',
    'drops an argument': 'Lancez pour vérifier <x0>tout</x0> de <x1>la doc</x1>.',
    'duplicates a tag': 'Lancez {p0} <x0>tout</x0> <x0>tout</x0> de <x1>la doc</x1>.',
    'duplicates an argument': 'Lancez {p0} {p0} <x0>tout</x0> de <x1>la doc</x1>.',
    'invents an argument': 'Lancez {p0} {p7} <x0>tout</x0> de <x1>la doc</x1>.',
    'invents a tag': 'Lancez {p0} <x0>tout</x0> de <x1>la doc</x1> <x9>!</x9>',
    'is not ICU': 'Lancez {p0 <x0>tout</x0> de <x1>la doc</x1>.',
    'uses plural syntax': 'Lancez {p0} <x0>tout</x0> de <x1>la doc</x1> {n, plural, other {#}}.',
  };
  for (const [why, answer] of Object.entries(bad)) t.true('error' in p.restore(answer), why);
  const reordered = p.restore('<x1>La doc</x1> : <x0>tout</x0> vérifier avec {p0}.');
  t.deepEqual(reordered, { text: '[La doc](https://x.dev) : **tout** vérifier avec `npm test`.' });
});

test('restore escapes markup injected as text, so the shape is unchanged', (t) => {
  const source = 'A plain paragraph with *emphasis*.';
  const p = protectBlock('markdown', 'paragraph', source);
  const injections = [
    '# Titre <x0>injecté</x0>',
    'Texte <x0>ok</x0>\n# Titre\n- liste\n1. numéro\n> citation\n---',
    'Voir [x](javascript:alert(1)) et <x0>ça</x0> ![img](http://evil/x.png)',
    '<script>alert(1)</script> <x0>ça</x0>',
    "'<script>alert(1)</script>' <x0>ça</x0>",
    'Visitez https://evil.example ou www.evil.example ou moi@evil.example <x0>ça</x0>',
    '    indenté <x0>ça</x0>\n\n\nnouveau paragraphe  \navec saut',
    '`code` **gras** _it_ ~~barré~~ <x0>ça</x0> \\ &amp; &#35; | fin',
  ];
  for (const answer of injections) {
    const r = p.restore(answer);
    if ('error' in r) {
      t.pass(`refused: ${answer}`);
      continue;
    }
    const doc = `Intro.\n\n${r.text}\n\nOutro.\n`;
    t.is(treeShape('markdown', doc), treeShape('markdown', `Intro.\n\n${source}\n\nOutro.\n`), answer);
  }
  const html = protectBlock('html', 'p', 'Hello <em>world</em> &amp; friends');
  t.is(html.message, 'Hello <x0>world</x0> {p0} friends');
  const r = html.restore("'<script>alert(1)</script>' <x0>monde</x0> {p0} & '<b>'amis'</b>'");
  t.deepEqual(r, {
    text: '&lt;script&gt;alert(1)&lt;/script&gt; <em>monde</em> &amp; &amp; &lt;b&gt;amis&lt;/b&gt;',
  });
  const heading = protectBlock('markdown', 'heading', 'Install');
  const h = heading.restore('Installer\n# Autre titre');
  t.deepEqual(h, { text: 'Installer \\# Autre titre' }, 'a heading stays on one line');
  const cell = protectBlock('markdown', 'tableCell', 'a `b`');
  t.deepEqual(cell.restore('x | y {p0}'), { text: 'x \\| y `b`' }, 'a pipe in a table cell is escaped');
});

test('hostile text round-trips: ICU braces, apostrophes, #, <, &amp;, emoji, RTL', async (t) => {
  const cases: Array<[DocFormat, string, string]> = [
    ['markdown', 'paragraph', "It's {count} items: a {b} c '{x}' d ''quoted'' e # f \\< g &amp; h 😀 שלום עולם"],
    ['markdown', 'heading', "Don't #1: {braces} & 'quotes' — مرحبا"],
    ['html', 'p', "It's {count} &lt;tag&gt; &amp; <b>'bold'</b> # 😀👍🏽 <span dir=\"rtl\">مرحبا بالعالم</span>"],
    ['html', 'attr', 'It&#39;s {x} &lt;b&gt; &amp; 😀 שלום'],
    ['plaintext', 'paragraph', "It's {count} <b> &amp; # 😀 שלום"],
  ];
  for (const [format, type, text] of cases) {
    const p = protectBlock(format, type, text);
    // The identity answer (the message itself) rebuilds a block that reads the same as the source.
    const same = p.restore(p.message);
    if ('error' in same) return t.fail(`${format}: ${same.error}`);
    if (format === 'markdown') t.is(treeShape('markdown', same.text), treeShape('markdown', text));
    if (format === 'html' && type !== 'attr') t.is(treeShape('html', same.text), treeShape('html', text));
    if (format === 'plaintext') t.is(same.text, text);
    const answer = await pseudo(p.message);
    const r = p.restore(answer);
    t.false('error' in r, `${format} ${type}: ${JSON.stringify(r)}`);
  }
  // The literal text survives exactly: read back through the markdown parser, the paragraph says the same.
  const md = cases[0][2];
  const p = protectBlock('markdown', 'paragraph', md);
  const back = p.restore(p.message);
  t.true('text' in back && back.text.includes('😀 שלום עולם'));
  const plain = protectBlock('html', 'attr', 'It&#39;s {x} &lt;b&gt; &amp; 😀 שלום');
  t.deepEqual(plain.restore(plain.message), { text: 'It&#39;s {x} &lt;b&gt; &amp; 😀 שלום' });
});
