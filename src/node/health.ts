import { errorMessage, MetalfleetError } from '../api/index.ts';
import type { HealthServer, PoolSlots } from '../adapters/observe/index.ts';
import { backendRequestsOf, mailboxDepthByKind, registerBackendCallMetrics, startHealthServer } from '../adapters/observe/index.ts';
import type { KubeAdapter } from '../adapters/kube/index.ts';
import { registerKubeMetrics } from '../adapters/kube/metrics.ts';
import type { BackendCalls } from '../actors/calls/index.ts';
import type { Clock } from '../actors/runtime/index.ts';
import { askJetStream } from '../bus/index.ts';
import type { Membership } from '../cluster/index.ts';
import { commandGate, createUiHandler } from '../ui/index.ts';
import type { MaasDriver, Provisioner, ResourceStore } from '../ports/index.ts';
import type { ClusterTiming, NodeConfig } from './config.ts';
import { apiServerUnreachable, watchJetStream } from './readiness.ts';
import type { JetStreamWatch } from './readiness.ts';
import type { MaasShards, ShardHost } from './shard-host.ts';
import type { Substrate } from './substrate.ts';

/**
 * The health port could not listen: the port is taken, or the bind address is not this machine's
 * or does not resolve. Typed so that the CLI can name its flags; a raw "listen EADDRINUSE" said
 * nothing of which setting to change.
 */
export class HealthListenError extends MetalfleetError {
  readonly reason: string;
  constructor(readonly port: number, readonly bind: string, cause: unknown) {
    const reason = listenReason(cause);
    super('healthListen', `the health server cannot listen on ${bind}:${port}: ${reason}`, false, undefined, { cause });
    this.name = 'HealthListenError';
    this.reason = reason;
  }
}

function listenReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE') return 'the port is in use';
  if (code === 'EADDRNOTAVAIL') return 'this machine has no such address (EADDRNOTAVAIL)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `no such address (${code})`;
  if (code === 'EACCES') return 'permission denied (EACCES; a port below 1024 needs privileges)';
  return code ?? errorMessage(error);
}

/** What /livez, /readyz and the metrics read once the node runs. */
export interface RunningParts {
  readonly shards: ShardHost;
  readonly membership: Membership;
  readonly maas: MaasShards | null;
  /** Every kind the node runs, as one store. */
  readonly store: ResourceStore;
  readonly pools: () => Promise<readonly PoolSlots[] | null>;
}

export interface NodeHealthServer {
  /** Null when the node has no health port. */
  readonly health: HealthServer | null;
  /** Told once the shards, membership and the broker's pools exist: until then /readyz says "starting the node". */
  running(parts: RunningParts): void;
  /** Stops the JetStream watch, the dashboard and the server. */
  close(): Promise<void>;
}

export interface NodeHealthOptions {
  readonly config: NodeConfig;
  readonly substrate: Substrate;
  readonly timing: ClusterTiming;
  readonly clock: Clock;
  readonly provisioner: Provisioner;
  /** The MAAS driver, when the node drives MAAS kinds: its requests are exported beside the provisioner's. */
  readonly maasDriver?: Pick<MaasDriver, 'requests'>;
  /** The node's per-backend bound on calls that hold no slot: exported as metalfleet_backend_calls_*. */
  readonly calls?: BackendCalls;
  readonly kube: KubeAdapter | undefined;
  /** The Kubernetes leader lease the node awaits before it drives anything; /readyz says `waitingFor`. */
  readonly gate: { readonly waitingFor: string; readonly open: Promise<void> } | undefined;
}

/**
 * Health first: /readyz answers "not ready" while informers list and shards are taken, so this
 * starts before the node assembles and reads what it runs through `running`.
 */
