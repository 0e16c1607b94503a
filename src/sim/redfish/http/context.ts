import type { IncomingHttpHeaders } from 'node:http';
import type { SimSystem } from '../model/system.ts';
import type { Sessions } from './sessions.ts';
import type { Tasks } from '../model/tasks.ts';

/** Who is asking: the systems their credentials open, and the session they came with, if any. */
export interface Principal {
  systemIds: readonly string[];
  /**
   * Systems of the same account that refuse it (refuse-credentials): their resources answer 401.
   * Without this, shared credentials authenticated as the other systems and the refusing one's
   * URIs answered 404, which Ironic reports as a missing resource, not an auth failure.
   */
  refusedIds?: readonly string[];
  sessionId?: string;
}

/** The whole simulated service: what every handler may read and change. */
export interface World {
  systems: Map<string, SimSystem>;
  sessions: Sessions;
  tasks: Tasks;
  /** How long a SimpleUpdate task runs. */
  updateMs: number;
  /** Aborted by stop(): ends the waits of slow answers, whose timers would keep the process alive. */
  stopping: AbortSignal;
}

export interface Ctx {
  method: string;
  path: string;
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  principal: Principal;
  world: World;
  /** The system named by the route's :sys, already authorized (throws when the route has none). */
  system(): SimSystem;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** A body sent as it is, not as JSON ($metadata's XML); its Content-Type goes in headers. */
  text?: string;
  headers?: Record<string, string>;
}

export type Handler = (ctx: Ctx) => Reply | Promise<Reply>;

/** One URI: GET renders it (200 with its ETag); PATCH and DELETE are checked against that ETag. */
export interface Resource {
  pattern: string;
  /** Served without credentials (the service root, session login). */
  public?: readonly string[];
  get?: (ctx: Ctx) => object;
  /** A GET that chooses its own status (a task monitor answers 202 while its task runs). */
  getReply?: Handler;
  patch?: Handler;
  /**
   * A property every PATCH must carry: a PATCH of {} is then refused by the handler as missing it
   * (PropertyMissing naming it, which python3-sushy's callers see for a bare BIOS settings PATCH),
   * not with EmptyJSON.
   */
  patchRequires?: string;
  post?: Handler;
  delete?: Handler;
  /** What a 405 tells the client to do instead (default: use one of the allowed methods). */
  notAllowedResolution?: (path: string) => string;
}

export const noContent = (): Reply => ({ status: 204 });
