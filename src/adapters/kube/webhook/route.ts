// What a webhook endpoint is: the methods it answers and a handler from request to reply. The
// server looks a path up in a table of these (routes.ts), checks the method and hands over.

import { MetalfleetError } from '../../../api/index.ts';

/** An answer other than 200, carried as a Status with this code and message. */
export class HttpError extends MetalfleetError {
  constructor(readonly status: number, message: string, readonly headers: Readonly<Record<string, string>> = {}) {
    super('http', message, status >= 500 || status === 429);
    this.name = 'HttpError';
  }
}

export type RouteRequest = {
  readonly method: string;
  readonly path: string;
  /** The whole body, at most the server's limit; beyond it this throws HttpError 413. */
  body(): Promise<Buffer>;
};

export type RouteReply = { status: number; json: unknown } | { status: number; text: string };

export type Route = {
  readonly methods: readonly string[];
  handle(req: RouteRequest): RouteReply | Promise<RouteReply>;
};

export type RouteTable = ReadonlyMap<string, Route>;
