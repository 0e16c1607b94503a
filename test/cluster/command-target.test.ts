import test from 'ava';
import { hostStoreTarget, objectStoreTarget } from '../../src/cluster/commands/command-target.ts';
import type { HostStore, ObjectStore } from '../../src/ports/index.ts';

// A kind's commandIntent says what a command writes; the target only carries that write to the
// store that keeps the kind, whatever the kind.

test('command target - an object-store kind records annotations and spec fields, and says whether anything changed', async (t) => {
  const calls: string[] = [];
  let changed = true;
  const objects = {
    get: async (kind: string, key: string) => ({ kind, metadata: { name: key } }),
    patchSpec: async (kind: string, key: string, patch: Record<string, unknown>) => void calls.push(`spec ${kind} ${key} ${JSON.stringify(patch)}`),
    patchAnnotations: async (kind: string, key: string, a: Record<string, string | null>) => {
      calls.push(`annotate ${kind} ${key} ${JSON.stringify(a)}`);
      return changed;
    },
  } as unknown as ObjectStore;
  const target = objectStoreTarget(objects, 'MaasMachine');
  const first = await target.write('capi/w0', { annotations: { a: '' }, spec: { online: true } });
  t.true(first.changed);
  t.deepEqual(calls, ['spec MaasMachine capi/w0 {"online":true}', 'annotate MaasMachine capi/w0 {"a":""}']);
  changed = false;
  t.false((await target.write('capi/w0', { annotations: { a: '' } })).changed, 'a repeat changes nothing');
  t.is(target.requestDelete, undefined, 'no deletion by command for these');
  t.is(target.what('powerOff', 'capi/w0'), 'powerOff for MaasMachine capi/w0');
});

test('command target - the host store records spec.online and annotations, and refuses any other spec field', async (t) => {
  const intents: unknown[] = [];
  const store = { applyIntent: async (_key: string, intent: unknown) => { intents.push(intent); return { applied: intent }; } } as unknown as HostStore;
  const target = hostStoreTarget(store);
  t.true((await target.write('lab/h', { spec: { online: false }, annotations: { x: null } })).changed);
  t.deepEqual(intents, [{ annotations: { x: null }, online: false }]);
  await t.throwsAsync(() => target.write('lab/h', { spec: { image: 'x' } }), { message: /spec\.online only, not spec\.image/ });
  t.is(target.what('powerOff', 'lab/h'), 'powerOff for lab/h');
});
