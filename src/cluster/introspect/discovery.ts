// Answers the NATS service discovery protocol (ADR-32) for a node's introspection endpoints:
// $SRV.<VERB>, $SRV.<VERB>.metalfleet and $SRV.<VERB>.metalfleet.<id>, for PING, INFO and STATS.
// Written over the Transport port rather than with @nats-io/services, whose registry releases are
// all pre-releases of an older core than the one pinned here; the protocol is three JSON replies.
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { RpcStats } from '../../bus/index.ts';
import { DISCOVERY_SERVICE, DISCOVERY_VERBS, InfoResponse, PingResponse, StatsResponse } from '../../bus/messages/index.ts';
import type { DiscoveryVerb } from '../../bus/messages/index.ts';
import type { BusSubscription, Transport } from '../../ports/index.ts';

export interface DiscoveryEndpoint {
  readonly name: string;
  readonly subject: string;
  readonly stats: Readonly<RpcStats>;
}

export interface DiscoveryOptions {
  readonly version: string;
  readonly description: string;
  /** Immutable once served: who this instance is (the node's name). */
  readonly metadata: Readonly<Record<string, string>>;
  readonly endpoints: () => readonly DiscoveryEndpoint[];
  /** Default a fresh random id per instance, as the protocol asks. */
  readonly id?: string;
  readonly now?: () => Date;
}

export interface DiscoveryServer {
  readonly id: string;
  close(): Promise<void>;
}

const encoder = new TextEncoder();

export function serveDiscovery(transport: Transport, options: DiscoveryOptions): DiscoveryServer {
  const id = options.id ?? randomUUID().replaceAll('-', '');
  const now = options.now ?? (() => new Date());
  const started = now().toISOString();
  const identity = { name: DISCOVERY_SERVICE, id, version: options.version, metadata: { ...options.metadata } };

  const responses: Record<DiscoveryVerb, () => unknown> = {
    PING: () => checked(PingResponse, { type: 'io.nats.micro.v1.ping_response', ...identity }),
    INFO: () => checked(InfoResponse, {
      type: 'io.nats.micro.v1.info_response', ...identity, description: options.description,
      endpoints: options.endpoints().map((e) => ({ name: e.name, subject: e.subject, queue_group: '', metadata: {} })),
    }),
    STATS: () => checked(StatsResponse, {
      type: 'io.nats.micro.v1.stats_response', ...identity, started,
      endpoints: options.endpoints().map((e) => {
        const requests = e.stats.served + e.stats.rejected + e.stats.failed;
        return {
          name: e.name, subject: e.subject, queue_group: '',
          num_requests: requests, num_errors: e.stats.rejected + e.stats.failed, last_error: e.stats.lastError,
          processing_time: e.stats.processingNs, average_processing_time: requests === 0 ? 0 : Math.trunc(e.stats.processingNs / requests),
        };
      }),
    }),
  };

  const subs: BusSubscription[] = [];
  for (const verb of DISCOVERY_VERBS) {
    for (const subject of [`$SRV.${verb}`, `$SRV.${verb}.${DISCOVERY_SERVICE}`, `$SRV.${verb}.${DISCOVERY_SERVICE}.${id}`]) {
      subs.push(transport.subscribe(subject, (msg) => {
        msg.respond(encoder.encode(JSON.stringify(responses[verb]())));
      }));
    }
  }

  let closing: Promise<void> | null = null;
  return {
    id,
    close() {
      closing ??= Promise.all(subs.map((s) => s.drain().catch(() => undefined))).then(() => undefined);
      return closing;
    },
  };
}

// A reply that breaks the protocol's schema is a bug here: thrown, so the transport logs it.
function checked<S extends z.ZodType>(schema: S, value: z.infer<S>): z.infer<S> {
  return schema.parse(value);
}
