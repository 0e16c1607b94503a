// StatefulSets as kube-apiserver 1.34 keeps them (pkg/apis/apps/v1 SetDefaults_StatefulSet, the
// core/v1 pod template and PersistentVolumeClaim defaults, the apps/v1 conversion that names each
// volumeClaimTemplate's apiVersion and kind, pkg/registry/apps/statefulset's strategy), as kubectl
// shows them: `get -o yaml`, a second apply, `diff`, `get -o wide`, `rollout status`, `scale`.
import test from 'ava';
import { rows, withKubectl } from './kubectl-support.ts';

const sts = (extra = ''): string => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default, labels: {app: db}}
spec:
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: "postgres:16"
        ports: [{name: pg, containerPort: 5432}]
        volumeMounts: [{name: data, mountPath: /data}]
      volumes:
      - name: conf
        configMap: {name: db-conf}
${extra}  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests: {storage: 1Gi}
`;

interface Sts {
  metadata: { generation?: number; resourceVersion: string };
  spec: Record<string, unknown> & { template: { spec: Record<string, unknown> & { containers: Record<string, unknown>[]; volumes: unknown[] } }; volumeClaimTemplates: unknown[] };
  status?: unknown;
}

test('kubectl statefulsets - a StatefulSet gets the real server\'s defaults, generation 1 and the zero status', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('db.yaml', sts()));
  const got = JSON.parse(await k.ok('get', 'statefulset', 'db', '-o', 'json')) as Sts;
  t.is(got.metadata.generation, 1);
  t.deepEqual(got.status, { replicas: 0, availableReplicas: 0 });
  const { template, volumeClaimTemplates, selector: _s, serviceName: _n, ...spec } = got.spec;
  t.deepEqual(spec, {
    replicas: 1,
    podManagementPolicy: 'OrderedReady',
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    revisionHistoryLimit: 10,
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
  });
  const { containers, volumes, ...pod } = template.spec;
  t.deepEqual(pod, { restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'default-scheduler' });
  t.deepEqual(containers, [{
    name: 'db', image: 'postgres:16', ports: [{ name: 'pg', containerPort: 5432, protocol: 'TCP' }], resources: {}, volumeMounts: [{ name: 'data', mountPath: '/data' }],
    terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent',
  }]);
  t.deepEqual(volumes, [{ name: 'conf', configMap: { name: 'db-conf', defaultMode: 420 } }]);
  // Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec names each template; SetDefaults_PersistentVolumeClaim(Spec).
  t.deepEqual(volumeClaimTemplates, [{
    apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
    status: { phase: 'Pending' },
  }]);
});

test('kubectl statefulsets - defaults fill only what is missing; only a spec change bumps generation', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('db.yaml', sts(`  podManagementPolicy: Parallel
  updateStrategy: {type: OnDelete}
  persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete}
`)));
  const get = async (): Promise<Sts> => JSON.parse(await k.ok('get', 'statefulset', 'db', '-o', 'json')) as Sts;
  const first = await get();
  t.is(first.spec.podManagementPolicy, 'Parallel');
  t.deepEqual(first.spec.updateStrategy, { type: 'OnDelete' });
  t.deepEqual(first.spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Delete', whenScaled: 'Retain' });
  await k.ok('label', 'statefulset', 'db', 'tier=data');
  t.is((await get()).metadata.generation, 1);
  await k.ok('patch', 'statefulset', 'db', '--type=merge', '-p', '{"spec":{"replicas":3}}');
  t.is((await get()).metadata.generation, 2);
});

for (const mode of ['client-side', 'server-side'] as const) {
  test(`kubectl statefulsets - a second ${mode} apply changes nothing and diff is empty`, async (t) => {
    const k = await withKubectl(t);
    const file = await k.file('db.yaml', sts());
    const flags = mode === 'server-side' ? ['--server-side'] : [];
    await k.ok('apply', ...flags, '-f', file);
    const before = JSON.parse(await k.ok('get', 'statefulset', 'db', '-o', 'json')) as Sts;
    const again = await k.ok('apply', ...flags, '-f', file);
    // Client-side, kubectl resends the volumeClaimTemplates whole (a list without a patch strategy
    // differs from the live one, which has apiVersion, kind and status): `configured`, as on a real
    // server, and the write that follows changes nothing.
    t.regex(again, mode === 'server-side' ? /serverside-applied/ : /configured/);
    const after = JSON.parse(await k.ok('get', 'statefulset', 'db', '-o', 'json')) as Sts;
    t.is(after.metadata.resourceVersion, before.metadata.resourceVersion);
    const diff = await k.run('diff', ...flags, '-f', file);
    t.is(diff.code, 0, diff.stdout + diff.stderr);
    t.is(diff.stdout, '');
  });
}

test('kubectl statefulsets - get -o wide shows READY, CONTAINERS and IMAGES', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('db.yaml', sts()));
  const table = rows(await k.ok('get', 'statefulset', '-o', 'wide'));
  t.deepEqual(table[0], ['NAME', 'READY', 'AGE', 'CONTAINERS', 'IMAGES']);
  t.deepEqual([table[1]?.[0], table[1]?.[1], table[1]?.[3], table[1]?.[4]], ['db', '0/1', 'db', 'postgres:16']);
});

test('kubectl statefulsets - rollout status waits for a controller to observe the spec, as without a controller manager', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('db.yaml', sts()));
  const r = await k.run('rollout', 'status', 'statefulset/db', '--timeout=1s');
  t.not(r.code, 0);
  t.regex(r.stdout, /Waiting for statefulset spec update to be observed/);
  t.notRegex(r.stderr, /only available for RollingUpdate/);
});

test('kubectl statefulsets - kubectl scale sets spec.replicas through the scale subresource', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('db.yaml', sts()));
  t.regex(await k.ok('scale', 'statefulset', 'db', '--replicas=3'), /statefulset.apps\/db scaled/);
  const got = JSON.parse(await k.ok('get', 'statefulset', 'db', '-o', 'json')) as Sts;
  t.is(got.spec.replicas, 3);
  t.is(got.metadata.generation, 2);
  const scale = JSON.parse(await k.ok('get', '--raw', '/apis/apps/v1/namespaces/default/statefulsets/db/scale')) as { spec: unknown; status: unknown };
  t.deepEqual([scale.spec, scale.status], [{ replicas: 3 }, { replicas: 0, selector: 'app=db' }]);
});

test('kubectl statefulsets - rollout history and undo read ControllerRevisions: none without a controller', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('db.yaml', sts()));
  t.regex(await k.ok('rollout', 'history', 'statefulset/db'), /No rollout history found\./);
  const undo = await k.run('rollout', 'undo', 'statefulset/db');
  t.not(undo.code, 0);
  t.regex(undo.stderr, /no last revision to roll back to/);
  t.regex((await k.run('get', 'controllerrevisions')).stderr, /^No resources found in default namespace\./);
});

test('kubectl statefulsets - a ControllerRevision prints its controller and revision', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('db.yaml', sts()));
  const uid = (await k.ok('get', 'statefulset', 'db', '-o', 'jsonpath={.metadata.uid}')).trim();
  await k.ok('apply', '-f', await k.file('rev.yaml', `apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: db-5d8f7c9b4
  namespace: default
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: "${uid}", controller: true}]
revision: 1
data: {spec: {template: {}}}
`));
  const table = rows(await k.ok('get', 'controllerrevisions'));
  t.deepEqual(table.map((r) => r.slice(0, 3)), [['NAME', 'CONTROLLER', 'REVISION'], ['db-5d8f7c9b4', 'statefulset.apps/db', '1']]);
});
