// A MaasCluster the CRD accepts but metalfleet cannot read (no admission webhook ran, so nothing
// refused it): its actor does not act on it, and says why on the object — Ready=False, reason
// InvalidSpec, naming each field in the words `metalfleet validate` uses — and in one log line per
// version of the spec, not one per read.
import test from 'ava';
import { maasClusterKind } from '../../src/actors/maas/maas-cluster-actor.ts';
import { maasMachineKind } from '../../src/actors/maas/maas-machine-actor.ts';
import type { MachineIO } from '../../src/actors/machine/index.ts';
import { systemClock } from '../../src/actors/runtime/index.ts';
import type { MaasClusterEvent } from '../../src/machines/maas-cluster/index.ts';
import type { MaasMachineEvent } from '../../src/machines/maas-machine/index.ts';
import { DEFAULT_MAAS_MACHINE_CONFIG } from '../../src/machines/maas-machine/index.ts';
import type { MaasMachineDeps } from '../../src/actors/maas/maas-machine-actor.ts';
import type { MaasDriver, ResourceStore, StoredObject } from '../../src/ports/index.ts';
import type { LogLine } from '../support/recording-logger.ts';
import { recordingLogger } from '../support/recording-logger.ts';

// The one MaasCluster, as a store hands it out: a status write is a new resourceVersion, a spec
// change a new generation too.
function oneObjectStore(initial: StoredObject, kindOf = 'MaasCluster', keyOf = 'capi/c1'): { store: ResourceStore; writes: Record<string, unknown>[]; setSpec(spec: Record<string, unknown>): void } {
  let object = initial;
  let version = 1;
  const writes: Record<string, unknown>[] = [];
  const store = {
    get: (kind: string, key: string) => Promise.resolve(kind === kindOf && key === keyOf ? structuredClone(object) : undefined),
    list: () => Promise.resolve([]),
    writeStatus: (kind: string, key: string, status: Record<string, unknown>) => {
      if (kind !== kindOf || key !== keyOf) return Promise.reject(new Error(`unexpected write of ${kind} ${key}`));
      writes.push(structuredClone(status));
      object = { ...object, metadata: { ...object.metadata, resourceVersion: String(++version) }, status };
      return Promise.resolve();
    },
  } as unknown as ResourceStore;
  return {
    store, writes,
    setSpec(spec) {
      object = { ...object, metadata: { ...object.metadata, resourceVersion: String(++version), generation: (object.metadata.generation ?? 1) + 1 }, spec };
    },
  };
}

const invalid = {
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'MaasCluster',
  metadata: { name: 'c1', namespace: 'capi', resourceVersion: '1', generation: 1 },
  spec: { dnsDomain: 'maas', controlPlaneVIP: { subnet: 'not-a-cidr' }, apiServerInterface: {} },
} as unknown as StoredObject;

type Ready = { type: string; status: string; reason: string; message: string };
function readyOf(status: Record<string, unknown> | undefined): Ready | undefined {
  return (status?.['conditions'] as Ready[] | undefined)?.find((c) => c.type === 'Ready');
}

test('maas cluster invalid spec - Ready=False InvalidSpec names each field; written and logged once while the spec stays', async (t) => {
  const lines: LogLine[] = [];
  const { store, writes, setSpec } = oneObjectStore(invalid);
  const io: MachineIO<MaasClusterEvent> = { key: 'capi/c1', slot: undefined, draining: false, tell: () => undefined, run: () => false };
  const driver = { endpoint: 'http://maas', pool: 'maas:http://maas' } as unknown as MaasDriver;
  const adapter = maasClusterKind('capi/c1', { store, driver, clock: systemClock, log: recordingLogger(lines), resyncMs: 60_000 }).adapter(io);

  // Three wake-ups (the first look, the watch's event, its own status write coming back).
  for (let i = 0; i < 3; i++) t.is(await adapter.observe(null, null), null, 'nothing acts on an invalid cluster');

  t.is(writes.length, 1, 'one status write: the condition is not written again while it is there');
  const ready = readyOf(writes[0]);
  t.like(ready, { status: 'False', reason: 'InvalidSpec' });
  t.regex(ready?.message ?? '', /spec\.controlPlaneVIP\.subnet: Invalid value: "not-a-cidr": must be a CIDR/);
  t.regex(ready?.message ?? '', /spec\.apiServerInterface: Required value: name, subnet or tag/);
  const warns = lines.filter((l) => l.level === 'warn');
  t.is(warns.length, 1, JSON.stringify(warns));
  t.regex(warns[0]?.msg ?? '', /spec\.controlPlaneVIP\.subnet: Invalid value/);
  t.false(JSON.stringify(warns[0]?.obj ?? {}).includes('"code"'), 'the readable problems, not zod\'s issues as JSON');

  // Another invalid spec: said again, and the condition follows it.
  setSpec({ dnsDomain: 'maas', controlPlaneVIP: { subnet: '10.0.0.0/24', address: '10.9.9.9' } });
  t.is(await adapter.observe(null, null), null);
  t.is(writes.length, 2);
  t.regex(readyOf(writes[1])?.message ?? '', /spec\.controlPlaneVIP\.address: Invalid value: "10\.9\.9\.9": must be inside subnet 10\.0\.0\.0\/24/);
  t.notRegex(readyOf(writes[1])?.message ?? '', /not-a-cidr/);
  t.is(lines.filter((l) => l.level === 'warn').length, 2);
});

test('maas machine invalid spec - the same for a MaasMachine: Ready=False InvalidSpec naming the field, written once, nothing acted on', async (t) => {
  const lines: LogLine[] = [];
  const machine = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'MaasMachine',
    metadata: { name: 'm1', namespace: 'capi', resourceVersion: '1', generation: 1 },
    spec: { minCPU: -1, minMemory: 2048 },
  } as unknown as StoredObject;
  const { store, writes } = oneObjectStore(machine, 'MaasMachine', 'capi/m1');
  const io: MachineIO<MaasMachineEvent> = { key: 'capi/m1', slot: undefined, draining: false, tell: () => undefined, run: () => false };
  const driver = { endpoint: 'http://maas', pool: 'maas:http://maas' } as unknown as MaasDriver;
  const deps = { store, driver, broker: null, clock: systemClock, config: DEFAULT_MAAS_MACHINE_CONFIG, log: recordingLogger(lines), grantTtlMs: 30_000 } as unknown as MaasMachineDeps;
  const adapter = maasMachineKind('capi/m1', deps).adapter(io);
  for (let i = 0; i < 3; i++) t.is(await adapter.observe(null, null), null, 'nothing acts on an invalid machine');
  t.is(writes.length, 1);
  const ready = readyOf(writes[0]);
  t.like(ready, { status: 'False', reason: 'InvalidSpec' });
  t.regex(ready?.message ?? '', /^MaasMachine is not valid, so metalfleet does not act on it .*spec\.minCPU: /);
  t.is(lines.filter((l) => l.level === 'warn').length, 1);
});
