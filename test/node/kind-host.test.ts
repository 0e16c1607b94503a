// One kind host (issue 29.2): a BareMetalHost and a MaasMachine run side by side in the same
// shards and get the same treatment from the node: supervision that gives up and marks the
// object, a drain on hand-off that waits for each kind's call in flight, and one seed listing
// of the store per batch of shards acquired.
import test from 'ava';
import { openLocalStoreWithMaas } from '../support/maas-node.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { createMaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import type { KvStore, LocalStore } from '../../src/adapters/store/index.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { shardOf } from '../../src/api/index.ts';
import type { Fence, MaasDriver, ObjectKind, Provisioner, ResourceKind, ResourceListOptions, ResourceStore } from '../../src/ports/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { LocalNode } from '../support/local-node.ts';
import { startLocalNode } from '../support/local-node.ts';
import { bmh, secret } from '../support/node.ts';
import { deferred, waitFor, waitUntil } from '../support/wait.ts';
import { proxied } from '../support/proxied.ts';

type MaasStatus = { ready?: boolean; failureReason?: string; failureMessage?: string; conditions?: Array<{ type: string; status: string; reason?: string }> };

interface Counting {
  /** The node's store.list() calls: BareMetalHost's, and the other kinds' per kind. */
  readonly hostLists: { n: number };
  readonly objectLists: Map<ObjectKind, number>;
}

interface Both {
  node: LocalNode;
  hosts: LocalStore;
  objects: KvStore;
  counting: Counting;
  stop(): Promise<void>;
}

let n = 0;

async function startBoth(o: {
  provisioner?: (p: Provisioner) => Provisioner;
  driver?: (d: MaasDriver) => MaasDriver;
  /** Overrides of the node's one store. */
  store?: (s: ResourceStore) => Partial<Record<keyof ResourceStore, unknown>>;
  /** Applied before the node starts: what its shards find by their seed listing. */
  before?: readonly unknown[];
  /** A lease the node drives under besides the shards' (as the Kubernetes leader Lease). */
  nodeLeaseHeld?: () => boolean;
} = {}): Promise<Both> {
  const sim = await startMaasSim({ deployMs: 50, releaseMs: 50 });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  const substrate = memorySubstrate();
  const hosts = await openLocalStoreWithMaas(substrate.transport);
  const objects = hosts.objects;
  if (o.before) {
    const applied = await hosts.applyObjects(o.before);
    if (!applied.ok) throw new Error(`startBoth: ${JSON.stringify(applied.issues)}`);
  }
  const counting: Counting = { hostLists: { n: 0 }, objectLists: new Map() };
  const one = hosts.resources;
  const counted = proxied<ResourceStore>(one, {
    list: (kind: ResourceKind) => {
      if (kind === 'BareMetalHost') counting.hostLists.n++;
      else counting.objectLists.set(kind, (counting.objectLists.get(kind) ?? 0) + 1);
      return one.list(kind);
    },
    ...o.store?.(one),
  });
  const fixture = createFixtureProvisioner({ demoBehaviours: false });
  const driver = createMaasDriver(client);
  const node = await startLocalNode({
    name: `kind-host-${++n}`, shardCount: 8, machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: 50, ttlMs: 30_000 },
    supervision: { maxRestarts: 2, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } }, askTimeoutMs: 5_000,
    cluster: { drainTimeoutMs: 10_000 },
  }, { store: counted, secrets: hosts.secrets }, {
    provisioner: o.provisioner ? o.provisioner(fixture) : fixture,
    maas: { driver: o.driver ? o.driver(driver) : driver, clusterResyncMs: 200, config: { deployingPollMs: 30, steadyPollMs: 100, powerOnRequeueMs: 100, backoffBaseMs: 50, backoffMaxMs: 500 } },
  }, o.nodeLeaseHeld ? { gate: { waitingFor: 'the leader lease', open: Promise.resolve(), held: o.nodeLeaseHeld } } : {}, substrate);
  return {
    node, hosts, objects, counting,
    async stop() {
      await node.stop();
      await objects.close();
      client.close();
      await sim.stop();
    },
  };
}

