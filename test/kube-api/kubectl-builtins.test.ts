// The real kubectl 1.32 on the built-in kinds a provider's manifests hold (Deployments, Services,
// webhook configurations): kubectl sends them strategic merge patches, whose lists merge by the
// Go types' patchMergeKey (containers by name, ports by port…), as the real server applies them.
import test from 'ava';
import { withKubectl } from './kubectl-support.ts';

const deployment = (image: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: d1
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels: {app: d1}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1}
  template:
    metadata:
      labels: {app: d1}
    spec:
      containers:
      - name: a
        image: ${image}
        env: [{name: X, value: "1"}]
        ports: [{containerPort: 80}]
      - name: b
        image: busybox:1
`;

interface Container { name: string; image: string; env?: { name: string; value: string }[]; ports?: { containerPort: number }[] }
interface Deployment { spec: { strategy: Record<string, unknown>; template: { spec: { containers: Container[] } } } }

// kubectl apply sends `{"$setElementOrder/containers":[{"name":"a"},{"name":"b"}],"containers":[{"image":"nginx:2","name":"a"}]}`:
// a merge patch in effect replaced the list with the one changed container, dropping b and a's env.
test('kubectl builtins - apply of a changed Deployment merges containers by name; set image too; $retainKeys drops the old strategy', async (t) => {
  const k = await withKubectl(t);
  const file = await k.file('d1.yaml', deployment('nginx:1'));
  await k.ok('apply', '-f', file);
  await k.file('d1.yaml', deployment('nginx:2'));
  const applied = await k.run('apply', '-f', file);
  t.regex(applied.stdout, /deployment\.apps\/d1 configured/);
  // The /openapi/v3 schemas of these kinds are shallow: offering strategic merge there made kubectl
  // print `warning: error calculating patch from openapi v3 spec: unable to find api field "template"`.
  t.is(applied.stderr, '');
  const get = (): Deployment => JSON.parse(JSON.stringify(k.server.get({ resource: 'deployments', namespace: 'default', name: 'd1' }))) as Deployment;
  const defaults = { resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' };
  t.deepEqual(get().spec.template.spec.containers, [
    { name: 'a', image: 'nginx:2', env: [{ name: 'X', value: '1' }], ports: [{ containerPort: 80, protocol: 'TCP' }], ...defaults },
    { name: 'b', image: 'busybox:1', ...defaults },
  ]);

  await k.ok('set', 'image', 'deployment/d1', 'b=busybox:2');
  t.deepEqual(get().spec.template.spec.containers.map((c) => [c.name, c.image, c.env?.length ?? 0]), [['a', 'nginx:2', 1], ['b', 'busybox:2', 0]]);
  await k.ok('set', 'env', 'deployment/d1', '-c', 'a', 'Y=2');
  t.deepEqual(get().spec.template.spec.containers[0]?.env, [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }]);

  // A container added by someone else (not in the applied file) stays, after the applied ones.
  await k.ok('patch', 'deployment', 'd1', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"envoy:1"}]}}}}');
  t.deepEqual(get().spec.template.spec.containers.map((c) => c.name), ['a', 'b', 'sidecar']);
  await k.ok('patch', 'deployment', 'd1', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}');
  t.deepEqual(get().spec.template.spec.containers.map((c) => c.name), ['a', 'b']);

  await k.file('d1.yaml', deployment('nginx:2').replace('type: RollingUpdate\n    rollingUpdate: {maxSurge: 1}', 'type: Recreate'));
  await k.ok('apply', '-f', file);
  t.deepEqual(get().spec.strategy, { type: 'Recreate' });
});

test('kubectl builtins - a Service\'s ports merge by port; a webhook configuration\'s webhooks by name', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('s1.yaml', `apiVersion: v1
kind: Service
metadata: {name: s1, namespace: default}
spec:
  ports:
  - {name: 80-8080, port: 80, targetPort: 8080}
  - {name: 443-8443, port: 443, targetPort: 8443}
