// A firmware read writes the host's HostFirmwareSettings and HostFirmwareComponents status, and the
// intent read that follows it gets the objects it wrote rather than a zod parse of the same
// version (issue 30: each companion was parsed about five times a host lifecycle, 7% of the scale
// bench's CPU). Nothing is kept once read: a host at rest holds no parse.
import test from 'ava';
import { HostCompanions } from '../../src/actors/host/companions.ts';
import { COMPANION_LAYOUTS } from '../../src/adapters/store/kv-layouts.ts';
import { openKvStore } from '../../src/adapters/store/kv-store.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { HostFirmwareComponents, HostFirmwareComponentsStatus, HostFirmwareSettings, HostFirmwareSettingsStatus } from '../../src/api/index.ts';
import type { BareMetalHost, FirmwareReport } from '../../src/api/index.ts';
import type { ResourceStore } from '../../src/ports/index.ts';

const KEY = 'lab/h1';
const log = { debug() {}, info() {}, warn() {}, error() {}, child() { return log; } } as never;
const clock = { now: () => Date.UTC(2026, 0, 1), setTimeout: () => ({}) as never, clearTimeout() {} } as never;
const HOST = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h1', namespace: 'lab', uid: 'u-1' } } as unknown as BareMetalHost;
const REPORT: FirmwareReport = {
  settings: { ProcTurboMode: 'Enabled' },
  schema: { ProcTurboMode: { attribute_type: 'Enumeration', allowable_values: ['Enabled', 'Disabled'] } },
  vendor: 'acme', model: 'r1',
  components: [{ component: 'bios', initialVersion: '1.0', currentVersion: '1.0' }, { component: 'bmc', initialVersion: '2.0' }],
};

// How often the two schemas parsed (the only way a read turns a stored object into a typed one).
function countParses(t: { teardown(fn: () => void): void }): () => { settings: number; components: number } {
  const counts = { settings: 0, components: 0 };
  const hook = (schema: { safeParse: (data: unknown) => unknown }, which: keyof typeof counts): void => {
    const original = schema.safeParse;
    schema.safeParse = (data: unknown) => (counts[which]++, original.call(schema, data));
    t.teardown(() => { schema.safeParse = original; });
  };
  hook(HostFirmwareSettings, 'settings');
  hook(HostFirmwareComponents, 'components');
  return () => ({ ...counts });
}

async function openStore(): Promise<ResourceStore> {
  const kv = new MemoryKvStore();
  return openKvStore({ layouts: COMPANION_LAYOUTS, bucket: async (name) => kv.bucket(name), log });
}

test.serial('host companion handoff - the intent after a firmware read parses neither companion again, and tells what a parse would', async (t) => {
  const store = await openStore();
  const parses = countParses(t);
  const companions = new HostCompanions(KEY, store, log, clock);
  t.true(await companions.registered(HOST));
  await companions.firmwareRead(HOST, REPORT);
  const before = parses();

  const intent = await companions.intent();
  t.deepEqual(parses(), before, 'the status just written is not parsed again');
  // What a reader with nothing of its own (a parse of each) is told: the same.
  t.deepEqual(intent, await new HostCompanions(KEY, store, log, clock).intent());
  t.like(intent, { settings: {}, valid: true });

  // The objects handed on are the stored ones: a parse of the status written is that status.
  const hfs = await store.get('HostFirmwareSettings', KEY);
  const hfc = await store.get('HostFirmwareComponents', KEY);
  t.deepEqual(HostFirmwareSettingsStatus.parse(hfs?.status), hfs?.status);
  t.deepEqual(HostFirmwareComponentsStatus.parse(hfc?.status), hfc?.status);
  t.deepEqual(HostFirmwareSettings.parse(hfs).status?.settings, { ProcTurboMode: 'Enabled' });
});

test.serial('host companion handoff - a firmware read that changes nothing hands on what it read: the intent parses neither again', async (t) => {
  const store = await openStore();
  const companions = new HostCompanions(KEY, store, log, clock);
  await companions.registered(HOST);
  await companions.firmwareRead(HOST, REPORT);
  await companions.intent();
  const written = await store.get('HostFirmwareSettings', KEY);
  const parses = countParses(t);
  // The same report again (a servicing after an inspection): no status to write.
  await companions.firmwareRead(HOST, REPORT);
  t.is((await store.get('HostFirmwareSettings', KEY))?.status, written?.status, 'nothing written');
  const read = parses();
  t.deepEqual(read, { settings: 1, components: 1 });
  t.deepEqual(await companions.intent(), await new HostCompanions(KEY, store, log, clock).intent());
  t.deepEqual(parses(), { settings: read.settings + 1, components: read.components + 1 }, 'only the fresh reader parsed');
});

test.serial('host companion handoff - nothing is kept once read: the next intent parses again', async (t) => {
  const store = await openStore();
  const companions = new HostCompanions(KEY, store, log, clock);
  await companions.registered(HOST);
  await companions.firmwareRead(HOST, REPORT);
  await companions.intent();
  const parses = countParses(t);
  await companions.intent();
  t.deepEqual(parses(), { settings: 1, components: 1 });
});

test.serial('host companion handoff - a status written by another after the host\'s own is parsed, not the host\'s', async (t) => {
  const store = await openStore();
  const companions = new HostCompanions(KEY, store, log, clock);
  await companions.registered(HOST);
  // The user wants what the host has: nothing to change after the read.
  await store.patchSpec('HostFirmwareSettings', KEY, { settings: { ProcTurboMode: 'Enabled' } });
  await companions.firmwareRead(HOST, REPORT);
  // Another writer (a new owner of the shard, a user's tool) changes the status in between.
  const stored = await store.get('HostFirmwareSettings', KEY);
  await store.writeStatus('HostFirmwareSettings', KEY, { ...(stored?.status as HostFirmwareSettingsStatus), settings: { ProcTurboMode: 'Disabled' } });
  const parses = countParses(t);
  // Same spec version, another status: the host has Disabled now, a change the machine must hear.
  t.like(await companions.intent(), { settings: { ProcTurboMode: 'Enabled' } });
  t.is(parses().settings, 1);
});
