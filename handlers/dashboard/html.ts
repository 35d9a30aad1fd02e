// Server-rendered HTML with one rule: every interpolated value is escaped unless it is already `Html` (the result of
// the `html` tag itself). Keys, source strings, names and emails are hostile input; none reaches a page unescaped.
import { createHash } from 'node:crypto';

export class Html {
  constructor(readonly text: string) {}
  toString() {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c]);

/** What a template takes: text, numbers, nothing, other templates, and lists of these. */
type Piece = Html | string | number | boolean | null | undefined | Piece[];

function piece(value: Piece): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** A template whose interpolations are escaped (arrays joined, null/undefined/false left out). */
export function html(strings: TemplateStringsArray, ...values: Piece[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return new Html(out);
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1f;background:#f6f6f8}
header{background:#1b1b1f;color:#fff;padding:.6rem 1.2rem;display:flex;justify-content:space-between;align-items:center}
header form{margin:0}header a{color:#fff}
main{max-width:52rem;margin:1.5rem auto;padding:0 1.2rem}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:1rem 1.2rem;margin:0 0 1rem}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{font-weight:600}dd{margin:0}
code,.mono{font-family:ui-monospace,monospace;word-break:break-all}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eee;padding:.3rem;text-align:left;vertical-align:top}
.source{white-space:pre-wrap;word-break:break-word}
.state{display:inline-block;padding:.1rem .5rem;border-radius:4px;background:#eee;font-weight:600}
.error{color:#a00000;font-weight:600}.warn{color:#8a5300}
label{display:block;margin:.6rem 0 .2rem}input{font:inherit;padding:.3rem}
button{font:inherit;padding:.4rem 1rem;margin-right:.6rem;cursor:pointer}
`.trim();

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');
// The element whole, so the page template's formatting cannot add whitespace to the text the hash covers.
const STYLE_ELEMENT = new Html(`<style>${STYLE}</style>`);

/**
 * Sent with every page: nothing loads but the inline style above, no script runs, forms post only to this origin,
 * and no other site may frame the page (an approval button must not be clicked through a transparent overlay).
 */
export const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function page(title: string, body: Html, header?: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Glossa</title>
        ${STYLE_ELEMENT}
      </head>
      <body>
        <header><strong>Glossa</strong>${header ?? ''}</header>
        <main>${body}</main>
      </body>
    </html> `.text;
}
