import test from 'ava';
import { lines, metalfleet } from './run.ts';

const MAAS = 'test/fixtures/maas';
const FORM = '<provider>://<optional>/<segments>/<id> (for MAAS maas:///<zone>/<system_id>)';

test('cli validate maas - the three kinds are checked; Cluster API objects are skipped, Secrets checked as the stores check them', async (t) => {
  const r = await metalfleet('validate', `${MAAS}/cluster.yaml`);
  t.is(r.code, 1);
  t.deepEqual(lines(r.stdout), [
    `${MAAS}/cluster.yaml:80:1: MaasMachine lab/c1-md-0-abcde: spec.minCPU: Required value`,
    `${MAAS}/cluster.yaml:87:3: MaasMachine lab/c1-md-0-abcde: spec.minMemory: Invalid value: -1: should be greater than or equal to 0`,
    `${MAAS}/cluster.yaml:86:3: MaasMachine lab/c1-md-0-abcde: spec.image: Invalid value: "": should be at least 1 chars long`,
    `${MAAS}/cluster.yaml:88:3: MaasMachine lab/c1-md-0-abcde: spec.providerID: providerID "maas:/az1/" must be of the form ${FORM}: there is no "://" after the provider name`,
    `${MAAS}/cluster.yaml:97:3: MaasCluster lab/c2: spec.dnsDomain: Invalid value: "": should be at least 1 chars long`,
    `${MAAS}/cluster.yaml:91:1: MaasCluster lab/c2: spec.controlPlaneEndpoint.port: Required value`,
    `${MAAS}/cluster.yaml:110:7: MaasMachineTemplate lab/c2-md-0: spec.template.spec.minCPU: Invalid value: "4": must be of type integer`,
    `${MAAS}/cluster.yaml:111:7: MaasMachineTemplate lab/c2-md-0: spec.template.spec.minMemory: Invalid value: 8192.5: must be of type integer`,
    `${MAAS}/cluster.yaml:112:7: MaasMachineTemplate lab/c2-md-0: spec.template.spec.providerID: providerID "aws:///us-east-1a/i-0abc" names provider "aws"; a MaasMachine's providerID is maas:///<zone>/<system_id>`,
    `${MAAS}/cluster.yaml:102:1: MaasMachineTemplate lab/c2-md-0: spec.template.spec.image: Required value: give image (e.g. ubuntu/jammy or custom/my-image), or osSystem with distroSeries`,
  ]);
  t.deepEqual(lines(r.stderr), [
    'note: Cluster/c1: skipped (kind not managed by metalfleet)',
    'note: Machine/c1-control-plane-x7k2p: skipped (kind not managed by metalfleet)',
    '7 objects checked, 3 invalid',
  ]);
  t.false(r.stderr.includes('no validation rules'));
});

test('cli validate maas - valid objects as CAPMAAS\'s docs write them exit 0', async (t) => {
  const r = await metalfleet('validate', `${MAAS}/valid.yaml`);
  t.is(r.code, 0);
  t.is(r.stdout, '');
  t.deepEqual(lines(r.stderr), ['3 objects checked, 0 invalid']);
});

test('cli validate maas - --old rejects changes to immutable fields of the same kind, namespace and name', async (t) => {
  const r = await metalfleet('validate', `${MAAS}/new.yaml`, '--old', `${MAAS}/old.yaml`);
  t.is(r.code, 1);
  t.deepEqual(lines(r.stdout), [
    `${MAAS}/new.yaml:7:3: MaasCluster lab/c1: spec.dnsDomain: changing cluster DNS Domain not allowed, old=maas, new=lab.maas`,
    `${MAAS}/new.yaml:20:7: MaasMachineTemplate lab/c1-control-plane: spec.template.spec.image: maas machine template image change is not allowed, old=custom/u-2204-0-k-1243-0, new=custom/u-2404-0-k-1312-0`,
    `${MAAS}/new.yaml:21:7: MaasMachineTemplate lab/c1-control-plane: spec.template.spec.minCPU: maas machine template min cpu count change is not allowed, old=4, new=8`,
    `${MAAS}/new.yaml:33:3: MaasMachine lab/c1-control-plane-x7k2p: spec.minMemory: maas machine min memory change is not allowed, old=8192 MB, new=16384 MB`,
  ]);
  // The decoys (same name in another namespace, same name and namespace as another kind) pair
  // with nothing, and say so rather than vanish (issue 31.4).
  t.deepEqual(lines(r.stderr), [
    `error: ${MAAS}/old.yaml:44: --old MaasMachine/w-0 in namespace other matches no object checked (by kind, namespace and name, or generateName); its update rules were not applied`,
    `error: ${MAAS}/old.yaml:55: --old MaasMachine/mt-worker in namespace lab matches no object checked (by kind, namespace and name, or generateName); its update rules were not applied`,
    '5 objects checked, 3 invalid, 2 --old unmatched',
  ]);
});

test('cli validate maas - without --old the same objects are valid creates', async (t) => {
  const r = await metalfleet('validate', `${MAAS}/new.yaml`);
  t.is(r.code, 0);
  t.is(r.stdout, '');
  t.deepEqual(lines(r.stderr), ['5 objects checked, 0 invalid']);
});

test('cli validate maas - hosts and MAAS objects in one run', async (t) => {
  const r = await metalfleet('validate', 'test/fixtures/validate/valid.yaml', `${MAAS}/valid.yaml`);
  t.is(r.code, 0);
  t.is(lines(r.stderr).at(-1), '5 objects checked, 0 invalid');
});
