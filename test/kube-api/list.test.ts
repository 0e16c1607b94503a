import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { NS, WIDGETS, meta, raw, widget, widgetsPath, withApi } from './helpers.ts';

interface List {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: Record<string, unknown>[];
}

const names = (l: List): string[] => l.items.map((i) => String(meta(i).name));

test('list - pages with limit and continue, all at the first page RV', async (t) => {
  const { server, custom } = await withApi(t);
  for (const n of ['a', 'b', 'c', 'd', 'e']) server.create(widget(n));
  const first = await custom.listNamespacedCustomObject({ ...WIDGETS, namespace: NS, limit: 2 }) as List;
  t.deepEqual(names(first), ['a', 'b']);
  t.is(first.metadata.remainingItemCount, 3);
  const token = JSON.parse(Buffer.from(first.metadata.continue ?? '', 'base64url').toString()) as unknown;
  t.deepEqual(token, { v: 'meta.k8s.io/v1', rv: 5, start: `${NS}/b\u0000` });

  server.delete({ resource: 'widgets', namespace: NS, name: 'c' });
  server.create(widget('f'));
  const second = await custom.listNamespacedCustomObject({ ...WIDGETS, namespace: NS, limit: 2, _continue: first.metadata.continue }) as List;
  t.deepEqual(names(second), ['c', 'd'], 'the snapshot of the first page');
  t.is(second.metadata.resourceVersion, '5');
  const last = await custom.listNamespacedCustomObject({ ...WIDGETS, namespace: NS, limit: 2, _continue: second.metadata.continue }) as List;
  t.deepEqual(names(last), ['e']);
  t.is(last.metadata.continue, undefined);

  const filtered = await custom.listNamespacedCustomObject({ ...WIDGETS, namespace: NS, limit: 1, labelSelector: '!nope' }) as List;
  t.truthy(filtered.metadata.continue);
  t.is(filtered.metadata.remainingItemCount, undefined, 'no count when a selector filters');
});

test('list - continue errors: with an RV 400, a bad token 400, an expired one 410 with a token to go on', async (t) => {
  const { server } = await withApi(t);
  for (const n of ['a', 'b', 'c']) server.create(widget(n));
  const first = (await raw(server, 'GET', `${widgetsPath}?limit=1`)).json() as unknown as List;
  const withRv = await raw(server, 'GET', `${widgetsPath}?limit=1&resourceVersion=3&continue=${first.metadata.continue}`);
  t.deepEqual([withRv.status, withRv.json().message], [400, 'specifying resource version is not allowed when using continue']);
  const bad = await raw(server, 'GET', `${widgetsPath}?continue=nonsense`);
  t.deepEqual([bad.status, bad.json().reason], [400, 'BadRequest']);
  t.regex(String(bad.json().message), /^invalid continue token: /);

  server.create(widget('d'));
  server.expireHistory();
  const expired = await raw(server, 'GET', `${widgetsPath}?limit=1&continue=${first.metadata.continue}`);
  t.is(expired.status, 410);
  const status = expired.json() as { reason: string; message: string; metadata: { continue: string } };
  t.is(status.reason, 'Expired');
  t.regex(status.message, /^The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter, or use the continue token/);
  const resumed = (await raw(server, 'GET', `${widgetsPath}?limit=10&continue=${status.metadata.continue}`)).json() as unknown as List;
  t.deepEqual(names(resumed), ['b', 'c', 'd'], 'inconsistent continue: the rest at the latest RV');
});

test('list - an RV with a limit is an exact list, rebuilt from history until it is compacted', async (t) => {
  const { server } = await withApi(t);
  server.create(widget('a'));
  server.create(widget('b'));
  server.patch({ resource: 'widgets', namespace: NS, name: 'a' }, { spec: { size: 5 } });
  server.delete({ resource: 'widgets', namespace: NS, name: 'b' });
  const exact = (await raw(server, 'GET', `${widgetsPath}?limit=10&resourceVersion=2`)).json() as unknown as List;
  t.deepEqual(names(exact), ['a', 'b']);
  t.is((exact.items[0]?.spec as { size: number }).size, 1);
  t.is(exact.metadata.resourceVersion, '2');
  const match = (await raw(server, 'GET', `${widgetsPath}?resourceVersion=1&resourceVersionMatch=Exact`)).json() as unknown as List;
  t.deepEqual(names(match), ['a']);
  const notOlder = (await raw(server, 'GET', `${widgetsPath}?resourceVersion=1`)).json() as unknown as List;
  t.deepEqual([names(notOlder), notOlder.metadata.resourceVersion], [['a'], '4'], 'without a limit: not older than, i.e. now');

  server.expireHistory();
  const gone = await raw(server, 'GET', `${widgetsPath}?limit=10&resourceVersion=2`);
  t.deepEqual([gone.status, gone.json().reason, gone.json().message], [410, 'Expired', 'The resourceVersion for the provided list is too old.']);
  const option = await raw(server, 'GET', `${widgetsPath}?resourceVersionMatch=Exact`);
  t.deepEqual([option.status, option.json().message], [422,
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided']);
});

test('list - a future RV waits for the store to reach it', async (t) => {
  const { server } = await withApi(t);
  server.create(widget('a'));
  const pending = raw(server, 'GET', `${widgetsPath}?resourceVersion=2`);
  const getPending = raw(server, 'GET', `${widgetsPath}/a?resourceVersion=2`);
  await waitFor(() => server.inFlight({ resource: 'widgets' }) === 2, 3_000, 'both requests waiting');
  server.create(widget('b'));
  const list = (await pending).json() as unknown as List;
  t.deepEqual([names(list), list.metadata.resourceVersion], [['a', 'b'], '2']);
  t.is((await getPending).status, 200);
});

test('list - a future RV that is not reached within 3 s is a 504', async (t) => {
  const { server } = await withApi(t);
  const r = await raw(server, 'GET', `${widgetsPath}?resourceVersion=7`);
  t.is(r.status, 504);
  t.is(r.headers.get('retry-after'), '1');
  t.deepEqual(r.json(), {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Timeout: Too large resource version: 7, current: 0', reason: 'Timeout',
    details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 }, code: 504,
  });
});

test('list - custom resource items carry apiVersion and kind; built-in list items do not', async (t) => {
  const { server, core } = await withApi(t);
  server.create(widget('a'));
  await core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 's' } } });
  const widgets = (await raw(server, 'GET', widgetsPath)).json() as unknown as List;
  t.deepEqual(Object.keys(widgets), ['apiVersion', 'kind', 'metadata', 'items']);
  t.like(widgets.items[0], { apiVersion: 'test.metalfleet.io/v1alpha1', kind: 'Widget' });
  const secrets = (await raw(server, 'GET', `/api/v1/namespaces/${NS}/secrets`)).json() as unknown as List;
  t.deepEqual([secrets.kind, secrets.apiVersion], ['SecretList', 'v1']);
  t.deepEqual(Object.keys(secrets.items[0] ?? {}), ['metadata', 'type']);
});
