// Every subject metalfleet uses, in one place. A cluster name prefixes them so two clusters can
// share one NATS account without hearing each other.
import { BusError } from '../ports/index.ts';

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

// One subject token: not empty, no '.', no wildcard, no whitespace (which ends the protocol line).
const TOKEN = /^[^.*>\s]+$/;

/**
 * `value` as one token of a subject, or a typed error naming it. A name with a '.' would route to
 * another subject, a '*' or '>' subscribed (a node named '>' hearing every node's notices).
 */
function token(what: string, value: string, subject: string): string {
  if (TOKEN.test(value)) return value;
  throw new BusError('invalidMessage', subject, `${what} ${JSON.stringify(value)} cannot be one token of a NATS subject: use letters, digits, "-" and "_" (no ".", "*", ">" or spaces)`);
}

export function subjects(cluster = 'mf'): Subjects {
  // The prefix may have several tokens ("prod.eu"), each one plain.
  if (!cluster.split('.').every((t) => TOKEN.test(t))) {
    throw new BusError('invalidMessage', `${cluster}.>`, `cluster name ${JSON.stringify(cluster)} cannot prefix NATS subjects: use dot-separated tokens of letters, digits, "-" and "_" (no "*", ">", spaces or empty tokens)`);
  }
  const node = (name: string, at: string): string => token('node name', name, at);
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
    capacityNotify: (name) => `${cluster}.capacity.notify.${node(name, `${cluster}.capacity.notify`)}`,
    capacityServing: `${cluster}.capacity.serving`,
    // '*' is the one wildcard asked for here: every node's introspection.
    introspect: (name) => `${cluster}.introspect.${name === '*' ? '*' : node(name, `${cluster}.introspect`)}`,
    introspectVerb: (name, verb) => `${cluster}.introspect.${node(name, `${cluster}.introspect`)}.${token('introspection verb', verb, `${cluster}.introspect.${name}`)}`,
    storeApply: `${cluster}.store.apply`,
    storeDelete: `${cluster}.store.delete`,
    audit: (action) => `${cluster}.audit.${token('audit action', action, `${cluster}.audit`)}`,
    audits: `${cluster}.audit.>`,
    refusal: (action) => `${cluster}.refusals.${token('audit action', action, `${cluster}.refusals`)}`,
    refusals: `${cluster}.refusals.>`,
  };
}
