// Reading SDK answers in tests with the spec's types, and the one escape for input that breaks them on purpose.
import type { components, paths } from '../../generated/openapi.js';
import type { components as internalComponents } from '../../generated/internal.js';
import type { Answer, ApiClient } from '../../packages/client/src/index.js';

export type Schemas = components['schemas'];
export type InternalSchemas = internalComponents['schemas'];

/** The JSON body an operation answers with a status: `Reply<operations['publish'], 201>`. */
export type Reply<O extends { responses: object }, S extends keyof O['responses']> = O['responses'][S] extends {
  content: { 'application/json': infer B };
}
  ? B
  : never;

/** A refusal body: the spec's `{error, message}` and whatever extras the refusal carries. */
export type ApiError = Schemas['Error'] & Record<string, unknown>;

/** The error body of an answer with its extras readable (`unapproved`, `details`, ...); undefined on success. */
export const errorOf = (r: { error?: unknown }) => r.error as ApiError | undefined;

/**
 * The JSON body of an answer read with plain `fetch`, as `T`: the spec's type of the answer the test expects
 * (`Schemas[...]`, `ApiError` for a refusal) or a local interface. A type to read with, not a check: the checks
 * stay the test's.
 */
export const json = <T>(res: Response) => res.json() as Promise<T>;

/**
 * Input that breaks the request types on purpose (wrong types, unknown fields, hostile bodies) to check how the
 * service refuses it. Only there: everywhere else the SDK's closed request types must hold. The target type is
 * inferred from where the value goes where TypeScript can, else `never`, which fits anywhere.
 */
export const hostile = <T = never>(v: unknown) => v as T;

// `GET /translations` answers one of three bodies, chosen by its query. Like the SDK's `pullFile`, these two
// calls send one selector each and resolve to the body that selector gets.
type GetTranslations = paths['/projects/{projectId}/translations']['get'];
type TranslationPoll = Schemas['TranslationPoll'];
type KeyTranslations = Schemas['KeyTranslations'];

/** `GET /translations?trackingToken=`: the poll of a translation job. */
export async function pollJob(client: ApiClient, projectId: string, trackingToken: string) {
  const r = await client.GET('/projects/{projectId}/translations', {
    params: { path: { projectId }, query: { trackingToken } },
  });
  return r as Answer<TranslationPoll, GetTranslations>;
}

/** `GET /translations?ref=[&lang=]`: the live translations of one key. */
export async function readKey(client: ApiClient, projectId: string, ref: string, lang?: string) {
  const r = await client.GET('/projects/{projectId}/translations', {
    params: { path: { projectId }, query: { ref, ...(lang ? { lang } : {}) } },
  });
  return r as Answer<KeyTranslations, GetTranslations>;
}
