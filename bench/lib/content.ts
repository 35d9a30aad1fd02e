// Shared pieces of the content-document scenarios (content-push.ts, content-run.ts): a 200-block markdown
// document made of real prose, and turning Content on for the seeded projects.
import { readFileSync } from 'node:fs';
import { splitDocument } from '../../server/domain/content/blocks.js';
import type { components } from '../../generated/openapi.js';
import { json } from './http.js';
import type { ServiceInfo } from './servers.js';

export const BLOCKS = 200;

const fixture = (name: string) =>
  readFileSync(new URL(`../../test/fixtures/content/${name}`, import.meta.url), 'utf8').trimEnd();

// One block each (a heading, a paragraph or a list item's paragraph), appended until the document has BLOCKS
// blocks: prose in the fixtures' own voice, with headings, lists, links and inline code.
const APPENDIX = [
  '## Translating this guide',
  'Keep the file names `index.md` and `_index.md` exactly as they are: Hugo reads them to tell a [leaf bundle](#leaf-bundles) from a [branch bundle](#branch-bundles).',
  '- Install Express with `npm install express` before you run any of the [examples](https://github.com/expressjs/express/tree/master/examples).',
  '- Start the generated app with `npm start` and open [http://localhost:3000](http://localhost:3000) in your browser.',
  '- Read the [API reference](https://expressjs.com/en/5x/api.html) for every method of `app`, `req` and `res`.',
  '- Report a security issue privately, as the [Security Policies and Procedures](Security.md) describe, never in a public issue.',
  '## Page resources in practice',
  'A leaf bundle can hold images, data files and other pages; the `Resources` method on the `Page` object returns them, and templates can resize, crop or filter the images before they are published.',
  'A branch bundle lists its descendant pages, so a section with an `_index.md` file gets its own list page, its own front matter and its own resources.',
  'Headless bundles are never rendered on their own: use them for content that appears inside other pages, such as a shared footer or a gallery of images.',
  '## Routing in a few lines',
  'Express keeps its core small: routing, HTTP helpers such as redirection and caching, and content negotiation. Everything else comes from **middleware** you choose, for example [`body-parser`](https://github.com/expressjs/body-parser) or [`cookie-session`](https://github.com/expressjs/cookie-session).',
  'The view system supports [many template engines](https://github.com/expressjs/express/wiki#template-engines), so you can keep the one your team already knows.',
  '- Define a route with `app.get()`, `app.post()` or `app.use()`, and call `next()` to hand the request on.',
  '- Mount a `Router` at a path to group the routes of one resource, such as `/users` or `/posts`.',
  '- Serve static files with `express.static()` from a folder such as `public`, with caching headers that suit your deployment.',
  '## Where to ask',
  'Questions about Hugo belong on the [forum](https://discourse.gohugo.io/); questions about Express on the [GitHub discussions](https://github.com/expressjs/discussions) or in the `#express` channel of the [OpenJS Foundation Slack](https://slack-invite.openjsf.org/).',
  'Before you open an issue, search the existing ones: somebody may have asked the same question, and the answer may already be in the _documentation_.',
  'Thank you for reading this far, and for helping to translate it.',
];

/** The benchmark document: hugo-page-bundles.md (with its frontmatter), express-readme.md, then the appendix. */
function buildDocument(): string {
  const head = `${fixture('hugo-page-bundles.md')}\n\n${fixture('express-readme.md')}\n`;
  const missing = BLOCKS - splitDocument('markdown', head).length;
  if (missing < 0 || missing > APPENDIX.length) throw new Error(`cannot make ${BLOCKS} blocks (${missing} missing)`);
  return `${head}\n${APPENDIX.slice(0, missing).join('\n\n')}\n`;
}

/** Checks that `text` splits into exactly BLOCKS blocks; returns it. */
function checked(text: string): string {
  const n = splitDocument('markdown', text).length;
  if (n !== BLOCKS) throw new Error(`the benchmark document has ${n} blocks, not ${BLOCKS}`);
  return text;
}

export const DOCUMENT = checked(buildDocument());

/** DOCUMENT with one block changed (block 101 of 200, in express-readme.md's "Philosophy"): nothing else differs. */
export const EDITED = (() => {
  const text = checked(DOCUMENT.replace('small, robust tooling', 'small, dependable tooling'));
  const before = splitDocument('markdown', DOCUMENT);
  const changed = splitDocument('markdown', text).filter((b, i) => b.hash !== before[i].hash).length;
  if (changed !== 1) throw new Error(`the edited document differs in ${changed} blocks, not 1`);
  return text;
})();

/** DOCUMENT with `tag` put in front of every block: the same shape and prose, every block new. */
export function tagged(tag: string): string {
  let out = DOCUMENT;
  for (const b of splitDocument('markdown', DOCUMENT).reverse())
    out = `${out.slice(0, b.start)}${tag} ${out.slice(b.start)}`;
  return checked(out);
}

/** Turns Content on for `projectId` (internal PATCH /projects/{projectId}). */
export async function enableContent(info: ServiceInfo, projectId: string): Promise<void> {
  const res = await fetch(`${info.adminUrl}/projects/${projectId}`, {
    method: 'PATCH',
    headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
    body: JSON.stringify({ contentEnabled: true }),
  });
  if (res.status !== 200) throw new Error(`enabling Content failed: ${res.status} ${await res.text()}`);
}

/** PUT /content/{docId}; the answer's body, or an error for anything but 200/201. */
export async function putDocument(
  info: ServiceInfo,
  project: ServiceInfo['projects'][number],
  docId: string,
  body: { title?: string; text: string },
): Promise<components['schemas']['ContentPushResult']> {
  const send = () =>
    fetch(`${info.base}/projects/${project.projectId}/content/${docId}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  // A kept-alive connection the server closed as idle, at the moment the client reused it (rounds are seconds
  // apart on a loaded machine): the push is idempotent, so it is sent once more on a new connection.
  const res = await send().catch((err: Error & { cause?: { code?: string } }) => {
    if (err.cause?.code !== 'UND_ERR_SOCKET') throw err;
    return send();
  });
  const answer = await json<components['schemas']['ContentPushResult']>(res);
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`push of ${docId} failed: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}
