import test from 'ava';
import type { CallArgs, OpResult } from '../../src/machines/bmh/index.ts';
import { atState, calls, done, grant, makeHost, reply, settle, tick } from '../support/bmh.ts';

// Divergences from baremetal-operator 02aa5059 found comparing reference/bmo.md with the machine:
// what a deploy or a teardown leaves behind (reboot annotations, software RAID), and the base
// reboot annotation on a host that is off. Each title names the BMO function it follows.

const image = makeHost().spec.image;
const removed = (effects: readonly { type: string; key?: string }[], key: string): boolean => effects.some((e) => e.type === 'removeAnnotation' && e.key === key);
// An actor whose power reads find the host on, as a deployed host is.
const onOracle = (args: CallArgs): OpResult => (args.op === 'hardwareState' ? { kind: 'done', poweredOn: true } : done);

// ---- reboot.metal3.io does not outlive a deploy ----------------------------------------------

test('BMO actionProvisioning clearRebootAnnotations: a base reboot annotation left on an available host is removed by the deploy, which is not followed by a reboot', (t) => {
  // Not forced, so the available host ignored it (BMO hasRebootAnnotation(info, true)).
  const start = atState('available', { annotations: { 'reboot.metal3.io': '' }, status: { poweredOn: true } });
  const { last, all } = settle(tick(start), onOracle);
  t.is(last.state.host.status.provisioning.state, 'provisioned');
  t.true(removed(all, 'reboot.metal3.io'));
  t.false(all.some((e) => e.type === 'call' && e.args.op === 'powerOff'), 'the freshly deployed host is not rebooted');
});

test('BMO actionProvisioning clearRebootAnnotations: any answer that is not a failure removes the base annotation; a failure keeps it; suffixed ones stay', (t) => {
  const annotations = { 'reboot.metal3.io': '', 'reboot.metal3.io/phase-1': '' };
  const s0 = grant(tick(atState('provisioning', { annotations })).state);
  t.deepEqual(calls(s0.effects).map((c) => c.op), ['provision']);
  const going = reply(s0, { kind: 'continuing', afterMs: 10_000 });
  t.true(removed(going.effects, 'reboot.metal3.io'));
  t.false(removed(going.effects, 'reboot.metal3.io/phase-1'));
  t.is(going.state.host.metadata.annotations?.['reboot.metal3.io/phase-1'], '');
  const failed = reply(s0, { kind: 'failed', message: 'deploy failed' });
  t.false(removed(failed.effects, 'reboot.metal3.io'));
});

test('BMO actionDeprovisioning clearRebootAnnotations: a finished deprovision removes the base reboot annotation, not before', (t) => {
  const s0 = grant(tick(atState('deprovisioning', { spec: { image: undefined }, annotations: { 'reboot.metal3.io': '{"mode":"hard"}' } })).state);
  t.false(removed(reply(s0, { kind: 'continuing', afterMs: 10_000 }).effects, 'reboot.metal3.io'));
  const s1 = reply(s0, done);
  t.is(s1.state.host.status.provisioning.state, 'available');
  t.true(removed(s1.effects, 'reboot.metal3.io'));
});

// ---- manageHostPower: a host that is off has had its reboot ------------------------------------

test('BMO manageHostPower: an available host that is off drops a base reboot annotation even when it is not forced', (t) => {
  const off = atState('available', { spec: { image: undefined, online: false }, status: { poweredOn: false }, annotations: { 'reboot.metal3.io': '' } });
  const s = tick(off);
  t.true(removed(s.effects, 'reboot.metal3.io'));
  t.deepEqual(calls(s.effects), []);
  // Online: the annotation goes, then the host is powered on (no power-off first).
  const onWanted = atState('available', { spec: { image: undefined }, status: { poweredOn: false }, annotations: { 'reboot.metal3.io': '', 'reboot.metal3.io/x': '' } });
  const s2 = tick(onWanted);
  t.true(removed(s2.effects, 'reboot.metal3.io'));
  t.false(removed(s2.effects, 'reboot.metal3.io/x'));
  t.deepEqual(calls(s2.effects), [{ op: 'powerOn', force: false }]);
});

// ---- clearHostProvisioningSettings: software RAID is built again after a teardown -----------

const softwareRaid = { softwareRAIDVolumes: [{ level: '1' as const }] };

test('BMO actionDeprovisioning clearHostProvisioningSettings: software RAID is forgotten by a teardown, so the host is prepared again before its next deploy', (t) => {
  const newImage = { ...image!, url: 'http://images/ubuntu-24.qcow2' };
  const start = atState('provisioned', {
    spec: { image: newImage, raid: softwareRaid },
    status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'node-1', image, raid: { hardwareRAIDVolumes: null, softwareRAIDVolumes: softwareRaid.softwareRAIDVolumes } } },
  });
  const { last, all } = settle(tick(start), onOracle);
  const ops = all.flatMap((e) => (e.type === 'call' ? [e.args] : []));
  t.deepEqual(ops.map((c) => c.op).filter((op) => op !== 'hardwareState'), ['deprovision', 'prepare', 'provision']);
  const prepare = ops.find((c): c is Extract<CallArgs, { op: 'prepare' }> => c.op === 'prepare');
  t.deepEqual(prepare?.raid, { target: { hardwareRAIDVolumes: null, softwareRAIDVolumes: softwareRaid.softwareRAIDVolumes }, actual: { hardwareRAIDVolumes: null, softwareRAIDVolumes: null } });
  t.is(last.state.host.status.provisioning.state, 'provisioned');
  t.deepEqual(last.state.host.status.provisioning.raid?.softwareRAIDVolumes, softwareRaid.softwareRAIDVolumes);
});

test('BMO actionDeprovisioning clearHostProvisioningSettings: hardware RAID is kept, so it is not configured again', (t) => {
  const hardwareRAIDVolumes = [{ level: '1' as const, sizeGibibytes: 100 }];
  const s0 = grant(tick(atState('deprovisioning', {
    spec: { image: undefined, raid: { hardwareRAIDVolumes } },
    status: { provisioning: { state: 'deprovisioning', ID: 'node-1', raid: { hardwareRAIDVolumes, softwareRAIDVolumes: [] } } },
  })).state);
  const s1 = reply(s0, done);
  t.is(s1.state.host.status.provisioning.state, 'available');
  t.deepEqual(s1.state.host.status.provisioning.raid, { hardwareRAIDVolumes, softwareRAIDVolumes: null });
  t.deepEqual(calls(s1.effects).filter((c) => c.op === 'prepare'), []);
});

test('BMO handleAvailable clearHostProvisioningSettings: an available host taken as externally provisioned forgets its software RAID', (t) => {
  const s = tick(atState('available', {
    spec: { externallyProvisioned: true, raid: softwareRaid },
    status: { provisioning: { state: 'available', ID: 'node-1', raid: { hardwareRAIDVolumes: null, softwareRAIDVolumes: softwareRaid.softwareRAIDVolumes } } },
  }));
  t.is(s.state.host.status.provisioning.state, 'externally provisioned');
  t.is(s.state.host.status.provisioning.raid?.softwareRAIDVolumes, null);
});