`));
  await k.ok('patch', 'service', 's1', '-p', '{"spec":{"ports":[{"port":443,"targetPort":9443}]}}');
  const svc = k.server.get({ resource: 'services', namespace: 'default', name: 's1' }) as { spec: { ports: { port: number; targetPort: number; name: string }[] } };
  t.deepEqual(svc.spec.ports.map((p) => [p.name, p.port, p.targetPort]), [['80-8080', 80, 8080], ['443-8443', 443, 9443]]);

  const hook = (url: string, extra: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: v1
webhooks:
- name: a.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {url: "${url}"}
${extra}`;
  const file = await k.file('hook.yaml', hook('https://a.example.com/v', ''));
  await k.ok('apply', '-f', file);
  await k.ok('patch', 'validatingwebhookconfiguration', 'v1', '-p', '{"webhooks":[{"name":"b.example.com","admissionReviewVersions":["v1"],"sideEffects":"None","clientConfig":{"url":"https://b.example.com/v"}}]}');
  await k.file('hook.yaml', hook('https://a.example.com/v2', ''));
  await k.ok('apply', '-f', file);
  const config = k.server.get({ resource: 'validatingwebhookconfigurations', name: 'v1' }) as { webhooks: { name: string; clientConfig: { url: string } }[] };
  t.deepEqual(config.webhooks.map((w) => [w.name, w.clientConfig.url]), [['a.example.com', 'https://a.example.com/v2'], ['b.example.com', 'https://b.example.com/v']]);
});

