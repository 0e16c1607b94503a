// SIGTERM to a node whose NATS server is gone: nothing can be handed off over a dead bus, so the
// node stops its actors and exits within a few seconds, saying why it skipped the hand-off. It
// went through the whole graceful hand-off instead (membership delete, lease releases, service
// drains, each waiting out its own timeout) and exited after about 18 s, near Kubernetes' 30 s
// grace period.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Cluster, NodeProcess } from '../support/cluster.ts';
import { withCluster } from '../support/cluster.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';

const withNats = natsServerInstalled() ? test : test.skip;

// Well below the old 18 s, with room for a loaded 2-core machine.
const PROMPT_EXIT_MS = 8_000;

const ready = (health: string): Promise<boolean> => fetch(`${health}/readyz`).then((r) => r.status === 200, () => false);

type Node = NodeProcess;

// Node a, ready, holding 8 hosts.
async function readyNode(c: Cluster): Promise<Node> {
  await c.applyHosts(8);
  const a = await c.startNode('a', ['--log-level', 'info']);
  const health = a.health;
  if (!health) throw new Error('node a serves no health port');
  await waitUntil(() => ready(health), 30_000, 'a is ready');
  return a;
}

// SIGTERM while backend calls (3 s each) are in flight: a is then draining its shards' actors.
async function handingOff(c: Cluster, a: Node): Promise<void> {
  await waitUntil(() => c.fixture.fixture.callsInFlight().all > 0, 30_000, 'a has backend calls in flight');
  a.child.kill('SIGTERM');
  await waitUntil(() => /shard handoff: draining/.test(a.stderr()), 10_000, 'a hands its shards off');
}

// After `cause` (said as `after`), a exits cleanly within PROMPT_EXIT_MS, logging `how` and its stop.
async function exitsPromptly(t: ExecutionContext, a: Node, after: string, cause: () => unknown, how: RegExp): Promise<void> {
  const started = performance.now();
  await cause();
  const end = await a.exited;
  const tookMs = performance.now() - started;

  t.deepEqual(end, { code: 0, signal: null }, a.stderr().slice(-3_000));
  t.true(tookMs < PROMPT_EXIT_MS, `exited ${Math.round(tookMs)} ms after ${after}:\n${a.stderr().slice(-3_000)}`);
  t.regex(a.stderr(), how);
  t.regex(a.stderr(), /"msg":"node stopped"/);
}

const slowCalls = { shards: 8, leaseTtlMs: 3_000, fixture: { latencyMs: 3_000, demoBehaviours: false } };

withNats('node stop - SIGTERM with NATS gone exits promptly, logging that the hand-off was skipped', async (t) => {
  await withCluster(t, { shards: 8, leaseTtlMs: 3_000 }, async (c) => {
    const a = await readyNode(c);
    await c.nats.kill();
    await waitUntil(() => /NATS connection lost/.test(a.stderr()), 10_000, 'a notices that NATS is gone');
    await exitsPromptly(t, a, 'SIGTERM', () => a.child.kill('SIGTERM'), /hand-off skipped: NATS is unreachable/);
  });
});

withNats('node stop - NATS dying during the hand-off cuts it short: the node exits promptly, saying so', async (t) => {
  // Backend calls of 3 s keep the hand-off draining the shards' actors for seconds.
  await withCluster(t, slowCalls, async (c) => {
    const a = await readyNode(c);
    await handingOff(c, a);
    await exitsPromptly(t, a, 'NATS died', () => c.nats.kill(), /hand-off cut short: NATS is unreachable/);
  });
});

withNats('node stop - SIGTERM with NATS stalled (its socket open, nothing answered) exits promptly, saying the server did not answer', async (t) => {
  await withCluster(t, { shards: 8, leaseTtlMs: 3_000 }, async (c) => {
    const a = await readyNode(c);
    await c.nats.pause();
    try {
      await exitsPromptly(t, a, 'SIGTERM', () => a.child.kill('SIGTERM'), /hand-off skipped: NATS did not answer a ping/);
    } finally {
      c.nats.resume();
    }
  });
});

withNats('node stop - NATS stalling during the hand-off cuts it short: the node exits promptly, saying the server did not answer', async (t) => {
  await withCluster(t, slowCalls, async (c) => {
    const a = await readyNode(c);
    await handingOff(c, a);
    await c.nats.pause();
    try {
      await exitsPromptly(t, a, 'NATS stalled', () => undefined, /hand-off cut short: NATS did not answer a ping/);
    } finally {
      c.nats.resume();
    }
  });
});
