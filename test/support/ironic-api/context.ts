import type { Conductor } from './conductor.ts';
import type { PlanContext } from './plans.ts';
import type { Store } from './state.ts';
import type { Microversion } from './versions.ts';

/** What a route handler gets: the store, the conductor, and the request's version. */
export interface RouteContext {
  readonly store: Store;
  readonly conductor: Conductor;
  readonly plan: PlanContext;
  /** The request's negotiated version. */
  readonly version: Microversion;
  /** The server's maximum. */
  readonly max: Microversion;
  /** http://127.0.0.1:PORT, for links and Location. */
  readonly base: string;
  readonly query: URLSearchParams;
}
