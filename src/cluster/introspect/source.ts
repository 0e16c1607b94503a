import type { ActorRow, BackendCallRow, ClusterRow, HostKind, HostRow, HostsRequest, InfoReply, InspectedHost, PoolRow, ShardRow } from '../../bus/messages/introspect.ts';

// What a node answers to the introspection verbs; the node implements it, the service serves it.

export const METALFLEET_VERSION = '0.1.0';

export type InspectOutcome =
  | { readonly ok: true; readonly host: InspectedHost }
  | { readonly ok: false; readonly kind: 'notFound' | 'notOwner'; readonly message: string };

export interface CapacityView {
  readonly broker: boolean;
  readonly pools: PoolRow[];
  /** This node's calls per backend that hold no slot, under its per-backend bound. */
  readonly calls?: BackendCallRow[];
}

/** Answers to the introspection verbs, without the node name (the service adds it). */
export interface IntrospectionSource {
  info(): Promise<Omit<InfoReply, 'node'>>;
  hosts(filter: HostsRequest): Promise<HostRow[]>;
  actors(filter: { prefix?: string | undefined }): Promise<ActorRow[]>;
  shards(): Promise<ShardRow[]>;
  capacity(): Promise<CapacityView>;
  /** The object of this kind and key; no kind: the BareMetalHost (as for commands). */
  /** `stored`: the object as this node's store holds it, owned here or not (a BareMetalHost only). */
  inspect(key: string, kind?: HostKind, stored?: boolean): Promise<InspectOutcome>;
  /** The MaasClusters of the shards this node owns; absent: a node without MAAS, which has none. */
  /** `storedShards`: instead, the MaasClusters of these shards as this node's store holds them. */
  clusters?(storedShards?: readonly number[]): Promise<ClusterRow[]>;
  /** Stops the event-loop sampling. */
  close(): void;
}

