import test from 'ava';
import { createIronicClient, IronicError } from '../../src/adapters/ironic/client/index.ts';
import { leaseGuardedClient } from '../../src/adapters/ironic/provisioner/owner-fence.ts';
import type { BareMetalHostSpec } from '../../src/api/index.ts';
import type { HostData } from '../../src/ports/index.ts';
import { startHoldingProxy } from '../support/holding-proxy.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import { starvedLease, starvePast, until } from '../support/starved-lease.ts';

// The Ironic client's connection pool holds 64 sockets (adapters/http/transport.ts): a write that
// passed its lease check may wait in it for one. A node starved of CPU past its lease deadline
// meanwhile must not let that write reach Ironic once a socket frees (issue 30).
const POOL = 64;

function hostData(leaseHeld: () => boolean): HostData {
  const spec: BareMetalHostSpec = {
    online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata',
    bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: 'late-bmc' },
  };
  return {
    key: 'fleet/late', namespace: 'fleet', name: 'late', uid: 'uid-late', provisionerId: '', spec,
    credentials: { username: 'admin', password: 'secret' },
    fence: { shard: 3, epoch: 7, holder: 'a' }, leaseHeld,
  };
}

test('ironic client - a write queued for a connection while the node was starved past its lease deadline is withheld, and Ironic never sees it', async (t) => {
  const ironic = await startIronicApiServer();
  // Reads of the fillers are held at the proxy, so the pool stays full while the lease runs out.
  const proxy = await startHoldingProxy(ironic.url, (method, path) => method === 'GET' && path.startsWith('/v1/nodes/filler-'));
  const client = createIronicClient({ endpoint: proxy.url, timeoutMs: 10_000 });
  t.teardown(async () => {
    client.close();
    await proxy.close();
    await ironic.close();
  });
  await client.connect();
  const fillers = Array.from({ length: POOL }, (_, i) => client.getNode(`filler-${i}`));
  await until('every socket of the pool held at the proxy', () => proxy.holding === POOL);

  const { lease, lost } = await starvedLease();
  // The guarded client asks the lease as the write is made: it passes, and the write waits for a socket.
  const guarded = leaseGuardedClient(client, hostData(() => lease.safelyHeld()));
  const queued = guarded.createNode({ name: 'late', driver: 'fake-hardware' }).then(() => null, (err: unknown) => err);
  starvePast(lease);
  proxy.release();

  const err = await queued;
  t.true(err instanceof IronicError, String(err));
  t.like(err as IronicError, { code: 'withheld', retryable: true, status: null, route: 'POST /v1/nodes' });
  t.deepEqual(await Promise.all(fillers), Array.from({ length: POOL }, () => null));
  t.false(proxy.seen.some((r) => r.startsWith('POST /v1/nodes')), proxy.seen.filter((r) => !r.includes('filler')).join(', '));
  t.is(ironic.node('late'), null);
  // Counted as withheld, not as sent.
  t.is(client.stats.byRouteStatus['POST /v1/nodes']?.['withheld'], 1);
  t.is(client.stats.byRoute['POST /v1/nodes'], undefined);
  t.deepEqual(lost, ['expired']);
});

test('ironic client - a write whose lease holds when it gets its connection leaves, and reads are not asked', async (t) => {
  const ironic = await startIronicApiServer();
  const client = createIronicClient({ endpoint: ironic.url, timeoutMs: 10_000 });
  t.teardown(async () => {
    client.close();
    await ironic.close();
  });
  let asked = 0;
  const guarded = leaseGuardedClient(client, hostData(() => {
    asked += 1;
    return true;
  }));
  t.like(await guarded.createNode({ name: 'held', driver: 'fake-hardware' }), { name: 'held' });
  // Once as the write was made, once as it left.
  t.is(asked, 2);
  t.like(await guarded.getNode('held'), { name: 'held' });
  t.is(asked, 2);
});
