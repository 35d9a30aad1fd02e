// Runs the validators generated from the spec and turns the first failure into the documented error:
// the schema node's `x-error-codes` names the code for the failing keyword, else `invalid_argument`.
import { createRequire } from 'node:module';
import { ApiError } from '../infra/errors.js';

const require = createRequire(import.meta.url);
/** Ajv's error objects, as far as they are read here (the generated validators keep `parentSchema`). */
interface ValidationError {
  keyword: string;
  instancePath: string;
  message?: string;
  parentSchema?: { 'x-error-codes'?: Record<string, string> };
  params?: { additionalProperty?: string; allowedValues?: unknown[] };
}
type Validator = ((data: unknown) => boolean) & { errors?: ValidationError[] | null };
const bodyValidators = require('../../generated/validators-body.cjs') as Record<string, Validator>;
const paramValidators = require('../../generated/validators-params.cjs') as Record<string, Validator>;

function fail(where: string, v: Validator): never {
  const e = v.errors?.[0];
  const code = e?.parentSchema?.['x-error-codes']?.[e.keyword] ?? 'invalid_argument';
  let detail = e?.message ?? 'is invalid';
  if (e?.keyword === 'additionalProperties') detail = `has an unknown field "${e.params?.additionalProperty}"`;
  if (e?.keyword === 'enum') detail = `must be one of ${(e.params?.allowedValues ?? []).join(', ')}`;
  throw new ApiError(400, code, `${where}${e?.instancePath ?? ''} ${detail}`.trim());
}

/** Path and query parameters (coerced to their schema types in place). */
export function validateParams(operationId: string, params: Record<string, unknown>): void {
  const v = paramValidators[`${operationId}__params`];
  if (v && !v(params)) fail('', v);
}

export function validateBody(operationId: string, body: unknown): void {
  const v = bodyValidators[`${operationId}__body`];
  if (v && !v(body)) fail('body', v);
}

let responseValidators: Record<string, Validator> | undefined;

/** Response validators, used by the tests to hold every answer to the spec (loaded on first use: the service never). */
export function responseValidator(operationId: string, status: number): Validator | undefined {
  responseValidators ??= require('../../generated/validators-responses.cjs') as Record<string, Validator>;
  return responseValidators[`${operationId}__${status}`];
}
