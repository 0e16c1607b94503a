// A host's companions are parsed once per version the store holds (issue 30: a zod parse on every
// read of them was 7% of a fleet's CPU), and a new version, of the spec or of the status, is
// parsed again: what the host is told always follows what the store holds.
import test from 'ava';
import { HostCompanions } from '../../src/actors/host/companions.ts';
import type { ResourceStore, StoredObject } from '../../src/ports/index.ts';

const KEY = 'lab/h1';

interface Version {
  resourceVersion: string;
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
}

// A store holding one HostFirmwareSettings, built afresh on every get as the KV store builds it,
// its status kept until replaced. Counts how often a reader looked into its spec (a parse does).
function fakeStore(version: Version): { store: ResourceStore; specReads: () => number } {
  let reads = 0;
  const store = {
    get: async (kind: string, key: string): Promise<StoredObject | undefined> => {
      if (kind !== 'HostFirmwareSettings' || key !== KEY) return undefined;
      const object = {
        apiVersion: 'metal3.io/v1alpha1', kind, metadata: { name: 'h1', namespace: 'lab', resourceVersion: version.resourceVersion },
        status: version.status,
      };
      Object.defineProperty(object, 'spec', { enumerable: true, get: () => (reads++, version.spec) });
      return object as unknown as StoredObject;
    },
  } as unknown as ResourceStore;
  return { store, specReads: () => reads };
}

const log = { debug() {}, info() {}, warn() {}, error() {}, child() { return log; } } as never;
const clock = { now: () => 0, setTimeout: () => ({}) as never, clearTimeout() {} } as never;

test('host companions - an unchanged HostFirmwareSettings is parsed once; a new status or spec is read anew', async (t) => {
  const version: Version = { resourceVersion: '1', spec: { settings: { ProcTurboMode: 'Disabled' } }, status: { settings: { ProcTurboMode: 'Enabled' } } };
  const { store, specReads } = fakeStore(version);
  const companions = new HostCompanions(KEY, store, log, clock);

  t.deepEqual((await companions.intent())?.settings, { ProcTurboMode: 'Disabled' });
  const afterFirst = specReads();
  t.true(afterFirst > 0);
  t.deepEqual((await companions.intent())?.settings, { ProcTurboMode: 'Disabled' });
  t.is(specReads(), afterFirst, 'the same version is not parsed again');

  // A status write (same resourceVersion, a new status): the host has the setting now.
  version.status = { settings: { ProcTurboMode: 'Disabled' } };
  t.deepEqual((await companions.intent())?.settings, {});
  t.true(specReads() > afterFirst);

  // A spec write (a new resourceVersion): a new wish.
  const afterStatus = specReads();
  version.resourceVersion = '2';
  version.spec = { settings: { ProcTurboMode: 'Enabled' } };
  t.deepEqual((await companions.intent())?.settings, { ProcTurboMode: 'Enabled' });
  t.true(specReads() > afterStatus);
});

test('host companions - an object without a resourceVersion is parsed on every read', async (t) => {
  const version: Version = { resourceVersion: '1', spec: { settings: {} }, status: { settings: {} } };
  const { store, specReads } = fakeStore(version);
  const bare = { get: async (kind: string, key: string) => {
    const o = kind === 'HostFirmwareSettings' ? await store.get('HostFirmwareSettings', key) : undefined;
    if (o) (o.metadata as { resourceVersion?: string }).resourceVersion = undefined;
    return o;
  } } as unknown as ResourceStore;
  const companions = new HostCompanions(KEY, bare, log, clock);
  await companions.intent();
  const once = specReads();
  await companions.intent();
  t.true(specReads() > once);
});

