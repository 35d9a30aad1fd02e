// The seed and the valid call of every operation (scripts/behaviour-snapshot.ts), in an order where each finds what it
// needs: keys of every scope, synced and translated strings, reviews, webhooks to the local receiver, publishes and
// restores, delivery, operations, content documents, workspaces and users.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { admin, api, arr, call, delivery, internal, send, str, type Obj } from './http.js';
import { call2, findFile, FORMATS, project, runDue } from './ops.js';

/** Seeds the main project through every operation; returns how many rendered files it hashed. */
export async function seedAndSweep(dir: string, hookPort: number): Promise<number> {
  const A = admin;
  const p = await project('Snapshot app', {
    baseLang: 'en',
    languages: [{ code: 'ar' }, { code: 'ja' }, { code: 'pl' }, { code: 'de' }, { code: 'fr', fillMode: 'manual' }],
    contentEnabled: true,
  });
  const P = { projectId: p.id };
  const K = p.key;
  const scopeKeys: Record<string, string> = {};
  for (const scopes of [['read'], ['write'], ['capture'], ['translate'], ['publish'], ['read', 'translate']]) {
    const k = await call2('internalCreateApiKey', { params: P, auth: A, body: { scopes, name: scopes.join('+') } });
    scopeKeys[scopes.join('+')] = `Bearer ${str(k.json.apiKey)}`;
  }
  await call2('internalListApiKeys', { params: P, auth: A });
  const spare = await call2('internalCreateApiKey', {
    params: P,
    auth: A,
    body: { scopes: ['admin'], requiresOperationApproval: true, name: 'approval' },
  });
  await call2('getProjectMeta', { params: P, auth: K });
  await call2('getCredential', { params: P, auth: scopeKeys.read });
  await call2('addLanguage', { params: P, auth: K, body: { code: 'it', fillMode: 'manual' } });
  for (const format of ['xcstrings', 'po', 'android_xml'])
    await call2('addOutputFormat', { params: P, auth: K, body: { format, mode: 'add' } });
  const catalog = {
    app: { title: 'Snapshot', greeting: 'Hello, {name}!', items: '{count, plural, one {# item} other {# items}}' },
    nav: { home: 'Home', settings: 'Settings <b>now</b>' },
  };
  await call2('syncCatalog', {
    params: P,
    auth: K,
    query: 'dryRun=true',
    body: { contentBase64: Buffer.from(JSON.stringify(catalog)).toString('base64'), fileName: 'en.json' },
  });
  await call2('syncCatalog', {
    params: P,
    auth: K,
    body: {
      contentBase64: Buffer.from(JSON.stringify(catalog)).toString('base64'),
      fileName: 'en.json',
      format: 'nested_json',
      requestId: 'snap-sync-1',
    },
  });
  const t = await call2('translateUnits', {
    params: P,
    auth: K,
    body: {
      units: [
        { source: 'Save {count} files', key: 'files.save', ctx: 'button' },
        { forms: { one: '# message', other: '# messages' }, key: 'inbox.count' },
        { source: 'Goodbye' },
      ],
      langs: ['de', 'ja', 'ar', 'pl'],
      requestId: 'snap-t1',
    },
  });
  await call2('getRequestRecord', { params: { ...P, requestId: 'snap-t1' }, auth: K });
  await call2('captureUnits', {
    params: P,
    auth: scopeKeys.capture,
    body: { units: [{ source: 'Captured text', ctx: 'c' }] },
  });
  await call2('internalRunDueJobs', { auth: A, body: {} });
  await runDue();
  await call2('getTranslations', { params: P, auth: K, query: `trackingToken=${str(t.json.trackingToken)}` });
  await call('getTranslations by ref', { url: api(`/projects/${p.id}/translations?ref=files.save`), auth: K });
  await call2('getProjectStatus', { params: P, auth: K, query: 'gates=true' });
  // Review in the internal API.
  const keys = await call2('internalListKeys', { params: P, auth: A, query: 'limit=50' });
  await call('internalListKeys captured', { url: internal(`/projects/${p.id}/keys?captured=true`), auth: A });
  const captured = arr((await send({ url: internal(`/projects/${p.id}/keys?captured=true`), auth: A })).json.keys).map(
    (k) => str(k.key),
  );
  const KEY = { ...P, key: 'app.greeting' };
  await call2('internalGetKey', { params: KEY, auth: A });
  await call2('internalUpdateKey', { params: { ...P, key: 'nav.home' }, auth: A, body: { sourceVerified: true } });
  await call2('internalCheckTranslation', { params: KEY, auth: A, body: { lang: 'de', value: 'Hallo, {name}!' } });
  await call2('internalPutTranslation', {
    params: { ...KEY, lang: 'de' },
    auth: A,
    body: { value: 'Hallo, {name}!', status: 'reviewed' },
  });
  await call('internalPutTranslation approve', {
    method: 'PUT',
    url: internal(`/projects/${p.id}/keys/nav.home/translations/fr`),
    auth: A,
    body: { value: 'Accueil', status: 'approved' },
  });
  await call2('internalBulkReviewKeys', { params: P, auth: A, body: { filter: { lang: 'ja' }, action: 'approve' } });
  await call2('internalBulkKeys', { params: P, auth: A, body: { filter: { q: 'Goodbye' }, action: 'disable' } });
  await call2('internalRetryFill', { params: { ...P, key: 'files.save' }, auth: A, body: { langs: ['de'] } });
  await call2('internalReviewCaptured', { params: P, auth: A, body: { action: 'accept', keys: captured } });
  await runDue();
  void keys;
  // Webhooks to the local receiver, then two publishes, a restore, and the deliveries they made.
  const hook = `https://127.0.0.1:${hookPort}`;
  const wh = await call2('createWebhook', {
    params: P,
    auth: K,
    body: { url: `${hook}/public`, events: ['strings.published', 'content.published'] },
  });
  const WH = { ...P, webhookId: str(wh.json.webhookId) };
  const iwh = await call2('internalCreateWebhook', {
    params: P,
    auth: A,
    body: { url: `${hook}/fail`, events: ['strings.published'] },
  });
  const IWH = { ...P, webhookId: str(iwh.json.webhookId) };
  await call2('listWebhooks', { params: P, auth: K });
  await call2('internalListWebhooks', { params: P, auth: A });
  await call2('updateWebhook', { params: WH, auth: K, body: { enabled: true } });
  await call2('internalUpdateWebhook', { params: IWH, auth: A, body: { events: ['strings.published'] } });
  await call2('rotateWebhookSecret', { params: WH, auth: K });
  await call2('internalRotateWebhookSecret', { params: IWH, auth: A });
  await call2('internalPreviewPublish', { params: P, auth: A, query: 'incompleteMode=source' });
  const v1 = str(
    (await call2('publishVersion', { params: P, auth: K, body: { label: 'first', incompleteMode: 'source' } })).json
      .versionId,
  );
  await runDue();
  const dl = await call2('listWebhookDeliveries', { params: WH, auth: K });
  const idl = await call2('internalListWebhookDeliveries', { params: IWH, auth: A });
  const deliveryId = str(arr(dl.json.deliveries)[0]?.id ?? arr(dl.json.deliveries)[0]?.deliveryId);
  const ideliveryId = str(arr(idl.json.deliveries)[0]?.id ?? arr(idl.json.deliveries)[0]?.deliveryId);
  await call2('resendWebhookDelivery', { params: { ...WH, deliveryId }, auth: K });
  await call2('internalResendWebhookDelivery', { params: { ...IWH, deliveryId: ideliveryId }, auth: A });
  await runDue();
  await call('internalPutTranslation second', {
    method: 'PUT',
    url: internal(`/projects/${p.id}/keys/app.title/translations/de`),
    auth: A,
    body: { value: 'Momentaufnahme', status: 'approved' },
  });
  const v2 = str((await call2('internalPublish', { params: P, auth: A, body: { label: 'second' } })).json.versionId);
  await call2('listVersions', { params: P, auth: K });
  await call2('internalListVersions', { params: P, auth: A });
  await call2('internalDiffVersions', { params: P, auth: A, query: `from=${v1}&to=${v2}` });
  await call2('restoreVersion', { params: { ...P, versionId: v1 }, auth: K, body: {} });
  await call2('internalRestoreVersion', { params: { ...P, versionId: v2 }, auth: A });
  await runDue();
  await call('getTranslations file', {
    url: api(`/projects/${p.id}/translations?version=${v1}&format=po&lang=de`),
    auth: K,
    file: true,
  });
  // Delivery: the project's paths, and its custom domain.
  await call2('internalUpdateProject', { params: P, auth: A, body: { deliveryHost: 'cdn.snapshot.test' } });
  await call2('getDeliveryHealth');
  const m = await call2('getManifest', { params: P });
  const etag = String(m.headers.etag ?? '');
  await call('getManifest not modified', {
    url: delivery(`/projects/${p.id}/manifest`),
    headers: { 'if-none-match': etag },
  });
  const bundleUrl = str(Object.values((m.json.bundles ?? {}) as Record<string, Obj>)[0]?.url);
  const [, versionId, file] = bundleUrl.split('/');
  await call2('getBundle', { params: { ...P, versionId, file } });
  const host = { host: 'cdn.snapshot.test' };
  await call2('getDomainManifest', { headers: host });
  await call2('getDomainBundle', { params: { versionId, file }, headers: host });
  await call2('getPricing');
  await call2('headPricing');
  // Operations: one approved, one denied (the workspace asks for approval).
  const W = { workspaceId: str((await send({ url: internal(`/projects/${p.id}`), auth: A })).json.workspaceId) };
  await call2('internalUpdateWorkspace', { params: W, auth: A, body: { requireApproval: true } });
  const opBody = { action: 'publish', scope: { project_id: p.id } };
  const approvalKey = `Bearer ${str(spare.json.apiKey)}`;
  const o1 = await call2('createOperation', { auth: approvalKey, body: opBody });
  const o2 = await call('createOperation second', {
    method: 'POST',
    url: api('/operations'),
    auth: approvalKey,
    // Another scope: the same one would name the same operation.
    body: { action: 'publish', scope: { project_id: p.id, approved_only: true } },
  });
  const O1 = { operationId: str(o1.json.operation_id) };
  await call2('getOperation', { params: O1, auth: approvalKey });
  await call2('internalGetOperation', { params: O1, auth: A });
  await call2('internalListOperations', { params: P, auth: A });
  await call2('internalApproveOperation', { params: O1, auth: A, body: { decidedBy: 'snapshot' } });
  await call2('internalDenyOperation', { params: { operationId: str(o2.json.operation_id) }, auth: A, body: {} });
  // Content documents.
  const text = (name: string) =>
    readFileSync(findFile(dir, name) || findFile(path.resolve(import.meta.dirname, '..'), name), 'utf8');
  const doc = await call2('createContentDocument', {
    params: P,
    auth: K,
    body: { title: 'Express', text: text('express-readme.md'), format: 'markdown', fields: { area: 'docs' } },
  });
  const D = { ...P, docId: str(doc.json.docId) };
  await call2('putContentDocument', {
    params: { ...P, docId: 'kafka-blog' },
    auth: K,
    body: { title: 'Kafka', text: text('kafka-blog.html'), format: 'html' },
  });
  await call('putContentDocument hugo', {
    method: 'PUT',
    url: api(`/projects/${p.id}/content/hugo`),
    auth: K,
    body: { title: 'Hugo', text: text('hugo-page-bundles.md'), format: 'markdown' },
  });
  await call2('listContentDocuments', { params: P, auth: K });
  await call2('runContentDocument', { params: D, auth: K, body: { langs: ['de', 'ja'] } });
  await call('runContentDocument kafka', {
    method: 'POST',
    url: api(`/projects/${p.id}/content/kafka-blog/run`),
    auth: K,
    body: { lang: 'ar' },
  });
  await runDue();
  await call2('internalListContent', { params: P, auth: A });
  await call2('internalGetContentDocument', { params: D, auth: A });
  await call2('internalSetContentStage', { params: { ...D, lang: 'de' }, auth: A, body: { stage: 'approved' } });
  await call2('internalPublishContent', { params: P, auth: A, body: { docIds: [D.docId, 'kafka-blog'] } });
  await call2('getContentDocument', { params: D, auth: K, query: 'lang=de&include=reports' });
  await call('getContentDocument blocks', {
    url: api(`/projects/${p.id}/content/kafka-blog?lang=ar&shape=blocks`),
    auth: K,
  });
  // A second content version, so that the first can be rolled back to.
  await call('putContentDocument change', {
    method: 'PUT',
    url: api(`/projects/${p.id}/content/${D.docId}`),
    auth: K,
    body: { title: 'Express, again', text: text('express-readme.md') + '\nOne more paragraph.\n', format: 'markdown' },
  });
  await call('runContentDocument again', {
    method: 'POST',
    url: api(`/projects/${p.id}/content/${D.docId}/run`),
    auth: K,
    body: { lang: 'de' },
  });
  await runDue();
  await call('internalSetContentStage again', {
    method: 'PUT',
    url: internal(`/projects/${p.id}/content/${D.docId}/langs/de/stage`),
    auth: A,
    body: { stage: 'approved' },
  });
  await call('internalPublishContent again', {
    method: 'POST',
    url: internal(`/projects/${p.id}/content/publish`),
    auth: A,
    body: { docIds: [D.docId] },
  });
  await runDue();
  const cv = await call2('internalListContentVersions', { params: D, auth: A });
  const first = arr(cv.json.versions).find((v) => v.versionId !== cv.json.servedVersionId);
  await call2('internalRollbackContent', {
    params: D,
    auth: A,
    body: { versionId: str(first?.versionId) || '2001.01.01.1' },
  });
  await call('getContentDocument after rollback', {
    url: api(`/projects/${p.id}/content/${D.docId}?lang=de`),
    auth: K,
  });
  await call2('internalDeleteContent', { params: { ...P, docId: 'hugo' }, auth: A });
  // Projects, workspaces, users, events, metrics.
  await call2('internalListProjects', { auth: A });
  await call2('internalGetProject', { params: P, auth: A });
  await call2('internalGetProjectOverview', { params: P, auth: A });
  await call2('internalListEvents', { params: P, auth: A });
  await call('internalUpdateWorkspace cap', {
    method: 'PATCH',
    url: internal(`/workspaces/${W.workspaceId}`),
    auth: A,
    body: { requireApproval: false, spendingCapMc: 50_000_000 },
  });
  await call2('internalAdjustCredits', { params: W, auth: A, body: { mc: 2500 } });
  await call2('internalCreateWorkspace', { auth: A, body: { name: 'Spare workspace', creditsMc: 0 } });
  await call2('internalCreateProject', {
    auth: A,
    body: { workspaceId: W.workspaceId, name: 'Spare', baseLang: 'de' },
  });
  await call2('internalRemoveLanguage', { params: { ...P, code: 'it' }, auth: A });
  await call2('internalRevokeApiKey', { params: { ...P, keyId: str(spare.json.keyId) }, auth: A });
  const u = await call2('internalCreateUser', {
    auth: A,
    body: { name: 'Rita Reviewer', email: 'rita@snapshot.test', password: 'reviewer-password-1', role: 'reviewer' },
  });
  await call2('internalUpdateUser', { params: { userId: str(u.json.userId) }, auth: A, body: { role: 'owner' } });
  await call2('internalListUsers', { auth: A });
  await call2('internalDebugMetrics', { auth: A });
  await call2('deleteWebhook', { params: WH, auth: K });
  await call2('internalDeleteWebhook', { params: IWH, auth: A });
  // The main project's files: the bulk archive of each format holds every language's file byte for byte.
  let files = 0;
  for (const format of FORMATS) {
    files++;
    await call(`render main ${format}`, {
      url: api(`/projects/${p.id}/translations?version=current&format=${format}`),
      auth: K,
      file: true,
    });
  }
  return files;
}

/** Each operation refused: without credentials, with a key of another scope, with a malformed body, unknown ids. */
