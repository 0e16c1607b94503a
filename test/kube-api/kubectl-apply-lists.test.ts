// Server-side apply merges the lists of built-in kinds per their OpenAPI list types
// (`x-kubernetes-list-type: map` keyed by `x-kubernetes-list-map-keys`, `set`, else atomic) and
// owns fields per list element (`k:{"name":"app"}` keys with a `.` entry for the element itself),
// as structured-merge-diff does in the real API server.
import test from 'ava';
import { deploymentYaml, withKubectl } from './kubectl-support.ts';

interface Env { name: string; value: string }
interface Container { name: string; image?: string; env?: Env[] }
interface Entry { manager: string; operation: string; fieldsV1: Record<string, unknown> }
interface Deployment { metadata: { managedFields: Entry[] }; spec: { template: { spec: { containers: Container[] } } } }

test('kubectl apply lists - two field managers apply different containers and env entries to one Deployment; both survive, each owns its elements', async (t) => {
  const k = await withKubectl(t);
  const get = async (): Promise<Deployment> => JSON.parse(await k.ok('get', 'deployment', 'd1', '-o', 'json', '--show-managed-fields')) as Deployment;
  await k.ok('apply', '--server-side', '--field-manager=a', '-f', await k.file('a.yaml', deploymentYaml(`      - name: app
        image: app:1
        env: [{name: A, value: "1"}]
`)));
  await k.ok('apply', '--server-side', '--field-manager=b', '-f', await k.file('b.yaml', `apiVersion: apps/v1
kind: Deployment
metadata: {name: d1, namespace: default}
spec:
  template:
    spec:
      containers:
      - name: app
        env: [{name: B, value: "2"}]
      - name: sidecar
        image: side:1
`));
  const d = await get();
  t.deepEqual(d.spec.template.spec.containers.map((c) => [c.name, c.image, (c.env ?? []).map((e) => e.name)]), [
    ['app', 'app:1', ['A', 'B']],
    ['sidecar', 'side:1', []],
  ]);
  const fields = Object.fromEntries(d.metadata.managedFields.map((e) => [e.manager, e.fieldsV1]));
  t.deepEqual(fields.a, {
    'f:spec': {
      // A LabelSelector is atomic (`+structType=atomic`).
      'f:selector': {},
      'f:template': {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:name': {}, 'f:image': {}, 'f:env': { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } } } } },
      },
    },
  });
  t.deepEqual(fields.b, {
    'f:spec': { 'f:template': { 'f:spec': { 'f:containers': {
      'k:{"name":"app"}': { '.': {}, 'f:name': {}, 'f:env': { 'k:{"name":"B"}': { '.': {}, 'f:name': {}, 'f:value': {} } } },
      'k:{"name":"sidecar"}': { '.': {}, 'f:name': {}, 'f:image': {} },
    } } } },
  });

  // A conflict only on the same element's field, named by its key.
  const conflict = await k.run('apply', '--server-side', '--field-manager=b', '-f', await k.file('b2.yaml', `apiVersion: apps/v1
kind: Deployment
metadata: {name: d1, namespace: default}
spec:
  template:
    spec:
      containers:
      - name: app
        image: app:2
        env: [{name: B, value: "2"}]
`));
  t.not(conflict.code, 0);
  t.regex(conflict.stderr, /Apply failed with 1 conflict: conflict with "a": \.spec\.template\.spec\.containers\[name="app"\]\.image/);

  // a stops applying env A: it goes; B (b's) stays. b's sidecar stays though a never applied it.
  await k.ok('apply', '--server-side', '--field-manager=a', '-f', await k.file('a2.yaml', deploymentYaml(`      - name: app
        image: app:1
`)));
  t.deepEqual((await get()).spec.template.spec.containers.map((c) => [c.name, (c.env ?? []).map((e) => e.name)]), [['app', ['B']], ['sidecar', []]]);
});

test('kubectl apply lists - Service ports merge by port and protocol (TCP when left out); ClusterRole rules are atomic', async (t) => {
  const k = await withKubectl(t);
  const svc = (port: number): string => `apiVersion: v1
kind: Service
metadata: {name: s1, namespace: default}
spec:
  ports:
  - {name: p${port}, port: ${port}}
`;
  await k.ok('apply', '--server-side', '--field-manager=a', '-f', await k.file('a.yaml', svc(80)));
  await k.ok('apply', '--server-side', '--field-manager=b', '-f', await k.file('b.yaml', svc(443)));
  const s = JSON.parse(await k.ok('get', 'service', 's1', '-o', 'json', '--show-managed-fields')) as { metadata: { managedFields: Entry[] }; spec: { ports: { port: number }[] } };
  t.deepEqual(s.spec.ports.map((p) => p.port), [80, 443]);
  const b = s.metadata.managedFields.find((e) => e.manager === 'b');
  t.deepEqual(b?.fieldsV1, { 'f:spec': { 'f:ports': { 'k:{"port":443,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } });

  const role = (verb: string): string => `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r1}
rules:
- {apiGroups: [""], resources: [pods], verbs: [${verb}]}
`;
  await k.ok('apply', '--server-side', '--field-manager=a', '-f', await k.file('r-a.yaml', role('get')));
  const conflict = await k.run('apply', '--server-side', '--field-manager=b', '-f', await k.file('r-b.yaml', role('list')));
  t.regex(conflict.stderr, /conflict with "a": \.rules/);
});
