// Field selectors of the stored-only workload kinds, as their Go registries declare them
// (pod/strategy.go ToSelectableFields, job JobToSelectableFields, the replication controller's;
// the core/v1 and batch/v1 field label conversions): `kubectl get pods --field-selector
// status.phase!=Running` lists instead of failing, and an unknown label is still the 400 (§9).
import test from 'ava';
import { raw, withApi } from './helpers.ts';
import { withKubectl } from './kubectl-support.ts';

const pod = (name: string, spec: object, status: object): object => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec, status });

test('builtin field selectors - pods by node, phase, IP, host network; jobs by successes; replication controllers by replicas', async (t) => {
  const { server } = await withApi(t);
  const pods = '/api/v1/namespaces/ns1/pods';
  for (const p of [
    pod('a', { nodeName: 'n1', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'sa', containers: [{ name: 'c', image: 'i' }] }, { phase: 'Running', podIP: '10.0.0.1' }),
    pod('b', { nodeName: 'n2', hostNetwork: true, containers: [{ name: 'c', image: 'i' }] }, { phase: 'Pending', nominatedNodeName: 'n3' }),
  ]) t.is((await raw(server, 'POST', pods, p)).status, 201);
  const names = async (path: string, selector: string): Promise<string[] | string> => {
    const r = await raw(server, 'GET', `${path}?fieldSelector=${encodeURIComponent(selector)}`);
    if (r.status !== 200) return `${r.status} ${String(r.json().message)}`;
    return (r.json().items as { metadata: { name: string } }[]).map((o) => o.metadata.name);
  };
  t.deepEqual(await names(pods, 'status.phase=Running'), ['a']);
  t.deepEqual(await names(pods, 'status.phase!=Running'), ['b']);
  t.deepEqual(await names(pods, 'spec.nodeName=n2'), ['b']);
  t.deepEqual(await names(pods, 'spec.hostNetwork=false'), ['a'], 'hostNetwork reads false when unset');
  t.deepEqual(await names(pods, 'spec.hostNetwork=true,status.nominatedNodeName=n3'), ['b']);
  t.deepEqual(await names(pods, 'status.podIP=10.0.0.1,spec.restartPolicy=Always,spec.schedulerName=default-scheduler,spec.serviceAccountName=sa'), ['a']);
  t.deepEqual(await names('/api/v1/pods', 'metadata.namespace=ns1,status.podIP='), ['b']);
  t.is(await names(pods, 'spec.containers=c'), '400 field label not supported: spec.containers');

  const jobs = '/apis/batch/v1/namespaces/ns1/jobs';
  t.is((await raw(server, 'POST', jobs, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'done' }, spec: { template: {} }, status: { succeeded: 1 } })).status, 201);
  t.is((await raw(server, 'POST', jobs, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'new' }, spec: { template: {} } })).status, 201);
  t.deepEqual(await names(jobs, 'status.successful=1'), ['done']);
  t.deepEqual(await names(jobs, 'status.successful=0'), ['new'], 'no successes read 0');

  const rcs = '/api/v1/namespaces/ns1/replicationcontrollers';
  t.is((await raw(server, 'POST', rcs, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'r' }, spec: {} })).status, 201);
  t.deepEqual(await names(rcs, 'status.replicas=0'), ['r']);
});

test('builtin field selectors - kubectl get pods --field-selector lists what matches, or says there is none', async (t) => {
  const k = await withKubectl(t);
  const file = await k.file('pod.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\nspec:\n  nodeName: n1\n  containers: [{name: c, image: busybox}]\n');
  await k.ok('apply', '-f', file);
  t.is(await k.ok('get', 'pods', '-A', '--field-selector', 'spec.nodeName=n1', '-o', 'name'), 'pod/p1\n');
  const none = await k.run('get', 'pods', '-A', '--field-selector', 'status.phase=Running');
  t.deepEqual([none.code, none.stdout, none.stderr], [0, '', 'No resources found\n']);
});
