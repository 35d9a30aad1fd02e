// A person's edit of a key's source (internalUpdateKey `source`): the key keeps its name, namespace and context and
// says something new, as when a push names the key with a new source (server/http/routes/push.ts): the old source
// goes to the key's history, the new content token is the key's, and its translations become outdated, unless the
// person calls it a copy edit (a typo, a style fix), which carries them over as current, as a push's
// `previousSource` does.
import type { Db } from '../../infra/db.js';
import { bool, dialectOf, isUniqueViolation } from '../../infra/db.js';
import { conflict, invalidArgument } from '../../infra/errors.js';
import type { KeyRow, ProjectRow } from '../../infra/tables.js';
import { checkKeys } from '../checks/store.js';
import { contentChanged } from '../project/revision.js';
import { cellStates } from './cells.js';
import { contentToken, DEFAULT_NAMESPACE, namespacedCtx } from './keys.js';
import { markOutdated, outdatedMode, retireForRetranslation, retranslatesItself } from './outdated.js';

interface SourceEdit {
  source: string;
  copyEdit: boolean;
  /** The source the edit was made from; undefined: not checked. */
  base?: string;
}

interface SourceEdited {
  /** The key's content token now. */
  token: string;
  /** Translations outdated by the edit. */
  outdated: number;
  /** Cells whose engine value was taken out to be translated again (`retranslate` projects), still to be queued. */
  retired: Array<{ keyId: number; lang: string }>;
}

/**
 * Writes `edit` over `key` in the caller's transaction. Refuses (nothing written) a key with plural forms, an edit
 * made from a source the key no longer says, and a source another key already says in the same context.
 */
export async function editSource(
  trx: Db,
  p: ProjectRow,
  key: KeyRow,
  edit: SourceEdit,
  targets: string[],
  now: number,
  actor: string,
): Promise<SourceEdited> {
  // Read again under the transaction: the key row the route resolved may be older than another edit.
  const read = trx('keys').where({ id: key.id }).first<KeyRow | undefined>();
  // MySQL: a locking read, so two edits of one key take turns and the second compares with the first's source.
  if (dialectOf(trx) === 'mysql') read.forUpdate();
  const current = (await read)!;
  if (current.forms != null)
    throw invalidArgument('A plural key takes its sources from a push or a sync; nothing was saved.');
  if (edit.base !== undefined && edit.base !== current.source)
    throw conflict('edit_conflict', 'The source changed since you opened it; nothing was saved.', {
      currentSource: current.source,
    });
  if (edit.source === current.source) {
    // Saved as it stands: the person read it, which is what verifying a source means.
    await trx('keys').where({ id: current.id }).update({ source_verified: true, updated_at: now });
    return { token: current.token, outdated: 0, retired: [] };
  }
  const token = contentToken(edit.source, null, namespacedCtx(current.namespace ?? DEFAULT_NAMESPACE, current.ctx));
  const taken = await trx('keys')
    .where({ project_id: p.id, token })
    .whereNot('id', current.id)
    .first<{ name: string } | undefined>('name');
  if (taken) throw conflict('source_taken', `Key ${taken.name} already says this; nothing was saved.`);
  // Only over the source read above: another edit or a push that changed it since makes this one a conflict.
  const n = await trx('keys')
    .where({ id: current.id, token: current.token })
    .update({ token, source: edit.source, source_verified: true, source_updated_at: now, updated_at: now })
    .catch((err) => {
      // Another writer gave the same token to a key between the read and this write.
      if (isUniqueViolation(err)) throw conflict('source_taken', 'Another key says this now; nothing was saved.');
      throw err;
    });
  if (n !== 1) {
    const now2 = await trx('keys').where({ id: current.id }).first<{ source: string }>('source');
    throw conflict('edit_conflict', 'The source changed since you opened it; nothing was saved.', {
      currentSource: now2.source,
    });
  }
  await trx('key_history').insert({
    key_id: current.id,
    project_id: p.id,
    token: current.token,
    source: current.source,
    forms: current.forms,
    ctx: current.ctx ?? null,
    replaced_at: now,
  });
  let outdated = 0;
  let retired: Array<{ keyId: number; lang: string }> = [];
  if (!edit.copyEdit) {
    const keyId = Number(current.id);
    await markOutdated(trx, p.id, [keyId], now);
    if (outdatedMode(p) === 'retranslate' && bool(current.enabled)) {
      const held = await cellStates(trx, [keyId], targets);
      retired = await retireForRetranslation(
        trx,
        p.id,
        [...held.values()]
          .filter((c) => c.value && retranslatesItself(c.row))
          .map((c) => ({ keyId, lang: c.row.lang })),
        now,
        actor,
      );
    }
    const [{ n }] = await trx('translations')
      .where({ key_id: keyId })
      .whereNotNull('outdated_at')
      .count<Array<{ n: number | string }>>({ n: '*' });
    outdated = Number(n);
  }
  await checkKeys(trx, p.id, [Number(current.id)], now);
  await contentChanged(trx, p.id, now);
  return { token, outdated, retired };
}
