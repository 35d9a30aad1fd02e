// The CLI's exit codes (README "CLI"): every way a command ends is one of these, never 0 after an HTTP error.
export const EXIT = {
  ok: 0,
  /** A request failed (HTTP error, network, timeout of a request). */
  failure: 1,
  /** Bad arguments or configuration. */
  usage: 2,
  /** An agent key's operation needs approval, or was denied or expired. */
  approval: 3,
  /**
   * Incomplete translations or a gate refused, with --fail-if-incomplete / --strict; a quality check reports an
   * error, or more warnings than --max-warnings (check).
   */
  incomplete: 4,
} as const;

export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
    readonly detail?: unknown,
  ) {
    super(message);
  }
}
