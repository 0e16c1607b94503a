import type { LocalNode } from './local-node.ts';
import { startLocalNode } from './local-node.ts';
import { MAAS_VALIDATORS } from '../../src/adapters/store/object-apply.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { createMaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import type { KvStore, LocalStore } from '../../src/adapters/store/index.ts';
import type { NatsApplyResult } from '../../src/adapters/store/nats-store.ts';
import type { ResourceStore, Transport } from '../../src/ports/index.ts';
import type { MaasMachineConfig } from '../../src/machines/maas-machine/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { MaasSim, MaasSimOptions } from '../../src/sim/maas/index.ts';

// The embedded default's MAAS side, as `metalfleet demo` opens it: the one KV store on the node's
// own memory KV, Secrets (bootstrap data) beside it in the local store's secret map.
export interface MaasTestNode {
  node: LocalNode;
  /** The node's one store: the MAAS kinds and the objects they read, beside the hosts. */
  store: KvStore;
  /** Applies manifests as `demo -f` does: Secrets to the secret map, the MAAS kinds to `store`. */
  apply(objects: readonly unknown[]): Promise<NatsApplyResult>;
  /** The node's host store (BareMetalHosts), e.g. for a command server next to the node. */
  hosts: LocalStore;
  sim: MaasSim;
  /** The substrate's bus, where the node serves host commands (as the dashboard sends them). */
  transport: Transport;
  stop(): Promise<void>;
}

let n = 0;

/** The embedded default's local store with the MAAS kinds' object records, as `demo` opens it. */
export async function openLocalStoreWithMaas(transport: Pick<Transport, 'kv'>): Promise<LocalStore & { readonly objects: KvStore }> {
  const local = await openLocalStore(transport, {
    maas: { validators: MAAS_VALIDATORS },
  });
  if (!local.objects) throw new Error('the local store opened no object records');
  return local as LocalStore & { readonly objects: KvStore };
}

export async function startMaasNode(o: { limit?: number; sim?: MaasSimOptions; config?: Partial<MaasMachineConfig>; apiKey?: 'admin' | 'user' } = {}): Promise<MaasTestNode> {
  const sim = await startMaasSim({ deployMs: 50, releaseMs: 50, ...o.sim });
  const client = createMaasClient({ endpoint: sim.url, apiKey: o.apiKey === 'user' ? sim.userKey : sim.adminKey });
  const substrate = memorySubstrate();
  const hosts = await openLocalStoreWithMaas(substrate.transport);
  const store = hosts.resources;
  const node = await startLocalNode({
    name: `maas-test-${++n}`, shardCount: 8, machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: o.limit ?? 50, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 10, maxMs: 100 } }, askTimeoutMs: 5_000,
  }, { store, secrets: hosts.secrets }, {
    provisioner: createFixtureProvisioner(),
    maas: { driver: createMaasDriver(client), clusterResyncMs: 200, config: { deployingPollMs: 30, steadyPollMs: 100, powerOnRequeueMs: 100, backoffBaseMs: 50, backoffMaxMs: 500, ...o.config } },
  }, {}, substrate);
  return {
    node, store, hosts, sim, transport: substrate.transport,
    apply: (objects) => hosts.applyObjects(objects),
    async stop() {
      await node.stop();
      await store.close();
      client.close();
      await sim.stop();
    },
  };
}

export function maasReady(store: ResourceStore, key: string): Promise<boolean> {
  return store.get('MaasMachine', key).then((m) => (m?.status as { ready?: boolean } | undefined)?.ready === true);
}

/** A MAAS test node whose introspection is served on a memory bus, with a client of that bus (as `hosts`, `inspect` or the dashboard reach a node). */
export interface ServedMaasNode {
  readonly it: MaasTestNode;
  readonly client: ReturnType<ReturnType<typeof createMemoryBus>['connect']>;
  readonly source: LocalNode['introspection'];
  stop(): Promise<void>;
}

export async function startServedMaasNode(clientName: string): Promise<ServedMaasNode> {
  const it = await startMaasNode();
  const bus = createMemoryBus();
  const server = bus.connect('embedded');
  const client = bus.connect(clientName);
  const source = it.node.introspection;
  const service = serveIntrospection(server, source, { node: 'embedded' });
  return {
    it, client, source,
    async stop() {
      await service.close();
      source.close();
      await client.close();
      await server.close();
      await it.stop();
    },
  };
}

/** A MaasMachine of cluster `demo` in namespace capi, with no Machine owning it yet. */
export function maasMachineObject(name: string, annotations?: Record<string, string>): unknown {
  return {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
    metadata: { name, namespace: 'capi', labels: { 'cluster.x-k8s.io/cluster-name': 'demo' }, ...(annotations ? { annotations } : {}) },
    spec: { minCPU: 1, minMemory: 1024, image: 'ubuntu/jammy' },
  };
}
