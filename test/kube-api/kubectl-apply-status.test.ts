// `kubectl apply --server-side --subresource=status` of a whole manifest, as a controller's
// operator writes a status by hand: the spec in the file is ignored on /status (the status
// strategy's reset fields), so it neither conflicts with the spec's owner nor changes the spec.
import test from 'ava';
import { DEPLOY_CRDS, hostYaml, withKubectl } from './kubectl-support.ts';

const STATUS = `status:
  operationalStatus: OK
  errorMessage: ""
  errorCount: 0
  poweredOn: false
  hardwareProfile: ""
  provisioningFailCount: 0
  provisioning:
    state: available
    ID: ""
`;

test('kubectl apply status - a whole manifest applied to /status changes the status only, without a conflict on its spec', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  const host = await k.file('host.yaml', hostYaml('h1', 'default', '  online: true\n'));
  await k.ok('apply', '--server-side', '-f', host);
  // The same host with another spec and a status, applied by another manager.
  const withStatus = await k.file('status.yaml', hostYaml('h1', 'default', '  online: false\n') + STATUS);
  const r = await k.run('apply', '--server-side', '--subresource=status', '--field-manager=ctrl', '-f', withStatus);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /baremetalhost\.metal3\.io\/h1 serverside-applied/);
  const out = JSON.parse(await k.ok('get', 'bmh', 'h1', '-n', 'default', '-o', 'json', '--show-managed-fields')) as {
    spec: { online: boolean };
    status: { operationalStatus: string };
    metadata: { generation: number; managedFields: { manager: string; subresource?: string; fieldsV1: Record<string, unknown> }[] };
  };
  t.is(out.spec.online, true);
  t.is(out.status.operationalStatus, 'OK');
  t.is(out.metadata.generation, 1);
  const ctrl = out.metadata.managedFields.find((e) => e.manager === 'ctrl');
  t.deepEqual([ctrl?.subresource, Object.keys(ctrl?.fieldsV1 ?? {})], ['status', ['f:status']]);
});
