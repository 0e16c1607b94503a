// What the agent does when Ironic refuses it (a heartbeat answered 400 because its plain-http
// callback is not allowed, an inspection Ironic cannot take): wait longer after each consecutive
// refusal instead of hammering Ironic every few hundred milliseconds, and say so — on the first
// refusal, on a new message, and each time the run of refusals doubles — so a node that waits
// for this agent shows why, rather than hanging silently.
export interface Refusal {
  /** "heartbeat" or "continue_inspection". */
  readonly call: string;
  /** The HTTP status (0: no answer) and Ironic's own message (its faultstring). */
  readonly status: number;
  readonly message: string;
  /** Consecutive refusals so far, this one included. */
  readonly count: number;
  /** How long the agent now waits before trying again. */
  readonly retryInMs: number;
}

export class RefusalBackoff {
  #count = 0;
  #last = '';

  /** `report` hears the refusals worth telling (the first, a new message, each doubling). */
  constructor(private readonly firstMs: number, private readonly maxMs: number, private readonly report: (r: Refusal) => void) {}

  get count(): number {
    return this.#count;
  }

  /** A refusal: reported if worth it; answers the delay before the next try. */
  refused(call: string, status: number, message: string): number {
    this.#count++;
    const text = `${call} ${status} ${message}`;
    const report = text !== this.#last || (this.#count & (this.#count - 1)) === 0;
    this.#last = text;
    const retryInMs = Math.min(this.maxMs, Math.max(1, this.firstMs) * 2 ** Math.min(this.#count - 1, 30));
    if (report) this.report({ call, status, message, count: this.#count, retryInMs });
    return retryInMs;
  }

  /** Accepted: the next refusal starts from the first delay again. */
  accepted(): void {
    this.#count = 0;
    this.#last = '';
  }
}

export const describeRefusal = (r: Refusal): string =>
  `${r.call} refused by Ironic (HTTP ${r.status || 'no answer'}): ${r.message}; ${r.count} in a row, next try in ${Math.round(r.retryInMs / 100) / 10} s`;