export async function startNodeHealth(options: NodeHealthOptions): Promise<NodeHealthServer> {
  const { config, substrate, timing, clock, kube, gate } = options;
  const { transport } = substrate;
  let connection: string = 'connected';
  let gateOpen = gate === undefined;
  void gate?.open.then(() => { gateOpen = true; }, () => undefined);
  transport.onStatus((status) => {
    connection = status;
  });
  // Set once the health server listens (only /readyz reads it).
  let jetstream: JetStreamWatch | null = null;
  let running: RunningParts | null = null;
  // The dashboard on the health port, at the same address: the whole cluster seen from here,
  // read-only unless the node was given a command token.
  const healthBind = config.healthBind ?? '127.0.0.1';
  const ui = config.healthPort === undefined || config.healthPort === null ? null : createUiHandler({
    transport,
    gate: commandGate(config.uiCommands ? { enabled: true, token: config.uiCommands.token } : { enabled: false }),
    signingKey: config.uiCommands?.signingKey,
    shardCount: config.shardCount,
    bind: healthBind,
  });
  const health = config.healthPort === undefined || config.healthPort === null ? null : await startHealthServer({
    live: () => running === null || running.shards.system.state === 'running',
    restartReason: () => transport.kvReplaced?.() ?? null,
    ready: () => {
      const replaced = transport.kvReplaced?.() ?? null;
      if (replaced !== null) return { ready: false, reason: replaced };
      // Named as the connection it is: "a disconnected" read as if node a had gone.
      if (connection !== 'connected') return { ready: false, reason: `disconnected from ${substrate.shared ? 'NATS' : 'the bus'} (connection ${transport.name}: ${connection})` };
      const jetstreamDown = jetstream?.reason() ?? null;
      if (jetstreamDown !== null) return { ready: false, reason: jetstreamDown };
      if (!gateOpen && gate) return { ready: false, reason: gate.waitingFor };
      if (kube && !kube.isSynced) {
        const waiting = kube.informers().filter((i) => !i.synced).map((i) => `${i.resource}${i.lastError ? ` (${i.lastError})` : ''}`);
        return { ready: false, reason: `Kubernetes informers not synced: ${waiting.join(', ') || 'starting'}` };
      }
      const unreachable = kube ? apiServerUnreachable(kube.informers(), clock.now()) : null;
      if (unreachable !== null) return { ready: false, reason: unreachable };
      if (running === null) return { ready: false, reason: 'starting the node' };
      if (!running.membership.healthy) return { ready: false, reason: 'heartbeats are failing' };
      return { ready: true };
    },
    machines: () => running?.shards.stats.kinds ?? new Map(),
    staleFenceRefusals: () => running?.store.staleFenceRefusals?.() ?? 0,
    shardsOwned: () => running?.shards.owned().size ?? 0,
    mailboxDepth: () => mailboxDepthByKind(running?.shards.system.registry.list({ summary: false }) ?? []),
    capacityPools: () => running?.pools() ?? Promise.resolve(null),
    backendRequests: backendRequestsOf(options.provisioner, options.maasDriver),
  }, { port: config.healthPort, host: healthBind, node: config.name, ...(ui ? { routes: (req, res) => ui.handle(req, res) } : {}) }).catch((error: unknown) => {
    ui?.close();
    throw new HealthListenError(config.healthPort ?? 0, healthBind, error);
  });
  if (health && kube) registerKubeMetrics(health.registry, kube);
  const calls = options.calls;
  if (health && calls) registerBackendCallMetrics(health.registry, () => calls.figures());
  // Connected is not enough on a clustered NATS: without a quorum of its servers JetStream takes
  // no write, so no lease renews and no heartbeat lands. A private bus has no JetStream to ask.
  if (health && substrate.shared) {
    jetstream = watchJetStream({ ask: () => askJetStream(transport, Math.max(1_000, 2 * timing.heartbeatMs)), everyMs: timing.heartbeatMs, clock });
  }
  return {
    health,
    running: (parts) => { running = parts; },
    async close() {
      ui?.close();
      jetstream?.stop();
      await health?.close();
    },
  };
}
