// One error type for every refusal: `{"error": code, "message": text}` plus code-specific extras (the spec's `Error` schema).
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

export const invalidArgument = (message: string, extras?: Record<string, unknown>) =>
  new ApiError(400, 'invalid_argument', message, extras);
export const notFound = (message = 'Not found.') => new ApiError(404, 'not_found', message);
export const conflict = (code: string, message: string, extras?: Record<string, unknown>) =>
  new ApiError(409, code, message, extras);
/** Operations arrive with their own issue; until then no operation exists for any key. */
export const operationNotFound = () => new ApiError(404, 'operation_not_found', 'No such operation for this key.');
