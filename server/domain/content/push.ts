// Pushing a document's source (`putContentDocument`, `createContentDocument`). A push never translates and
// never spends: it stores the text with its blocks, and keeps every translation whose block survived. Block ids
// are carried from the previous revision by matchBlocks (blocks.ts): an unchanged or moved block keeps its id and
// hash, so its translations stay current; a changed block keeps its id with a new hash, so its translations read
// stale and remain as candidates.
//
// Concurrent pushes to one document are serialized by a compare-and-set on `revision`: a push that lost re-reads
// and recomputes on the new source, and after MAX_TRIES losses answers 409 edit_conflict. Nothing is lost: every
// push either lands on the latest revision or reports that it did not.
import type { Db } from '../../infra/db.js';
import { dialectOf, isUniqueViolation, newId, parseJson } from '../../infra/db.js';
import { Refusal, invalidArgument } from '../../infra/errors.js';
import { countDaily, usedDaily } from '../billing/quotas.js';
import type { ContentDocRow, ProjectRow } from '../../infra/tables.js';
import type { DocFormat, ParsedBlock } from './blocks.js';
import { matchBlocks } from './revisions.js';
import { parseOffThread } from './parse-pool.js';
import {
  DAILY_PUSHES,
  MAX_BLOCK_CHARS,
  MAX_BLOCKS,
  MAX_DOCUMENT_CHARS,
  MAX_FIELD_CHARS,
  charCount,
  tooComplex,
  tooLarge,
} from './rules.js';
import { docFields, readDoc, revisionId, storedBlocks, type StoredBlock } from './store.js';

interface PushBody {
  title?: string;
  text?: string;
  format?: DocFormat;
  baseLang?: string;
  externalId?: string;
  fields?: Record<string, string>;
}

export interface PushResult {
  docId: string;
  revisionId: string;
  changed: boolean;
  created: boolean;
}

const MAX_TRIES = 8;

class LostRace extends Error {}

/** The text's blocks, as its parse found them (parse.ts). */
interface Parsed {
  format: DocFormat;
  blocks: ParsedBlock[];
}

/** The parsed blocks with ids carried from `previous`, and the health verdict of the source. */
function blocksOf(parsed: ParsedBlock[], previous: StoredBlock[]): { blocks: StoredBlock[]; health: string | null } {
  if (parsed.length > MAX_BLOCKS) throw tooLarge(`The text splits into ${parsed.length} blocks`);
  const ids = matchBlocks(previous, parsed);
  const blocks = parsed.map((b, i) => ({ id: ids[i].id, type: b.type, hash: b.hash, start: b.start, end: b.end }));
  const long = parsed.findIndex((b) => charCount(b.text) > MAX_BLOCK_CHARS);
  const health =
    long >= 0
      ? `block ${blocks[long].id} holds more than ${MAX_BLOCK_CHARS} characters: split it into paragraphs`
      : null;
  return { blocks, health };
}

function checkFields(fields: Record<string, string> | undefined): void {
  for (const [name, value] of Object.entries(fields ?? {})) {
    if (charCount(value) > MAX_FIELD_CHARS)
      throw invalidArgument(`fields.${name}: a field holds at most ${MAX_FIELD_CHARS} characters.`);
  }
}

/** The refusals a push's body earns against the document as it stands, before anything is parsed. */
function checkPush(doc: ContentDocRow | undefined, body: PushBody, project: ProjectRow, languages: readonly string[]) {
  if (!doc) {
    if (body.title === undefined) throw invalidArgument('title is required when a push creates the document.');
    // `ContentPushRequest`: text may be left out only by a push that updates fields of a document that has one.
    if (body.text === undefined) throw invalidArgument('text is required when a push creates the document.');
    const baseLang = body.baseLang ?? project.base_lang;
    if (!languages.includes(baseLang)) throw invalidArgument(`baseLang ${baseLang} is not a language of this project.`);
  } else if (body.format !== undefined && body.format !== doc.format) {
    throw invalidArgument(`format is fixed once the document exists (it is ${doc.format}).`);
  } else if (
    body.text === undefined &&
    body.fields === undefined &&
    body.title === undefined &&
    body.externalId === undefined
  ) {
    throw invalidArgument('text is required unless the push updates only fields.');
  }
}

