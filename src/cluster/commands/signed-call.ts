// A request/reply call that signs every attempt anew: a retry after a timeout must not reuse the
// first attempt's nonce, or a node that did take the first one would refuse the retry as a replay.
import type { z } from 'zod';
import { call } from '../../bus/index.ts';
import type { Transport } from '../../ports/index.ts';
import { signRequest, type SigningKey } from '../../security/index.ts';

export interface SignedCallOptions {
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  /** Absent: the request goes unsigned (a node with --allow-unsigned-commands, or the embedded bus). */
  readonly signingKey?: SigningKey | undefined;
  readonly now?: () => number;
}

const BACKOFF_START_MS = 20;
const BACKOFF_MAX_MS = 500;

export async function signedCall<S extends z.ZodType>(transport: Transport, subject: string, request: unknown, replySchema: S, options: SignedCallOptions): Promise<z.infer<S>> {
  const key = options.signingKey;
  if (!key) return call(transport, subject, request, replySchema, { timeoutMs: options.timeoutMs, deadlineMs: options.deadlineMs, retry: true });
  const now = options.now ?? Date.now;
  const deadline = Date.now() + options.deadlineMs;
  let backoff = BACKOFF_START_MS;
  for (;;) {
    const timeoutMs = Math.max(1, Math.min(options.timeoutMs, deadline - Date.now()));
    try {
      return await call(transport, subject, signRequest(key, subject, request, now()), replySchema, { timeoutMs });
    } catch (error) {
      if (!(error instanceof Error && (error as { retryable?: unknown }).retryable === true)) throw error;
      const delay = backoff / 2 + Math.random() * (backoff / 2);
      if (Date.now() + delay >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
    }
  }
}
