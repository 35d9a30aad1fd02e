// Markup: safe to render as HTML (markup.ts, decision 0001), and the source's tags kept branch by branch
// (branches.ts). Both are gate rules (packages/core/src/gates.ts).
import { scanMarkup, unsafeMarkup } from '../../markup.js';
import { define, found } from '../define.js';
import type { BranchView } from '../branches.js';

// Android's `<xliff:g>` marks text a translator must leave as it is (`<xliff:g id="count">%d</xliff:g>`); aapt strips
// it and translated files drop it (androidx/media's values-fr/strings.xml has none), so it is no tag to keep.
const HINT = /^\/?xliff:g$/i;

/**
 * Tags of a raw string as a sorted multiset: `b` for `<b>` and `<b/>`, `/b` for `</b>` (right after its `b`). Read
 * by the HTML tokenizer (markup.ts), so `<img/src=x>` counts as the `<img>` it is.
 */
function tagScan(text: string): string[] {
  const order = (t: string) => (t.startsWith('/') ? `${t.slice(1)}\u0001` : t);
  if (!text.includes('<')) return [];
  return scanMarkup(text)
    .names.filter((n) => !HINT.test(n))
    .sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

const showTags = (tags: string[]) => tags.map((t) => `<${t}>`).join(' ') || 'none';

/** The first branch whose tags are those of no source branch it may follow, as the gates word it. */
function tagProblem(views: BranchView[]): string | null {
  for (const v of views) {
    const have = tagScan(v.value).join('\0');
    if (v.sources.some((s) => tagScan(s).join('\0') === have)) continue;
    return `tags differ${v.label}: expected ${showTags(tagScan(v.sources[0]))}, got ${showTags(tagScan(v.value))}`;
  }
  return null;
}

export const markupSafety = define({
  id: 'markup-safety',
  description:
    'The markup is safe to render as HTML: no script, `on*` handler or `javascript:` URL, no tag or URL the source lacks.',
  severity: 'error',
  category: 'markup',
  field: 'target',
  languages: 'All languages. URLs may differ towards the origins the project allows (markupOrigins).',
  trips: [
    { source: 'Tap <b>Save</b>', target: 'Tippe <b onclick="steal()">Speichern</b>' },
    { source: 'Read <a href="/terms">the terms</a>', target: 'Lies <a href="javascript:alert(1)">die AGB</a>' },
    { source: 'Read the terms', target: 'Lies die AGB<img src=x onerror=alert(1)>' },
  ],
  passes: [
    {
      source: 'Read <a href="/terms" title="Terms">the terms</a>',
      target: 'Lies <a href="/terms" title="AGB">die AGB</a>',
    },
  ],
  run: (cell) => (cell.target.includes('<') ? found(unsafeMarkup(cell.source, cell.target, cell.markup)) : null),
});

export const markupTags = define({
  id: 'markup-tags',
  description:
    "The translation carries the source's tags, counted by name, branch by branch (react-i18next's `<1>` included; Android's `<xliff:g>` hints may go).",
  severity: 'error',
  category: 'markup',
  field: 'target',
  languages:
    "All languages. A plural branch follows the source's branch of its category or `other` (Russian `one` also says 21, Japanese `other` also says 1).",
  trips: [
    { source: 'Tap <b>Save</b> to continue', target: 'Tippe auf Speichern, um fortzufahren' },
    { source: 'Hello <1>{name}</1>', target: 'Hallo <2>{name}</2>' },
  ],
  passes: [
    { source: 'Line one<br/>Line two', target: 'Zeile eins<br />Zeile zwei' },
    { source: 'Play <xliff:g id="count">%d</xliff:g> songs', target: '%d Titel abspielen' },
    {
      source: '{count, plural, one {One comment} other {<b>{count}</b> comments}}',
      target: '{count, plural, other {<b>{count}</b> 件のコメント}}',
      targetLang: 'ja',
    },
    {
      source: '{count, plural, one {One comment} other {<b>{count}</b> comments}}',
      target:
        '{count, plural, one {<b>{count}</b> комментарий} few {<b>{count}</b> комментария} many {<b>{count}</b> комментариев} other {<b>{count}</b> комментария}}',
      targetLang: 'ru',
    },
  ],
  run: (cell) => (cell.source.includes('<') || cell.target.includes('<') ? found(tagProblem(cell.views)) : null),
});
