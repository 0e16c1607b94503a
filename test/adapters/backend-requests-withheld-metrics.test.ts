import test from 'ava';
import { Registry } from 'prom-client';
import { whileHeld } from '../../src/adapters/http/index.ts';
import { createMaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { backendRequestsOf, registerFleetMetrics } from '../../src/adapters/observe/index.ts';
import type { FleetSources } from '../../src/adapters/observe/fleet-metrics.ts';
import type { Provisioner } from '../../src/ports/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';

// Requests withheld as they got their connection (their shard lease no longer safely held) are
// counted per backend, and not as requests sent.

const quiet: Omit<FleetSources, 'backendRequests'> = { machines: () => new Map(), shardsOwned: () => 0, mailboxDepth: () => new Map() };

test('backend metrics - withheld requests have their own counter per backend, 0 for a backend that withheld none, and are not counted as sent', async (t) => {
  const registry = new Registry();
  registerFleetMetrics(registry, {
    ...quiet,
    backendRequests: () => [
      { backend: 'ironic:a', route: 'POST /v1/nodes', status: '201', count: 4 },
      { backend: 'ironic:a', route: 'POST /v1/nodes', status: 'withheld', count: 2 },
      { backend: 'ironic:a', route: 'PUT /v1/nodes/{node}/states/provision', status: 'withheld', count: 1 },
      { backend: 'maas:b', route: 'GET /machines/{id}/', status: '200', count: 7 },
    ],
  });
  const text = await registry.metrics();
  t.regex(text, /^metalfleet_backend_requests_withheld_total\{backend="ironic:a"\} 3$/m);
  t.regex(text, /^metalfleet_backend_requests_withheld_total\{backend="maas:b"\} 0$/m);
  t.regex(text, /^metalfleet_backend_requests_total\{backend="ironic:a",route="POST \/v1\/nodes",status="201"\} 4$/m);
  t.notRegex(text, /metalfleet_backend_requests_total\{[^}]*status="withheld"/);
});

test('backend metrics - a MAAS request withheld by the driver\'s leave check is exported beside the provisioner\'s requests', async (t) => {
  const sim = await startMaasSim();
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey, retries: { attempts: 1, baseMs: 5, maxMs: 5 }, timeoutMs: 5_000 });
  t.teardown(async () => {
    client.close();
    await sim.stop();
  });
  const driver = createMaasDriver(client);
  const provisioner = { requests: () => [{ backend: 'ironic:a', route: 'GET /v1/nodes/{node}', status: '200', count: 1 }] } as unknown as Provisioner;
  const registry = new Registry();
  registerFleetMetrics(registry, { ...quiet, backendRequests: backendRequestsOf(provisioner, driver) });
  const backend = `maas:${new URL(sim.url).host}`;

  t.like(await driver.run({ op: 'get', systemId: 'none' }), { kind: 'notFound' });
  t.like(await whileHeld(() => false, () => driver.run({ op: 'allocate', agentName: 'x', cpuCount: 1, memMb: 1024 })), { kind: 'transient' });
  const text = await registry.metrics();
  t.true(text.includes(`metalfleet_backend_requests_withheld_total{backend="${backend}"} 1`), text);
  t.true(text.includes('metalfleet_backend_requests_withheld_total{backend="ironic:a"} 0'), text);
  t.true(text.includes(`metalfleet_backend_requests_total{backend="${backend}",route="GET /machines/{id}/",status="404"} 1`), text);
});
