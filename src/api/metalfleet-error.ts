// The one root of metalfleet's failures, as Temporal's ApplicationFailure: every error we throw
// says what it is (`code`) and whether trying the same thing again can help (`retryable`, and
// when the other side named one, `retryAfterMs`). `cause` keeps the underlying error for logs.

export class MetalfleetError extends Error {
  constructor(
    /** A short stable name of the failure (`timeout`, `staleFence`, `notFound` …), for code and metrics. */
    readonly code: string,
    message: string,
    /** True when the same call may succeed later unchanged. */
    readonly retryable: boolean,
    /** When retryable: the least wait the other side asked for, if it named one. */
    readonly retryAfterMs?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'MetalfleetError';
  }
}

/**
 * The message of anything thrown: an Error's message, a string itself, anything else as String()
 * gives it. Never JSON: a thrown object may be a request or a config that holds a secret, and
 * String() of a plain object says only "[object Object]". Never throws: a null-prototype object
 * or a throwing toString gives "a thrown object".
 */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    return String(err);
  } catch {
    return `a thrown ${typeof err}`;
  }
}
