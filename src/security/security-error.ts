// A request refused for who sent it, not for what it asks. Never retryable: the same bytes are
// refused again (a stale time or a used nonce only gets worse), so the sender must sign anew or
// be allowed first. The reason names what to do and never holds a seed.

import { MetalfleetError } from '../api/index.ts';

/** `unauthorized`: we cannot tell who sent it (no, unknown or bad signature, stale, replayed). `forbidden`: we can, and that role may not. */
export type RefusalCode = 'unauthorized' | 'forbidden';

export class RequestRefused extends MetalfleetError {
  constructor(override readonly code: RefusalCode, readonly reason: string) {
    super(code, reason, false);
    this.name = 'RequestRefused';
  }
}

/** A key or allow-list file that cannot be used; the message names the file (and line), never its secret content. */
export class KeyFileError extends MetalfleetError {
  constructor(readonly file: string, detail: string, options?: ErrorOptions) {
    super('keyFile', `${file}: ${detail}`, false, undefined, options);
    this.name = 'KeyFileError';
  }
}
