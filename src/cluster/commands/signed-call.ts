// A request/reply call that signs every attempt anew: a retry after a timeout must not reuse the
// first attempt's nonce, or a node that did take the first one would refuse the retry as a replay.
import type { z } from 'zod';
import { nextDelay } from '../../api/index.ts';
import { call, RPC_RETRY } from '../../bus/index.ts';
import type { Transport } from '../../ports/index.ts';
import { signRequest, type SigningKey } from '../../security/index.ts';

export interface SignedCallOptions {
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  /** Absent: the request goes unsigned (a node with --allow-unsigned-commands, or the embedded bus). */
  readonly signingKey?: SigningKey | undefined;
  readonly now?: () => number;
}

export async function signedCall<S extends z.ZodType>(transport: Transport, subject: string, request: unknown, replySchema: S, options: SignedCallOptions): Promise<z.infer<S>> {
  const key = options.signingKey;
  if (!key) return call(transport, subject, request, replySchema, { timeoutMs: options.timeoutMs, deadlineMs: options.deadlineMs, retry: true });
  const now = options.now ?? Date.now;
  const deadline = Date.now() + options.deadlineMs;
  // The same backoff as call()'s own retries: a signed call is that call, re-signed per attempt.
  for (let retry = 1; ; retry += 1) {
    const timeoutMs = Math.max(1, Math.min(options.timeoutMs, deadline - Date.now()));
    try {
      return await call(transport, subject, signRequest(key, subject, request, now()), replySchema, { timeoutMs });
    } catch (error) {
      if (!(error instanceof Error && (error as { retryable?: unknown }).retryable === true)) throw error;
      const delay = nextDelay(RPC_RETRY, retry, Math.random);
      if (Date.now() + delay >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
