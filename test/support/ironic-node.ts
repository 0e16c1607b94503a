import type { TestFn } from 'ava';
import type { LocalNode } from './local-node.ts';
import { startIronic } from './ironic.ts';
import type { IronicServer } from './ironic.ts';
import { startLocalNode } from './local-node.ts';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { DeployImages, DriverOverride } from '../../src/adapters/ironic/provisioner/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import type { LocalStore } from '../../src/adapters/store/index.ts';
import type { MachineConfig } from '../../src/machines/bmh/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import type { Substrate } from '../../src/node/index.ts';

export interface IronicTestNode {
  node: LocalNode;
  /** The embedded default's store, on the substrate the node runs on. */
  store: LocalStore;
  substrate: Substrate;
  client: IronicClient;
  stop(): Promise<void>;
}

let n = 0;

export interface IronicNodeOptions {
  url: string;
  limit?: number;
  machine?: Partial<MachineConfig>;
  imageCheck?: boolean;
  /** Real drivers (no fake-hardware override) with these deploy images: the virtual datacenter's. */
  realDrivers?: { deploy: DeployImages };
  /** With fake nodes: interfaces besides fake-hardware's defaults (e.g. firmwareInterface 'fake' for components, API 1.86+). */
  driverOverride?: DriverOverride;
  name?: string;
}

// An embedded node driving a real Ironic, with fake-hardware nodes unless told otherwise, fast
// polls and short backoffs.
export async function startIronicNode(o: IronicNodeOptions): Promise<IronicTestNode> {
  const substrate = memorySubstrate();
  const store = await openLocalStore(substrate.transport);
  const client = createIronicClient({ endpoint: o.url, timeoutMs: 10_000 });
  await client.connect();
  const provisioner = createIronicProvisioner({
    client,
    driverOverride: o.realDrivers ? null : (o.driverOverride ?? { hardwareType: 'fake-hardware' }),
    ...(o.realDrivers ? { deploy: o.realDrivers.deploy } : {}),
    polls: { shortMs: 100, longMs: 200 },
    imageCheck: { enabled: o.imageCheck ?? false, timeoutMs: 1_000 },
  });
  const node = await startLocalNode({
    name: `${o.name ?? 'ironic-test'}-${++n}`,
    shardCount: 16,
    machine: { ...DEFAULT_MACHINE_CONFIG, powerPollMs: 500, backoffUnitMs: 100, transientBaseMs: 50, transientMaxMs: 1_000, ...o.machine },
    capacity: { limits: {}, defaultLimit: o.limit ?? 20, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 10, maxMs: 100 } },
    askTimeoutMs: 5_000,
  }, { store: store.resources, secrets: store.secrets }, { provisioner }, {}, substrate);
  return { node, store, substrate, client, stop: () => node.stop() };
}

export function bmcSecret(namespace = 'lab'): unknown {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc', namespace }, stringData: { username: 'admin', password: 'ironic-test-password' } };
}

export function ironicHost(name: string, o: { image?: string | null; checksum?: string; externallyProvisioned?: boolean; online?: boolean; address?: string; annotations?: Record<string, string>; mac?: string; userData?: string } = {}): unknown {
  const image = o.image === null ? undefined : { url: o.image ?? 'http://images.lab/os.qcow2', checksum: o.checksum ?? 'a'.repeat(64), checksumType: 'sha256' };
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: 'lab', ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      online: o.online ?? true,
      bmc: { address: o.address ?? 'redfish://192.168.111.1:8000/redfish/v1/Systems/' + name, credentialsName: 'bmc' },
      bootMACAddress: o.mac ?? macFor(name),
      ...(image ? { image } : {}),
      ...(o.externallyProvisioned ? { externallyProvisioned: true } : {}),
      ...(o.userData ? { userData: { name: o.userData, namespace: 'lab' } } : {}),
    },
  };
}

function macFor(name: string): string {
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  const b = [h & 255, (h >> 8) & 255, (h >> 16) & 255].map((x) => x.toString(16).padStart(2, '0'));
  return `52:54:00:${b.join(':')}`;
}

/**
 * One real Ironic and an embedded node driving it for a whole test file, with the BMC Secret
 * `lab/bmc` applied: the object is filled in by the file's `before` hook.
 */
export function useIronicNode(test: TestFn, o: Omit<Parameters<typeof startIronicNode>[0], 'url'> = {}): IronicTestNode {
  const it = {} as { -readonly [K in keyof IronicTestNode]: IronicTestNode[K] };
  let ironic: IronicServer | undefined;
  test.before(async () => {
    ironic = await startIronic();
    Object.assign(it, await startIronicNode({ url: ironic.url, ...o }));
    const applied = await it.store.applyObjects([bmcSecret()]);
    if (!applied.ok) throw new Error(`Secret refused: ${JSON.stringify(applied.issues)}`);
  });
  test.after.always(async () => {
    await it.stop?.();
    await ironic?.stop();
  });
  return it;
}
