// `metalfleet node` processes on three nats-servers with R3 buckets (--replicas 3), as deploy/
// runs them: a fleet that keeps provisioning through the loss of one server, and /readyz that
// says so when JetStream has lost its quorum. The servers are 2.9.10 (see nats-cluster-cas-race
// for why production must not be).
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { findOverlaps, toIntervals } from '../../src/cluster/index.ts';
import { LEASE_BUCKET } from '../../src/node/index.ts';
import type { Cluster } from '../support/cluster.ts';
import { withCluster } from '../support/cluster.ts';
import type { NatsCluster } from '../support/nats-cluster.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';

const cluster = natsServerInstalled() ? test.serial : test.skip;

// Slow enough that the kill lands mid-run: 30 hosts at 3 at once take over 10 s of deploys.
const SLOW_PROVISION = { latencyMs: { register: 5, prepare: 5, provision: 1_000, hardwareState: 5, powerOn: 5, powerOff: 5 }, demoBehaviours: false };
const LEASE_STREAM = `KV_${LEASE_BUCKET}`;

async function provisioned(c: Cluster<NatsCluster>, keys: readonly string[]): Promise<number> {
  let n = 0;
  for (const state of (await c.statesOf(keys)).values()) if (state === 'provisioned') n += 1;
  return n;
}

function untilProvisioned(c: Cluster<NatsCluster>, keys: readonly string[], atLeast: number, timeoutMs: number): Promise<void> {
  // A read may fail while a stream elects a leader: that is "not yet", not a failed test.
  return waitUntil(() => provisioned(c, keys).then((n) => n >= atLeast, () => false), timeoutMs, `${atLeast} of ${keys.length} hosts provisioned`, 200);
}

async function readyz(url: string | null): Promise<{ status: number; body: string }> {
  if (!url) throw new Error('the node has no health port');
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, body: await res.text() };
  } catch (err) {
    return { status: 0, body: String(err) };
  }
}

/** What the shared backend saw: one deployment begun and completed per host, nothing twice. */
function assertExactlyOnce(t: ExecutionContext, c: Cluster<NatsCluster>, keys: readonly string[]): void {
  const fixture = c.fixture.fixture;
  const twice = keys.filter((k) => fixture.starts(k).provision !== 1 || fixture.node(k)?.provisionCount !== 1);
  t.deepEqual(twice.slice(0, 5), [], `${twice.length} hosts were not deployed exactly once`);
  t.is(fixture.duplicateStarts(), 0);
}

cluster('nats cluster - 2 nodes provision 30 hosts on R3 buckets while the lease bucket\'s NATS server is killed -9: every host once, the limit held, no two owners', async (t) => {
  const limit = 3;
  await withCluster(t, { nats: 'cluster', shards: 16, limit, leaseTtlMs: 5_000, fixture: SLOW_PROVISION }, async (c) => {
    const keys = await c.applyHosts(30);
    await Promise.all(['a', 'b'].map((n) => c.startNode(n)));
    // The nodes made their buckets at R3: each server keeps a copy of the lease bucket.
    for (let i = 0; i < 3; i++) t.truthy(await c.nats.streamCopy(i, LEASE_STREAM), `${c.nats.servers[i]!.name} has a copy of ${LEASE_STREAM}`);
    await untilProvisioned(c, keys, 3, 90_000);

    const leader = (await c.nats.streamCopy(0, LEASE_STREAM))?.leader ?? c.nats.servers[0]!.name;
    const killed = c.nats.servers.findIndex((s) => s.name === leader);
    const before = await provisioned(c, keys);
    const killedAt = performance.timeOrigin + performance.now();
    await c.nats.servers[killed]!.kill();
    t.true(before < keys.length, `the kill landed mid-run (${before} of ${keys.length} provisioned)`);
    await untilProvisioned(c, keys, keys.length, 120_000);

    const lost = (await c.ownership()).filter((r) => r.kind === 'lost' && r.at >= killedAt).length;
    t.log(`killed ${leader} (leader of ${LEASE_STREAM}) with ${before}/${keys.length} provisioned; shard leases lost afterwards: ${lost}`);
    for (const n of c.nodes.values()) t.is(n.child.exitCode, null, `${n.name} still runs`);
    assertExactlyOnce(t, c, keys);
    t.true(c.fixture.fixture.maxBusy <= limit, `backend had ${c.fixture.fixture.maxBusy} deployments at once, limit ${limit}`);
    t.deepEqual(findOverlaps(toIntervals(await c.ownership())).slice(0, 3), [], 'two nodes owned one shard at one instant');
  }, 150_000);
});

cluster('nats cluster - /readyz says not ready, naming NATS JetStream, while two of three servers are down, and ready once they are back', async (t) => {
  await withCluster(t, { nats: 'cluster', shards: 8 }, async (c) => {
    const node = await c.startNode('a');
    await waitUntil(async () => (await readyz(node.health)).status === 200, 60_000, 'the node ready', 200);

    await Promise.all([c.nats.servers[0]!.stop(), c.nats.servers[1]!.stop()]);
    let unready = { status: 0, body: '' };
    // First perhaps "disconnected" (its server was stopped), then reconnected to the one left.
    await waitUntil(async () => {
      unready = await readyz(node.health);
      return unready.status === 503 && unready.body.includes('JetStream');
    }, 30_000, '/readyz naming JetStream', 200);
    t.regex(unready.body, /^not ready: NATS JetStream /);
    t.log(unready.body.trim());

    await Promise.all([c.nats.servers[0]!.start(), c.nats.servers[1]!.start()]);
    await c.nats.waitForMetaLeader(30_000);
    await waitUntil(async () => (await readyz(node.health)).status === 200, 60_000, 'the node ready again', 200);
    t.is(node.child.exitCode, null, 'the node rode it out');
  }, 150_000);
});
