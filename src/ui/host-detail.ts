// One host for the host page: the owner's introspection answer (spec without secrets, status,
// transitions, backend record, slot, backoff), with each transition's duration worked out.
import { inspectHost, NotFound, type InspectedHost } from '../cluster/introspect/index.ts';
import type { HostKind } from '../bus/messages/introspect.ts';
import type { Transport } from '../ports/index.ts';

export interface TimelineStep {
  readonly at: number;
  readonly severity: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
  /** Until the next transition, or until now for the newest. */
  readonly durationMs: number;
}

export interface HostDetail extends Omit<InspectedHost, 'recent'> {
  readonly node: string;
  readonly timeline: readonly TimelineStep[];
}

export type DetailOutcome =
  | { readonly ok: true; readonly host: HostDetail }
  | { readonly ok: false; readonly status: 404 | 503; readonly reason: string };

/** The object of this kind (no kind: the BareMetalHost, as for commands); only that kind is asked for. */
export async function hostDetail(transport: Transport, key: string, options: { timeoutMs: number; shardCount: number; nodes?: readonly string[]; kind?: HostKind | undefined }, now: () => number = Date.now): Promise<DetailOutcome> {
  try {
    const { node, value } = await inspectHost(transport, key, { timeoutMs: options.timeoutMs, shardCount: options.shardCount, kind: options.kind, ...(options.nodes && options.nodes.length > 0 ? { nodes: options.nodes } : {}) });
    const { recent, ...rest } = value.host;
    const at = now();
    const timeline = recent.map((t, i) => ({ ...t, durationMs: Math.max(0, (recent[i + 1]?.at ?? at) - t.at) }));
    return { ok: true, host: { ...rest, node, timeline } };
  } catch (err) {
    if (err instanceof NotFound) return { ok: false, status: err.retryable ? 503 : 404, reason: err.message };
    if (err instanceof RangeError) return { ok: false, status: 404, reason: err.message };
    throw err;
  }
}
