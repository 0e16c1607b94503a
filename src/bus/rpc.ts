import { z } from 'zod';
import type { BusMessage, BusSubscription, Transport } from '../ports/index.ts';
import { BusError } from '../ports/index.ts';
import { MetalfleetError, nextDelay, type RetryPolicy, errorMessage } from '../api/index.ts';
import { decode, encode } from './codec.ts';
import { senderOf } from './sender.ts';

// Typed request/reply over any Transport. Every reply is an envelope, so a service can say "no"
// (with a kind and whether to retry) without the caller having to tell that from a bus failure.

export const ReplyErrorSchema = z.object({ kind: z.string(), message: z.string(), retryable: z.boolean() });
export type ReplyError = z.infer<typeof ReplyErrorSchema>;

export type Reply<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ReplyError };

// Built once per reply schema: zod compiles a schema on first use, and a new envelope per call
// would be compiled again for every request.
const envelopes = new WeakMap<z.ZodType, z.ZodType>();

export function replyEnvelope<S extends z.ZodType>(value: S): z.ZodType<Reply<z.infer<S>>> {
  const known = envelopes.get(value);
  if (known) return known as unknown as z.ZodType<Reply<z.infer<S>>>;
  const schema = z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), value }),
    z.object({ ok: z.literal(false), error: ReplyErrorSchema }),
  ]);
  envelopes.set(value, schema);
  // zod infers `value` as optional when S accepts undefined; the envelope still means Reply<T>.
  return schema as unknown as z.ZodType<Reply<z.infer<S>>>;
}

export function ok<T>(value: T): Reply<T> {
  return { ok: true, value };
}

export function fail(kind: string, message: string, retryable = false): Reply<never> {
  return { ok: false, error: { kind, message, retryable } };
}

/** The service answered with `{ ok: false }`. */
export class RemoteError extends MetalfleetError {
  constructor(readonly kind: string, message: string, retryable: boolean, readonly subject: string) {
    super(kind, message, retryable);
    this.name = 'RemoteError';
  }
}

export interface RpcStats {
  /** Requests the handler saw and answered (with its own ok or error reply). */
  served: number;
  /** Requests refused before the handler: not MessagePack, wrong shape, too large. */
  rejected: number;
  /** Handler threw or rejected: answered with kind 'internal'. */
  failed: number;
  /** Nanoseconds spent from receipt to reply, over every request (for service discovery's STATS). */
  processingNs: number;
  /** What the last refused or failed request was told; empty when none was. */
  lastError: string;
}

export interface RpcService extends BusSubscription {
  readonly stats: Readonly<RpcStats>;
}

/** A request refused before it could be read: how big it was and who sent it, never its bytes. */
export interface UnreadRefusal {
  readonly subject: string;
  readonly sender: string;
  readonly size: number;
  /**
   * `undecodable`: not MessagePack; `tooLarge`: over maxBytes; `streamDelivery`: a message a
   * JetStream consumer pushed onto the request subject (its reply is `$JS.ACK.…`), not a request.
   */
  readonly code: 'undecodable' | 'tooLarge' | 'streamDelivery';
  readonly reason: string;
}

export interface ServeOptions {
  readonly queue?: string;
  /** Requests larger than this are refused unread; default the transport's maxPayload. */
  readonly maxBytes?: number;
  /** Told of each request refused unread, before the refusal is sent (to audit it). */
  readonly onUnread?: (refusal: UnreadRefusal) => Promise<void>;
}

/** What a handler knows of a request besides its body. */
export interface RequestContext {
  readonly subject: string;
  /** Who sent it, as the connection knows it (src/bus/sender.ts). */
  readonly sender: string;
}

