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
  /** Where a capacity broker says, once loaded, that it serves (every node's proxy listens). */
  readonly capacityServing: string;
  /** Introspection requests answered by every node. */
  introspect(node: string | '*'): string;
  /** One introspection verb of one node (`<cluster>.introspect.<node>.<verb>`). */
  introspectVerb(node: string, verb: string): string;
  /** Signed requests to apply one object to the cluster's stores (any node answers, one queue group). */
  readonly storeApply: string;
  /** Signed requests to delete one host from the cluster's store (any node answers). */
  readonly storeDelete: string;
  /** Where a node appends one audit record of `action` (the mf-audit stream holds them). */
  audit(action: string): string;
  /** Every audit subject (`<cluster>.audit.>`): the audit stream's subjects. */
  readonly audits: string;
  /** Where a node appends one refusal record of `action` (the mf-audit-refusals stream holds them). */
  refusal(action: string): string;
  /** Every refusal subject (`<cluster>.refusals.>`), apart from the audit's so each stream has its own limits. */
  readonly refusals: string;
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
    capacityServing: `${cluster}.capacity.serving`,
    introspect: (node) => `${cluster}.introspect.${node}`,
    introspectVerb: (node, verb) => `${cluster}.introspect.${node}.${verb}`,
    storeApply: `${cluster}.store.apply`,
    storeDelete: `${cluster}.store.delete`,
    audit: (action) => `${cluster}.audit.${action}`,
    audits: `${cluster}.audit.>`,
    refusal: (action) => `${cluster}.refusals.${action}`,
    refusals: `${cluster}.refusals.>`,
  };
}