/** The document a push would leave, or null when it changes nothing. `parsed`: the pushed text's parse, if it has one. */
function nextRow(
  project: ProjectRow,
  docId: string,
  doc: ContentDocRow | undefined,
  body: PushBody,
  parsed: Parsed | null,
  now: number,
): ContentDocRow | null {
  const format = doc?.format ?? body.format ?? parsed?.format ?? 'plaintext';
  const fields = { ...(doc ? docFields(doc) : {}) };
  for (const [name, value] of Object.entries(body.fields ?? {})) {
    if (value === '') delete fields[name];
    else fields[name] = value;
  }
  if (Object.keys(fields).length > 16) throw invalidArgument('A document holds at most 16 fields.');
  const text = body.text ?? doc?.text ?? null;
  const title = body.title ?? doc!.title;
  const size = charCount(text ?? '') + charCount(title) + Object.values(fields).reduce((n, v) => n + charCount(v), 0);
  if (size > MAX_DOCUMENT_CHARS) throw tooLarge(`The document would hold ${size} characters`);
  const textChanged = doc ? text !== doc.text : text !== null;
  const { blocks, health } =
    text === null
      ? { blocks: [], health: null }
      : textChanged || !doc
        ? blocksOf(parsed!.blocks, doc ? storedBlocks(doc) : [])
        : { blocks: storedBlocks(doc), health: doc.health };
  const externalId = body.externalId ?? doc?.external_id ?? null;
  const fieldsJson = JSON.stringify(fields);
  if (
    doc &&
    !textChanged &&
    title === doc.title &&
    externalId === doc.external_id &&
    fieldsJson === JSON.stringify(parseJson(doc.fields, {}))
  )
    return null;
  return {
    project_id: project.id,
    doc_id: docId,
    title,
    format,
    base_lang: doc?.base_lang ?? body.baseLang ?? project.base_lang,
    external_id: externalId,
    fields: fieldsJson,
    text,
    blocks: JSON.stringify(blocks),
    health,
    revision: (doc?.revision ?? 0) + 1,
    state_rev: (doc?.state_rev ?? 0) + 1,
    published_version: doc?.published_version ?? null,
    published_at: doc?.published_at ?? null,
    published_state_rev: doc?.published_state_rev ?? null,
    created_at: doc?.created_at ?? now,
    updated_at: now,
  };
}

/** 402 plan_limit when the workspace already holds its plan's number of documents. */
async function checkDocumentLimit(trx: Db, workspaceId: string): Promise<void> {
  const q = trx('workspaces').where({ id: workspaceId }).first('document_limit');
  // Creations anywhere in the workspace count one at a time (MySQL; SQLite transactions are serial already).
  if (dialectOf(trx) === 'mysql') q.forUpdate();
  const limit = (await q)?.document_limit;
  if (limit == null) return;
  const [{ n }] = await trx('content_docs')
    .join('projects', 'projects.id', 'content_docs.project_id')
    .where('projects.workspace_id', workspaceId)
    .count({ n: '*' });
  if (Number(n) >= Number(limit))
    throw new Refusal('plan_limit', `The workspace's plan allows ${limit} documents.`, {
      details: [{ feature: 'documents', limit: Number(limit) }],
    });
}

const quotaExceeded = () =>
  new Refusal(
    'import_quota_exceeded',
    `A project takes at most ${DAILY_PUSHES} content pushes a day (UTC).`,
    {},
    Math.ceil((86_400_000 - (Date.now() % 86_400_000)) / 1000),
  );

/** The bounds on parsing a pushed text (config CONTENT_PARSE_DEADLINE_MS). */
export interface ParseLimits {
  deadlineMs: number;
}

/**
 * The pushed text's blocks, parsed on a parser thread under the deadline (parse-pool.ts). A text over the limits
 * is refused with 413 document_too_large (rules.ts tooComplex). The markdown pre-scan (prescan.ts) runs on the
 * thread too, before the parse: linear, but a few milliseconds of a 256 KB text the event loop need not spend.
 */
