import test from 'ava';
import type { CacheChange } from '../../src/adapters/kube/resource-cache.ts';
import { ResourceCache } from '../../src/adapters/kube/resource-cache.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { silentLogger } from '../../src/ports/index.ts';

const obj = (rv: string, spec: Record<string, unknown> = { online: true }, status?: Record<string, unknown>) => ({
  apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h', namespace: 'lab', resourceVersion: rv }, spec, ...(status ? { status } : {}),
});

function cache(): { cache: ResourceCache; changes: string[] } {
  const c = new ResourceCache(RESOURCES.BareMetalHost, silentLogger);
  const changes: string[] = [];
  c.subscribe((ch: CacheChange) => changes.push(ch.type === 'deleted' ? `deleted ${ch.key}` : `${ch.change} ${ch.next.metadata.resourceVersion}`));
  return { cache: c, changes };
}

test('resource cache - watch events and write answers become one ordered stream of changes', (t) => {
  const { cache: c, changes } = cache();
  c.observe('add', obj('1'));
  c.written(obj('2', { online: true }, { state: 'registering' }));
  // The watch catches up with our own write: nothing new.
  c.observe('update', obj('2', { online: true }, { state: 'registering' }));
  c.observe('update', obj('3', { online: false }, { state: 'registering' }));
  t.deepEqual(changes, ['spec 1', 'status 2', 'spec 3']);
  t.is(c.get('lab/h')?.metadata.resourceVersion, '3');
});

test('resource cache - a watch event older than our own write is ignored', (t) => {
  const { cache: c, changes } = cache();
  c.observe('add', obj('1'));
  c.written(obj('5', { online: true }, { state: 'inspecting' }));
  c.observe('update', obj('4', { online: true }, { state: 'registering' }));
  t.deepEqual(changes, ['spec 1', 'status 5']);
  t.is((c.get('lab/h') as { status?: { state?: string } }).status?.state, 'inspecting');
});

test('resource cache - an object our write deleted does not come back from late watch events', (t) => {
  const { cache: c, changes } = cache();
  c.observe('add', obj('1'));
  c.removed('lab/h', '6');
  c.observe('update', obj('6'));
  t.is(c.get('lab/h'), undefined);
  c.observe('delete', obj('7'));
  // A new object of the same name is new.
  c.observe('add', obj('9'));
  t.deepEqual(changes, ['spec 1', 'deleted lab/h', 'spec 9']);
});

test('resource cache - an event that is not an object with a name is ignored', (t) => {
  const { cache: c, changes } = cache();
  t.false(c.observe('add', { metadata: {} }));
  t.false(c.observe('add', 'nonsense'));
  t.deepEqual(changes, []);
});
