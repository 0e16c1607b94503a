// A MaasMachine actor whose first wake-up is not its object's (its cluster's DNS record changed)
// observes the object first; the generic actor steps that observation and performs its effects,
// as for any wake-up. The adapter used to step it itself and drop them: a status it decided there
// was never written.
import test from 'ava';
import { openLocalStoreWithMaas } from '../support/maas-node.ts';
import type { CapacityMsg } from '../../src/actors/capacity/index.ts';
import { maasMachineBehavior } from '../../src/actors/maas/maas-machine-actor.ts';
import type { MaasMachineMsg } from '../../src/actors/maas/maas-machine-actor.ts';
import { createManualClock, spawn, startSystem, tell } from '../../src/actors/runtime/index.ts';
import type { ActorRef } from '../../src/actors/runtime/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { DEFAULT_MAAS_MACHINE_CONFIG } from '../../src/machines/maas-machine/index.ts';
import type { MaasDriver, ResourceStore } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { waitUntil } from '../support/wait.ts';

const KEY = 'capi/demo-cp-0';

const unused = (): never => {
  throw new Error('no backend call is expected here');
};
const driver: MaasDriver = { endpoint: 'http://maas', pool: 'maas:http://maas', run: unused, findDns: unused, createDns: unused, updateDns: unused, deleteDns: unused };

/** The demo cluster on the memory KV, its MaasMachine annotated as `annotations` says. */
async function storeWith(annotations: Record<string, string>): Promise<ResourceStore> {
  const transport = createMemoryBus().connect('test');
  const local = await openLocalStoreWithMaas(transport);
  const objects = generateMaasCluster({ controlPlane: 1, workers: 0 }).map((o) => {
    const doc = o as { kind: string; metadata: Record<string, unknown> };
    return doc.kind === 'MaasMachine' ? { ...doc, metadata: { ...doc.metadata, annotations } } : doc;
  });
  const applied = await local.applyObjects(objects);
  if (!applied.ok) throw new Error(JSON.stringify(applied));
  return local.objects;
}

/** The actor on `store`, its first message a DNS change; the clock never moves, so no tick comes first. */
function startOnDnsChange(store: ResourceStore): { stop: () => void } {
  const system = startSystem({ onError: () => {} });
  const broker = spawn(system, 'broker', { kind: 'sink', init: () => null, receive: (s: null) => s }) as ActorRef<CapacityMsg>;
  const ref: ActorRef<MaasMachineMsg> = spawn(system, 'maas-machine', maasMachineBehavior(KEY, {
    store, driver, broker, clock: createManualClock(0), config: DEFAULT_MAAS_MACHINE_CONFIG, log: silentLogger, grantTtlMs: 30_000,
  }));
  tell(ref, { type: 'dnsChanged' });
  return { stop: () => system.stop() };
}

test('maas machine first wake - a DNS change before any state: the status its observation decides is written', async (t) => {
  // Paused by its annotation: observing it decides a status (Paused) and calls nothing.
  const store = await storeWith({ 'cluster.x-k8s.io/paused': '' });
  const actor = startOnDnsChange(store);
  t.teardown(actor.stop);
  const paused = async (): Promise<boolean> => {
    const status = (await store.get('MaasMachine', KEY))?.status as { conditions?: Array<{ type: string; status: string }> } | undefined;
    return status?.conditions?.some((c) => c.type === 'Paused' && c.status === 'True') ?? false;
  };
  await waitUntil(paused, 5_000, 'the Paused status in the store');
  t.true(await paused());
});
