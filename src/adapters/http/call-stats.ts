// Requests sent to a backend, counted by route (`GET /v1/nodes/{node}`, `POST /machines/
// op=allocate`), so tests and benchmarks can tell what a host cost. Every attempt counts,
// retries included.

export interface CallStats {
  readonly total: number;
  readonly byRoute: Readonly<Record<string, number>>;
  /** Answers by route, then by HTTP status or the failure ('timeout', 'network'). */
  readonly byRouteStatus: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Requests sent again (a locked node, a 5xx, a timeout, a network failure). */
  readonly retries: number;
  reset(): void;
}

/** The status a withheld request is counted under in byRouteStatus (see CallCounter.withheld). */
export const WITHHELD = 'withheld';

export interface CallCounter extends CallStats {
  count(route: string): void;
  answered(route: string, status: string): void;
  /**
   * The request counted last for `route` was withheld by its leave check (RequestWithheld): it
   * never left, so it no longer counts as sent, and byRouteStatus says `withheld`.
   */
  withheld(route: string): void;
  countRetry(): void;
}

export function createCallStats(): CallCounter {
  let total = 0;
  let retries = 0;
  let byRoute: Record<string, number> = {};
  let byRouteStatus: Record<string, Record<string, number>> = {};
  return {
    get total() {
      return total;
    },
    get byRoute() {
      return byRoute;
    },
    get byRouteStatus() {
      return byRouteStatus;
    },
    get retries() {
      return retries;
    },
    count(route) {
      total += 1;
      byRoute[route] = (byRoute[route] ?? 0) + 1;
    },
    answered(route, status) {
      const counts = (byRouteStatus[route] ??= {});
      counts[status] = (counts[status] ?? 0) + 1;
    },
    withheld(route) {
      total -= 1;
      const left = (byRoute[route] ?? 1) - 1;
      if (left > 0) byRoute[route] = left;
      else delete byRoute[route];
      const counts = (byRouteStatus[route] ??= {});
      counts[WITHHELD] = (counts[WITHHELD] ?? 0) + 1;
    },
    countRetry() {
      retries += 1;
    },
    reset() {
      total = 0;
      retries = 0;
      byRoute = {};
      byRouteStatus = {};
    },
  };
}
