// Every subcommand: its name, the description help shows, and how to load it. main.ts loads only
// the module of the command it runs, so `metalfleet bmc` or `--help` never loads NATS, the
// Kubernetes client or the actor runtime.
import type { Command } from 'commander';

export type RegisterCommand = (program: Command) => void;

export interface CommandEntry {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** Its arguments as commander writes them ('<address>'), for the listing that loads no command. */
  readonly args?: string;
  readonly description: string;
  readonly load: () => Promise<{ readonly register: RegisterCommand }>;
}

// Add a command here and in its own module (src/cli/commands/<name>.ts, exporting register).
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'demo', description: 'run the embedded default: memory store, fixture backend, no NATS or Kubernetes', load: () => import('./demo.ts') },
  { name: 'validate', args: '[files...]', description: 'check BareMetalHost, MaasCluster, MaasMachine and MaasMachineTemplate manifests against the admission rules (other kinds are skipped); -n NAMESPACE places objects that name none', load: () => import('./validate.ts') },
  { name: 'bmc', args: '<address>', description: 'show how a BMC address is parsed: driver, interfaces, boot MAC and virtual media', load: () => import('./bmc.ts') },
  { name: 'sim', description: 'run a simulated backend that answers over its real protocol', load: () => import('./sim.ts') },
  { name: 'fixture-server', description: 'serve one fixture backend over HTTP for several metalfleet nodes, until SIGINT/SIGTERM', load: () => import('./fixture-server.ts') },
  { name: 'apply', description: 'validate manifests (BareMetalHosts, MaasMachines, MaasClusters and the Cluster API Machines and Clusters they read), then create or update them in the cluster\'s NATS store (Secrets are given to each node with --secrets, never applied)', load: () => import('./apply.ts') },
  { name: 'delete', args: '[type] [names...]', description: 'delete from the cluster\'s NATS store what apply wrote (BareMetalHosts, MaasMachines, MaasClusters, Cluster API objects): "delete host NS/NAME...", "delete maascluster NS/NAME..." or "delete -f FILE"; objects with finalizers are terminating until their controller lets go', load: () => import('./delete.ts') },
  { name: 'node', description: 'run a controller node: one of a sharded cluster (NATS), or with --kubeconfig and no NATS a single process that owns every host', load: () => import('./node.ts') },
  { name: 'host', aliases: ['cmd'], args: '<action> <hosts...>', description: 'send a command to hosts through any node: power-on, power-off, reboot, inspect, reprovision, service (apply pending firmware changes on a provisioned host), pause, unpause, detach, attach or delete for a BareMetalHost; power-on, power-off, release, pause or unpause for a MaasMachine (--kind MaasMachine or maasmachine/NS/NAME; without a kind a host is a BareMetalHost, and release is for a MaasMachine); a reply means the intent is recorded (watch the status for the result)', load: () => import('./host.ts') },
  { name: 'hosts', description: 'list the hosts the cluster drives: kind, backend, state, power, status, error, shard, node and time in state', load: () => import('./hosts.ts') },
  { name: 'actors', description: 'list the actors of each node: path, kind, mailbox depth and high-water mark, processed, restarts, last error, busy or idle', load: () => import('./actors.ts') },
  { name: 'shards', description: 'list the owned shards: shard, owner node, lease epoch, hosts and lease age', load: () => import('./shards.ts') },
  { name: 'capacity', description: 'show the capacity pools: limit, slots in use (hosts and operations), waiting queue and longest wait', load: () => import('./capacity.ts') },
  { name: 'clusters', description: 'list the MaasClusters: DNS name, the DNS record\'s addresses in MAAS, ready, machines with their MAAS state and whether the record holds them, conditions, owner node and shard', load: () => import('./clusters.ts') },
  { name: 'inspect', args: '<host>', description: 'show one host in depth: spec summary, status, recent transitions, backoff, capacity slot, owning node and shard, backend record', load: () => import('./inspect.ts') },
  { name: 'nodes', description: 'list the cluster members: uptime, hosts, shards, version, memory, event-loop lag and who runs the capacity broker', load: () => import('./nodes.ts') },
  { name: 'top', description: 'live dashboard: hosts per state, throughput, capacity per pool, busiest mailboxes, recent errors', load: () => import('./top.ts') },
  { name: 'ui', description: 'serve the live fleet dashboard in the browser: hosts per state over time, capacity, shards and nodes, a host table and host pages; read-only unless --ui-commands', load: () => import('./ui.ts') },
  { name: 'keygen', description: 'create a signing key for host commands and apply/delete: writes the seed to --out (mode 0600) and prints the public key for the nodes\' --authorized-keys file', load: () => import('./keygen.ts') },
  { name: 'audit', description: 'show the audit of host commands, apply and delete: who (key, name, role), when, which host, what, and whether it was applied or refused and why', load: () => import('./audit.ts') },
  { name: 'webhook', description: 'serve the BareMetalHost and MAAS admission rules (as metalfleet validate checks them) as a Kubernetes validating webhook over HTTPS, until SIGINT/SIGTERM', load: () => import('./webhook.ts') },
];

/** The entry a command-line word names (a command or one of its aliases). */
export function commandNamed(word: string): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === word || (c.aliases ?? []).includes(word));
}

/** The description of a command in COMMANDS: its module registers it with this. */
export function descriptionOf(name: string): string {
  const entry = commandNamed(name);
  if (!entry) throw new Error(`no command ${name} in src/cli/commands/catalog.ts`);
  return entry.description;
}

/** Registers every command for real: for tests that look at all of them. */
export async function registerAll(program: Command): Promise<Command> {
  for (const entry of COMMANDS) (await entry.load()).register(program);
  return program;
}
