// A word-level diff for the pages that show how a text changed: a key's history and outdated source (keys.ts),
// a stale content unit's source (content.ts).
import { html, type Html } from './html.js';

/** A word-level diff of `after` against `before`: removed words struck, added words marked. */
export function diffHtml(before: string | null, after: string | null): Html {
  if (before == null) return html`<ins>${after ?? ''}</ins>`;
  if (after == null) return html`<del>${before}</del>`;
  const a = before.split(/(\s+)/);
  const b = after.split(/(\s+)/);
  if (a.length * b.length > 250_000) return html`<del>${before}</del> <ins>${after}</ins>`;
  // Longest common subsequence over words.
  const dp: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
  const out: Html[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(html`${a[i]}`);
      i++;
      j++;
    } else if (j < b.length && (i === a.length || dp[i][j + 1] >= dp[i + 1][j])) {
      out.push(html`<ins>${b[j]}</ins>`);
      j++;
    } else {
      out.push(html`<del>${a[i]}</del>`);
      i++;
    }
  }
  return html`${out}`;
}
