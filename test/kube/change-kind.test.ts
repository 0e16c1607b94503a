import test from 'ava';
import { classifyChange } from '../../src/adapters/kube/change-kind.ts';
import type { RawObject } from '../../src/adapters/kube/raw-object.ts';

const host = (patch: { rv?: string; spec?: unknown; status?: unknown; annotations?: Record<string, string>; finalizers?: string[] } = {}): RawObject => ({
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { name: 'h', namespace: 'lab', resourceVersion: patch.rv ?? '1', ...(patch.annotations ? { annotations: patch.annotations } : {}), ...(patch.finalizers ? { finalizers: patch.finalizers } : {}), managedFields: [{ manager: patch.rv ?? 'x' }] },
  spec: patch.spec ?? { online: true },
  ...(patch.status !== undefined ? { status: patch.status } : {}),
});

test('change kind - a new object is a spec change', (t) => {
  t.is(classifyChange(undefined, host()), 'spec');
});

test('change kind - a status-only update (our own write) is a status change', (t) => {
  t.is(classifyChange(host({ status: { a: 1 } }), host({ rv: '2', status: { a: 2 } })), 'status');
});

test('change kind - spec, annotations and finalizers are spec changes', (t) => {
  t.is(classifyChange(host(), host({ rv: '2', spec: { online: false } })), 'spec');
  t.is(classifyChange(host(), host({ rv: '2', annotations: { x: 'y' } })), 'spec');
  t.is(classifyChange(host(), host({ rv: '2', finalizers: ['f'] })), 'spec');
});

test('change kind - a new resourceVersion alone, or the owner annotation, is no change', (t) => {
  t.is(classifyChange(host(), host({ rv: '2' })), 'none');
  t.is(classifyChange(host(), host({ rv: '3', annotations: { 'metalfleet.io/owner': '1/2/a' } })), 'none');
});
