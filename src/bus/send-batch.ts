// Sends held until the end of the event-loop turn, then made together, in the order they were
// asked for. The NATS client writes its outbound buffer to the socket in a microtask after the
// first send it sees, so sends made at different points of a turn (a reply here, a KV write
// there, each after its own await) each cost a socket write: in the commands bench that write
// was the biggest single cost of a node (15% of its CPU, one syscall per message). Made from one
// setImmediate callback, a turn's sends fill the buffer before that microtask runs: one write.
// What a caller waits for does not change (a request still resolves on its reply); a send leaves
// at most one turn later, which under load is when the socket would have been written anyway.

export interface SendBatch {
  /** Runs `send` at the end of this turn with the others; its promise settles as send's does. */
  later<T>(send: () => Promise<T>): Promise<T>;
  /** Runs `send` at the end of this turn with the others; a throw goes to the batch's onError. */
  post(send: () => void): void;
  /** Makes every held send now (before a send that must not overtake them, or a close). */
  flush(): void;
}

export function sendBatch(onError: (error: unknown) => void): SendBatch {
  let held: Array<() => void> = [];
  let scheduled: ReturnType<typeof setImmediate> | null = null;
  const flush = (): void => {
    if (scheduled !== null) clearImmediate(scheduled);
    scheduled = null;
    const sends = held;
    held = [];
    for (const send of sends) send();
  };
  const hold = (send: () => void): void => {
    held.push(send);
    scheduled ??= setImmediate(flush);
  };
  return {
    later<T>(send: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => hold(() => {
        try {
          send().then(resolve, reject);
        } catch (error) {
          reject(error);
        }
      }));
    },
    post(send) {
      hold(() => {
        try {
          send();
        } catch (error) {
          onError(error);
        }
      });
    },
    flush,
  };
}