const actorPaths = (node: LocalNode, part: string): string[] => node.system.registry.list().map((a) => a.path).filter((p) => p.includes(part));
const maasStatus = async (store: KvStore, key: string): Promise<MaasStatus | undefined> => (await store.get('MaasMachine', key))?.status as MaasStatus | undefined;

test('kind host - a crashing BareMetalHost and a crashing MaasMachine are each given up, marked on their object and forgotten; neighbours carry on', async (t) => {
  const it = await startBoth({
    provisioner: (fixture) => proxied(fixture, {
      capacity: (host: Parameters<Provisioner['capacity']>[0]) => {
        if (host.name === 'crashy') throw new Error('capacity table corrupt for crashy');
        return fixture.capacity(host);
      },
    }),
    // The MaasMachine kh-worker-1 reads its bootstrap Secret on every wake-up: reading it fails.
    store: (store) => ({
      getSecret: (namespace: string, name: string) => {
        if (name === 'kh-worker-1-bootstrap') throw new Error('secret index corrupt for kh-worker-1');
        return store.getSecret(namespace, name);
      },
    }),
  });
  try {
    t.true((await it.hosts.applyObjects([secret(), bmh('crashy'), bmh('steady'), ...generateMaasCluster({ cluster: 'kh', controlPlane: 0, workers: 2 })])).ok);
    await waitUntil(async () => (await it.hosts.get('lab/crashy'))?.status?.operationalStatus === 'error', 10_000, 'the host marked');
    await waitUntil(async () => (await maasStatus(it.objects, 'capi/kh-worker-1'))?.failureReason === 'ActorCrashed', 10_000, 'the MaasMachine marked');

    t.regex((await it.hosts.get('lab/crashy'))?.status?.errorMessage ?? '', /^host actor crashed \d+ times, last: capacity table corrupt for crashy/);
    const marked = await maasStatus(it.objects, 'capi/kh-worker-1');
    t.regex(marked?.failureMessage ?? '', /^MaasMachine actor crashed \d+ times, last: secret index corrupt for kh-worker-1; metalfleet stopped driving it/);
    t.like(marked?.conditions?.find((c) => c.type === 'Ready'), { status: 'False', reason: 'ActorCrashed' });
    // Forgotten by its shard: no actor left, and the node no longer finds one to ask.
    await waitFor(() => actorPaths(it.node, 'crashy').length === 0 && actorPaths(it.node, 'kh-worker-1').length === 0, 5_000, 'both actors gone');
    t.is(await it.node.maas?.machineState('capi/kh-worker-1', 2_000), null);
    t.is(await it.node.snapshot('lab/crashy'), null);

    // The neighbours of each kind, in the same shards, carry on to the end.
    await waitUntil(async () => (await it.hosts.get('lab/steady'))?.status?.provisioning.state === 'provisioned', 10_000, 'neighbour host provisioned');
    await waitUntil(async () => (await maasStatus(it.objects, 'capi/kh-worker-0'))?.ready === true, 20_000, 'neighbour MaasMachine ready');
    t.truthy(await it.node.maas?.machineState('capi/kh-worker-0', 2_000));
  } finally {
    await it.stop();
  }
});

