// The NATS service discovery protocol (ADR-32, "micro"): what a node answers on $SRV.PING, INFO
// and STATS, so `nats micro ls` / `nats micro info metalfleet` and any client library's service
// client find every node's introspection endpoints without knowing metalfleet. JSON on the wire,
// as the protocol says, not MessagePack.
import { z } from 'zod';

/** The service name every node registers under (A-Z, a-z, 0-9, dash, underscore). */
export const DISCOVERY_SERVICE = 'metalfleet';
export const DISCOVERY_VERBS = ['PING', 'INFO', 'STATS'] as const;
export type DiscoveryVerb = (typeof DISCOVERY_VERBS)[number];

const Identity = {
  name: z.string().regex(/^[A-Za-z0-9_-]+$/),
  id: z.string().min(1),
  version: z.string().min(5),
  metadata: z.record(z.string(), z.string()),
};

export const PingResponse = z.object({ type: z.literal('io.nats.micro.v1.ping_response'), ...Identity });
export type PingResponse = z.infer<typeof PingResponse>;

export const EndpointInfo = z.object({
  name: z.string(),
  subject: z.string(),
  /** Empty: a plain subscription, every instance gets each request (a node answers only for itself). */
  queue_group: z.string(),
  metadata: z.record(z.string(), z.string()),
});
export const InfoResponse = z.object({ type: z.literal('io.nats.micro.v1.info_response'), ...Identity, description: z.string(), endpoints: z.array(EndpointInfo) });
export type InfoResponse = z.infer<typeof InfoResponse>;

export const EndpointStats = z.object({
  name: z.string(),
  subject: z.string(),
  queue_group: z.string(),
  num_requests: z.number().int().nonnegative(),
  num_errors: z.number().int().nonnegative(),
  last_error: z.string(),
  /** Nanoseconds in the handler, in total and per request (truncated; 0 with no requests). */
  processing_time: z.number().int().nonnegative(),
  average_processing_time: z.number().int().nonnegative(),
});
export const StatsResponse = z.object({ type: z.literal('io.nats.micro.v1.stats_response'), ...Identity, started: z.iso.datetime(), endpoints: z.array(EndpointStats) });
export type StatsResponse = z.infer<typeof StatsResponse>;
