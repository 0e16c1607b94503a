// Issue 30: a MaasMachine's calls that hold no slot (allocate, power, DNS reads) wait their turn
// at MAAS behind the node's per-backend bound, as a host's do; a machine holding a slot (deploying,
// releasing) runs beside it.
import test from 'ava';
import { BackendCalls } from '../../src/actors/calls/index.ts';
import type { MaasMachineState, MaasResult } from '../../src/machines/maas-machine/index.ts';
import { MAAS_POOL as POOL, maasMachineCalls, standInMaasDriver } from '../support/maas-machine-calls.ts';
import { deferred, waitFor } from '../support/wait.ts';

test('maas call bound - allocations of many machines never exceed the bound at MAAS; a slot holder\'s call does not wait', async (t) => {
  const gate = deferred();
  let running = 0;
  let most = 0;
  const calls = new BackendCalls({ limits: { maas: 2 }, defaultLimit: 50 });
  const { adapterOf, answered } = maasMachineCalls(standInMaasDriver(async () => {
    most = Math.max(most, ++running);
    await gate.promise;
    running -= 1;
    return { kind: 'done' } as MaasResult;
  }), calls);
  const perform = (key: string, phase: 'none' | 'held'): void => {
    const adapter = adapterOf(key);
    const state = { slot: phase === 'none' ? { phase } : { phase, op: 'deploy', grantId: 'g' } } as unknown as MaasMachineState;
    void adapter.perform({ type: 'call', seq: 1, call: { op: 'allocate', agentName: key, cpuCount: 1, memMb: 1024 } }, state);
  };
  for (let i = 0; i < 8; i++) perform(`capi/m-${i}`, 'none');
  await waitFor(() => running === 2 && calls.figures()[0]?.waiting === 6, 5_000, 'two allocations at MAAS, six waiting');
  perform('capi/deployer', 'held');
  await waitFor(() => running === 3, 5_000, 'the slot holder\'s call at MAAS beside the full bound');
  t.like(calls.figures()[0], { backend: POOL, limit: 2, inFlight: 2, waiting: 6, slotHolderInFlight: 1 });
  gate.resolve();
  await waitFor(() => answered.length === 9, 5_000, 'every call answered');
  t.is(most, 3, 'two under the bound, one slot holder beside it');
  t.like(calls.figures()[0], { inFlight: 0, waiting: 0, maxInFlight: 2, waitedTotal: 6 });
});