test('kind host - a hand-off drains the actors of both kinds: it waits for each one\'s call in flight, then their shards are seeded again by one listing', async (t) => {
  const hostGate = deferred();
  const maasGate = deferred();
  const entered = { host: 0, maas: 0 };
  const returned = { host: 0, maas: 0 };
  const it = await startBoth({
    provisioner: (fixture) => proxied(fixture, {
      register: async (...args: Parameters<Provisioner['register']>) => {
        if (args[0].name === 'slow') {
          entered.host++;
          await hostGate.promise;
          returned.host++;
        }
        return fixture.register(...args);
      },
    }),
    driver: (driver) => proxied(driver, {
      run: async (...args: Parameters<MaasDriver['run']>) => {
        if (args[0].op === 'allocate') {
          entered.maas++;
          await maasGate.promise;
          returned.maas++;
        }
        return driver.run(...args);
      },
    }),
  });
  try {
    t.true((await it.hosts.applyObjects([secret(), bmh('slow'), ...generateMaasCluster({ cluster: 'kd', controlPlane: 0, workers: 1 })])).ok);
    await waitFor(() => entered.host === 1 && entered.maas === 1, 10_000, 'a call of each kind in flight');

    const owned = [...it.node.shards.owned()];
    let handedOff = false;
    const handOff = Promise.all(owned.map(([shard]) => it.node.shards.ownership.release(shard))).then(() => {
      handedOff = true;
    });
    // A stopped actor would let the hand-off end at once; a drained one waits for its call.
    await new Promise((resolve) => setTimeout(resolve, 100));
    t.false(handedOff, 'the hand-off waits for the host\'s register and the MaasMachine\'s allocate');
    hostGate.resolve();
    await waitFor(() => returned.host === 1, 5_000, 'the register returned');
    await new Promise((resolve) => setTimeout(resolve, 100));
    t.false(handedOff, 'the hand-off still waits for the MaasMachine\'s allocate');
    maasGate.resolve();
    await handOff;
    t.deepEqual(returned, { host: 1, maas: 1 });
    // Draining, neither started a call after its answer; handed off, neither runs.
    t.deepEqual(entered, { host: 1, maas: 1 });
    t.deepEqual(actorPaths(it.node, 'slow'), []);
    t.deepEqual(actorPaths(it.node, 'mm-capi~kd-worker-0'), []);
    t.is(it.node.shards.owned().size, 0);

    // Won back all at once: one listing of the hosts and one per MAAS kind serve every shard.
    const hostLists = it.counting.hostLists.n;
    const maasLists = it.counting.objectLists.get('MaasMachine') ?? 0;
    for (const [shard, fence] of owned) it.node.shards.ownership.acquired(shard, { ...fence, epoch: fence.epoch + 1 } satisfies Fence);
    await waitFor(() => actorPaths(it.node, 'slow').length === 1 && actorPaths(it.node, 'mm-capi~kd-worker-0').length === 1, 5_000, 'both actors back');
    t.is(it.counting.hostLists.n, hostLists + 1);
    t.is(it.counting.objectLists.get('MaasMachine'), maasLists + 1);
    await waitUntil(async () => (await it.hosts.get('lab/slow'))?.status?.provisioning.state === 'provisioned', 10_000, 'the host finished under its new epoch');
    await waitUntil(async () => (await maasStatus(it.objects, 'capi/kd-worker-0'))?.ready === true, 20_000, 'the MaasMachine finished under its new epoch');
  } finally {
    await it.stop();
  }
});

test('kind host - shards acquired together at start seed a BareMetalHost and a MaasMachine from one listing of each store', async (t) => {
  const it = await startBoth({ before: [secret(), bmh('early'), ...generateMaasCluster({ cluster: 'ks', controlPlane: 0, workers: 1 })] });
  try {
    await waitFor(() => actorPaths(it.node, 'lab~early').length === 1 && actorPaths(it.node, 'mm-capi~ks-worker-0').length === 1 && actorPaths(it.node, 'mc-capi~ks').length === 1, 5_000, 'actors of each kind seeded');
    t.is(it.node.shards.owned().size, 8);
    t.is(it.counting.hostLists.n, 1, 'one host listing for 8 shards');
    // The host binding lists the companions that wake hosts once too, for the dependents index.
    t.deepEqual(Object.fromEntries(it.counting.objectLists), { MaasCluster: 1, MaasMachine: 1, Machine: 1, Cluster: 1, HostFirmwareSettings: 1, HostFirmwareComponents: 1, HostUpdatePolicy: 1 });
    await waitUntil(async () => (await it.hosts.get('lab/early'))?.status?.provisioning.state === 'provisioned', 10_000, 'seeded host provisioned');
    await waitUntil(async () => (await maasStatus(it.objects, 'capi/ks-worker-0'))?.ready === true, 20_000, 'seeded MaasMachine ready');
  } finally {
    await it.stop();
  }
});

