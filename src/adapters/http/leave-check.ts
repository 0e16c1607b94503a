import type { RawRequest, Transport } from './transport.ts';

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
      const own = req.beforeLeaving;
      const beforeLeaving = (): Readonly<Record<string, string>> | null => {
        if (!mayLeave()) return null;
        return own === undefined ? NO_HEADERS : own();
      };
      return transport.send({ ...req, beforeLeaving });
    },
    close() {
      // The pool is the shared transport's.
    },
  };
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