test('kubectl builtins - apply of a changed CRD is a merge patch, without a warning', async (t) => {
  const k = await withKubectl(t);
  const crd = (shortNames: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  names: {kind: Thing, plural: things, singular: thing, listKind: ThingList, shortNames: [${shortNames}]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`;
  const file = await k.file('crd.yaml', crd('th'));
  await k.ok('apply', '-f', file);
  await k.file('crd.yaml', crd('th, thg'));
  const applied = await k.run('apply', '-f', file);
  t.is(applied.code, 0);
  t.regex(applied.stdout, /customresourcedefinition\.apiextensions\.k8s\.io\/things\.example\.com configured/);
  t.is(applied.stderr, '');
  t.deepEqual((k.server.get({ resource: 'customresourcedefinitions', name: 'things.example.com' }) as { spec: { names: { shortNames: string[] } } }).spec.names.shortNames, ['th', 'thg']);
});

// kubectl's typed clients send these bodies as protobuf (no JSON fallback); the server answered
// 415 for every kind but Namespace and Secret, so `kubectl create configmap|sa|deployment|…` failed.
test('kubectl builtins - kubectl create of a configmap, service account, deployment, service, cluster role and binding, pdb (protobuf bodies)', async (t) => {
  const k = await withKubectl(t);
  const get = (resource: string, name: string, namespace?: string): unknown => JSON.parse(JSON.stringify(k.server.get({ resource, name, namespace })));
  t.regex(await k.ok('create', 'configmap', 'c1', '--from-literal=a=1', '--from-literal=b=two'), /configmap\/c1 created/);
  t.like(get('configmaps', 'c1', 'default'), { kind: 'ConfigMap', metadata: { name: 'c1', namespace: 'default' }, data: { a: '1', b: 'two' } });
  t.regex(await k.ok('create', 'serviceaccount', 'sa1'), /serviceaccount\/sa1 created/);
  t.like(get('serviceaccounts', 'sa1', 'default'), { kind: 'ServiceAccount', metadata: { name: 'sa1' } });

  t.regex(await k.ok('create', 'deployment', 'web', '--image=nginx:1', '--port=8080', '--replicas=2', '--', 'nginx', '-g', 'daemon off;'), /deployment\.apps\/web created/);
  const dep = get('deployments', 'web', 'default') as { metadata: { labels: object }; spec: Record<string, unknown> };
  t.deepEqual(dep.metadata.labels, { app: 'web' });
  // With the defaults of apps/v1 and core/v1 (kubectl-defaults.test.ts).
  t.deepEqual(dep.spec, {
    replicas: 2, selector: { matchLabels: { app: 'web' } }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    revisionHistoryLimit: 10, progressDeadlineSeconds: 600,
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [{
          name: 'nginx', image: 'nginx:1', command: ['nginx', '-g', 'daemon off;'], ports: [{ containerPort: 8080, protocol: 'TCP' }], resources: {},
          terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent',
        }],
        restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'default-scheduler',
      },
    },
  });

  t.regex(await k.ok('create', 'service', 'nodeport', 'web', '--tcp=80:http'), /service\/web created/);
  const svc = get('services', 'web', 'default') as { spec: Record<string, unknown> & { ports: { nodePort: number }[] } };
  const { clusterIP, clusterIPs, ports, ...rest } = svc.spec;
  t.regex(String(clusterIP), /^10\./);
  t.deepEqual(clusterIPs, [clusterIP]);
  t.deepEqual(ports, [{ name: '80-http', protocol: 'TCP', port: 80, targetPort: 'http', nodePort: ports[0]?.nodePort }]);
  t.deepEqual(rest, {
    selector: { app: 'web' }, type: 'NodePort', sessionAffinity: 'None', externalTrafficPolicy: 'Cluster', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack',
    internalTrafficPolicy: 'Cluster',
  });

  t.regex(await k.ok('create', 'clusterrole', 'reader', '--verb=get,list', '--resource=secrets,configmaps'), /clusterrole\.rbac\.authorization\.k8s\.io\/reader created/);
  t.like(get('clusterroles', 'reader'), { rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets', 'configmaps'] }] });
  t.regex(await k.ok('create', 'clusterrolebinding', 'reader', '--clusterrole=reader', '--serviceaccount=default:sa1'), /created/);
  t.like(get('clusterrolebindings', 'reader'), {
    subjects: [{ kind: 'ServiceAccount', name: 'sa1', namespace: 'default' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' },
  });
  t.regex(await k.ok('create', 'pdb', 'web', '--selector=app=web', '--min-available=50%'), /poddisruptionbudget\.policy\/web created/);
  t.like(get('poddisruptionbudgets', 'web', 'default'), { spec: { minAvailable: '50%', selector: { matchLabels: { app: 'web' } } } });
});

// kubectl scale reads and patches /scale (autoscaling/v1 Scale); without the subresource the
// server answered `deployments.apps "web" not found` for a Deployment that exists.
test('kubectl builtins - kubectl scale of a Deployment goes through its scale subresource', async (t) => {
  const k = await withKubectl(t);
  await k.ok('create', 'deployment', 'web', '--image=nginx:1');
  t.regex(await k.ok('scale', 'deployment', 'web', '--replicas=3'), /deployment\.apps\/web scaled/);
  const dep = k.server.get({ resource: 'deployments', namespace: 'default', name: 'web' }) as { spec: { replicas: number }; metadata: { resourceVersion: string } };
  t.is(dep.spec.replicas, 3);
  // With preconditions kubectl GETs the Scale and PUTs it back.
  t.regex(await k.ok('scale', 'deployment', 'web', '--replicas=2', `--resource-version=${dep.metadata.resourceVersion}`, '--current-replicas=3'), /scaled/);
  const path = `${k.server.url}/apis/apps/v1/namespaces/default/deployments/web/scale`;
  const scale = (await (await fetch(path)).json()) as { metadata: { resourceVersion: string } };
  t.like(scale, { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2 }, status: { replicas: 0, selector: 'app=web' } });
  const stale = await fetch(path, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...scale, metadata: { ...scale.metadata, resourceVersion: dep.metadata.resourceVersion }, spec: { replicas: 5 } }) });
  t.is(stale.status, 409);
  t.regex(((await stale.json()) as { message: string }).message, /^Operation cannot be fulfilled on deployments\.apps "web": the object has been modified/);
  const negative = await fetch(path, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{"spec":{"replicas":-1}}' });
  t.is(negative.status, 422);
  t.is(((await negative.json()) as { message: string }).message, 'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  t.is((k.server.get({ resource: 'deployments', namespace: 'default', name: 'web' }) as { spec: { replicas: number } }).spec.replicas, 2);
});

// PodDisruptionBudgetSpec.Selector has patchStrategy replace: kubectl sends the whole new
// selector, and a merge kept a label the file no longer has.
test('kubectl builtins - a PDB selector is replaced whole; webhook matchConditions merge by name', async (t) => {
  const k = await withKubectl(t);
  const pdb = (labels: string): string => `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: p1, namespace: default}
spec:
  minAvailable: 1
  selector:
    matchLabels: {${labels}}
`;
  const file = await k.file('pdb.yaml', pdb('a: "1", b: "2"'));
  await k.ok('apply', '-f', file);
  await k.file('pdb.yaml', pdb('a: "1"'));
  await k.ok('apply', '-f', file);
  t.deepEqual((k.server.get({ resource: 'poddisruptionbudgets', namespace: 'default', name: 'p1' }) as { spec: { selector: object } }).spec.selector, { matchLabels: { a: '1' } });

  await k.ok('apply', '-f', await k.file('hook.yaml', `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: v1}
webhooks:
- name: a.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {url: "https://a.example.com/v"}
  matchConditions:
  - {name: one, expression: "true"}
  - {name: two, expression: "true"}
`));
  await k.ok('patch', 'validatingwebhookconfiguration', 'v1', '-p', '{"webhooks":[{"name":"a.example.com","matchConditions":[{"name":"two","expression":"false"}]}]}');
  const config = k.server.get({ resource: 'validatingwebhookconfigurations', name: 'v1' }) as { webhooks: { matchConditions: object[] }[] };
  t.deepEqual(config.webhooks[0]?.matchConditions, [{ name: 'one', expression: 'true' }, { name: 'two', expression: 'false' }]);
});
