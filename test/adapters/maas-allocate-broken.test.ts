// MAAS answers 409 to allocate in two ways (capmaas.md §2.4, §3.2): "No available machine matches
// constraints" (nothing fits), and "Invalid transition: Broken -> Allocated." when the machine it
// picked turned Broken between its read and its write (the race CAPMAAS handles as
// ErrBrokenMachine). The second is not a "no match": machines do fit, and the next allocate takes
// another. It used to be reported as no-match, not retryable, with the hint "no Ready machine
// matches; free one, or relax cpu, memory, zone, pool or tags", which sent people to change
// constraints that were fine.
import test from 'ava';
import { createMaasClient, MaasError } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';

test('maas allocate broken - a machine that broke under the allocation is a retryable conflict, and the next allocate takes another', async (t) => {
  const sim = await startMaasSim({ deployMs: 50, releaseMs: 20 });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey, retries: { attempts: 3, baseMs: 5, maxMs: 20 } });
  try {
    // node-08 (2 CPUs, 4 GB) is the cheapest machine: MAAS picks it first.
    sim.setFaults({ broken: ['node-08'] });
    const err = await t.throwsAsync(client.allocate({ cpuCount: 1, memMb: 1024 }), { instanceOf: MaasError });
    t.is(err?.status, 409);
    t.is(err?.code, 'conflict');
    t.true(err?.retryable);
    t.regex(err?.message ?? '', /Invalid transition: Broken -> Allocated/);
    t.notRegex(err?.message ?? '', /no Ready machine matches/);
    const next = await client.allocate({ cpuCount: 1, memMb: 1024 });
    t.not(next.hostname, 'node-08');
    t.is(next.status_name, 'Allocated');

    // Nothing fitting is still no-match, not retryable, with its hint.
    const none = await t.throwsAsync(client.allocate({ cpuCount: 1000 }), { instanceOf: MaasError });
    t.is(none?.code, 'no-match');
    t.false(none?.retryable);
    t.regex(none?.message ?? '', /no Ready machine matches/);
  } finally {
    client.close();
    await sim.stop();
  }
});

test('maas allocate broken - the driver answers the race as transient (retried after the backoff), not as a deploy failure', async (t) => {
  const sim = await startMaasSim({ deployMs: 50, releaseMs: 20 });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey, retries: { attempts: 3, baseMs: 5, maxMs: 20 } });
  try {
    sim.setFaults({ broken: ['node-08'] });
    const driver = createMaasDriver(client);
    const raced = await driver.run({ op: 'allocate', agentName: 'capi/w0', cpuCount: 1, memMb: 1024, image: 'ubuntu/jammy' });
    t.is(raced.kind, 'transient');
    const next = await driver.run({ op: 'allocate', agentName: 'capi/w0', cpuCount: 1, memMb: 1024, image: 'ubuntu/jammy' });
    t.is(next.kind, 'done');
    t.not(next.kind === 'done' ? next.machine?.hostname : undefined, 'node-08');
  } finally {
    client.close();
    await sim.stop();
  }
});
