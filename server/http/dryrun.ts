// The preview flag (`x-dry-run`, spec/README.md), one mechanism for every route that names it. The route table says
// how a route treats it (`x-dry-run`): `query` (translate, sync), `body` (content run) or `refused`.
import { invalidArgument } from '../infra/errors.js';

type DryRunMode = 'query' | 'body' | 'refused' | null;

/**
 * Any other spelling of the flag: case, separators, and the array and object forms of query parsers (`dryRun[]`,
 * `dryRun[0]`, `dry_run[x]`), which a server that ignored them would run for real.
 */
const isVariant = (name: string) =>
  name !== 'dryRun' &&
  name
    .replace(/\[[^\]]*\]/g, '')
    .replace(/[^A-Za-z0-9]/g, '')
    .toLowerCase() === 'dryrun';

/** Before the body is read: query flags. Returns the query's dryRun for `query` routes. */
export function dryRunFromQuery(mode: DryRunMode, query: Record<string, unknown>): boolean {
  if (!mode) return false;
  for (const name of Object.keys(query)) {
    if (isVariant(name)) throw invalidArgument(`Unknown flag "${name}": the preview flag is spelled exactly dryRun.`);
  }
  if (!('dryRun' in query)) return false;
  if (mode !== 'query')
    throw invalidArgument(
      mode === 'refused'
        ? 'This route has no preview: dryRun is not accepted.'
        : 'dryRun goes in the JSON body on this route.',
    );
  const v = query.dryRun;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw invalidArgument('dryRun must be the literal string true or false.');
}

/** After the body is parsed: body flags. Returns the body's dryRun for `body` routes. */
export function dryRunFromBody(mode: DryRunMode, body: unknown): boolean {
  if (!mode || !body || typeof body !== 'object' || Array.isArray(body)) return false;
  for (const name of Object.keys(body)) {
    if (isVariant(name)) throw invalidArgument(`Unknown flag "${name}": the preview flag is spelled exactly dryRun.`);
  }
  if (!('dryRun' in body)) return false;
  if (mode === 'query') throw invalidArgument('dryRun goes in the query string on this route, not in the body.');
  if (mode === 'refused') throw invalidArgument('This route has no preview: dryRun is not accepted.');
  const v = (body as Record<string, unknown>).dryRun;
  if (typeof v !== 'boolean') throw invalidArgument('dryRun must be a boolean.');
  return v;
}