async function parseBlocks(text: string, format: DocFormat | undefined, limits: ParseLimits): Promise<Parsed> {
  const chars = charCount(text);
  if (chars > MAX_DOCUMENT_CHARS) throw tooLarge(`The text holds ${chars} characters`);
  const out = await parseOffThread({ format, text }, limits.deadlineMs);
  if ('refused' in out) throw tooComplex(`The text cannot be parsed: ${out.refused}`);
  return out;
}

/**
 * Stores one push. `onWrite` runs inside the writing transaction (the Idempotency-Key's answer is committed
 * there); a push that changes nothing writes nothing, counts no quota and answers `changed: false`.
 *
 * A push refused as too large or too complex (413 document_too_large) still counts one of the day's pushes
 * (docs/decisions/0006-bounded-content-parsing.md): its text was read and maybe parsed, and a refusal that cost
 * nothing would let a few requests a minute keep the parser threads busy. A push whose text would be parsed while
 * the day's pushes are used up is refused before the parse.
 */
export async function pushDocument(
  db: Db,
  project: ProjectRow,
  languages: readonly string[],
  docId: string,
  body: PushBody,
  onWrite?: (trx: Db, result: PushResult) => Promise<void>,
  limits: ParseLimits = { deadlineMs: 10_000 },
): Promise<PushResult> {
  if (body.fields && 'title' in body.fields) throw invalidArgument('fields: title is reserved.');
  checkFields(body.fields);
  let parsed: Parsed | null = null;
  try {
    for (let attempt = 1; attempt <= MAX_TRIES; attempt++) {
      const now = Date.now();
      const doc = await readDoc(db, project.id, docId);
      checkPush(doc, body, project, languages);
      const format = doc?.format ?? body.format;
      // Parsed once, again only if a concurrent push created the document in another format meanwhile.
      if (
        body.text !== undefined &&
        body.text !== doc?.text &&
        (!parsed || (format !== undefined && format !== parsed.format))
      ) {
        if ((await usedDaily(db, project.id, 'content_push', now)) >= DAILY_PUSHES) throw quotaExceeded();
        parsed = await parseBlocks(body.text, format, limits);
      }
      const row = nextRow(project, docId, doc, body, parsed, now);
      if (!row) return { docId, revisionId: revisionId(doc!), changed: false, created: false };
      const result = { docId, revisionId: revisionId(row), changed: true, created: !doc };
      try {
        await db.transaction(async (trx) => {
          if (!(await countDaily(trx, project.id, 'content_push', DAILY_PUSHES, now))) throw quotaExceeded();
          if (!doc) {
            await checkDocumentLimit(trx, project.workspace_id);
            await trx('content_docs').insert(row);
          } else {
            const change: Partial<ContentDocRow> = { ...row };
            delete change.project_id;
            delete change.doc_id;
            delete change.created_at;
            // Translations, stages and publishes move state_rev too: bump it rather than write the value read.
            const n = await trx('content_docs')
              .where({ project_id: project.id, doc_id: docId, revision: doc.revision })
              .update({ ...change, state_rev: trx.raw('state_rev + 1') });
            // Lost to a concurrent push: roll back (the quota count too) and go again on its revision.
            if (n !== 1) throw new LostRace();
          }
          await onWrite?.(trx, result);
        });
        return result;
      } catch (err) {
        // Another push created the document first: go again as an update of it.
        if (!(err instanceof LostRace) && !isUniqueViolation(err)) throw err;
      }
    }
  } catch (err) {
    if (err instanceof Refusal && err.code === 'document_too_large')
      await db.transaction((trx) => countDaily(trx, project.id, 'content_push', DAILY_PUSHES, Date.now()));
    throw err;
  }
  throw new Refusal('edit_conflict', 'Concurrent pushes to this document kept landing first; push again.');
}

/** A new server-minted document id (POST /content). */
export const newDocId = () => newId('d', 8);
