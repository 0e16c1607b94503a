import test from 'ava';
import { storeTarget } from '../../src/cluster/commands/command-target.ts';
import type { ResourceIntent, ResourceStore } from '../../src/ports/index.ts';

// A kind's commandIntent says what a command writes; the target only carries that write to the
// one store, whatever the kind.

// A store that records each intent and answers with `changed` as the store judged it.
function recording(changed: { now: boolean }) {
  const intents: string[] = [];
  const store = {
    get: async (kind: string, key: string) => ({ kind, metadata: { name: key, resourceVersion: '1' } }),
    applyIntent: async (kind: string, key: string, intent: ResourceIntent) => {
      intents.push(`${kind} ${key} ${JSON.stringify(intent)}`);
      return { changed: changed.now, object: { kind, metadata: { name: key, resourceVersion: '2' } } };
    },
    requestDelete: async () => 'missing' as const,
  } as unknown as ResourceStore;
  return { store, intents };
}

test('command target - any kind records its annotations and spec fields as one intent, and says whether anything changed', async (t) => {
  const { store, intents } = recording({ now: true });
  const target = storeTarget(store, 'MaasMachine');
  const first = await target.write('capi/w0', { annotations: { a: '' }, spec: { online: true } });
  t.true(first.changed);
  t.deepEqual(first.object, { kind: 'MaasMachine', metadata: { name: 'capi/w0', resourceVersion: '2' } });
  t.deepEqual(intents, ['MaasMachine capi/w0 {"annotations":{"a":""},"spec":{"online":true}}']);
  t.is(target.what('powerOff', 'capi/w0'), 'powerOff for MaasMachine capi/w0');
  t.is(target.noun, 'MaasMachine');
});

test('command target - a write the store had already is not a change, though the version moved since the target last read it', async (t) => {
  // Another command recorded the same intent between this one's read and its write: the store's
  // word (judged on the version it wrote over) counts, not the version seen before.
  const { store } = recording({ now: false });
  const target = storeTarget(store, 'BareMetalHost', 'host');
  t.false((await target.write('lab/h', { annotations: { a: '' } })).changed);
});

test('command target - a kind with its own noun (a BareMetalHost: host) is named by its key; a deletion of one gone already is deleted', async (t) => {
  const { store, intents } = recording({ now: true });
  const target = storeTarget(store, 'BareMetalHost', 'host');
  await target.write('lab/h', { spec: { online: false }, annotations: { x: null } });
  t.deepEqual(intents, ['BareMetalHost lab/h {"annotations":{"x":null},"spec":{"online":false}}']);
  t.is(target.what('powerOff', 'lab/h'), 'powerOff for lab/h');
  t.is(target.noun, 'host');
  t.is(await target.requestDelete('lab/h'), 'deleted');
});
