// The contract's types at the server's door: for each operationId of spec/openapi.yaml and spec/internal.yaml,
// the path, query and body a handler receives (after the pipeline validated them against that operation's
// schemas) and the replies it may return (that operation's documented 2xx/3xx responses; refusals are thrown as
// Refusal or ApiError, server/infra/errors.ts). Derived from generated/; the only run-time code is `serialized`
// (and `bytes`, from server/infra/objects.ts).
import type { operations as PublicOperations } from '../../generated/openapi.js';
import type { operations as InternalOperations } from '../../generated/internal.js';
import type { Bytes } from '../infra/objects.js';

export type Operations = PublicOperations & InternalOperations;
export type OperationId = Extract<keyof Operations, string>;

type Never<T, Else> = [T] extends [never] ? Else : T;
type Parameters<Id extends OperationId> = Operations[Id] extends { parameters: infer P } ? P : never;
type Part<P, K extends string> = P extends { [k in K]?: infer V }
  ? Never<NonNullable<V>, Record<string, never>>
  : Record<string, never>;

export type PathOf<Id extends OperationId> = Part<Parameters<Id>, 'path'>;
export type QueryOf<Id extends OperationId> = Partial<Part<Parameters<Id>, 'query'>>;
export type BodyOf<Id extends OperationId> = Operations[Id] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : Operations[Id] extends { requestBody?: { content: { 'application/json': infer B } } }
    ? Never<B, undefined> | undefined
    : undefined;

type Responses<Id extends OperationId> = Operations[Id] extends { responses: infer R } ? R : never;
type Success = 200 | 201 | 202 | 204 | 304;
type ContentOf<R> = R extends { content: infer C } ? Never<C[keyof C], undefined> : undefined;

interface ReplyExtras {
  headers?: Record<string, string>;
  /** Content type of a non-JSON body (rendered files). */
  type?: string;
}

/** A JSON body serialized ahead of time (answered as is), still checked against the documented shape. */
type Serialized<T> = string & { readonly __json: T };
export const serialized = <T>(value: T): Serialized<T> => JSON.stringify(value) as Serialized<T>;

/** One documented success of an operation; `status` may be left out for 200 (and for 204 without a body). */
type ReplyFor<S, Body> = S extends 200
  ? { status?: 200; body: Body | Serialized<Body> | Bytes } & ReplyExtras
  : [Body] extends [undefined]
    ? { status: S; body?: undefined } & ReplyExtras
    : { status: S; body: Body | Serialized<Body> | Bytes } & ReplyExtras;

export type ReplyOf<Id extends OperationId> = {
  [S in keyof Responses<Id> & Success]: ReplyFor<S, ContentOf<Responses<Id>[S]>>;
}[keyof Responses<Id> & Success];
