import type { z } from 'zod';
import { formatFieldPath } from '../api/index.ts';
import type { HostBackend, HostKind, HostRow, InspectedHost } from '../bus/messages/introspect.ts';

/**
 * What is wrong with a stored record that does not parse, naming the field (`under`: where the
 * parsed part sits in the object, e.g. ['status']). Such a record was not written through
 * metalfleet's admission (a hand-made KV write, an older node's format); a stored listing shows
 * it with this rather than with its fields silently blank.
 */
export function storedProblem(error: z.ZodError, under: ReadonlyArray<string | number> = []): string {
  const issue = error.issues[0];
  const path = [...under, ...(issue?.path ?? []).filter((s): s is string | number => typeof s !== 'symbol')];
  return `its stored record does not parse (${path.length > 0 ? `${formatFieldPath(path)}: ` : ''}${issue?.message ?? 'invalid'})`;
}

/**
 * An inspect answer for an object whose only record the store cannot read: its state is
 * `unreadable` and the store's reason is its newest warning, so the user sees why, not "not found".
 */
export function unreadableInspect(key: string, kind: HostKind, backend: HostBackend, shard: number, problem: string, now: number): InspectedHost {
  return {
    key, kind, backend, state: 'unreadable', stateSinceMs: 0, spec: {}, status: {},
    recent: [{ at: now, severity: 'Warning', reason: 'StoreRecordInvalid', message: problem }],
    inFlight: null, slot: { phase: 'none' }, retryAt: null, nextAttemptInMs: null, shard, epoch: 0, stored: true,
  };
}

/** A listing's row for an object whose record cannot be read: `unreadable`, an error, and why. */
export function unreadableRow(key: string, kind: HostKind, backend: HostBackend, shard: number, problem: string, stored?: true): HostRow {
  return { key, kind, backend, state: 'unreadable', poweredOn: false, operationalStatus: 'error', errorType: '', errorMessage: problem, shard, stateSinceMs: 0, ...(stored ? { stored } : {}) };
}
