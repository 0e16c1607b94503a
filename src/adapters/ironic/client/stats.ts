// Requests sent to Ironic, counted by route template (`GET /v1/nodes/{node}`), so tests and
// benchmarks can tell how much a host cost. Each retry of a locked node counts as a request.

export interface CallStats {
  readonly total: number;
  readonly byRoute: Readonly<Record<string, number>>;
  /** Requests that met a locked node and were sent again. */
  readonly lockedRetries: number;
  reset(): void;
}

export interface CallCounter extends CallStats {
  count(route: string): void;
  countLockedRetry(): void;
}

export function createCallStats(): CallCounter {
  let total = 0;
  let lockedRetries = 0;
  let byRoute: Record<string, number> = {};
  return {
    get total() {
      return total;
    },
    get byRoute() {
      return byRoute;
    },
    get lockedRetries() {
      return lockedRetries;
    },
    count(route) {
      total += 1;
      byRoute[route] = (byRoute[route] ?? 0) + 1;
    },
    countLockedRetry() {
      lockedRetries += 1;
    },
    reset() {
      total = 0;
      lockedRetries = 0;
      byRoute = {};
    },
  };
}
