// No-op writes write nothing, as on kube-apiserver: a CRD keeps its status (and its conditions'
// lastTransitionTime) across spec writes, a Secret's stringData is folded into data before the
// comparison, and managedFields' times are not bumped when nothing else changed. NetworkPolicy
// (networking.k8s.io/v1) is served as a stored-only kind.
import test from 'ava';
import { rows, withKubectl } from './kubectl-support.ts';

const CRD = (description: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.io}
spec:
  group: example.io
  names: {kind: Thing, plural: things, shortNames: [th]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: ${description}
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

const SECRET = `apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: default}
type: Opaque
stringData: {password: hunter2}
data: {user: YWRtaW4=}
`;

const NETPOL = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: nats, namespace: default}
spec:
  podSelector:
    matchLabels: {app: nats, tier: mq}
  policyTypes: [Ingress]
  ingress:
  - from:
    - podSelector: {matchLabels: {app: nats}}
    ports:
    - port: client
`;

interface Got { metadata: { resourceVersion: string; generation?: number; managedFields?: unknown }; status?: { conditions?: { type: string; lastTransitionTime: string }[]; storedVersions?: string[] } }

/** Resolves once the wall clock is in a later second than when called (times have second precision). */
async function nextSecond(): Promise<void> {
  const start = Math.floor(Date.now() / 1000);
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      if (Math.floor(Date.now() / 1000) > start) resolve();
      else setTimeout(tick, 20);
    };
    tick();
  });
}

for (const mode of ['--server-side', '--server-side=false'] as const) {
  test(`noop - a CRD applied again (${mode}) keeps its resourceVersion, status and diff is empty`, async (t) => {
    const k = await withKubectl(t);
    const file = await k.file('crd.yaml', CRD('first'));
    await k.ok('apply', mode, '-f', file);
    const before = JSON.parse(await k.ok('get', 'crd', 'things.example.io', '-o', 'json', '--show-managed-fields')) as Got;
    const rv = k.server.resourceVersion();
    await nextSecond();
    const again = await k.ok('apply', mode, '-f', file);
    t.regex(again, mode === '--server-side' ? /serverside-applied/ : /unchanged/);
    const after = JSON.parse(await k.ok('get', 'crd', 'things.example.io', '-o', 'json', '--show-managed-fields')) as Got;
    t.deepEqual(after, before);
    t.is(k.server.resourceVersion(), rv, 'nothing was written');
    const diff = await k.run('diff', ...(mode === '--server-side' ? ['--server-side'] : []), '-f', file);
    t.is(diff.code, 0, diff.stdout + diff.stderr);
    t.is(diff.stdout, '');
  });
}

test('noop - a CRD spec change keeps the conditions\' lastTransitionTime and bumps generation', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '--server-side', '-f', await k.file('crd.yaml', CRD('first')));
  const before = JSON.parse(await k.ok('get', 'crd', 'things.example.io', '-o', 'json', '--show-managed-fields')) as Got;
  t.deepEqual(before.status?.conditions?.map((c) => c.type), ['NamesAccepted', 'Established']);
  await nextSecond();
  await k.ok('apply', '--server-side', '-f', await k.file('crd2.yaml', CRD('second')));
  const after = JSON.parse(await k.ok('get', 'crd', 'things.example.io', '-o', 'json', '--show-managed-fields')) as Got;
  t.is(after.metadata.generation, 2);
  t.not(after.metadata.resourceVersion, before.metadata.resourceVersion);
  t.deepEqual(after.status, before.status);
});

test('noop - a Secret with stringData applied again server-side writes nothing', async (t) => {
  const k = await withKubectl(t);
  const file = await k.file('secret.yaml', SECRET);
  t.regex(await k.ok('apply', '--server-side', '-f', file), /secret\/creds serverside-applied/);
  const before = JSON.parse(await k.ok('get', 'secret', 'creds', '-n', 'default', '-o', 'json', '--show-managed-fields')) as Got & { data: Record<string, string> };
  t.deepEqual(before.data, { password: Buffer.from('hunter2').toString('base64'), user: 'YWRtaW4=' });
  const rv = k.server.resourceVersion();
  await nextSecond();
  await k.ok('apply', '--server-side', '-f', file);
  const after = JSON.parse(await k.ok('get', 'secret', 'creds', '-n', 'default', '-o', 'json', '--show-managed-fields')) as Got;
  t.deepEqual(after, before, 'same resourceVersion and managedFields times');
  t.is(k.server.resourceVersion(), rv);
  const diff = await k.run('diff', '--server-side', '-f', file);
  t.is(diff.code, 0, diff.stdout + diff.stderr);
  t.is(diff.stdout, '');
  // A real change still writes, with a new managedFields time.
  await k.ok('apply', '--server-side', '-f', await k.file('secret2.yaml', SECRET.replace('hunter2', 'hunter3')));
  const changed = JSON.parse(await k.ok('get', 'secret', 'creds', '-n', 'default', '-o', 'json', '--show-managed-fields')) as Got;
  t.not(changed.metadata.resourceVersion, before.metadata.resourceVersion);
  t.notDeepEqual(changed.metadata.managedFields, before.metadata.managedFields);
});

test('noop - NetworkPolicy is served: apply, get with POD-SELECTOR, no-op re-apply, generation on spec change', async (t) => {
  const k = await withKubectl(t);
  const resources = await k.ok('api-resources', '--api-group=networking.k8s.io', '-o', 'wide');
  t.regex(resources, /^networkpolicies\s+netpol\s+networking\.k8s\.io\/v1\s+true\s+NetworkPolicy\s+/m);
  const file = await k.file('np.yaml', NETPOL);
  t.is((await k.ok('apply', '-f', file)).trim(), 'networkpolicy.networking.k8s.io/nats created');
  t.deepEqual(rows(await k.ok('get', 'netpol', '-n', 'default')).map((r) => r.slice(0, 2)), [['NAME', 'POD-SELECTOR'], ['nats', 'app=nats,tier=mq']]);
  const before = JSON.parse(await k.ok('get', 'networkpolicy', 'nats', '-n', 'default', '-o', 'json')) as Got & { spec: unknown };
  t.is(before.metadata.generation, 1);
  t.deepEqual(before.spec, { podSelector: { matchLabels: { app: 'nats', tier: 'mq' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { app: 'nats' } } }], ports: [{ port: 'client' }] }] });
  t.is((await k.ok('apply', '-f', file)).trim(), 'networkpolicy.networking.k8s.io/nats unchanged');
  await k.ok('apply', '--server-side', '-f', file);
  const rv = k.server.resourceVersion();
  await k.ok('apply', '--server-side', '-f', file);
  t.is(k.server.resourceVersion(), rv);
  const diff = await k.run('diff', '--server-side', '-f', file);
  t.is(diff.code, 0, diff.stdout + diff.stderr);
  await k.ok('apply', '--server-side', '-f', await k.file('np2.yaml', NETPOL.replace('port: client', 'port: cluster')));
  const after = JSON.parse(await k.ok('get', 'networkpolicy', 'nats', '-n', 'default', '-o', 'json')) as Got;
  t.is(after.metadata.generation, 2);
  t.deepEqual(rows(await k.ok('get', 'netpol', '-A')).map((r) => r.slice(0, 3)), [['NAMESPACE', 'NAME', 'POD-SELECTOR'], ['default', 'nats', 'app=nats,tier=mq']]);
  await k.ok('apply', '-f', await k.file('np3.yaml', NETPOL.replace(/podSelector:\n {4}matchLabels: \{app: nats, tier: mq\}/, 'podSelector: {}')));
  t.deepEqual(rows(await k.ok('get', 'netpol', '-n', 'default')).map((r) => r.slice(0, 2)), [['NAME', 'POD-SELECTOR'], ['nats', '<none>']]);
});
