// What `kubectl get` shows against the test server where a real cluster shows more: the label
// every Namespace carries, printer columns whose JSONPath filters a list, and the `all` category.
import test from 'ava';
import { rows, withKubectl } from './kubectl-support.ts';

// pkg/registry/core/namespace strategy Canonicalize (and the v1 defaults): the label is always the
// name, whatever a write sends; NetworkPolicy and webhook namespaceSelectors rely on it.
test('kubectl get - every Namespace carries kubernetes.io/metadata.name; a write cannot change or remove it', async (t) => {
  const k = await withKubectl(t);
  await k.ok('create', 'namespace', 'lab');
  t.deepEqual(rows(await k.ok('get', 'ns', '-l', 'kubernetes.io/metadata.name=lab', '-o', 'name')), [['namespace/lab']]);
  t.deepEqual(rows(await k.ok('get', 'ns', 'default', '--show-labels')).map((r) => r[3]), ['LABELS', 'kubernetes.io/metadata.name=default']);
  await k.ok('label', 'ns', 'lab', 'kubernetes.io/metadata.name-', 'team=a');
  t.is(await k.ok('get', 'ns', 'lab', '-o', 'jsonpath={.metadata.labels}'), '{"kubernetes.io/metadata.name":"lab","team":"a"}');
  await k.ok('label', 'ns', 'lab', '--overwrite', 'kubernetes.io/metadata.name=other');
  t.is(await k.ok('get', 'ns', 'lab', '-o', 'jsonpath={.metadata.labels.kubernetes\\.io/metadata\\.name}'), 'lab');
});

// apiextensions' tableconvertor runs client-go JSONPath: Cluster API's CRDs (and most operators')
// print `.status.conditions[?(@.type=="Ready")].status`; the test server's dotted-path reader
// found nothing there and printed an empty READY column.
test('kubectl get - printer columns with JSONPath filters, indexes and wildcards print what a cluster prints', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('crd.yaml', `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
    - {name: Reason, type: string, jsonPath: ".status.conditions[?(@.status!='True')].reason"}
    - {name: Last, type: string, jsonPath: '.spec.hosts[-1]'}
    - {name: Hosts, type: string, jsonPath: '.spec.hosts[*]'}
    - {name: Zone, type: string, jsonPath: '.metadata.labels.topology\\.example\\.com/zone'}
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}, hosts: {type: array, items: {type: string}}}}
          status:
            type: object
            properties:
              conditions: {type: array, items: {type: object, properties: {type: {type: string}, status: {type: string}, reason: {type: string}}}}
`));
  await k.ok('apply', '-f', await k.file('w1.yaml', `apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, namespace: default, labels: {topology.example.com/zone: z1}}
spec: {size: 3, hosts: [a, b]}
`));
  await k.ok('patch', 'widget', 'w1', '--subresource=status', '--type=merge', '-p',
    '{"status":{"conditions":[{"type":"Synced","status":"False","reason":"Waiting"},{"type":"Ready","status":"True","reason":"Up"}]}}');
  const table = rows(await k.ok('get', 'widgets'));
  t.deepEqual(table[0], ['NAME', 'READY', 'REASON', 'LAST', 'HOSTS', 'ZONE', 'SIZE']);
  t.deepEqual(table[1], ['w1', 'True', 'Waiting', 'b', 'a', 'z1', '3']);
});

// Discovery lists the categories of Services and Deployments (`all`) and of webhook
// configurations (`api-extensions`, with CRDs): without them kubectl answered `get all` with
// `the server doesn't have a resource type "all"`.
test('kubectl get - the all and api-extensions categories', async (t) => {
  const k = await withKubectl(t);
  // As on a cluster: `default` holds the API server's own `kubernetes` Service.
  t.deepEqual(rows(await k.ok('get', 'all', '-o', 'name')), [['service/kubernetes']]);
  t.regex(await k.run('get', 'all', '-n', 'kube-public').then((r) => r.stderr), /No resources found in kube-public namespace\./);
  await k.ok('create', 'deployment', 'web', '--image=nginx:1');
  await k.ok('create', 'service', 'clusterip', 'web', '--tcp=80:8080');
  await k.ok('create', 'configmap', 'c1');
  t.deepEqual(rows(await k.ok('get', 'all', '-o', 'name')), [['service/kubernetes'], ['service/web'], ['deployment.apps/web']]);
  await k.ok('apply', '-f', await k.file('hook.yaml', `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: v1}
webhooks: []
`));
  t.deepEqual(rows(await k.ok('get', 'api-extensions', '-o', 'name')), [['validatingwebhookconfiguration.admissionregistration.k8s.io/v1']]);
});

