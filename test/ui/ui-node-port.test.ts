// Every node serves the dashboard on its health/metrics port, at the same address, read-only.
import test from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { FleetPicture } from '../../src/ui/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

test('ui node port - a node with a health port serves the page, the picture and host pages beside /healthz; commands are refused', async (t) => {
  const substrate = memorySubstrate();
  const store = await openLocalStore(substrate.transport);
  const applied = await store.applyObjects([secret(), bmh('n0'), bmh('n1')], 'test');
  t.true(applied.ok);
  const node = await startLocalNode({
    name: 'porty', shardCount: 16, healthPort: 0,
    machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: Number.POSITIVE_INFINITY, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
  }, { hosts: store }, { provisioner: createFixtureProvisioner({ latencyMs: 1, demoBehaviours: false }) }, {}, substrate);
  try {
    const base = node.health?.url ?? '';
    t.regex(base, /^http:\/\/127\.0\.0\.1:\d+$/);
    t.is((await fetch(`${base}/healthz`)).status, 200, 'health still answers');
    const page = await fetch(`${base}/`);
    t.is(page.status, 200);
    t.regex(await page.text(), /assets\/app\.js/);
    t.is((await fetch(`${base}/assets/app.js`)).status, 200);
    await waitUntil(async () => {
      const p = FleetPicture.parse(await (await fetch(`${base}/api/fleet`)).json());
      return p.hostsTotal === 2 && p.nodes.some((n) => n.node === 'porty');
    }, 30_000, 'the picture with both hosts');
    t.is((await fetch(`${base}/api/hosts/lab/n0`)).status, 200);
    const cmd = await fetch(`${base}/api/hosts/lab/n0/command`, { method: 'POST', headers: { 'x-metalfleet-ui-token': 'x' }, body: '{"action":"power-off"}' });
    t.is(cmd.status, 403);
    t.regex(await cmd.text(), /commands are off/);
  } finally {
    await node.stop();
  }
});
