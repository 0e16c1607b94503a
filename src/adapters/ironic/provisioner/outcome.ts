import type { OpResult } from '../../../machines/bmh/index.ts';

// Short and long polls of an operation in progress (BMO: 3 s and 10 s); tests and benchmarks
// shorten them because the fake-hardware Ironic settles in well under a second.
export interface Polls {
  readonly shortMs: number;
  readonly longMs: number;
}

export const done = (extra: Omit<Extract<OpResult, { kind: 'done' }>, 'kind'> = {}): OpResult => ({ kind: 'done', ...extra });
export const continuing = (afterMs: number): OpResult => ({ kind: 'continuing', afterMs });
export const failed = (message: string, retryAfterMs?: number | null): OpResult =>
  retryAfterMs === undefined ? { kind: 'failed', message } : { kind: 'failed', message, retryAfterMs };
export const needsRegistration: OpResult = { kind: 'needsRegistration' };
