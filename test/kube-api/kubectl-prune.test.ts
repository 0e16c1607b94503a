// `kubectl apply --prune` maps every kind of its default allowlist (Pods, Endpoints, PVCs, PVs,
// ReplicationControllers, Jobs, CronJobs, Ingresses, DaemonSets, ReplicaSets, StatefulSets…) before
// it lists them; one kind the server does not serve fails the whole apply
// (`no matches for kind "Endpoints" in version "v1"`), as it never does against a real cluster.
import test from 'ava';
import { rows, withKubectl } from './kubectl-support.ts';

const cm = (name: string): string => `apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}, namespace: default, labels: {app: p}}
data: {a: "1"}
`;

test('kubectl prune - apply --prune -l deletes the labelled objects the files no longer hold', async (t) => {
  const k = await withKubectl(t);
  await k.ok('apply', '-f', await k.file('all.yaml', `${cm('c1')}---\n${cm('c2')}`));
  const out = await k.ok('apply', '--prune', '-l', 'app=p', '-f', await k.file('one.yaml', cm('c1')));
  t.regex(out, /configmap\/c2 pruned/);
  t.deepEqual(rows(await k.ok('get', 'configmaps', '-l', 'app=p', '-o', 'name')), [['configmap/c1']]);
});

test('kubectl prune - the allowlist kinds are served: get all lists them empty', async (t) => {
  const k = await withKubectl(t);
  // kube-public: `default` has the `kubernetes` Endpoints, as on a cluster.
  for (const kind of ['pods', 'endpoints', 'pvc', 'pv', 'rc', 'jobs', 'cronjobs', 'ingresses', 'ds', 'rs', 'sts']) {
    t.regex((await k.run('get', kind, '-n', 'kube-public')).stderr, /^No resources found/, kind);
  }
});
