// The defaults the real API server gives Services and Deployments (pkg/apis/core/v1/defaults.go,
// pkg/apis/apps/v1/defaults.go, the Service REST storage's IP allocation), and the `default`
// ServiceAccount the service-account controller puts in every namespace, as kubectl shows them.
import test from 'ava';
import { deploymentYaml, withKubectl } from './kubectl-support.ts';

const deployment = deploymentYaml(`      - name: a
        image: nginx
        ports: [{containerPort: 80}]
      - {name: b, image: "busybox:1.36"}
      - {name: c, image: "registry.local:5000/tool:latest"}
`);

test('kubectl defaults - a Deployment gets replicas, strategy, limits and the pod template defaults', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('d1.yaml', deployment));
  const d = JSON.parse(await k.ok('get', 'deployment', 'd1', '-o', 'json')) as { spec: Record<string, unknown> & { template: { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } } } };
  const { template, selector: _selector, ...spec } = d.spec;
  t.deepEqual(spec, {
    replicas: 1,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  });
  const { containers, ...pod } = template.spec;
  t.deepEqual(pod, {
    restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'default-scheduler',
  });
  const common = { resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' };
  t.deepEqual(containers, [
    { name: 'a', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], ...common, imagePullPolicy: 'Always' },
    { name: 'b', image: 'busybox:1.36', ...common, imagePullPolicy: 'IfNotPresent' },
    { name: 'c', image: 'registry.local:5000/tool:latest', ...common, imagePullPolicy: 'Always' },
  ]);
  // Defaults fill only what is missing.
  await k.ok('patch', 'deployment', 'd1', '--type=merge', '-p', '{"spec":{"replicas":3,"strategy":{"type":"Recreate","rollingUpdate":null}}}');
  const after = JSON.parse(await k.ok('get', 'deployment', 'd1', '-o', 'json')) as { spec: { replicas: number; strategy: unknown } };
  t.deepEqual([after.spec.replicas, after.spec.strategy], [3, { type: 'Recreate' }]);
});

interface ServiceSpec { clusterIP: string; clusterIPs: string[]; ports: Record<string, unknown>[]; [k: string]: unknown }

test('kubectl defaults - a Service gets its type, affinity, traffic policy, a cluster IP from the service CIDR, and port protocols and target ports', async (t) => {
  const k = await withKubectl(t);
  const svc = (name: string, extra = ''): string => `apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: default}
spec:
  selector: {app: d1}
  ports:
  - {name: http, port: 80}
  - {name: dns, port: 53, protocol: UDP, targetPort: 5353}
${extra}`;
  await k.ok('apply', '-f', await k.file('s1.yaml', svc('s1')));
  await k.ok('apply', '-f', await k.file('s2.yaml', svc('s2')));
  const get = async (name: string): Promise<ServiceSpec> => (JSON.parse(await k.ok('get', 'service', name, '-o', 'json')) as { spec: ServiceSpec }).spec;
  const s1 = await get('s1');
  const s2 = await get('s2');
  t.regex(s1.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
  t.not(s1.clusterIP, s2.clusterIP);
  t.deepEqual(s1, {
    ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 80 }, { name: 'dns', protocol: 'UDP', port: 53, targetPort: 5353 }],
    selector: { app: 'd1' },
    clusterIP: s1.clusterIP,
    clusterIPs: [s1.clusterIP],
    type: 'ClusterIP',
    sessionAffinity: 'None',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    internalTrafficPolicy: 'Cluster',
  });
  // A replace without the allocated fields keeps them (the storage's patchAllocatedValues).
  await k.ok('replace', '-f', await k.file('s1.yaml', svc('s1')));
  t.is((await get('s1')).clusterIP, s1.clusterIP);

  await k.ok('apply', '-f', await k.file('np.yaml', svc('np', '  type: NodePort\n')));
  const np = await get('np');
  t.is(np.externalTrafficPolicy, 'Cluster');
  for (const p of np.ports) t.true(Number(p.nodePort) >= 30000 && Number(p.nodePort) <= 32767);
  await k.ok('apply', '-f', await k.file('hl.yaml', svc('hl', '  clusterIP: None\n')));
  t.deepEqual((await get('hl')).clusterIPs, ['None']);
});

