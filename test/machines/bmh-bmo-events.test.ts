// The Event reasons and messages BMO's provisioner and controller publish, mapped from what the
// machine does: pure, before they are wired into the step.
import test from 'ava';
import { doneEvents, startedEvent } from '../../src/machines/bmh/bmo-events.ts';
import { makeHost } from '../support/bmh.ts';

test('bmo events - inspect, provision and deprovision starting are InspectionStarted, ProvisioningStarted (with the image) and DeprovisioningStarted', (t) => {
  t.deepEqual(startedEvent({ op: 'inspect', restartOnFailure: false, refresh: false }), { severity: 'Normal', reason: 'InspectionStarted', message: 'Hardware inspection started' });
  const provision = startedEvent({ op: 'provision', image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' }, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined });
  t.deepEqual(provision, { severity: 'Normal', reason: 'ProvisioningStarted', message: 'Image provisioning started for http://images/os.qcow2' });
  t.is(startedEvent({ op: 'deprovision', restartOnFailure: false, automatedCleaning: true })?.reason, 'DeprovisioningStarted');
  t.is(startedEvent({ op: 'hardwareState' }), null, 'a poll starts nothing');
});

test('bmo events - an image URL is quoted without its userinfo or query: an Event never carries a credential', (t) => {
  const url = 'https://puller:img-s3cret@images.example/os.qcow2?X-Amz-Signature=sig-s3cret';
  const started = startedEvent({ op: 'provision', image: { url, checksum: 'abc', checksumType: 'sha256' }, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined });
  t.is(started?.message, 'Image provisioning started for https://xxxxx@images.example/os.qcow2');
  const host = makeHost();
  const complete = doneEvents('provision', { ...host, spec: { ...host.spec, image: { url, checksum: 'abc', checksumType: 'sha256' } } }, NONE);
  for (const e of [started, ...complete]) t.false(/s3cret/.test(e?.message ?? ''), e?.message);
});

const NONE = { firstRegistration: false, credentialsValidated: false };

test('bmo events - completion: Registered on the first registration, BMCAccessValidated when new credentials worked (BMO registerHost registeredNewCreds), then Inspection/Provisioning/DeprovisioningComplete and PowerOn/PowerOff', (t) => {
  const host = makeHost();
  t.deepEqual(doneEvents('register', host, { firstRegistration: true, credentialsValidated: true }).map((e) => e.reason), ['Registered', 'BMCAccessValidated']);
  t.deepEqual(doneEvents('register', host, NONE), [], 'a re-registration of a known node with the same credentials is silent');
  t.deepEqual(doneEvents('register', host, { firstRegistration: false, credentialsValidated: true }).map((e) => e.reason), ['BMCAccessValidated'], 'a new Secret version that works is validated again');
  t.deepEqual(doneEvents('inspect', host, NONE).map((e) => e.reason), ['InspectionComplete']);
  t.deepEqual(doneEvents('provision', host, NONE), [{ severity: 'Normal', reason: 'ProvisioningComplete', message: `Image provisioning completed for ${host.spec.image?.url ?? ''}` }]);
  t.deepEqual(doneEvents('deprovision', host, NONE).map((e) => e.message), ['Image deprovisioning completed']);
  t.deepEqual(doneEvents('powerOn', host, NONE).map((e) => e.reason), ['PowerOn']);
  t.deepEqual(doneEvents('powerOff', host, NONE).map((e) => e.reason), ['PowerOff']);
  t.deepEqual(doneEvents('hardwareState', host, NONE), []);
});

// ---- wired into the machine --------------------------------------------------------------------

import { initialState, step } from '../../src/machines/bmh/index.ts';
import type { BmhEffect, CallArgs, OpResult } from '../../src/machines/bmh/index.ts';
import { settle, T0 } from '../support/bmh.ts';

const reasons = (effects: readonly BmhEffect[]): string[] => effects.flatMap((e) => (e.type === 'event' && e.reason !== 'StateChanged' ? [e.reason] : []));

test('bmo events - a new host driven to provisioned emits BMO\'s reasons in BMO\'s order, each "Started" once however often the operation is polled', (t) => {
  // Provision is polled twice (continuing) before it is done: still one ProvisioningStarted.
  let provisionCalls = 0;
  const oracle = (args: CallArgs): OpResult => {
    if (args.op === 'provision' && ++provisionCalls < 3) return { kind: 'continuing', afterMs: 10 };
    return { kind: 'done', poweredOn: args.op === 'provision' ? true : undefined } as OpResult;
  };
  // The machine waits out each "continuing": tick past the wait until it is provisioned.
  let now = T0;
  let { last, all } = settle(step(initialState(makeHost()), { type: 'tick' }, now), oracle, now, 200);
  for (let i = 0; i < 5 && last.state.host.status.provisioning.state !== 'provisioned'; i++) {
    now += 1_000;
    const more = settle(step(last.state, { type: 'tick' }, now), oracle, now, 200);
    last = more.last;
    all = [...all, ...more.all];
  }
  t.is(last.state.host.status.provisioning.state, 'provisioned');
  const seen = reasons(all);
  t.deepEqual(seen.filter((r) => r !== 'PowerOn' && r !== 'PowerOff'), [
    'Registered', 'BMCAccessValidated', 'ProfileSet', 'InspectionStarted', 'InspectionComplete', 'ProvisioningStarted', 'ProvisioningComplete',
  ]);
  t.is(provisionCalls, 3);
});

test('bmo events - inspection disabled is InspectionSkipped "disabled by user" (BMO actionInspecting)', (t) => {
  const host = makeHost({ annotations: { 'inspect.metal3.io': 'disabled' } });
  const { all } = settle(step(initialState(host), { type: 'tick' }, T0), () => ({ kind: 'done' }), T0, 200);
  const skipped = all.find((e) => e.type === 'event' && e.reason === 'InspectionSkipped');
  t.deepEqual(skipped, { type: 'event', severity: 'Normal', reason: 'InspectionSkipped', message: 'disabled by user' });
  t.false(reasons(all).includes('InspectionStarted'));
});