test('kind host - a shard won back alone is seeded from a listing of its own hosts, not of the whole fleet', async (t) => {
  // What each BareMetalHost listing returned: a node taking its shards one lease at a time (a
  // starting node of a cluster) decoded every host of the fleet once per shard before.
  const listed: string[][] = [];
  const it = await startBoth({
    store: (one) => ({
      list: async (kind: ResourceKind, options?: ResourceListOptions) => {
        const found = await one.list(kind, options);
        if (kind === 'BareMetalHost') listed.push(found.map((h) => h.metadata.name).sort());
        return found;
      },
    }),
  });
  try {
    const names = Array.from({ length: 24 }, (_, i) => `fleet-${String(i).padStart(2, '0')}`);
    t.true((await it.hosts.applyObjects([secret(), ...names.map((name) => bmh(name, { online: false }))])).ok);
    await waitFor(() => names.every((name) => actorPaths(it.node, `lab~${name}`).length === 1), 10_000, 'every host has its actor');
    const shard = shardOf('lab/fleet-00', 8);
    const fence = it.node.shards.owned().get(shard)!;
    await it.node.shards.ownership.release(shard);
    const before = listed.length;
    it.node.shards.ownership.acquired(shard, { ...fence, epoch: fence.epoch + 1 } satisfies Fence);
    await waitFor(() => actorPaths(it.node, 'lab~fleet-00').length === 1 && listed.length > before, 5_000, 'the shard seeded again');
    const mine = names.filter((name) => shardOf(`lab/${name}`, 8) === shard).sort();
    t.true(mine.length < names.length, 'the fleet spans more than this shard');
    t.deepEqual(listed.at(-1), mine, 'the listing held the shard\'s hosts only');
  } finally {
    await it.stop();
  }
});

test('kind host - the node\'s own lease (the leader Lease) guards every kind\'s backend calls the way a shard\'s lease does', async (t) => {
  let leaderHeld = false;
  const asked = { n: 0 };
  const called = { register: 0, maasRun: 0, createDns: 0, findDns: 0 };
  const it = await startBoth({
    nodeLeaseHeld: () => {
      asked.n++;
      return leaderHeld;
    },
    provisioner: (fixture) => proxied(fixture, {
      register: (...a: Parameters<Provisioner['register']>) => {
        called.register++;
        return fixture.register(...a);
      },
    }),
    driver: (d) => ({
      ...d,
      run: (...a: Parameters<MaasDriver['run']>) => {
        called.maasRun++;
        return d.run(...a);
      },
      findDns: (...a: Parameters<MaasDriver['findDns']>) => {
        called.findDns++;
        return d.findDns(...a);
      },
      createDns: (...a: Parameters<MaasDriver['createDns']>) => {
        called.createDns++;
        return d.createDns(...a);
      },
    }),
  });
  try {
    t.true((await it.hosts.applyObjects([secret(), bmh('guarded'), ...generateMaasCluster({ cluster: 'kg', controlPlane: 0, workers: 1 })])).ok);
    // Each kind reaches its first change and is turned back, and tries again: the host is
    // registering, the MaasCluster has looked its DNS record up (a read, which the guard lets
    // through) twice, so it was refused the create in between.
    await waitUntil(async () => called.findDns >= 2 && asked.n >= 4 && (await it.hosts.get('lab/guarded'))?.status?.provisioning.state === 'registering', 10_000, 'both kinds at their first change');
    t.deepEqual({ register: called.register, maasRun: called.maasRun, createDns: called.createDns }, { register: 0, maasRun: 0, createDns: 0 }, 'no change left for either backend without the lease');

    leaderHeld = true;
    await waitUntil(async () => (await it.hosts.get('lab/guarded'))?.status?.provisioning.state === 'provisioned', 20_000, 'host provisioned once held');
    await waitUntil(async () => (await maasStatus(it.objects, 'capi/kg-worker-0'))?.ready === true, 30_000, 'MaasMachine ready once held');
    t.true(called.register > 0 && called.createDns > 0 && called.maasRun > 0);
  } finally {
    await it.stop();
  }
});
