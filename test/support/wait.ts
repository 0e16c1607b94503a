/**
 * Polls cond until it holds; fails with `what` after timeoutMs. Never a fixed sleep. The default
 * deadline is generous: it costs only a test that is failing anyway, and a 2-core machine running
 * the suite beside a cluster bench took more than 2 s for a restart with 1 ms backoff.
 */
export async function waitFor(cond: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`waitFor: ${what} still false after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** A promise with its resolve on the outside: a gate a test opens when it chooses. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Like waitFor, for conditions that must ask something asynchronously (an HTTP API, a store). */
export async function waitUntil(cond: () => boolean | Promise<boolean>, timeoutMs = 2_000, what = 'condition', everyMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`waitUntil: ${what} still false after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** `op` tried again every 50 ms until it resolves (a server coming back), throwing its last error after `timeoutMs`. */
export async function retrying<T>(op: () => Promise<T>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
