import test from 'ava';
import { NS, WIDGETS, meta, widget, widgetsPath, withApi } from './helpers.ts';
import { openWatch } from './watch-stream.ts';

interface List {
  metadata: { resourceVersion: string };
  items: Record<string, unknown>[];
}

test('start revision - a fresh server lists a positive RV, and a watch from it sends only later writes', async (t) => {
  const { server, custom } = await withApi(t, { startResourceVersion: 40 });
  const fresh = await custom.listNamespacedCustomObject({ ...WIDGETS, namespace: NS }) as List;
  t.deepEqual(fresh.items, []);
  t.true(Number(fresh.metadata.resourceVersion) > 0, `a real apiserver never lists RV ${fresh.metadata.resourceVersion}`);

  const w = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=${fresh.metadata.resourceVersion}`);
  t.teardown(() => w.close());
  server.create(widget('a'));
  const added = await w.next();
  t.is(added.type, 'ADDED');
  t.is(meta(added.object).name, 'a');
  t.true(Number(meta(added.object).resourceVersion) > Number(fresh.metadata.resourceVersion));
});

test('start revision - a watch from before the start is 410; resourceVersion=0 still starts anywhere', async (t) => {
  const { server } = await withApi(t, { startResourceVersion: 40 });
  server.create(widget('a'));
  const old = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=3`);
  const gone = await old.next();
  t.deepEqual([gone.type, gone.object.code, gone.object.reason], ['ERROR', 410, 'Expired']);
  await old.ended;

  const any = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=0`);
  t.teardown(() => any.close());
  const added = await any.next();
  t.deepEqual([added.type, meta(added.object).name], ['ADDED', 'a']);
});
