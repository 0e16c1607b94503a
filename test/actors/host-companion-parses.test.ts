// The FirmwareSchema its hosts share is parsed once per version the store holds (issue 30: a zod
// parse on every read of the companions was 7% of a fleet's CPU), and a new version, of the spec
// or of the status, is parsed again: what a host is told always follows what the store holds.
import test from 'ava';
import { HostCompanions } from '../../src/actors/host/companions.ts';
import type { ResourceStore, StoredObject } from '../../src/ports/index.ts';

const SCHEMA_KEY = 'lab/schema-1';

interface Version {
  resourceVersion: string | undefined;
  schema: Record<string, unknown>;
}

// A store holding one HostFirmwareSettings per host, all following one FirmwareSchema, built
// afresh on every get as the KV store builds it. Counts how often a reader looked into the
// schema's spec (a parse does).
function fakeStore(version: Version): { store: ResourceStore; schemaReads: () => number } {
  let reads = 0;
  const store = {
    get: async (kind: string, key: string): Promise<StoredObject | undefined> => {
      if (kind === 'HostFirmwareSettings') {
        return {
          apiVersion: 'metal3.io/v1alpha1', kind, metadata: { name: key.split('/')[1]!, namespace: 'lab', resourceVersion: '1' },
          spec: { settings: { ProcTurboMode: 'Disabled' } },
          status: { settings: { ProcTurboMode: 'Enabled' }, schema: { name: 'schema-1', namespace: 'lab' } },
        } as unknown as StoredObject;
      }
      if (kind !== 'FirmwareSchema' || key !== SCHEMA_KEY) return undefined;
      const object = { apiVersion: 'metal3.io/v1alpha1', kind, metadata: { name: 'schema-1', namespace: 'lab', resourceVersion: version.resourceVersion } };
      Object.defineProperty(object, 'spec', { enumerable: true, get: () => (reads++, { schema: version.schema }) });
      return object as unknown as StoredObject;
    },
  } as unknown as ResourceStore;
  return { store, schemaReads: () => reads };
}

const log = { debug() {}, info() {}, warn() {}, error() {}, child() { return log; } } as never;
const clock = { now: () => 0, setTimeout: () => ({}) as never, clearTimeout() {} } as never;
const TURBO = { attribute_type: 'Enumeration', allowable_values: ['Enabled', 'Disabled'] };

test('host companions - hosts sharing a FirmwareSchema parse it once; a new version is read anew', async (t) => {
  const version: Version = { resourceVersion: '1', schema: { ProcTurboMode: TURBO } };
  const { store, schemaReads } = fakeStore(version);
  const one = new HostCompanions('lab/h1', store, log, clock);
  const two = new HostCompanions('lab/h2', store, log, clock);

  t.like(await one.intent(), { settings: { ProcTurboMode: 'Disabled' }, valid: true });
  const afterFirst = schemaReads();
  t.true(afterFirst > 0);
  t.like(await two.intent(), { settings: { ProcTurboMode: 'Disabled' }, valid: true });
  t.like(await one.intent(), { settings: { ProcTurboMode: 'Disabled' }, valid: true });
  t.is(schemaReads(), afterFirst, 'the same version is not parsed again');

  // A new version of the schema (a new resourceVersion) that no longer allows the wish.
  version.resourceVersion = '2';
  version.schema = { ProcTurboMode: { ...TURBO, allowable_values: ['Enabled'] } };
  t.like(await two.intent(), { settings: {}, valid: false });
  t.true(schemaReads() > afterFirst);
});

test('host companions - a FirmwareSchema without a resourceVersion is parsed on every read', async (t) => {
  const { store, schemaReads } = fakeStore({ resourceVersion: undefined, schema: { ProcTurboMode: TURBO } });
  const one = new HostCompanions('lab/h1', store, log, clock);
  await one.intent();
  const once = schemaReads();
  await one.intent();
  t.true(schemaReads() > once);
});
