import { AsyncLocalStorage } from 'node:async_hooks';
import type { RawRequest, Transport } from './transport.ts';

// The lease check of the calls made inside whileHeld(), asked by every transport as each of their
// requests gets its connection. Ambient rather than a view of the client: a port's decorators (a
// plugin's or a test's wrapper around MaasDriver.run) pass their calls through unchanged, where a
// view built from the inner driver would bypass them.
const ambient = new AsyncLocalStorage<() => boolean>();

/** Runs `call` so that every request it sends asks `mayLeave` once its connection is ready. */
export function whileHeld<T>(mayLeave: () => boolean, call: () => T): T {
  return ambient.run(mayLeave, call);
}

/** `req` with the ambient lease check (whileHeld) added to its own, if a call is inside one. */
export function withAmbientCheck(req: RawRequest): RawRequest {
  const mayLeave = ambient.getStore();
  return mayLeave === undefined ? req : checked(req, mayLeave);
}

function checked(req: RawRequest, mayLeave: () => boolean): RawRequest {
  const own = req.beforeLeaving;
  const beforeLeaving = (): Readonly<Record<string, string>> | null => {
    if (!mayLeave()) return null;
    return own === undefined ? NO_HEADERS : own();
  };
  return { ...req, beforeLeaving };
}

/**
 * `transport`, with every request asking `mayLeave` once its connection is ready (beforeLeaving):
 * false withholds it (send() rejects with RequestWithheld, nothing reaches the server). The
 * caller's own per-call check comes first and its headers are kept.
 *
 * Why: a client asks the shard lease before each call, but its request may then wait for one of
 * the pool's 64 sockets; a node starved of CPU past its lease deadline meanwhile must not let it go
 * once a socket frees (issue 30). The connections are the shared transport's: closing this view
 * leaves them to their owner.
 */
export function leaveChecked(transport: Transport, mayLeave: () => boolean): Transport {
  return {
    send(req: RawRequest) {
      return transport.send(checked(req, mayLeave));
    },
    close() {
      // The pool is the shared transport's.
    },
  };
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
