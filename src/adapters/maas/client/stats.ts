// Requests sent to MAAS, counted by route (`POST /machines/ op=allocate`,
// `GET /machines/{id}/`), so tests and benchmarks can tell what a machine cost. Every attempt
// counts, retries included.

export interface CallStats {
  readonly total: number;
  readonly byRoute: Readonly<Record<string, number>>;
  /** Requests that were sent again after a 5xx, a timeout or a network failure. */
  readonly retries: number;
  reset(): void;
}

export interface CallCounter extends CallStats {
  count(route: string): void;
  countRetry(): void;
}

export function createCallStats(): CallCounter {
  let total = 0;
  let retries = 0;
  let byRoute: Record<string, number> = {};
  return {
    get total() {
      return total;
    },
    get byRoute() {
      return byRoute;
    },
    get retries() {
      return retries;
    },
    count(route) {
      total += 1;
      byRoute[route] = (byRoute[route] ?? 0) + 1;
    },
    countRetry() {
      retries += 1;
    },
    reset() {
      total = 0;
      retries = 0;
      byRoute = {};
    },
  };
}
