import test from 'ava';
import type { ExecutionContext } from 'ava';
import { whileHeld } from '../../src/adapters/http/index.ts';
import { createMaasClient, MaasError } from '../../src/adapters/maas/client/index.ts';
import type { MaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { leaseGuardedDriver } from '../../src/node/lease-guarded-driver.ts';
import type { MaasDriver } from '../../src/ports/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { startHoldingProxy } from '../support/holding-proxy.ts';
import type { HoldingProxy } from '../support/holding-proxy.ts';
import { starvedLease, starvePast, until } from '../support/starved-lease.ts';

// The MAAS client's connection pool holds 64 sockets (adapters/http/transport.ts): a change that
// passed its lease check may wait in it for one. A node starved of CPU past its lease deadline
// meanwhile must not let that change reach MAAS once a socket frees (issue 30).
const POOL = 64;
const FAST = { attempts: 3, baseMs: 5, maxMs: 20 };

// A MAAS client whose 64 sockets are all held at a proxy by reads of fillers, so the next request
// waits for a connection while the test's lease runs out.
async function fullPool(t: ExecutionContext): Promise<{ client: MaasClient; proxy: HoldingProxy; fillers: Promise<unknown>[] }> {
  const sim = await startMaasSim({ deployMs: 50, releaseMs: 20 });
  const proxy = await startHoldingProxy(sim.url, (method, path) => method === 'GET' && path.includes('/machines/filler-'));
  const client = createMaasClient({ endpoint: `${proxy.url}${new URL(sim.url).pathname}`, apiKey: sim.adminKey, retries: FAST, timeoutMs: 10_000 });
  t.teardown(async () => {
    client.close();
    await proxy.close();
    await sim.stop();
  });
  const fillers = Array.from({ length: POOL }, (_, i) => client.getMachine(`filler-${i}`));
  await until('every socket of the pool held at the proxy', () => proxy.holding === POOL);
  return { client, proxy, fillers };
}

test('maas client - an allocation queued for a connection while the node was starved past its lease deadline is withheld, and MAAS never sees it', async (t) => {
  const { client, proxy, fillers } = await fullPool(t);

  const { lease, lost } = await starvedLease();
  // The guarded driver asks the lease as the call is made: it passes, and the request waits for a socket.
  const driver = leaseGuardedDriver(createMaasDriver(client), () => lease.safelyHeld());
  const queued = driver.run({ op: 'allocate', agentName: 'late-agent', cpuCount: 1, memMb: 1024 });
  starvePast(lease);
  proxy.release();

  const result = await queued;
  t.is(result.kind, 'transient');
  t.regex(result.kind === 'transient' ? result.message : '', /withheld as it could leave: the caller's shard lease was no longer safely held; MAAS was not called/);
  t.deepEqual(await Promise.all(fillers), Array.from({ length: POOL }, () => null));
  t.false(proxy.seen.some((r) => r.includes('allocate')), proxy.seen.filter((r) => !r.includes('filler')).join(', '));
  t.deepEqual(await client.listMachines({ agentName: 'late-agent' }), []);
  // Counted as withheld, not as sent.
  const route = Object.keys(client.stats.byRouteStatus).find((r) => r.includes('allocate'));
  t.truthy(route);
  t.is(client.stats.byRouteStatus[route!]?.['withheld'], 1);
  t.is(client.stats.byRoute[route!], undefined);
  t.deepEqual(lost, ['expired']);
});

test('maas client - a decorator of the driver (a plugin\'s or a test\'s wrapper of run) still sees the guarded call, and the late request is still withheld', async (t) => {
  const { client, proxy, fillers } = await fullPool(t);
  const { lease } = await starvedLease();
  const inner = createMaasDriver(client);
  const seen: string[] = [];
  // The usual decorator: every method of the driver, run wrapped.
  const decorated: MaasDriver = { ...inner, run: (call, userData) => (seen.push(call.op), inner.run(call, userData)) };
  const queued = leaseGuardedDriver(decorated, () => lease.safelyHeld()).run({ op: 'allocate', agentName: 'late-agent', cpuCount: 1, memMb: 1024 });
  starvePast(lease);
  proxy.release();
  const result = await queued;
  t.deepEqual(seen, ['allocate'], 'the decorator saw the call');
  t.is(result.kind, 'transient');
  await Promise.all(fillers);
  t.false(proxy.seen.some((r) => r.includes('allocate')));
  t.deepEqual(await client.listMachines({ agentName: 'late-agent' }), []);
});

test('maas client - a withheld request is a retryable MaasError that is not sent again', async (t) => {
  const sim = await startMaasSim();
  const proxy = await startHoldingProxy(sim.url, () => false);
  const client = createMaasClient({ endpoint: `${proxy.url}${new URL(sim.url).pathname}`, apiKey: sim.adminKey, retries: FAST, timeoutMs: 10_000 });
  t.teardown(async () => {
    client.close();
    await proxy.close();
    await sim.stop();
  });
  const err = await t.throwsAsync(whileHeld(() => false, () => client.getMachine('any')));
  t.true(err instanceof MaasError);
  t.like(err as MaasError, { code: 'withheld', retryable: true, status: null, attempts: 1 });
  t.deepEqual(proxy.seen, []);
  t.is(client.stats.total, 0);
  // The view's requests leave while the check says yes; the base client is not asked.
  t.is(await whileHeld(() => true, () => client.getMachine('none')), null);
  t.is(await client.getMachine('none'), null);
  t.is(proxy.seen.length, 2);
});
