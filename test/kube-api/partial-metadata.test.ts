// A metadata client (client-go's metadata package, informers on PartialObjectMetadata) asks for
// `as=PartialObjectMetadata` on get and watch and `as=PartialObjectMetadataList` on list; the
// real server answers with only the objects' metadata (handlers/response.go).
import test from 'ava';
import { NS, raw, widget, widgetsPath, withApi } from './helpers.ts';
import { openWatch } from './watch-stream.ts';

const AS = (kind: string): string => `application/vnd.kubernetes.protobuf;as=${kind};g=meta.k8s.io;v=v1,application/json;as=${kind};g=meta.k8s.io;v=v1,application/json`;

async function getAs(url: string, accept: string): Promise<{ status: number; body: Record<string, unknown>; type: string | null }> {
  const res = await fetch(url, { headers: { Accept: accept } });
  return { status: res.status, body: await res.json() as Record<string, unknown>, type: res.headers.get('content-type') };
}

test('partial metadata - get, list and watch of custom resources and built-in kinds answer with metadata only', async (t) => {
  const { server } = await withApi(t);
  const created = server.create(widget('w1', { size: 1 }, { metadata: { name: 'w1', namespace: NS, labels: { a: 'b' } } }));
  server.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: NS }, stringData: { k: 'v' } });

  const one = await getAs(`${server.url}${widgetsPath}/w1`, AS('PartialObjectMetadata'));
  t.is(one.status, 200);
  t.is(one.type, 'application/json');
  t.deepEqual(one.body, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: created.metadata });

  const list = await getAs(`${server.url}${widgetsPath}`, AS('PartialObjectMetadataList'));
  t.deepEqual(list.body, {
    kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: String(server.resourceVersion()) },
    items: [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: created.metadata }],
  });
  const secrets = await getAs(`${server.url}/api/v1/namespaces/${NS}/secrets`, AS('PartialObjectMetadataList'));
  const items = secrets.body.items as { metadata: { name: string } }[];
  t.deepEqual(items.map((i) => [Object.keys(i), i.metadata.name]), [[['kind', 'apiVersion', 'metadata'], 's1']]);

  // The list kind on a single object, and the single kind on a list, are 406s.
  const wrong = await getAs(`${server.url}${widgetsPath}`, 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1');
  t.is(wrong.status, 406);
  t.like(wrong.body, { kind: 'Status', reason: 'NotAcceptable', code: 406, message: 'you requested PartialObjectMetadata, but the requested object is a list (*unstructured.UnstructuredList)' });
  const wrongOne = await raw(server, 'GET', `/api/v1/namespaces/${NS}/secrets/s1`);
  t.is(wrongOne.status, 200);
  const notList = await getAs(`${server.url}/api/v1/namespaces/${NS}/secrets/s1`, 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1');
  t.like(notList.body, { reason: 'NotAcceptable', message: 'you requested PartialObjectMetadataList, but the requested object is not a list (*core.Secret)' });

  const w = await openWatch(server, `${widgetsPath}?watch=1&resourceVersion=${String(server.resourceVersion())}`, { Accept: AS('PartialObjectMetadata') });
  t.teardown(() => w.close());
  const updated = server.update({ ...created, spec: { size: 2 } });
  const e = await w.next();
  t.deepEqual(e, { type: 'MODIFIED', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: updated.metadata } });
});
