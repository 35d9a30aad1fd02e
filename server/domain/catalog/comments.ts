// Comments on a key (migration 034, spec/internal.yaml `internalListKeyComments`): threads one level deep, plain
// text, mentions of dashboard people by `@email`. A deleted comment keeps its place with its body emptied.
import type { Db } from '../../infra/db.js';
import { parseJson } from '../../infra/db.js';
import { conflict, invalidArgument, notFound, Refusal } from '../../infra/errors.js';

/** A key's comments read at most (spec: `truncated` beyond). */
const LISTED = 500;
/** Comments one key takes (`409 too_many_comments`). */
const MAX_PER_KEY = 1000;
/** `@` and an email: how a body names a person. */
const MENTION = /@([^\s@<>()[\]{},;:"']+@[^\s@<>()[\]{},;:"']+\.[^\s@<>()[\]{},;:"'.!?]+)/g;

interface CommentRow {
  id: number;
  parent_id: number | null;
  author: string;
  author_name: string | null;
  body: string;
  mentions: string | null;
  created_at: number | string;
  deleted_at: number | string | null;
}

interface Mention {
  userId: string;
  name: string;
  email: string;
}

interface KeyComment {
  id: number;
  parentId: number | null;
  author: { userId: string; name: string | null };
  body: string;
  mentions: Mention[];
  createdAt: string;
  deleted: boolean;
}

const toComment = (r: CommentRow): KeyComment => ({
  id: Number(r.id),
  parentId: r.parent_id == null ? null : Number(r.parent_id),
  author: { userId: r.author, name: r.author_name },
  body: r.deleted_at == null ? r.body : '',
  mentions: r.deleted_at == null ? parseJson<Mention[]>(r.mentions, []) : [],
  createdAt: new Date(Number(r.created_at)).toISOString(),
  deleted: r.deleted_at != null,
});

const rows = (db: Db) =>
  db('key_comments as c')
    .leftJoin('dashboard_users as u', 'u.id', 'c.author')
    .select<CommentRow[]>(
      'c.id',
      'c.parent_id',
      'c.author',
      'u.name as author_name',
      'c.body',
      'c.mentions',
      'c.created_at',
      'c.deleted_at',
    );

export async function listComments(db: Db, keyId: number): Promise<{ comments: KeyComment[]; truncated: boolean }> {
  const found = await rows(db)
    .where('c.key_id', keyId)
    .orderBy('c.id')
    .limit(LISTED + 1);
  return { comments: found.slice(0, LISTED).map(toComment), truncated: found.length > LISTED };
}

/** The active people a body names by `@email`, each once, in the order named. */
async function mentionsIn(db: Db, body: string): Promise<Mention[]> {
  const emails = [...new Set([...body.matchAll(MENTION)].map((m) => m[1].toLowerCase()))].slice(0, 50);
  if (!emails.length) return [];
  const people = await db('dashboard_users')
    .whereIn('email', emails)
    .whereNull('deactivated_at')
    .select<Array<{ id: string; name: string; email: string }>>('id', 'name', 'email');
  const byEmail = new Map(people.map((p) => [p.email.toLowerCase(), p]));
  return emails.flatMap((e) => {
    const p = byEmail.get(e);
    return p ? [{ userId: p.id, name: p.name, email: p.email }] : [];
  });
}

export async function addComment(
  db: Db,
  projectId: string,
  keyId: number,
  author: string,
  input: { body: string; parentId?: number },
  now = Date.now(),
): Promise<KeyComment> {
  const mentions = await mentionsIn(db, input.body);
  const id = await db.transaction(async (trx) => {
    if (input.parentId !== undefined) {
      const parent = await trx('key_comments')
        .where({ id: input.parentId, key_id: keyId })
        .first<{ parent_id: number | null } | undefined>('parent_id');
      if (!parent || parent.parent_id != null)
        throw invalidArgument('parentId must be a comment of this key that starts a thread.');
    }
    const [{ n }] = await trx('key_comments').where({ key_id: keyId }).count<Array<{ n: number | string }>>({ n: '*' });
    if (Number(n) >= MAX_PER_KEY)
      throw conflict('too_many_comments', `This key has ${MAX_PER_KEY} comments; nothing was added.`);
    const [inserted] = await trx('key_comments').insert({
      project_id: projectId,
      key_id: keyId,
      parent_id: input.parentId ?? null,
      author,
      body: input.body,
      mentions: mentions.length ? JSON.stringify(mentions) : null,
      created_at: now,
    });
    return Number(inserted);
  });
  return toComment(await rows(db).where('c.id', id).first<CommentRow>());
}

/** Deletes a comment of the key: by its author, or by anyone `mayDeleteOthers` (an owner). */
export async function deleteComment(
  db: Db,
  keyId: number,
  commentId: number,
  by: string,
  mayDeleteOthers: boolean,
  now = Date.now(),
): Promise<void> {
  const row = await db('key_comments')
    .where({ id: commentId, key_id: keyId })
    .first<{ author: string; deleted_at: unknown } | undefined>('author', 'deleted_at');
  if (!row) throw notFound('No such comment on this key.');
  if (row.author !== by && !mayDeleteOthers)
    throw new Refusal('forbidden', 'Only its author or an owner may delete a comment.');
  if (row.deleted_at != null) return;
  await db('key_comments')
    .where({ id: commentId })
    .whereNull('deleted_at')
    .update({ body: '', mentions: null, deleted_at: now });
}
