import type { LocalNode } from './local-node.ts';
import { startLocalNode } from './local-node.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import type { FixtureOptions, FixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import type { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { formatApplyIssue, openLocalStore } from '../../src/adapters/store/index.ts';
import type { LocalStore } from '../../src/adapters/store/index.ts';
import type { MachineConfig } from '../../src/machines/bmh/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import type { CallLimits, Substrate } from '../../src/node/index.ts';
import type { Provisioner } from '../../src/ports/index.ts';
import type { HostStore } from '../../src/adapters/store/host-records.ts';

export interface TestNode {
  node: LocalNode;
  /** The embedded default's store, on the substrate the node runs on. */
  store: LocalStore;
  substrate: Substrate;
  fixture: FixtureProvisioner;
}

let counter = 0;

export async function startTestNode(o: {
  /** The KV of an earlier node's substrate (its `substrate.memoryKv`): a restart that keeps the store. */
  kv?: MemoryKvStore;
  /** Applied to the store before the node starts (the Secrets a restarted process reads again). */
  objects?: readonly unknown[];
  fixture?: FixtureOptions;
  provisioner?: (fixture: FixtureProvisioner) => Provisioner;
  limit?: number;
  machine?: Partial<MachineConfig>;
  maxRestarts?: number;
  /** The node's per-backend call bound; absent: the product's default. */
  calls?: CallLimits;
} = {}): Promise<TestNode> {
  const substrate = memorySubstrate(o.kv ? { kv: o.kv } : {});
  const store = await openLocalStore(substrate.transport);
  if (o.objects) {
    const applied = await store.applyObjects(o.objects, 'startTestNode');
    if (!applied.ok) throw new Error(`startTestNode objects invalid: ${applied.issues.map(formatApplyIssue).join('; ')}`);
  }
  const fixture = createFixtureProvisioner({ demoBehaviours: false, ...o.fixture });
  const node = await startLocalNode({
    name: `test-node-${++counter}`,
    shardCount: 16,
    machine: { ...DEFAULT_MACHINE_CONFIG, ...o.machine },
    capacity: { limits: {}, defaultLimit: o.limit ?? Number.POSITIVE_INFINITY, ttlMs: 30_000 },
    supervision: { maxRestarts: o.maxRestarts ?? 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
    ...(o.calls ? { calls: o.calls } : {}),
  }, { store: store.resources, secrets: store.secrets }, { provisioner: o.provisioner ? o.provisioner(fixture) : fixture }, {}, substrate);
  return { node, store, substrate, fixture };
}

export function secret(name = 'bmc', namespace = 'lab', data: Record<string, string> = { username: 'admin', password: 'hunter2' }): unknown {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, stringData: data };
}

export function bmh(name: string, o: { namespace?: string; image?: boolean; credentialsName?: string; address?: string; annotations?: Record<string, string>; online?: boolean } = {}): unknown {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: o.namespace ?? 'lab', ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      online: o.online ?? true,
      bmc: { address: o.address ?? `redfish://10.0.0.${(name.length * 7) % 250}/redfish/v1/Systems/1`, credentialsName: o.credentialsName ?? 'bmc' },
      bootMACAddress: '52:54:00:00:00:01',
      ...(o.image === false ? {} : { image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' } }),
    },
  };
}

export async function statusOf(store: HostStore, key: string) {
  return (await store.get(key))?.status;
}
