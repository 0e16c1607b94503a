// Issue 30 on a real nats-server: the lease bucket hands the node an epoch below one the store and
// the backend have already seen (as a 2.9.10 replica that diverged after its leader was wiped
// did, 17 epochs below), so every fenced write of that tenure is refused as stale. The node must
// give the shard up and take it again above the refusing epoch, and then serve every host once.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import type { FixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import { loadSecretFiles } from '../../src/adapters/store/nats-secrets.ts';
import { shardOf } from '../../src/api/index.ts';
import type { BareMetalHostSpec } from '../../src/api/index.ts';
import { connectNats } from '../../src/bus/nats-transport.ts';
import { openNodeKvStore } from '../../src/cli/node-store.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { sharedSubstrate } from '../../src/node/index.ts';
import type { Fence, HostData } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import type { LocalNode } from '../support/local-node.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { bmh } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NODE = 'fence-node';
const SHARDS = 4;
// Far above any revision a fresh lease bucket gives in this test: what the diverged replica's
// predecessor had handed out before it was wiped.
const STORE_EPOCH = 1_000_000;
const BACKEND_EPOCH = 2_000_000;
// Over 4 shards: h-2 in 0, h-1 and h-5 in 1, h-0 and h-4 in 2, h-3 in 3.
const HOSTS = ['h-0', 'h-1', 'h-2', 'h-3', 'h-4', 'h-5'];
const keyOf = (name: string): string => `lab/${name}`;

interface World {
  node: LocalNode;
  fixture: FixtureProvisioner;
}

async function world(t: ExecutionContext): Promise<World> {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const dir = await mkdtemp(join(tmpdir(), 'mf-stale-fence-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'secrets.yaml'), 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: bmc\n  namespace: lab\nstringData:\n  username: admin\n  password: fence-pw\n');
  const secrets = await loadSecretFiles([join(dir, 'secrets.yaml')]);

  // The hosts, and the later tenure the records have seen, written before the node starts.
  const adminTransport = await connectNats({ servers: server.url, name: 'fence-admin' });
  t.teardown(() => adminTransport.close());
  const admin = await openNatsStoreOn(adminTransport);
  t.teardown(() => admin.close());
  t.true((await admin.apply(HOSTS.map((h) => bmh(h)))).ok);
  const ghost = (name: string, epoch: number): Fence => ({ shard: shardOf(keyOf(name), SHARDS), epoch, holder: 'ghost-of-a-wiped-leader' });
  // The store has seen a later tenure of h-0's and h-1's shards (an annotation write records it).
  for (const h of ['h-0', 'h-1']) await admin.resources.patchAnnotations('BareMetalHost', keyOf(h), { 'test.metalfleet.io/ghost': 'x' }, ghost(h, STORE_EPOCH));
  // The backend's owner record has seen a later tenure of h-2's, h-3's and h-4's shards (h-4 shares
  // h-0's shard: one retake above the store's epoch is still refused there, so it must go higher).
  const fixture = createFixtureProvisioner({ demoBehaviours: false, latencyMs: 5 });
  for (const h of ['h-2', 'h-3', 'h-4']) {
    const host = { key: keyOf(h), namespace: 'lab', name: h, uid: '', provisionerId: '', spec: {} as BareMetalHostSpec, credentials: null, fence: ghost(h, BACKEND_EPOCH) } satisfies HostData;
    await fixture.hardwareState(host, { op: 'hardwareState' });
  }
  fixture.resetCounters();

  const transport = await connectNats({ servers: server.url, name: NODE });
  const kv = await openNodeKvStore(transport, { secrets, log: silentLogger, replicas: 1, maas: false });
  const node = await startLocalNode({
    name: NODE,
    shardCount: SHARDS,
    machine: { ...DEFAULT_MACHINE_CONFIG },
    capacity: { limits: {}, defaultLimit: Number.POSITIVE_INFINITY, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
    security: { allowUnsigned: true },
    healthPort: 0,
  }, kv.stores, { provisioner: fixture }, { log: silentLogger }, sharedSubstrate(transport));
  t.teardown(async () => {
    await node.stop({ graceful: false });
    await kv.close();
  });
  return { node, fixture };
}

test('stale fence - a tenure below the epoch the store and backend saw is given up and retaken above; every host is served once', async (t) => {
  t.timeout(90_000);
  const { node, fixture } = await world(t);
  const keys = HOSTS.map(keyOf);
  const provisioned = (): string[] => keys.filter((k) => node.stats.hosts.get(k)?.state === 'provisioned');
  await waitUntil(() => provisioned().length === keys.length, 45_000, `every host provisioned (have ${provisioned().join(', ')})`, 100);

  // Each host deployed once, by a tenure above the epoch that had refused the first one.
  for (const k of keys) t.is(fixture.starts(k).provision, 1, `${k} deployed once`);
  t.deepEqual(fixture.deployedTwice(), []);
  const owned = node.shards.owned();
  for (const h of ['h-0', 'h-1']) t.true(owned.get(shardOf(keyOf(h), SHARDS))!.epoch > STORE_EPOCH, `${h}'s shard retaken above the store's epoch`);
  for (const h of ['h-2', 'h-3', 'h-4']) t.true(owned.get(shardOf(keyOf(h), SHARDS))!.epoch > BACKEND_EPOCH, `${h}'s shard retaken above the backend's epoch`);

  // What `metalfleet shards` shows: the refusals and the give-up, with both epochs.
  const rows = await node.introspection.shards();
  const retaken = rows.filter((r) => (r.fenceRetakes ?? 0) > 0);
  t.true(retaken.length >= 1);
  for (const r of retaken) {
    t.truthy(r.lastRetake);
    t.true(r.lastRetake!.lostTo >= STORE_EPOCH);
    t.true(r.lastRetake!.epoch < r.lastRetake!.lostTo);
    t.true(r.epoch > r.lastRetake!.lostTo);
  }
  // The metric, on the node's /metrics.
  const metrics = await node.health!.registry.metrics();
  t.regex(metrics, /metalfleet_shard_fence_refused_total\{[^}]*by="store"[^}]*\} [1-9]/);
  t.regex(metrics, /metalfleet_shard_fence_refused_total\{[^}]*by="backend"[^}]*\} [1-9]/);
  t.regex(metrics, /metalfleet_shard_fence_retakes_total\{[^}]*\} [1-9]/);
});