export function serve<S extends z.ZodType>(
  transport: Transport,
  subject: string,
  requestSchema: S,
  handler: (req: z.infer<S>, ctx: RequestContext) => Promise<Reply<unknown>>,
  options: ServeOptions = {},
): RpcService {
  const stats: RpcStats = { served: 0, rejected: 0, failed: 0, processingNs: 0, lastError: '' };
  const inflight = new Set<Promise<void>>();

  const answer = async (msg: BusMessage): Promise<void> => {
    const started = performance.now();
    const reply = await replyTo(msg);
    send(msg, reply);
    stats.processingNs += Math.round((performance.now() - started) * 1e6);
  };

  const replyTo = async (msg: BusMessage): Promise<Reply<unknown>> => {
    const maxBytes = options.maxBytes ?? transport.maxPayload;
    const sender = senderOf(msg.reply);
    if (msg.data.length > maxBytes) {
      stats.rejected++;
      const reason = `request of ${msg.data.length} bytes is over the limit of ${maxBytes} bytes`;
      await options.onUnread?.({ subject: msg.subject, sender, size: msg.data.length, code: 'tooLarge', reason });
      return refused(fail('tooLarge', `${msg.subject}: ${reason}`));
    }
    const decoded = decode(msg.subject, msg.data, requestSchema);
    if (!decoded.ok) {
      stats.rejected++;
      // Only a body that is not MessagePack at all is unread; one of the wrong shape the handler's schema refused.
      const unread = decode(msg.subject, msg.data, z.unknown());
      if (!unread.ok) await options.onUnread?.({ subject: msg.subject, sender, size: msg.data.length, code: 'undecodable', reason: `payload of ${msg.data.length} bytes is not MessagePack` });
      return refused(fail(decoded.error.kind, decoded.error.message));
    }
    try {
      const reply = await handler(decoded.value, { subject: msg.subject, sender });
      stats.served++;
      return reply;
    } catch (error) {
      stats.failed++;
      return refused(fail('internal', `${msg.subject}: ${errorMessage(error)}`));
    }
  };

  const refused = (reply: Reply<never>): Reply<never> => {
    if (!reply.ok) stats.lastError = `${reply.error.kind}: ${reply.error.message}`;
    return reply;
  };

  // nats-server does not check a push consumer's deliver subject (nats-io/nats-server#8274), so
  // anyone who may create a consumer can aim stream records at a request subject. Such a delivery
  // is nobody's request: it is refused unread and audited, and never answered, since a reply to
  // `$JS.ACK.…` would acknowledge it to the stranger's consumer.
  const delivered = async (msg: BusMessage): Promise<void> => {
    stats.rejected++;
    stats.lastError = `streamDelivery: ${msg.subject}: a JetStream delivery is not a request`;
    const [, , stream = '?', consumer = '?'] = (msg.reply ?? '').split('.');
    const sender = `consumer ${stream}/${consumer}`.slice(0, 120);
    await options.onUnread?.({ subject: msg.subject, sender, size: msg.data.length, code: 'streamDelivery', reason: `a message pushed by JetStream consumer ${sender}, not a request` });
  };

  const sub = transport.subscribe(subject, (msg) => {
    const job = (isStreamDelivery(msg.reply) ? delivered(msg) : answer(msg)).catch(() => {
      // send() already swallows; this only guards against a bug turning into an unhandled rejection.
    });
    inflight.add(job);
    void job.finally(() => inflight.delete(job));
  }, options.queue ? { queue: options.queue } : {});

  return {
    stats,
    unsubscribe: () => sub.unsubscribe(),
    drain: async () => {
      await sub.drain();
      await Promise.all([...inflight]);
    },
  };
}

/** A reply subject of a JetStream consumer's delivery (`$JS.ACK.<stream>.<consumer>.…`). */
export function isStreamDelivery(reply: string | undefined): boolean {
  return reply !== undefined && reply.startsWith('$JS.ACK.');
}

/** Encodes and sends a reply; one that cannot be encoded or is too large becomes an error reply. */
function send(msg: BusMessage, reply: Reply<unknown>): void {
  try {
    msg.respond(encode(reply));
  } catch (error) {
    const kind = error instanceof BusError && error.kind === 'tooLarge' ? 'tooLarge' : 'internal';
    const detail = errorMessage(error);
    try {
      msg.respond(encode(fail(kind, `${msg.subject}: the reply could not be sent: ${detail}`)));
    } catch {
      // The connection is gone: the caller times out, which it has to handle anyway.
    }
  }
}

export interface CallOptions {
  /** Time for one attempt. */
  readonly timeoutMs: number;
  /** Time for all attempts together, from the start of the call; default timeoutMs. */
  readonly deadlineMs?: number;
  /**
   * Try again after retryable failures (no responders, timeout, unavailable, remote errors marked
   * retryable). Only for requests that are safe to repeat: a timed-out request may have run.
   */
  readonly retry?: boolean;
  /**
   * Asked before every try after the first: once false the call gives up with CallNotWanted and
   * sends nothing more. A request whose asker is gone must not reach the server late (a capacity
   * acquire retried after its host moved was granted to nobody, issue 30.1).
   */
  readonly wanted?: () => boolean;
}

/** A call given up on before a try because its asker no longer wants the answer (CallOptions.wanted). */
export class CallNotWanted extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallNotWanted';
  }
}

// Equal jitter: at least half the step, so callers that failed together spread out but still back off.
export const RPC_RETRY: RetryPolicy = { initialMs: 20, maxMs: 500, factor: 2, jitter: 'equal' };

export async function call<S extends z.ZodType>(
  transport: Transport,
  subject: string,
  request: unknown,
  replySchema: S,
  options: CallOptions,
): Promise<z.infer<S>> {
  const data = encode(request);
  const envelope = replyEnvelope(replySchema);
  const deadline = Date.now() + (options.deadlineMs ?? options.timeoutMs);
  for (let retry = 1; ; retry += 1) {
    const timeoutMs = Math.max(1, Math.min(options.timeoutMs, deadline - Date.now()));
    try {
      return await attempt(transport, subject, data, envelope, timeoutMs);
    } catch (error) {
      if (!options.retry || !isRetryable(error)) throw error;
      const delay = nextDelay(RPC_RETRY, retry, Math.random);
      if (Date.now() + delay >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (options.wanted && !options.wanted()) throw new CallNotWanted(`${subject}: no longer wanted by its asker; not sent again`);
    }
  }
}

async function attempt<T>(transport: Transport, subject: string, data: Uint8Array, envelope: z.ZodType<Reply<T>>, timeoutMs: number): Promise<T> {
  const raw = await transport.request(subject, data, { timeoutMs });
  const decoded = decode(subject, raw, envelope);
  if (!decoded.ok) throw decoded.error;
  const reply = decoded.value;
  if (!reply.ok) throw new RemoteError(reply.error.kind, reply.error.message, reply.error.retryable, subject);
  return reply.value;
}

function isRetryable(error: unknown): boolean {
  return (error instanceof BusError || error instanceof RemoteError) && error.retryable;
}
