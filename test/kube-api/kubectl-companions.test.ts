// The real kubectl against the test server with metalfleet's CRDs: BMO's companion kinds are
// served under BMO's names and short names, BMO's samples (as its Go types read them) apply, and
// `kubectl get` prints BMO's columns; BMO's own sample files are refused where its CRDs refuse them.
import { join } from 'node:path';
import test from 'ava';
import { ROOT } from '../cli/run.ts';
import { DEPLOY_CRDS, rows, withKubectl } from './kubectl-support.ts';

const FIXTURES = join(ROOT, 'test/fixtures/bmo-companions');
const UPSTREAM_SAMPLES = join(ROOT, 'test/deploy/upstream/bmo/config/samples');
const FILES = ['hardwaredata.yaml', 'firmwareschema.yaml', 'hostfirmwaresettings.yaml', 'hostfirmwarecomponents.yaml', 'hostupdatepolicy.yaml'];

test('kubectl companions - BMO\'s names and short names; its samples apply; get prints NAME and AGE, as BMO\'s CRDs make it', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  await k.ok('create', 'namespace', 'lab');
  const resources = rows(await k.ok('api-resources', '--api-group=metal3.io'));
  t.deepEqual(resources.slice(1).map((r) => (r.length === 5 ? r : [r[0], '', ...r.slice(1)])), [
    ['baremetalhosts', 'bmh,bmhost', 'metal3.io/v1alpha1', 'true', 'BareMetalHost'],
    ['firmwareschemas', '', 'metal3.io/v1alpha1', 'true', 'FirmwareSchema'],
    ['hardwaredata', 'hd', 'metal3.io/v1alpha1', 'true', 'HardwareData'],
    ['hostfirmwarecomponents', '', 'metal3.io/v1alpha1', 'true', 'HostFirmwareComponents'],
    ['hostfirmwaresettings', 'hfs', 'metal3.io/v1alpha1', 'true', 'HostFirmwareSettings'],
    ['hostupdatepolicies', '', 'metal3.io/v1alpha1', 'true', 'HostUpdatePolicy'],
  ]);

  const applied = await k.ok('apply', '-n', 'lab', ...FILES.flatMap((f) => ['-f', join(FIXTURES, f)]));
  for (const name of ['hardwaredata.metal3.io/hardwaredata-sample', 'firmwareschema.metal3.io/firmwareschema-sample', 'hostfirmwaresettings.metal3.io/hostfirmwaresettings-sample', 'hostfirmwarecomponents.metal3.io/hostfirmwarecomponents-sample', 'hostupdatepolicy.metal3.io/hostupdatepolicy-sample']) {
    t.regex(applied, new RegExp(`${name.replace(/\./g, '\\.')} created`), name);
  }

  const hfs = rows(await k.ok('get', 'hfs', '-n', 'lab'));
  t.deepEqual(hfs[0], ['NAME', 'AGE']);
  t.is(hfs[1]?.[0], 'hostfirmwaresettings-sample');
  t.regex(hfs[1]?.[1] ?? '', /^\d+s$/);
  // HardwareData's own Age column (BMO's only printer column on these kinds) reads as kubectl's.
  const hd = rows(await k.ok('get', 'hd', '-n', 'lab'));
  t.deepEqual(hd[0], ['NAME', 'AGE']);
  t.is(hd[1]?.[0], 'hardwaredata-sample');
  for (const kind of ['firmwareschemas', 'hostfirmwarecomponents', 'hostupdatepolicies']) {
    const table = rows(await k.ok('get', kind, '-n', 'lab'));
    t.deepEqual(table[0], ['NAME', 'AGE'], kind);
    t.is(table.length, 2, kind);
  }
  // What was stored is what BMO's types hold: the wanted settings as written (int-or-string).
  t.is(await k.ok('get', 'hfs', 'hostfirmwaresettings-sample', '-n', 'lab', '-o', 'jsonpath={.spec.settings.NetworkBootRetryCount}'), '20');
  t.is(await k.ok('get', 'hd', 'hardwaredata-sample', '-n', 'lab', '-o', 'jsonpath={.spec.hardware.nics[0].mac}'), '00:c6:14:04:61:b2');
  t.regex(await k.ok('explain', 'hfs.spec.settings'), /The wanted firmware settings, by name\./);
});

test('kubectl companions - BMO\'s own sample files are refused where BMO\'s CRDs refuse them, naming the field', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  await k.ok('create', 'namespace', 'lab');
  const refused: [string, RegExp][] = [
    ['metal3.io_v1alpha1_firmwareschema.yaml', /unknown field "status"/],
    ['metal3.io_v1alpha1_hostfirmwarecomponents.yaml', /unknown field "spec\.updates\[0\]\.name"/],
    ['metal3.io_v1alpha1_hostfirmwaresettings.yaml', /spec\.settings/],
  ];
  for (const [file, error] of refused) {
    const r = await k.run('apply', '-n', 'lab', '-f', join(UPSTREAM_SAMPLES, file));
    t.is(r.code, 1, file);
    t.regex(r.stderr, error, file);
  }
  t.deepEqual(rows(await k.ok('get', 'hfs,hostfirmwarecomponents,firmwareschemas', '-n', 'lab', '-o', 'name')), [['']]);
});
