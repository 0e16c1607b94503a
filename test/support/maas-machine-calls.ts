// A MaasMachine kind's adapters on a stand-in driver behind a node's call bound, with no store or
// broker: what the call-bound tests drive to see which machine's MAAS call goes when.
import type { BackendCalls } from '../../src/actors/calls/index.ts';
import type { CapacityMsg } from '../../src/actors/capacity/index.ts';
import { maasMachineKind } from '../../src/actors/maas/maas-machine-actor.ts';
import type { MachineIO } from '../../src/actors/machine/index.ts';
import type { ActorRef } from '../../src/actors/runtime/index.ts';
import { systemClock } from '../../src/actors/runtime/index.ts';
import { DEFAULT_MAAS_MACHINE_CONFIG } from '../../src/machines/maas-machine/index.ts';
import type { MaasCall, MaasMachineEvent, MaasResult } from '../../src/machines/maas-machine/index.ts';
import type { MaasDriver, ResourceStore } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';

export const MAAS_POOL = 'maas:http://maas';

/** A driver whose run is `run` and whose DNS calls are not expected. */
export function standInMaasDriver(run: (call: MaasCall) => Promise<MaasResult>): MaasDriver {
  const unused = (): never => {
    throw new Error('not expected');
  };
  return { endpoint: 'http://maas', pool: MAAS_POOL, run, findDns: unused, createDns: unused, updateDns: unused, deleteDns: unused };
}

/** Adapters of MaasMachines on `driver` behind `calls`; every answer of their work lands in `answered`. */
export function maasMachineCalls(driver: MaasDriver, calls: BackendCalls): { adapterOf: (key: string) => ReturnType<ReturnType<typeof maasMachineKind>['adapter']>; answered: MaasMachineEvent[] } {
  const deps = {
    store: {} as ResourceStore, driver, broker: {} as ActorRef<CapacityMsg>, clock: systemClock,
    config: DEFAULT_MAAS_MACHINE_CONFIG, log: silentLogger, grantTtlMs: 30_000, calls,
  };
  const answered: MaasMachineEvent[] = [];
  const io = (key: string): MachineIO<MaasMachineEvent> => ({
    key, slot: undefined, draining: false, tell: () => undefined,
    run: (work, answer) => (void work().then((r) => answered.push(answer(r))), true),
  });
  return { adapterOf: (key) => maasMachineKind(key, deps).adapter(io(key)), answered };
}
