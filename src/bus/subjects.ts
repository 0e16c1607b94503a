// Every subject metalfleet uses, in one place. A cluster name prefixes them so two clusters can
// share one NATS account without hearing each other.

export interface Subjects {
  /** Commands for the hosts of one shard; only the shard's owner subscribes. */
  command(shard: number): string;
  /** Requests to the cluster's capacity broker (the lease holder subscribes). */
  readonly capacity: string;
  /** Slot notices pushed to one node's hosts. */
  capacityNotify(node: string): string;
  /** Introspection requests answered by every node. */
  introspect(node: string | '*'): string;
  /** One introspection verb of one node (`<cluster>.introspect.<node>.<verb>`). */
  introspectVerb(node: string, verb: string): string;
}

export function subjects(cluster = 'mf'): Subjects {
  return {
    command: (shard) => `${cluster}.cmd.${shard}`,
    capacity: `${cluster}.capacity.req`,
    capacityNotify: (node) => `${cluster}.capacity.notify.${node}`,
    introspect: (node) => `${cluster}.introspect.${node}`,
    introspectVerb: (node, verb) => `${cluster}.introspect.${node}.${verb}`,
  };
}
