// Issue 30: behind MAAS's call bound, a MaasMachine that made its first call first goes on first:
// its second call goes before the first calls of machines that started after it.
import test from 'ava';
import { BackendCalls } from '../../src/actors/calls/index.ts';
import type { MaasMachineState, MaasResult } from '../../src/machines/maas-machine/index.ts';
import { maasMachineCalls, standInMaasDriver } from '../support/maas-machine-calls.ts';
import { deferred, waitFor } from '../support/wait.ts';

test('maas call order - a machine\'s next call goes before the first calls of machines that started after it', async (t) => {
  const gate = deferred();
  const served: string[] = [];
  const calls = new BackendCalls({ limits: { maas: 1 }, defaultLimit: 50 });
  const { adapterOf, answered } = maasMachineCalls(standInMaasDriver(async (call) => {
    served.push(`${call.op === 'allocate' ? call.agentName : '?'}`);
    if (served.length === 1) await gate.promise;
    return { kind: 'done' } as MaasResult;
  }), calls);
  const none = { slot: { phase: 'none' } } as unknown as MaasMachineState;
  const adapters = new Map(['m-0', 'm-1', 'm-2', 'm-3'].map((k) => [k, adapterOf(`capi/${k}`)]));
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
