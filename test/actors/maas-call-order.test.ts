// Issue 30: behind MAAS's call bound, a MaasMachine that made its first call first goes on first:
// its second call goes before the first calls of machines that started after it.
import test from 'ava';
import { BackendCalls } from '../../src/actors/calls/index.ts';
import { maasMachineKind } from '../../src/actors/maas/maas-machine-actor.ts';
import type { MachineIO } from '../../src/actors/machine/index.ts';
import { systemClock } from '../../src/actors/runtime/index.ts';
import type { CapacityMsg } from '../../src/actors/capacity/index.ts';
import type { ActorRef } from '../../src/actors/runtime/index.ts';
import { DEFAULT_MAAS_MACHINE_CONFIG } from '../../src/machines/maas-machine/index.ts';
import type { MaasMachineEvent, MaasMachineState, MaasResult } from '../../src/machines/maas-machine/index.ts';
import type { MaasDriver, ResourceStore } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { deferred, waitFor } from '../support/wait.ts';

test('maas call order - a machine\'s next call goes before the first calls of machines that started after it', async (t) => {
  const gate = deferred();
  const served: string[] = [];
  const unused = (): never => {
    throw new Error('not expected');
  };
  const driver: MaasDriver = {
    endpoint: 'http://maas', pool: 'maas:http://maas',
    run: async (call) => {
      served.push(`${call.op === 'allocate' ? call.agentName : '?'}`);
      if (served.length === 1) await gate.promise;
      return { kind: 'done' } as MaasResult;
    },
    findDns: unused, createDns: unused, updateDns: unused, deleteDns: unused,
  };
  const calls = new BackendCalls({ limits: { maas: 1 }, defaultLimit: 50 });
  const deps = {
    store: {} as ResourceStore, driver, broker: {} as ActorRef<CapacityMsg>, clock: systemClock,
    config: DEFAULT_MAAS_MACHINE_CONFIG, log: silentLogger, grantTtlMs: 30_000, calls,
  };
  const answered: MaasMachineEvent[] = [];
  const io = (key: string): MachineIO<MaasMachineEvent> => ({
    key, slot: undefined, draining: false, tell: () => undefined,
    run: (work, answer) => (void work().then((r) => answered.push(answer(r))), true),
  });
  const none = { slot: { phase: 'none' } } as unknown as MaasMachineState;
  const adapters = new Map(['m-0', 'm-1', 'm-2', 'm-3'].map((k) => [k, maasMachineKind(`capi/${k}`, deps).adapter(io(`capi/${k}`))]));
  const allocate = (key: string, label: string): void => {
    void adapters.get(key)!.perform({ type: 'call', seq: 1, call: { op: 'allocate', agentName: label, cpuCount: 1, memMb: 1024 } }, none);
  };
  for (const k of ['m-0', 'm-1', 'm-2', 'm-3']) allocate(k, `${k}:first`);
  await waitFor(() => served.length === 1 && calls.figures()[0]?.waiting === 3, 5_000, 'one call at MAAS, three waiting');
  // m-0 (running now) and m-1 (waiting) call again: both go before m-2's and m-3's first calls.
  allocate('m-1', 'm-1:second');
  allocate('m-0', 'm-0:second');
  gate.resolve();
  await waitFor(() => answered.length === 6, 5_000, 'every call answered');
  t.deepEqual(served, ['m-0:first', 'm-0:second', 'm-1:first', 'm-1:second', 'm-2:first', 'm-3:first']);
});
