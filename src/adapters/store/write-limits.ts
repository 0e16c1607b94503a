import { formatBytes } from '../../api/limits.ts';
import { StoreError } from '../../ports/index.ts';
import { errorMessage } from '../../api/index.ts';

// What a KV write can never do, told apart from what a retry can fix: a value bigger than a NATS
// message holds is refused by the client on every attempt (issue 19.5: it was reported as "the
// store is unavailable; try again", forever).

/**
 * The largest value the stores write: nats-server's default max_payload (1 MiB) less 1 KiB for
 * the headers a compare-and-set carries. Admission refuses objects over 960 KiB (api/limits.ts),
 * so only what the controller adds (a status) can reach this.
 */
export const MAX_VALUE_BYTES = 1024 * 1024 - 1024;

/** A write refused for what it is: retrying it cannot succeed. */
export class PermanentWriteError extends StoreError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, false, options);
    this.name = 'PermanentWriteError';
  }
}

/** Throws PermanentWriteError when `value` is over `max`; `what` names the object and the write. */
export function checkValueSize(what: string, value: Uint8Array, max = MAX_VALUE_BYTES): void {
  if (value.length <= max) return;
  throw new PermanentWriteError(`${what}: the record is ${formatBytes(value.length)} (${value.length} bytes); one NATS message holds at most ${formatBytes(max)} (${max} bytes, the server's max_payload less headers), so it cannot be stored; make it smaller`);
}

// The NATS client refuses an oversized publish itself ("'payload' max_payload size exceeded"),
// the server refuses a subject past its control line, and JetStream refuses a value over the
// bucket's own max value size (10054, "message size exceeds maximum allowed": a bucket made with
// max_value_size, or a smaller max_msg_size on its stream); all come back the same every time.
const PERMANENT = /max_payload|maximum payload|control line|message size exceeds maximum/i;

/** Whether `error` (or any of its causes) is one a retry repeats. */
export function isPermanentKvError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (PERMANENT.test(e.message)) return true;
  }
  return false;
}

/** A failed write as the store reports it: permanent when it is, else `retryable()`. */
export function writeFailure(what: string, error: unknown, retryable: () => StoreError): StoreError {
  if (error instanceof StoreError) return error;
  if (!isPermanentKvError(error)) return retryable();
  const detail = errorMessage(error);
  return new PermanentWriteError(`${what}: NATS refused the write (${detail}); retrying cannot help: make the object smaller`, { cause: error });
}
