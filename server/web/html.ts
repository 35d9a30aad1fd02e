// Server-rendered HTML with one rule: every interpolated value is escaped unless it is already `Html` (the result of
// the `html` tag itself). Keys, source strings, names and emails are hostile input; none reaches a page unescaped.
import { assetUrl } from './assets.js';

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

/**
 * Sent with every page: styles and scripts only from this origin's /assets/ (no inline script, so an injected
 * `<script>` or `onerror=` never runs), forms post only to this origin, and no other site may frame the page (an
 * Approve button must not be clicked through a transparent overlay).
 */
export const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function page(title: string, body: Html, header?: Html, nav?: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Glossa</title>
        <link rel="stylesheet" href="${assetUrl('dashboard.css')}" />
        <script src="${assetUrl('dashboard.js')}" defer></script>
        <script src="${assetUrl('grid.js')}" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header><strong>Glossa</strong>${header ?? ''}</header>
        ${nav ?? ''}
        <main id="main">${body}</main>
      </body>
    </html> `.text;
}
