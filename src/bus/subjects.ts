// Every subject metalfleet uses, in one place. A cluster name prefixes them so two clusters can
// share one NATS account without hearing each other.

export interface Subjects {
  /** Commands for the hosts of one shard; clients publish here (any node may answer). */
  command(shard: number): string;
  /** Every shard's command subject (`<cluster>.cmd.*`): what each node's command server hears. */
  readonly commands: string;
  /** The shard a command subject names; null when `subject` is not one. */
  commandShard(subject: string): number | null;
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
    commands: `${cluster}.cmd.*`,
    commandShard: (subject) => {
      const prefix = `${cluster}.cmd.`;
      if (!subject.startsWith(prefix)) return null;
      const token = subject.slice(prefix.length);
      // Decimal without sign or leading zero: exactly what command(shard) writes.
      return /^(0|[1-9]\d{0,8})$/.test(token) ? Number(token) : null;
    },
    capacity: `${cluster}.capacity.req`,
    capacityNotify: (node) => `${cluster}.capacity.notify.${node}`,
    introspect: (node) => `${cluster}.introspect.${node}`,
    introspectVerb: (node, verb) => `${cluster}.introspect.${node}.${verb}`,
  };
}
