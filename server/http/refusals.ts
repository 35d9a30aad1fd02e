// The one place a domain refusal (server/infra/errors.ts `Refusal`) becomes an HTTP answer: the status the spec
// documents for its code (generated/errors.ts), its body, and `Retry-After` when it says when to try again
// (docs/decisions/0023-domain-refusals.md). The request records (server/infra/requests.ts), below this layer, record
// it with the same status.
import { errorStatuses } from '../../generated/errors.js';
import { ApiError, Refusal } from '../infra/errors.js';

export function answerOf(err: Refusal | ApiError): ApiError {
  if (err instanceof ApiError) return err;
  const headers: Record<string, string> =
    err.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(err.retryAfterSeconds) };
  return new ApiError(errorStatuses[err.code], err.code, err.message, err.extras, headers);
}
