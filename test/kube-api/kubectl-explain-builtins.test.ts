// `kubectl explain` on the built-in kinds below their top level, as against a real server: kubectl
// walks /openapi/v3 from the kind's schema through the `$ref`s of nested types (builtin-openapi.ts).
import test from 'ava';
import { withKubectl } from './kubectl-support.ts';

test('kubectl explain builtins - a Deployment\'s pod template containers, with their fields and types', async (t) => {
  const k = await withKubectl(t);
  const out = await k.ok('explain', 'deployment.spec.template.spec.containers');
  t.regex(out, /^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n/);
  t.regex(out, /FIELD: containers <\[\]Container>/);
  t.regex(out, /List of containers belonging to the pod/);
  t.regex(out, /\n {2}name\t<string> -required-\n/);
  t.regex(out, /\n {2}ports\t<\[\]ContainerPort>\n/);
  t.regex(out, /\n {2}livenessProbe\t<Probe>\n/);
  t.regex(await k.ok('explain', 'deployment.spec.template.metadata.labels'), /FIELD: labels <map\[string\]string>/);
});

test('kubectl explain builtins - the kinds deploy/ uses, down to their leaves', async (t) => {
  const k = await withKubectl(t);
  const field = async (path: string): Promise<string> => /FIELD: (\S+ <[^>]+>)/.exec(await k.ok('explain', path))?.[1] ?? '';
  t.is(await field('statefulset.spec.updateStrategy.rollingUpdate.partition'), 'partition <integer>');
  t.is(await field('statefulset.spec.volumeClaimTemplates'), 'volumeClaimTemplates <[]PersistentVolumeClaim>');
  t.is(await field('service.spec.ports.targetPort'), 'targetPort <IntOrString>');
  t.is(await field('pdb.spec.selector.matchLabels'), 'matchLabels <map[string]string>');
  t.is(await field('validatingwebhookconfiguration.webhooks.clientConfig.service.port'), 'port <integer>');
  t.is(await field('networkpolicy.spec.ingress.from.podSelector'), 'podSelector <LabelSelector>');
  t.is(await field('clusterrole.rules.verbs'), 'verbs <[]string>');
  t.is(await field('configmap.data'), 'data <map[string]string>');
});

test('kubectl explain builtins - an unknown nested field is refused as by a real server', async (t) => {
  const k = await withKubectl(t);
  const r = await k.run('explain', 'deployment.spec.template.spec.nosuch');
  t.not(r.code, 0);
  t.regex(r.stderr, /field "nosuch" does not exist/);
});
