// A host's HostFirmwareComponents as its actor keeps them in the store: a firmware read and a
// user's spec change judge spec.updates (Valid, ChangeDetected); a preparing or servicing that
// flashed updates records them in status.updates, so a restarted host (a new actor, nothing in
// memory) is not asked to flash them again, while a new URL for a component is.
import test from 'ava';
import { HostCompanions } from '../../src/actors/host/companions.ts';
import { COMPANION_LAYOUTS } from '../../src/adapters/store/kv-layouts.ts';
import { openKvStore } from '../../src/adapters/store/kv-store.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { HostFirmwareComponents } from '../../src/api/index.ts';
import type { BareMetalHost, FirmwareReport, MetaCondition } from '../../src/api/index.ts';
import type { ResourceStore } from '../../src/ports/index.ts';

const KEY = 'lab/h1';
const HOST = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h1', namespace: 'lab', uid: 'u-1' } } as unknown as BareMetalHost;
const REPORT: FirmwareReport = {
  settings: { ProcTurboMode: 'Enabled' },
  components: [{ component: 'bios', initialVersion: '1.0', currentVersion: '1.0' }, { component: 'bmc', initialVersion: '2.0' }],
};
const bios = { component: 'bios', url: 'https://fw/bios-2.0.bin' };
const bmc = { component: 'bmc', url: 'https://fw/bmc-5.1.bin' };

interface Logged { readonly fields: Record<string, unknown>; readonly message: string }

function rig(): { lines: Logged[]; log: never; clock: never; at: (ms: number) => void } {
  const lines: Logged[] = [];
  const log = { debug() {}, info(fields: Record<string, unknown>, message: string) { lines.push({ fields, message }); }, warn(fields: Record<string, unknown>, message: string) { lines.push({ fields, message }); }, error() {}, child() { return log; } };
  let now = Date.UTC(2026, 11, 6, 10, 0, 0);
  const clock = { now: () => now, setTimeout: () => ({}) as never, clearTimeout() {} };
  return { lines, log: log as never, clock: clock as never, at: (ms) => { now = ms; } };
}

async function openStore(log: never): Promise<ResourceStore> {
  const kv = new MemoryKvStore();
  return openKvStore({ layouts: COMPANION_LAYOUTS, bucket: async (name) => kv.bucket(name), log });
}

async function hfcOf(store: ResourceStore): Promise<HostFirmwareComponents> {
  return HostFirmwareComponents.parse(await store.get('HostFirmwareComponents', KEY));
}
const conditionOf = (hfc: HostFirmwareComponents, type: string): MetaCondition | undefined => hfc.status?.conditions?.find((c) => c.type === type);

test('host firmware components - updates flashed are recorded in status.updates and not asked again after a restart; a new URL is', async (t) => {
  const { log, clock, at, lines } = rig();
  const store = await openStore(log);
  const companions = new HostCompanions(KEY, store, log, clock);
  await companions.registered(HOST);
  await companions.firmwareRead(HOST, REPORT);
  // Nothing wanted yet: Valid, no change.
  let hfc = await hfcOf(store);
  t.like(conditionOf(hfc, 'Valid'), { status: 'True', reason: 'OK' });
  t.like(conditionOf(hfc, 'ChangeDetected'), { status: 'False', reason: 'OK' });

  // A user asks for two updates (the companionsChanged wake judges them at once).
  await store.patchSpec('HostFirmwareComponents', KEY, { updates: [bios, bmc] });
  at(Date.UTC(2026, 11, 6, 10, 1, 0));
  await companions.settingsChanged();
  hfc = await hfcOf(store);
  const generation = hfc.metadata.generation;
  t.like(conditionOf(hfc, 'ChangeDetected'), { status: 'True', reason: 'OK', observedGeneration: generation, lastTransitionTime: '2026-12-06T10:01:00Z' });
  t.like(conditionOf(hfc, 'Valid'), { status: 'True', reason: 'OK', observedGeneration: generation, lastTransitionTime: '2026-12-06T10:00:00Z' });
  t.deepEqual((await companions.intent())?.updates, [bios, bmc]);

  // Preparing flashed them.
  at(Date.UTC(2026, 11, 6, 10, 20, 0));
  await companions.updatesApplied([bios, bmc]);
  hfc = await hfcOf(store);
  t.deepEqual(hfc.status?.updates, [bios, bmc]);
  t.deepEqual(hfc.status?.components, REPORT.components, 'the components read stay');
  t.is(hfc.status?.lastUpdated, '2026-12-06T10:20:00Z');
  t.like(conditionOf(hfc, 'ChangeDetected'), { status: 'False', lastTransitionTime: '2026-12-06T10:20:00Z' });

  // The host's actor restarts: the new one remembers nothing, and has nothing to flash.
  const restarted = new HostCompanions(KEY, store, log, clock);
  t.deepEqual((await restarted.intent())?.updates, []);
  // A firmware read after the flash keeps the record.
  await restarted.firmwareRead(HOST, REPORT);
  t.deepEqual((await hfcOf(store)).status?.updates, [bios, bmc]);

  // A new URL for the bmc: flashed again, and the change shows.
  const newer = { component: 'bmc', url: 'https://fw/bmc-5.2.bin' };
  await store.patchSpec('HostFirmwareComponents', KEY, { updates: [bios, newer] });
  at(Date.UTC(2026, 11, 6, 10, 30, 0));
  await restarted.settingsChanged();
  t.deepEqual((await restarted.intent())?.updates, [newer]);
  hfc = await hfcOf(store);
  t.like(conditionOf(hfc, 'ChangeDetected'), { status: 'True', observedGeneration: hfc.metadata.generation, lastTransitionTime: '2026-12-06T10:30:00Z' });
  t.deepEqual(lines.filter((l) => l.message.includes('failed')), [], 'no write failed');
});

test('host firmware components - an unknown component makes the stored HFC not Valid (InvalidComponent) and nothing is flashed', async (t) => {
  const { log, clock, lines } = rig();
  const store = await openStore(log);
  const companions = new HostCompanions(KEY, store, log, clock);
  await companions.registered(HOST);
  await companions.firmwareRead(HOST, REPORT);
  await store.patchSpec('HostFirmwareComponents', KEY, { updates: [bios, { component: 'raid', url: 'https://user:pw-secret@fw/raid.bin' }] });
  await companions.settingsChanged();
  const hfc = await hfcOf(store);
  t.like(conditionOf(hfc, 'Valid'), { status: 'False', reason: 'InvalidComponent', observedGeneration: hfc.metadata.generation });
  t.regex(conditionOf(hfc, 'Valid')?.message ?? '', /^Invalid Firmware Components: \[component raid is invalid/);
  t.like(conditionOf(hfc, 'ChangeDetected'), { status: 'True' });
  t.deepEqual((await companions.intent())?.updates, []);
  // Said once in the log (BMO's ValidationFailed event), with no URL.
  const said = lines.filter((l) => l.fields['reason'] === 'ValidationFailed');
  t.is(said.length, 1);
  t.false(JSON.stringify(lines).includes('pw-secret'));
});
