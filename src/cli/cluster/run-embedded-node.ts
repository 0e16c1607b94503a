import type { EmbeddedNode, NodeConfig } from '../../actors/node/index.ts';
import { startEmbeddedNode } from '../../actors/node/index.ts';
import type { KubeAdapter } from '../../adapters/kube/index.ts';
import { registerKubeMetrics } from '../../adapters/kube/index.ts';
import type { HealthServer } from '../../adapters/observe/index.ts';
import { startHealthServer } from '../../adapters/observe/index.ts';
import type { MaasMachineConfig } from '../../machines/maas-machine/index.ts';
import type { Logger, MaasDriver, Provisioner } from '../../ports/index.ts';

export interface EmbeddedKubeSettings {
  readonly node: NodeConfig;
  readonly healthPort: number | null;
  /** How long a stop lets calls in flight finish. */
  readonly drainTimeoutMs: number;
}

export interface EmbeddedKubeParts {
  /** Hosts (and, with `maas`, the MAAS side) from Kubernetes; started in the node's system. */
  readonly kube: KubeAdapter;
  readonly provisioner: Provisioner;
  readonly maas?: { readonly driver: MaasDriver; readonly config?: Partial<MaasMachineConfig> };
  readonly log: Logger;
}

export interface RunningEmbeddedNode {
  readonly health: HealthServer | null;
  /** Resolves once the informers synced and the node drives its hosts. */
  readonly started: Promise<EmbeddedNode>;
  stop(): Promise<void>;
}

/**
 * One process that owns every host (no NATS, no leases), reading BareMetalHosts, Secrets and
 * optionally MaasMachines and MaasClusters from Kubernetes. The health server comes up first:
 * /readyz says "not ready" until every informer has listed and the node is running.
 */
export async function runEmbeddedKubeNode(settings: EmbeddedKubeSettings, parts: EmbeddedKubeParts): Promise<RunningEmbeddedNode> {
  let node: EmbeddedNode | null = null;
  let failed: string | null = null;
  const health = settings.healthPort === null ? null : await startHealthServer({
    live: () => failed === null && (node === null || node.system.state === 'running'),
    ready: () => {
      if (failed !== null) return { ready: false, reason: failed };
      if (!parts.kube.isSynced) {
        const waiting = parts.kube.informers().filter((i) => !i.synced).map((i) => `${i.resource}${i.lastError ? ` (${i.lastError})` : ''}`);
        return { ready: false, reason: `Kubernetes informers not synced: ${waiting.join(', ') || 'starting'}` };
      }
      return node === null ? { ready: false, reason: 'starting the node' } : { ready: true };
    },
    hostsByState: () => node?.stats.byState ?? new Map(),
    shardsOwned: () => (node ? node.shardCount : 0),
    mailboxDepth: () => node?.system.registry.list({ summary: false }).reduce((n, a) => n + a.mailboxDepth, 0) ?? 0,
    slots: () => null,
  }, { port: settings.healthPort, node: settings.node.name });
  if (health) registerKubeMetrics(health.registry, parts.kube);

  const started = startEmbeddedNode(settings.node, {
    store: parts.kube.hosts,
    provisioner: parts.provisioner,
    log: parts.log,
    attach: (system) => parts.kube.start(system),
    ...(parts.maas && parts.kube.objects ? { maas: { store: parts.kube.objects, driver: parts.maas.driver, ...(parts.maas.config ? { config: parts.maas.config } : {}) } } : {}),
  }).then((n) => {
    node = n;
    parts.log.info({ shards: n.shardCount, hosts: n.stats.hosts.size }, 'node started: informers synced');
    return n;
  }, (err: unknown) => {
    failed = `start failed: ${err instanceof Error ? err.message : String(err)}`;
    throw err;
  });
  // Nobody may be waiting on it yet; the failure is reported through /readyz and stop().
  started.catch(() => undefined);

  let stopping: Promise<void> | null = null;
  return {
    health,
    started,
    stop() {
      stopping ??= (async () => {
        const running = node as EmbeddedNode | null;
        if (running) await running.stop(settings.drainTimeoutMs);
        await parts.kube.close();
        await health?.close();
      })();
      return stopping;
    },
  };
}
