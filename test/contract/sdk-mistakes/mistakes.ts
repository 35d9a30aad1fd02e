// Compile-time test of the SDK (run by test/contract/sdk-types.test.ts through tsc; never executed). Every
// mistake sits on the line after a `// @ts-expect-error <why>`, next to the correct twin that compiles, so the
// only error the line can have is the mistake; an expected error that stops happening is itself a tsc error.
import {
  previewSync, previewTranslate, pullFile, sync, translate,
  type ApiClient, type InternalClient, type SyncPreview, type SyncResult, type TranslatePreview, type TranslateRequest, type TranslateResult,
} from '../../../packages/client/src/index.js';

declare const client: ApiClient;
declare const admin: InternalClient;
const projectId = 'p_demo';
const path = { projectId };

export async function requestShapes() {
  // A unit carries exactly one of `source` and `forms`.
  await client.POST('/projects/{projectId}/translate', { params: { path }, body: { units: [{ source: 'Save', key: 'a.save' }] } });
  await client.POST('/projects/{projectId}/translate', { params: { path }, body: { units: [{ forms: { one: '{n} file', other: '{n} files' } }] } });
  // @ts-expect-error a unit with neither source nor forms
  await client.POST('/projects/{projectId}/translate', { params: { path }, body: { units: [{ key: 'a.save' }] } });
  // @ts-expect-error a unit with both source and forms
  await client.POST('/projects/{projectId}/translate', { params: { path }, body: { units: [{ source: 'Save', forms: { other: 'Save' } }] } });
  // @ts-expect-error a unit with neither source nor forms, through the typed call
  await translate(client, projectId, { units: [{ ctx: 'toolbar' }] });

  // Closed objects: a misspelt field is an error at any depth, on raw calls and typed calls alike.
  await client.POST('/projects/{projectId}/translate', { params: { path }, body: { units: [{ source: 'Save' }], requestId: 'r-1' } });
  // @ts-expect-error requestID is not a field (requestId is)
  await client.POST('/projects/{projectId}/translate', { params: { path }, body: { units: [{ source: 'Save' }], requestID: 'r-1' } });
  // @ts-expect-error requestID is not a field, through the typed call
  await translate(client, projectId, { units: [{ source: 'Save' }], requestID: 'r-1' });
  // @ts-expect-error sorce is not a unit field (beside a real one, so not merely a "no common properties" error)
  await client.POST('/projects/{projectId}/translate', { params: { path }, body: { units: [{ sorce: 'Save', key: 'a.save' }] } });
  // @ts-expect-error plural forms are closed too: othr
  await translate(client, projectId, { units: [{ forms: { other: '{n} files', othr: '{n} files' } }] });
  // @ts-expect-error dryRun is a query flag, never a body field
  await client.POST('/projects/{projectId}/translate', { params: { path }, body: { units: [{ source: 'Save' }], dryRun: true } });
  // @ts-expect-error the options themselves are closed: param for params
  await client.POST('/projects/{projectId}/translate', { param: { path }, params: { path }, body: { units: [{ source: 'Save' }] } });
  // @ts-expect-error the internal client is closed too: creditsMC for creditsMc
  await admin.POST('/workspaces', { body: { name: 'W', creditsMC: 5 } });
  await admin.POST('/workspaces', { body: { name: 'W', creditsMc: 5 } });

  // A body built apart from the call is checked with `satisfies`.
  const body = { units: [{ source: 'Save' }], requestId: 'r-2' } satisfies TranslateRequest;
  await translate(client, projectId, body);
  // @ts-expect-error requestID under satisfies
  const misspelt = { units: [{ source: 'Save' }], requestID: 'r-2' } satisfies TranslateRequest;
  void misspelt;

  // Enums and required fields.
  await client.POST('/projects/{projectId}/translate', { params: { path, query: { dryRun: 'true' } }, body: { units: [{ source: 'Save' }] } });
  // @ts-expect-error dryRun is exactly 'true' or 'false'
  await client.POST('/projects/{projectId}/translate', { params: { path, query: { dryRun: 'yes' } }, body: { units: [{ source: 'Save' }] } });
  await sync(client, projectId, { contentBase64: 'e30=', format: 'json', onConflict: 'file' });
  // @ts-expect-error onConflict is server or file
  await sync(client, projectId, { contentBase64: 'e30=', format: 'json', onConflict: 'theirs' });
  // @ts-expect-error contentBase64 is required (and contentbase64 is not a field)
  await sync(client, projectId, { contentbase64: 'e30=' });
  // @ts-expect-error yaml is not an output format
  await pullFile(client, projectId, { version: 'current', format: 'yaml', lang: 'de' });
  // @ts-expect-error a file pull names its version
  await pullFile(client, projectId, { format: 'po', lang: 'de' });
}

export async function resultTypes() {
  // Real and dry-run answers are distinct types.
  const real = await translate(client, projectId, { units: [{ source: 'Save' }] });
  // @ts-expect-error data is undefined until the error is ruled out
  void real.data.units;
  if (real.error) return real.error.error;
  const units: TranslateResult['units'] = real.data.units;
  const token: string | null = real.data.trackingToken;
  void [units.length, token];
  // @ts-expect-error accepted belongs to the preview
  void real.data.accepted;

  const preview = await previewTranslate(client, projectId, { units: [{ source: 'Save' }] });
  if (!preview.data) return preview.error.message;
  const fits: boolean = preview.data.accepted;
  void [fits, preview.data.units?.length];
  // @ts-expect-error units is optional in a preview
  void preview.data.units.length;
  // @ts-expect-error a preview is not a real result (no trackingToken)
  const notReal: TranslateResult = preview.data;
  const asPreview: TranslatePreview = preview.data;
  void [notReal, asPreview];

  const synced = await sync(client, projectId, { contentBase64: 'e30=' });
  if (!synced.data) return synced.error.error;
  const done: SyncResult = synced.data;
  void done.trackingToken?.length;
  // @ts-expect-error accepted is dry-run only
  void synced.data.accepted;
  const planned = await previewSync(client, projectId, { contentBase64: 'e30=' });
  if (!planned.data) return planned.error.error;
  const plan: SyncPreview = planned.data;
  void [plan.accepted, plan.conflictsTotal];
  // @ts-expect-error a dry run enqueues nothing: trackingToken is null
  void planned.data.trackingToken.length;
  return undefined;
}

export async function filePulls() {
  const file = await pullFile(client, projectId, { version: 'current', format: 'android_xml', lang: 'de' });
  if (file.error) return file.error.error;
  const text: string = file.data;
  void text.startsWith('<?xml');
  const bundle = await pullFile(client, projectId, { version: '2025.01.31.1', format: 'json', lang: 'de' });
  if (!bundle.data) return undefined;
  const parsed: Record<string, string> = JSON.parse(bundle.data);
  void parsed;
  // @ts-expect-error a file pull is text, not an object
  void bundle.data['home.welcome'].length;
  // @ts-expect-error a file pull is text, not an object
  const asObject: Record<string, string> = bundle.data;
  void asObject;
  // openapi-fetch with parseAs: 'text' is text as well.
  const raw = await client.GET('/projects/{projectId}/translations', { params: { path, query: { version: 'current', format: 'po', lang: 'de' } }, parseAs: 'text' });
  if (!raw.data) return undefined;
  void raw.data.split('\n');
  // @ts-expect-error a text pull has no JSON fields
  void raw.data.status;
  return undefined;
}
