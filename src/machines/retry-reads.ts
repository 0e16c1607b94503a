/**
 * Whether a call that succeeded starts a MAAS kind's error backoff over. The reads made before
 * every retry (what MAAS holds for us, a machine's state, a DNS record's or VIP's find) succeed
 * while the allocate, deploy, create or reserve after them keeps failing: counted as success,
 * they restarted that call's backoff, and it was retried every backoffBaseMs for ever
 * (controller-runtime's, which CAPMAAS relies on, grows). A read resets it only when it is itself
 * the call that failed; any other call that succeeds does.
 */
export function successResetsBackoff<Op extends string>(op: Op, failedOp: Op | null, reads: ReadonlySet<Op>): boolean {
  return !(reads.has(op) && failedOp !== null && failedOp !== op);
}
