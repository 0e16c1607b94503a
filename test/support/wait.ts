/** Polls cond until it holds; fails with `what` after timeoutMs. Never a fixed sleep. */
export async function waitFor(cond: () => boolean, timeoutMs = 2_000, what = 'condition'): Promise<void> {
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
