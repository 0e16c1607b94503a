// A node paused past its lease (SIGSTOP) must not call the backend for a host after another node
// took that host's shard, even in the instant it resumes: its I/O callbacks (answers that came in
// during the pause) run before the timer that declares the lease lost, so each call asks the
// lease right before it leaves (issue 19.2).
import test from 'ava';
import type { Cluster } from '../support/cluster.ts';
import { withCluster } from '../support/cluster.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';

const cluster = natsServerInstalled() ? test.serial : test.skip;
const LEASE_MS = 3_000;
// Calls in flight at any moment: a pause lands in the middle of many of them.
const FIXTURE = { latencyMs: { register: 150, inspect: 150, prepare: 150, provision: 400, hardwareState: 50, powerOn: 50, powerOff: 50 }, demoBehaviours: false };

async function provisioned(c: Cluster, keys: readonly string[]): Promise<number> {
  let n = 0;
  for (const state of (await c.statesOf(keys)).values()) if (state === 'provisioned') n += 1;
  return n;
}

// Below the lease (0.5x, 1x) b may or may not take a's shards, depending on how long before the
// pause a last renewed; whatever it took, a must not touch under its old lease after the taking.
// Back from a short pause, a is still a member and may win a shard back by rendezvous: b hands it
// off and a acquires it again at a later epoch, and its calls under that lease are its own.
for (const factor of [0.5, 1, 1.5, 3]) {
  cluster(`pause ${factor}x the lease: the paused node calls the backend for none of its hosts once another node owns them`, async (t) => {
    await withCluster(t, { shards: 16, limit: 0, leaseTtlMs: LEASE_MS, fixture: FIXTURE }, async (c) => {
      const keys = await c.applyHosts(80);
      await c.startNode('a');
      await c.startNode('b');
      await waitUntil(async () => (await provisioned(c, keys)) >= 10, 120_000, '10 hosts provisioned', 200);
      const a = c.nodes.get('a');
      if (!a?.child.pid) throw new Error('node a has no process');
      const ownedByA = async (): Promise<Set<number>> => {
        const open = new Map<number, string>();
        for (const r of await c.ownership()) open.set(r.shard, r.kind === 'acquired' ? r.node : '');
        return new Set([...open].filter(([, node]) => node === 'a').map(([shard]) => shard));
      };
      const held = await ownedByA();
      t.true(held.size > 0, 'a owned shards when it was paused');
      const pausedAt = Date.now();
      a.child.kill('SIGSTOP');
      try {
        // Past the lease, b takes every shard a held; then a stays paused until factor x the lease has passed.
        if (factor > 1) {
          await waitUntil(async () => {
            const records = await c.ownership();
            return [...held].every((shard) => records.some((r) => r.kind === 'acquired' && r.node === 'b' && r.shard === shard && r.at >= pausedAt));
          }, 60_000, 'b to own the shards of the paused node', 100);
        }
        await waitUntil(() => Date.now() - pausedAt >= factor * LEASE_MS, 60_000, 'the pause to last', 50);
      } finally {
        a.child.kill('SIGCONT');
      }
      await waitUntil(async () => (await provisioned(c, keys)) === keys.length, 180_000, 'every host provisioned', 200);

      // Each shard's hand-over instant: b's acquisition after the pause began.
      const records = await c.ownership();
      const takenAt = new Map<number, number>();
      const takenEpoch = new Map<number, number>();
      for (const shard of held) {
        const r = records.find((x) => x.kind === 'acquired' && x.node === 'b' && x.shard === shard && x.at >= pausedAt);
        if (r?.kind === 'acquired') {
          takenAt.set(shard, r.at);
          takenEpoch.set(shard, r.epoch);
        }
      }
      const stale = c.fixture.fixture.callLog().filter((call) => call.holder === 'a' && call.shard !== null && takenAt.has(call.shard)
        && call.at >= (takenAt.get(call.shard) ?? Infinity) && (call.epoch ?? 0) < (takenEpoch.get(call.shard) ?? 0));
      t.deepEqual(stale.map((s) => `${s.op} ${s.host} shard ${String(s.shard)} +${s.at - (takenAt.get(s.shard ?? -1) ?? 0)} ms`), [], 'calls of the paused node after its shard was taken');
      t.is(c.fixture.fixture.duplicateStarts(), 0);
    });
  });
}
