import test from 'ava';
import { storeTarget } from '../../src/cluster/commands/command-target.ts';
import type { ResourceIntent, ResourceStore } from '../../src/ports/index.ts';

// A kind's commandIntent says what a command writes; the target only carries that write to the
// one store, whatever the kind.

function recording(rv: { now: string }) {
  const intents: string[] = [];
  const store = {
    get: async (kind: string, key: string) => ({ kind, metadata: { name: key, resourceVersion: rv.now } }),
    applyIntent: async (kind: string, key: string, intent: ResourceIntent) => {
      intents.push(`${kind} ${key} ${JSON.stringify(intent)}`);
      return { kind, metadata: { name: key, resourceVersion: rv.now } };
    },
    requestDelete: async () => 'missing' as const,
  } as unknown as ResourceStore;
  return { store, intents };
}

test('command target - any kind records its annotations and spec fields as one intent, and says whether anything changed', async (t) => {
  const rv = { now: '1' };
  const { store, intents } = recording(rv);
  const target = storeTarget({ ...store, applyIntent: async (kind: string, key: string, intent: ResourceIntent) => {
    await store.applyIntent(kind as 'MaasMachine', key, intent);
    rv.now = '2';
    return { kind, metadata: { name: key, resourceVersion: rv.now } };
  } } as unknown as ResourceStore, 'MaasMachine');
  const first = await target.write('capi/w0', { annotations: { a: '' }, spec: { online: true } });
  t.true(first.changed);
  t.deepEqual(intents, ['MaasMachine capi/w0 {"annotations":{"a":""},"spec":{"online":true}}']);
  t.is(target.what('powerOff', 'capi/w0'), 'powerOff for MaasMachine capi/w0');
  t.is(target.noun, 'MaasMachine');
});

test('command target - a write the store had already (its version unchanged) is not a change', async (t) => {
  const { store } = recording({ now: '7' });
  const target = storeTarget(store, 'BareMetalHost', 'host');
  t.false((await target.write('lab/h', { annotations: { a: '' } })).changed);
});

test('command target - a kind with its own noun (a BareMetalHost: host) is named by its key; a deletion of one gone already is deleted', async (t) => {
  const { store, intents } = recording({ now: '1' });
  const target = storeTarget(store, 'BareMetalHost', 'host');
  await target.write('lab/h', { spec: { online: false }, annotations: { x: null } });
  t.deepEqual(intents, ['BareMetalHost lab/h {"annotations":{"x":null},"spec":{"online":false}}']);
  t.is(target.what('powerOff', 'lab/h'), 'powerOff for lab/h');
  t.is(target.noun, 'host');
  t.is(await target.requestDelete('lab/h'), 'deleted');
});
