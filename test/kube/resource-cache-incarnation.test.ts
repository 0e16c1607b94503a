// The watch's DELETED event carries the deleted object's last state with the delete's revision
// (reference/kube-api.md §3). An object created again under the same name (our own create, seen
// before the watch delivered the old one's DELETED) is another incarnation, with another uid and
// a later resourceVersion: the late DELETED of the old one must not remove it.
import test from 'ava';
import type { CacheChange } from '../../src/adapters/kube/resource-cache.ts';
import { ResourceCache } from '../../src/adapters/kube/resource-cache.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { silentLogger } from '../../src/ports/index.ts';

const hd = (uid: string, rv: string) => ({ apiVersion: 'metal3.io/v1alpha1', kind: 'HardwareData', metadata: { name: 'h', namespace: 'lab', uid, resourceVersion: rv }, spec: {} });

function cache(): { cache: ResourceCache; changes: string[] } {
  const c = new ResourceCache(RESOURCES.HardwareData, silentLogger);
  const changes: string[] = [];
  c.subscribe((ch: CacheChange) => changes.push(ch.type === 'deleted' ? `deleted ${ch.prev.metadata.uid}` : `upsert ${ch.next.metadata.uid} ${ch.next.metadata.resourceVersion}`));
  return { cache: c, changes };
}

test('resource cache - a late DELETED of an earlier incarnation does not remove the object created again', (t) => {
  const { cache: c, changes } = cache();
  c.observe('add', hd('old', '5'));
  // We deleted it (no finalizers: the server removed it at revision 10) and created it again.
  c.removed('lab/h', '5');
  c.written(hd('new', '11'));
  // The watch catches up: the old one's DELETED (revision 10), then the new one's ADDED.
  c.observe('delete', hd('old', '10'));
  c.observe('add', hd('new', '11'));
  t.is(c.get('lab/h')?.metadata.uid, 'new');
  t.deepEqual(changes, ['upsert old 5', 'deleted old', 'upsert new 11']);
});

test('resource cache - a DELETED of the cached incarnation still removes it', (t) => {
  const { cache: c, changes } = cache();
  c.observe('add', hd('a', '5'));
  c.written(hd('a', '7'));
  // A re-list that no longer has it reports the informer's own (older) copy: same uid, gone.
  c.observe('delete', hd('a', '5'));
  t.is(c.get('lab/h'), undefined);
  t.deepEqual(changes, ['upsert a 5', 'upsert a 7', 'deleted a']);
});
