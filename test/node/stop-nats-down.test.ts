// SIGTERM to a node whose NATS server is gone: nothing can be handed off over a dead bus, so the
// node stops its actors and exits within a few seconds, saying why it skipped the hand-off. It
// went through the whole graceful hand-off instead (membership delete, lease releases, service
// drains, each waiting out its own timeout) and exited after about 18 s, near Kubernetes' 30 s
// grace period.
import test from 'ava';
import { withCluster } from '../support/cluster.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';

const withNats = natsServerInstalled() ? test : test.skip;

// Well below the old 18 s, with room for a loaded 2-core machine.
const PROMPT_EXIT_MS = 8_000;

const ready = (health: string): Promise<boolean> => fetch(`${health}/readyz`).then((r) => r.status === 200, () => false);

withNats('node stop - SIGTERM with NATS gone exits promptly, logging that the hand-off was skipped', async (t) => {
  await withCluster(t, { shards: 8, leaseTtlMs: 3_000 }, async (c) => {
    await c.applyHosts(8);
    const a = await c.startNode('a', ['--log-level', 'info']);
    const health = a.health;
    if (!health) throw new Error('node a serves no health port');
    await waitUntil(() => ready(health), 30_000, 'a is ready');
    await c.nats.kill();
    await waitUntil(() => /NATS connection lost/.test(a.stderr()), 10_000, 'a notices that NATS is gone');

    const started = performance.now();
    a.child.kill('SIGTERM');
    const end = await a.exited;
    const tookMs = performance.now() - started;

    t.deepEqual(end, { code: 0, signal: null }, a.stderr().slice(-3_000));
    t.true(tookMs < PROMPT_EXIT_MS, `exited ${Math.round(tookMs)} ms after SIGTERM:\n${a.stderr().slice(-3_000)}`);
    t.regex(a.stderr(), /hand-off skipped: NATS is unreachable/);
    t.regex(a.stderr(), /"msg":"node stopped"/);
  });
});

withNats('node stop - NATS dying during the hand-off cuts it short: the node exits promptly, saying so', async (t) => {
  // Backend calls of 3 s keep the hand-off draining the shards' actors for seconds.
  await withCluster(t, { shards: 8, leaseTtlMs: 3_000, fixture: { latencyMs: 3_000, demoBehaviours: false } }, async (c) => {
    await c.applyHosts(8);
    const a = await c.startNode('a', ['--log-level', 'info']);
    const health = a.health;
    if (!health) throw new Error('node a serves no health port');
    await waitUntil(() => ready(health), 30_000, 'a is ready');
    await waitUntil(() => c.fixture.fixture.callsInFlight().all > 0, 30_000, 'a has backend calls in flight');
    a.child.kill('SIGTERM');
    await waitUntil(() => /shard handoff: draining/.test(a.stderr()), 10_000, 'a hands its shards off');

    const started = performance.now();
    await c.nats.kill();
    const end = await a.exited;
    const tookMs = performance.now() - started;

    t.deepEqual(end, { code: 0, signal: null }, a.stderr().slice(-3_000));
    t.true(tookMs < PROMPT_EXIT_MS, `exited ${Math.round(tookMs)} ms after NATS died:\n${a.stderr().slice(-3_000)}`);
    t.regex(a.stderr(), /hand-off cut short: NATS is unreachable/);
    t.regex(a.stderr(), /"msg":"node stopped"/);
  });
});

withNats('node stop - SIGTERM with NATS stalled (its socket open, nothing answered) exits promptly, saying the server did not answer', async (t) => {
  await withCluster(t, { shards: 8, leaseTtlMs: 3_000 }, async (c) => {
    await c.applyHosts(8);
    const a = await c.startNode('a', ['--log-level', 'info']);
    const health = a.health;
    if (!health) throw new Error('node a serves no health port');
    await waitUntil(() => ready(health), 30_000, 'a is ready');
    await c.nats.pause();
    try {
      const started = performance.now();
      a.child.kill('SIGTERM');
      const end = await a.exited;
      const tookMs = performance.now() - started;

      t.deepEqual(end, { code: 0, signal: null }, a.stderr().slice(-3_000));
      t.true(tookMs < PROMPT_EXIT_MS, `exited ${Math.round(tookMs)} ms after SIGTERM:\n${a.stderr().slice(-3_000)}`);
      t.regex(a.stderr(), /hand-off skipped: NATS did not answer a ping/);
      t.regex(a.stderr(), /"msg":"node stopped"/);
    } finally {
      c.nats.resume();
    }
  });
});

withNats('node stop - NATS stalling during the hand-off cuts it short: the node exits promptly, saying the server did not answer', async (t) => {
  await withCluster(t, { shards: 8, leaseTtlMs: 3_000, fixture: { latencyMs: 3_000, demoBehaviours: false } }, async (c) => {
    await c.applyHosts(8);
    const a = await c.startNode('a', ['--log-level', 'info']);
    const health = a.health;
    if (!health) throw new Error('node a serves no health port');
    await waitUntil(() => ready(health), 30_000, 'a is ready');
    await waitUntil(() => c.fixture.fixture.callsInFlight().all > 0, 30_000, 'a has backend calls in flight');
    a.child.kill('SIGTERM');
    await waitUntil(() => /shard handoff: draining/.test(a.stderr()), 10_000, 'a hands its shards off');

    await c.nats.pause();
    try {
      const started = performance.now();
      const end = await a.exited;
      const tookMs = performance.now() - started;

      t.deepEqual(end, { code: 0, signal: null }, a.stderr().slice(-3_000));
      t.true(tookMs < PROMPT_EXIT_MS, `exited ${Math.round(tookMs)} ms after NATS stalled:\n${a.stderr().slice(-3_000)}`);
      t.regex(a.stderr(), /hand-off cut short: NATS did not answer a ping/);
      t.regex(a.stderr(), /"msg":"node stopped"/);
    } finally {
      c.nats.resume();
    }
  });
});