test('kubectl defaults - every namespace has a default ServiceAccount, a new one too', async (t) => {
  const k = await withKubectl(t);
  t.regex(await k.ok('get', 'serviceaccounts', '-A'), /kube-system\s+default\s/);
  await k.ok('create', 'namespace', 'team');
  const sa = JSON.parse(await k.ok('get', 'serviceaccount', 'default', '-n', 'team', '-o', 'json')) as { metadata: { name: string; namespace: string; uid: string } };
  t.deepEqual([sa.metadata.name, sa.metadata.namespace], ['default', 'team']);
  // Deleted, it comes back (the controller keeps it there).
  await k.ok('delete', 'serviceaccount', 'default', '-n', 'team');
  const again = JSON.parse(await k.ok('get', 'serviceaccount', 'default', '-n', 'team', '-o', 'json')) as { metadata: { uid: string } };
  t.not(again.metadata.uid, sa.metadata.uid);
});

// The apps, policy and admissionregistration strategies set generation 1 on create and bump it
// when what the controllers act on changes: a Deployment's spec or annotations, a PDB's spec, a
// webhook configuration's webhooks. `kubectl rollout status` compares it with observedGeneration.
test('kubectl defaults - Deployments, PDBs and webhook configurations carry a generation that spec changes bump', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('d1.yaml', deployment));
  const generation = async (...ref: string[]): Promise<unknown> => (JSON.parse(await k.ok('get', ...ref, '-o', 'json')) as { metadata: { generation?: number } }).metadata.generation;
  t.is(await generation('deployment', 'd1'), 1);
  await k.ok('label', 'deployment', 'd1', 'x=y');
  t.is(await generation('deployment', 'd1'), 1);
  await k.ok('annotate', 'deployment', 'd1', 'note=1');
  t.is(await generation('deployment', 'd1'), 2);
  await k.ok('scale', 'deployment', 'd1', '--replicas=2');
  t.is(await generation('deployment', 'd1'), 3);

  await k.ok('create', 'pdb', 'p1', '--selector=app=d1', '--min-available=1');
  t.is(await generation('pdb', 'p1'), 1);
  await k.ok('patch', 'pdb', 'p1', '--type=merge', '-p', '{"spec":{"minAvailable":2}}');
  t.is(await generation('pdb', 'p1'), 2);
  await k.ok('create', 'service', 'clusterip', 's1', '--tcp=80:80');
  t.is(await generation('service', 's1'), undefined);
});

// Deployments, Services and PDBs have a status subresource: create resets status to the Go zero
// value (which encoding/json writes), the main endpoint keeps the stored status, /status writes it.
test('kubectl defaults - Deployment, Service and PDB status: zero on create, written only through /status', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('d1.yaml', deployment.replace('spec:\n  selector', 'status: {replicas: 9}\nspec:\n  selector')));
  await k.ok('create', 'service', 'clusterip', 's1', '--tcp=80:80');
  await k.ok('create', 'pdb', 'p1', '--selector=app=d1', '--min-available=1');
  const status = async (...ref: string[]): Promise<unknown> => (JSON.parse(await k.ok('get', ...ref, '-o', 'json')) as { status?: unknown }).status;
  t.deepEqual(await status('deployment', 'd1'), {});
  t.deepEqual(await status('service', 's1'), { loadBalancer: {} });
  t.deepEqual(await status('pdb', 'p1'), { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
  t.regex(await k.ok('patch', 'deployment', 'd1', '--type=merge', '-p', '{"status":{"replicas":5}}'), /patched \(no change\)/);
  await k.ok('patch', 'deployment', 'd1', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":1,"observedGeneration":1}}');
  t.deepEqual(await status('deployment', 'd1'), { replicas: 1, observedGeneration: 1 });
});

// pkg/apis/admissionregistration/v1/defaults.go: each webhook's policies, selectors and timeout,
// a rule's scope and a service reference's port.
test('kubectl defaults - webhook configurations get their webhooks\' defaults', async (t) => {
  const k = await withKubectl(t);
  const hook = (kind: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}
metadata: {name: h1}
webhooks:
- name: a.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {service: {name: svc, namespace: default, path: /m}}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
`;
  await k.ok('apply', '-f', await k.file('v.yaml', hook('ValidatingWebhookConfiguration')));
  await k.ok('apply', '-f', await k.file('m.yaml', hook('MutatingWebhookConfiguration')));
  const webhook = async (resource: string): Promise<unknown> => (JSON.parse(await k.ok('get', resource, 'h1', '-o', 'json')) as { webhooks: unknown[] }).webhooks[0];
  const expected = {
    name: 'a.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None',
    clientConfig: { service: { name: 'svc', namespace: 'default', path: '/m', port: 443 } },
    rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: '*' }],
    failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10,
  };
  t.deepEqual(await webhook('validatingwebhookconfigurations'), expected);
  t.deepEqual(await webhook('mutatingwebhookconfigurations'), { ...expected, reinvocationPolicy: 'Never' });
});