// pkg/printers/internalversion: the built-in kinds' own columns, not the NAME and AGE a kind
// without a printer gets.
test('kubectl get - ConfigMaps, ServiceAccounts, Deployments, Services, RBAC, PDBs and webhook configurations print their columns', async (t) => {
  const k = await withKubectl(t);
  await k.ok('create', 'configmap', 'c1', '--from-literal=a=1', '--from-literal=b=2');
  await k.ok('create', 'serviceaccount', 'sa1');
  await k.ok('create', 'deployment', 'web', '--image=nginx:1', '--replicas=3');
  await k.ok('create', 'service', 'nodeport', 'web', '--tcp=80:8080', '--node-port=30080');
  await k.ok('create', 'clusterrole', 'reader', '--verb=get', '--resource=secrets');
  await k.ok('create', 'clusterrolebinding', 'reader', '--clusterrole=reader', '--serviceaccount=default:sa1');
  await k.ok('create', 'pdb', 'web', '--selector=app=web', '--min-available=1');
  await k.ok('apply', '-f', await k.file('hook.yaml', `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: m1}
webhooks:
- {name: a.example.com, admissionReviewVersions: [v1], sideEffects: None, clientConfig: {url: "https://a.example.com/m"}}
`));
  const head = async (...args: string[]): Promise<string[][]> => rows(await k.ok('get', ...args)).map((r) => r.slice(0, -1));
  t.deepEqual(await head('cm', 'c1'), [['NAME', 'DATA'], ['c1', '2']]);
  t.deepEqual(await head('sa', 'sa1'), [['NAME', 'SECRETS'], ['sa1', '0']]);
  t.deepEqual(await head('deploy', 'web'), [['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE'], ['web', '0/3', '0', '0']]);
  t.deepEqual(rows(await k.ok('get', 'deploy', 'web', '-o', 'wide')).map((r) => r.slice(5)), [['CONTAINERS', 'IMAGES', 'SELECTOR'], ['nginx', 'nginx:1', 'app=web']]);
  const svc = await head('svc', 'web');
  t.regex(svc[1]?.[2] ?? '', /^10\.\d+\.\d+\.\d+$/);
  t.deepEqual(svc.map((r) => [...r.slice(0, 2), ...r.slice(3)]), [['NAME', 'TYPE', 'EXTERNAL-IP', 'PORT(S)'], ['web', 'NodePort', '<none>', '80:30080/TCP']]);
  t.deepEqual(rows(await k.ok('get', 'clusterrole', 'reader')).map((r) => r.slice(0, 1)), [['NAME'], ['reader']]);
  t.deepEqual(rows(await k.ok('get', 'clusterrole', 'reader'))[0], ['NAME', 'CREATED AT']);
  t.deepEqual(await head('clusterrolebinding', 'reader'), [['NAME', 'ROLE'], ['reader', 'ClusterRole/reader']]);
  t.deepEqual(rows(await k.ok('get', 'clusterrolebinding', 'reader', '-o', 'wide')).map((r) => r.slice(3)), [['USERS', 'GROUPS', 'SERVICEACCOUNTS'], ['default/sa1']]);
  t.deepEqual(await head('pdb', 'web'), [['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS'], ['web', '1', 'N/A', '0']]);
  t.deepEqual(await head('mutatingwebhookconfigurations', 'm1'), [['NAME', 'WEBHOOKS'], ['m1', '1']]);
});

// Scripts wait for an API server with `kubectl get --raw /readyz` (k8s.io/apiserver healthz):
// 200 `ok`, the checks listed with `?verbose`; the test server answered 404.
test('kubectl get - --raw /readyz, /livez and /healthz answer ok, verbose lists the checks', async (t) => {
  const k = await withKubectl(t);
  for (const path of ['/readyz', '/livez', '/healthz', '/readyz/ping']) t.is(await k.ok('get', '--raw', path), 'ok', path);
  t.regex(await k.ok('get', '--raw', '/readyz?verbose'), /^\[\+\]ping ok\n(\[\+\][\w-]+ ok\n)*readyz check passed\n?$/);
  const res = await fetch(`${k.server.url}/livez`);
  t.is(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.is((await fetch(`${k.server.url}/readyz/nope`)).status, 404);
});
