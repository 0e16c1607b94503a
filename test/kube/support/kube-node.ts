// An embedded node on the Kubernetes API test server: the adapter's informers and stores, the
// fixture provisioner, and (when asked) the MAAS simulator behind the MAAS actors.
import { fileURLToPath } from 'node:url';
import type { LocalNode } from '../../support/local-node.ts';
import { startLocalNode } from '../../support/local-node.ts';
import { createFixtureProvisioner } from '../../../src/adapters/fixture/index.ts';
import type { FixtureOptions, FixtureProvisioner } from '../../../src/adapters/fixture/index.ts';
import type { KubeAdapter, KubeAdapterOptions } from '../../../src/adapters/kube/index.ts';
import { createKubeAdapter } from '../../../src/adapters/kube/index.ts';
import { createMaasClient } from '../../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../../src/adapters/maas/driver/index.ts';
import type { MachineConfig } from '../../../src/machines/bmh/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../../src/machines/bmh/index.ts';
import type { Logger } from '../../../src/ports/index.ts';
import { silentLogger } from '../../../src/ports/index.ts';
import type { MaasSim } from '../../../src/sim/maas/index.ts';
import { startMaasSim } from '../../../src/sim/maas/index.ts';
import type { KubeApiOptions, KubeApiServer, KubeObject } from '../../support/kube-api/index.ts';
import { startKubeApi } from '../../support/kube-api/index.ts';
import { parseAllDocuments } from 'yaml';

export const CRD_DIRS = [fileURLToPath(new URL('../../../deploy/crds', import.meta.url)), fileURLToPath(new URL('../fixtures/crds', import.meta.url))];

export function startApi(o: Omit<KubeApiOptions, 'crdDir'> = {}): Promise<KubeApiServer> {
  return startKubeApi({ crdDir: CRD_DIRS, watchTimeoutSeconds: 5, ...o });
}

export interface KubeTestNode {
  readonly node: LocalNode;
  readonly adapter: KubeAdapter;
  readonly fixture: FixtureProvisioner;
  readonly sim: MaasSim | null;
  stop(): Promise<void>;
}

let counter = 0;

export async function startKubeNode(api: KubeApiServer, o: {
  fixture?: FixtureOptions;
  machine?: Partial<MachineConfig>;
  maas?: boolean;
  adapter?: Partial<KubeAdapterOptions>;
  log?: Logger;
} = {}): Promise<KubeTestNode> {
  const log = o.log ?? silentLogger;
  const fixture = createFixtureProvisioner({ demoBehaviours: false, ...o.fixture });
  const adapter = createKubeAdapter({ kubeConfig: api.kubeConfig(), log, maas: o.maas ?? false, nodeName: `kube-test-${++counter}`, ...o.adapter });
  const sim = o.maas ? await startMaasSim({ deployMs: 50, releaseMs: 50 }) : null;
  const client = sim ? createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey }) : null;
  const node = await startLocalNode({
    name: `kube-node-${counter}`,
    shardCount: 16,
    machine: { ...DEFAULT_MACHINE_CONFIG, ...o.machine },
    capacity: { limits: {}, defaultLimit: Number.POSITIVE_INFINITY, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 5_000,
  }, { kube: adapter }, {
    provisioner: fixture,
    ...(client && adapter.maas ? {
      maas: { driver: createMaasDriver(client), clusterResyncMs: 200, config: { deployingPollMs: 30, steadyPollMs: 100, powerOnRequeueMs: 100, backoffBaseMs: 50, backoffMaxMs: 500 } },
    } : {}),
  }, { log });
  return {
    node, adapter, fixture, sim,
    async stop() {
      await node.stop();
      client?.close();
      await sim?.stop();
    },
  };
}

/** The documents of a fixture file, created on the server in order. */
export async function applyFile(api: KubeApiServer, file: string): Promise<KubeObject[]> {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(fileURLToPath(new URL(`../fixtures/${file}`, import.meta.url)), 'utf8');
  return parseAllDocuments(text).map((d) => d.toJSON() as KubeObject).filter((o) => o !== null).map((o) => api.create(o));
}

export function ensureNamespace(api: KubeApiServer, name: string): void {
  if (!api.get({ resource: 'namespaces', name })) api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

type HostStatus = { provisioning?: { state?: string }; errorType?: string; errorMessage?: string; operationalStatus?: string; poweredOn?: boolean };

export function hostStatus(api: KubeApiServer, key: string): HostStatus | undefined {
  const [namespace, name] = key.split('/') as [string, string];
  return (api.get({ resource: 'baremetalhosts', namespace, name }) as { status?: HostStatus } | undefined)?.status;
}

export function stateOf(api: KubeApiServer, key: string): string | undefined {
  return hostStatus(api, key)?.provisioning?.state;
}

/** Creates the objects in order, filling owner references' uids as clusterctl would (the API server wants them). */
export function createWithOwners(api: KubeApiServer, objects: unknown[]): void {
  const uids = new Map<string, string>();
  for (const raw of objects as KubeObject[]) {
    const meta = raw.metadata as { ownerReferences?: Array<{ kind: string; name: string; uid?: string }> };
    if (meta.ownerReferences) meta.ownerReferences = meta.ownerReferences.map((r) => ({ ...r, uid: uids.get(`${r.kind}/${r.name}`) ?? '00000000-0000-0000-0000-000000000000' }));
    const created = api.create(raw);
    uids.set(`${String(created.kind)}/${String(created.metadata?.name)}`, String((created.metadata as { uid?: string }).uid));
  }
}
