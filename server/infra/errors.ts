// Two error types for refusals, both answered `{"error": code, "message": text}` plus code-specific extras (the
// spec's `Error` schema). A `Refusal` is what server/domain throws or returns: a documented code and no HTTP status;
// the HTTP layer answers it with its code's status (server/http/refusals.ts, from generated/errors.ts;
// docs/decisions/0023-domain-refusals.md). An `ApiError` carries its status and headers, for server/http and the
// parts of server/infra that are HTTP themselves (admission, request records, the rate limit).
import type { ErrorCode, errorStatuses } from '../../generated/errors.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extras: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extras };
  }
}

export class Refusal extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extras: Record<string, unknown> = {},
    /** When trying again can succeed (a daily quota): the answer's `Retry-After`, in seconds. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extras };
  }
}

/** Either kind of refusal: what is answered, recorded under a requestId, or gives an operation's use back. */
export const isRefusal = (err: unknown): err is Refusal | ApiError => err instanceof Refusal || err instanceof ApiError;

/** The documented codes the spec answers with `status`. */
type CodeOf<Status extends number> = {
  [C in ErrorCode]: (typeof errorStatuses)[C] extends Status ? C : never;
}[ErrorCode];

export const invalidArgument = (message: string, extras?: Record<string, unknown>) =>
  new Refusal('invalid_argument', message, extras);
export const notFound = (message = 'Not found.') => new Refusal('not_found', message);
export const conflict = (code: CodeOf<409>, message: string, extras?: Record<string, unknown>) =>
  new Refusal(code, message, extras);
/** An operation that does not exist and one of another key are answered alike. */
export const operationNotFound = () => new Refusal('operation_not_found', 'No such operation for this key.');
