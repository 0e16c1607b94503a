// Issue 30 (point 1, d): a MaasCluster's DNS writes and address calls hold no capacity slot, so
// they wait for one of MAAS's places behind the node's per-backend bound, as a MaasMachine's
// unslotted calls do: many clusters writing their records at once never exceed it at MAAS.
import test from 'ava';
import { BackendCalls } from '../../src/actors/calls/index.ts';
import { maasClusterKind } from '../../src/actors/maas/maas-cluster-actor.ts';
import type { MachineIO } from '../../src/actors/machine/index.ts';
import { systemClock } from '../../src/actors/runtime/index.ts';
import type { DnsCall, MaasClusterEvent, MaasClusterState } from '../../src/machines/maas-cluster/index.ts';
import type { MaasDriver, ResourceStore } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { deferred, waitFor } from '../support/wait.ts';

const POOL = 'maas:http://maas';
const CLUSTERS = 24;

test('maas cluster call bound - DNS creates, updates and deletes of many clusters never exceed the bound at MAAS', async (t) => {
  const gate = deferred();
  let running = 0;
  let most = 0;
  const atMaas = async <T>(value: T): Promise<T> => {
    most = Math.max(most, ++running);
    await gate.promise;
    running -= 1;
    return value;
  };
  const record = (fqdn: string, ips: string[]) => ({ id: 1, fqdn, ips });
  const driver = {
    endpoint: 'http://maas', pool: POOL,
    run: () => Promise.reject(new Error('not expected')),
    findDns: () => atMaas(null),
    createDns: (fqdn: string, _ttl: number, ips: string[]) => atMaas(record(fqdn, ips)),
    updateDns: (_id: number, ips: string[]) => atMaas(record('x.maas', ips)),
    deleteDns: () => atMaas(undefined),
  } as unknown as MaasDriver;
  const calls = new BackendCalls({ limits: { maas: 3 }, defaultLimit: 50 });
  const deps = { store: {} as ResourceStore, driver, clock: systemClock, log: silentLogger, resyncMs: 60_000, calls };
  const answered: MaasClusterEvent[] = [];
  const io = (key: string): MachineIO<MaasClusterEvent> => ({ key, slot: undefined, draining: false, tell: () => undefined, run: () => false });
  const ops: DnsCall[] = [
    { op: 'create', fqdn: 'c.maas', ttl: 10, ips: ['10.0.0.1'] },
    { op: 'update', id: 1, ips: ['10.0.0.2'] },
    { op: 'delete', id: 1 },
  ] as DnsCall[];
  for (let i = 0; i < CLUSTERS; i++) {
    const adapter = maasClusterKind(`capi/c-${i}`, deps).adapter(io(`capi/c-${i}`));
    const done = adapter.perform({ type: 'dns', seq: 1, call: ops[i % ops.length]! }, {} as MaasClusterState);
    void Promise.resolve(done).then((e) => e && answered.push(e));
  }
  await waitFor(() => running === 3 && calls.figures()[0]?.waiting === CLUSTERS - 3, 5_000, 'three DNS writes at MAAS, the rest waiting');
  t.like(calls.figures()[0], { backend: POOL, limit: 3, inFlight: 3, waiting: CLUSTERS - 3 });
  gate.resolve();
  await waitFor(() => answered.length === CLUSTERS, 5_000, 'every DNS write answered');
  t.is(most, 3, 'never more than the bound at MAAS');
  t.true(answered.every((e) => e.type === 'dnsResult' && e.result.kind !== 'failed'));
  t.like(calls.figures()[0], { inFlight: 0, waiting: 0, maxInFlight: 3 });
});
