import test from 'ava';
import type { MaasView } from '../../src/machines/maas-machine/index.ts';
import { T0, calls, condition, grant, maasMachine, noneEarlier, reply, start, tick, types, view, world } from './maas-fixtures.ts';
import type { MachineSpecPatch } from './maas-fixtures.ts';

// Issue 32 (4 and 3b): images named as MAAS names them, MAAS's kernel and deploy options, and a
// static address linked before deploy, each refused with a condition before any deploy call.

const allocatedView = (architecture?: string): MaasView => ({ ...view('Allocated', 'off'), ...(architecture ? { architecture } : {}) });

/** A worker (skipSwap) with this spec, allocated: the step after the allocate answered. */
function allocated(spec: MachineSpecPatch, architecture?: string) {
  const s1 = grant(noneEarlier(tick(start(maasMachine(spec, {}, false), world(), { skipSwap: true }))).state);
  return reply(s1, { kind: 'done', machine: allocatedView(architecture) });
}

test('maas deploy options - osSystem and distroSeries with an HWE kernel and hardware sync reach the deploy call', (t) => {
  const s = allocated({ image: undefined, osSystem: 'ubuntu', distroSeries: 'noble', hweKernel: 'hwe-24.04', enableHwSync: true }, 'amd64/generic');
  t.deepEqual(calls(s), [{ op: 'deploy', systemId: 'abc123', image: 'ubuntu/noble', ephemeral: false, architecture: 'amd64/generic', hweKernel: 'hwe-24.04', enableHwSync: true }]);
  t.is(condition(s.state, 'ImageAvailable')?.status, 'True');
});

test('maas deploy options - a custom image, as custom/<name> or osSystem custom, deploys as custom/<name>', (t) => {
  t.deepEqual(calls(allocated({ image: 'custom/my-image' })), [{ op: 'deploy', systemId: 'abc123', image: 'custom/my-image', ephemeral: false }]);
  t.deepEqual(calls(allocated({ image: undefined, osSystem: 'custom', distroSeries: 'my-image' })), [{ op: 'deploy', systemId: 'abc123', image: 'custom/my-image', ephemeral: false }]);
  // CAPMAAS's bare name is a custom image too (splitImage).
  t.deepEqual(calls(allocated({ image: 'u-2204-0-k-1264-0' })), [{ op: 'deploy', systemId: 'abc123', image: 'custom/u-2204-0-k-1264-0', ephemeral: false }]);
});

test('maas deploy options - an image MAAS lacks: ImageAvailable False, no machine held, no deploy, looked at again a minute later', (t) => {
  const s1 = grant(noneEarlier(tick(start(maasMachine({ image: 'rhel/9' }, {}, false), world(), { skipSwap: true }))).state);
  t.like(calls(s1)[0], { op: 'allocate', image: 'rhel/9' });
  const message = 'MAAS has no boot resource rhel/9; it has ubuntu/focal, ubuntu/jammy, ubuntu/noble, custom/my-image';
  const refused = reply(s1, { kind: 'failed', reason: 'imageNotFound', message });
  t.like(condition(refused.state, 'ImageAvailable'), { status: 'False', reason: 'ImageNotFound', message });
  t.like(condition(refused.state, 'MachineDeployed'), { status: 'False', reason: 'ImageNotFound' });
  t.like(condition(refused.state, 'Ready'), { status: 'False', reason: 'ImageNotFound' });
  t.false(refused.state.status.ready);
  t.is(refused.state.phase, 'pending');
  t.is(refused.state.slot.phase, 'none');
  t.true(types(refused).includes('releaseSlot'));
  t.deepEqual(refused.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 60_000 }]);
  t.true(refused.effects.some((e) => e.type === 'event' && e.reason === 'ImageNotFound' && e.message === message));
  // Nothing is asked of MAAS before the minute is up.
  t.deepEqual(calls(tick(refused.state, T0 + 30_000)), []);
  t.deepEqual(types(tick(refused.state, T0 + 30_000)).filter((x) => x === 'requestSlot'), []);
  // Then it looks again (first for an earlier allocation, as before every allocate).
  t.like(calls(tick(refused.state, T0 + 60_000))[0], { op: 'findAllocated' });
});

test('maas deploy options - MAAS lacks the image for the allocated machine\'s architecture: condition, slot given back, no deploy', (t) => {
  const s = allocated({ image: 'custom/arm-only' }, 'amd64/generic');
  t.deepEqual(calls(s), [{ op: 'deploy', systemId: 'abc123', image: 'custom/arm-only', ephemeral: false, architecture: 'amd64/generic' }]);
  const refused = reply(s, { kind: 'failed', reason: 'imageNotFound', message: 'MAAS has no boot resource custom/arm-only for amd64; it has ubuntu/jammy' });
  t.like(condition(refused.state, 'ImageAvailable'), { status: 'False', reason: 'ImageNotFound' });
  t.is(refused.state.phase, 'allocated');
  t.is(refused.state.slot.phase, 'none');
  t.not(condition(refused.state, 'MachineDeployed')?.reason, 'MachineDeployFailed');
  t.deepEqual(calls(tick(refused.state, T0 + 59_000)), []);
  // The image uploaded meanwhile: a fresh look, a slot, and the deploy.
  const look = tick(refused.state, T0 + 60_000);
  t.deepEqual(calls(look), [{ op: 'get', systemId: 'abc123' }]);
  const again = grant(reply(look, { kind: 'done', machine: allocatedView('amd64/generic') }, T0 + 60_000).state, T0 + 60_000);
  t.like(calls(again)[0], { op: 'deploy', image: 'custom/arm-only' });
  const deploying = reply(again, { kind: 'done', machine: view('Deploying') }, T0 + 60_000);
  t.like(condition(deploying.state, 'ImageAvailable'), { status: 'True', reason: 'ImageAvailable' });
});

test('maas deploy options - minHweKernel is set on the machine before deploy; a non-admin key is told why', (t) => {
  const s = allocated({ minHweKernel: 'hwe-22.04' });
  t.deepEqual(calls(s), [{ op: 'setMinHweKernel', systemId: 'abc123', minHweKernel: 'hwe-22.04' }]);
  const set = reply(s, { kind: 'done', machine: allocatedView() });
  t.like(calls(set)[0], { op: 'deploy' });
  const refused = reply(s, { kind: 'failed', reason: 'forbidden', message: 'MAAS answered HTTP 403' });
  t.like(condition(refused.state, 'MachineDeployed'), { status: 'False', reason: 'MachineDeployFailed' });
  t.regex(condition(refused.state, 'MachineDeployed')?.message ?? '', /minHweKernel .*admin key/);
  t.deepEqual(calls(refused), []);
});

test('maas deploy options - a static address is linked after allocation and before deploy; the condition names it', (t) => {
  const s = allocated({ staticAddress: { subnet: '10.10.1.0/24', address: '10.10.1.200', interface: 'eno1', defaultGateway: true } });
  t.deepEqual(calls(s), [{ op: 'linkStatic', systemId: 'abc123', subnet: '10.10.1.0/24', interface: 'eno1', address: '10.10.1.200', defaultGateway: true }]);
  const linked = reply(s, { kind: 'done', machine: { ...allocatedView(), ipAddresses: ['10.10.1.200'] } });
  t.like(condition(linked.state, 'StaticAddress'), { status: 'True', reason: 'StaticAddressAssigned', message: '10.10.1.200 linked STATIC on eno1, subnet 10.10.1.0/24' });
  t.like(calls(linked)[0], { op: 'deploy' });
});

test('maas deploy options - an address in use: StaticAddress False with MAAS\'s words, no deploy, tried again after the backoff', (t) => {
  const s = allocated({ staticAddress: { subnet: '10.10.1.0/24', address: '10.10.1.5' } });
  const message = 'MAAS refused 10.10.1.5 on eno1 (subnet 10.10.1.0/24): IP address is already in use.';
  const refused = reply(s, { kind: 'failed', reason: 'addressInUse', message });
  t.like(condition(refused.state, 'StaticAddress'), { status: 'False', reason: 'AddressInUse', message });
  t.like(condition(refused.state, 'Ready'), { status: 'False', reason: 'AddressInUse' });
  t.deepEqual(calls(refused), []);
  t.is(refused.state.slot.phase, 'none');
  const retry = refused.state.retryAt ?? 0;
  t.true(retry > T0);
  t.deepEqual(calls(tick(refused.state, retry - 1)), []);
  const look = tick(refused.state, retry);
  t.deepEqual(calls(look), [{ op: 'get', systemId: 'abc123' }]);
  const slot = grant(reply(look, { kind: 'done', machine: allocatedView() }, retry).state, retry);
  t.like(calls(slot)[0], { op: 'linkStatic', address: '10.10.1.5' });
});

test('maas deploy options - each link_subnet refusal has its reason', (t) => {
  const cases = [['addressInvalid', 'AddressNotInSubnet'], ['subnetNotFound', 'SubnetNotFound'], ['interfaceNotFound', 'InterfaceNotFound'], ['forbidden', 'StaticAddressForbidden']] as const;
  for (const [reason, expected] of cases) {
    const refused = reply(allocated({ staticAddress: { subnet: '10.99.0.0/24' } }), { kind: 'failed', reason, message: 'no' });
    t.is(condition(refused.state, 'StaticAddress')?.reason, expected, reason);
  }
});

test('maas deploy options - a spec with no image allocates nothing and says so', (t) => {
  const s = tick(start(maasMachine({ image: undefined }, {}, false)));
  t.deepEqual(calls(s).filter((c) => c.op === 'allocate'), []);
  const looked = noneEarlier(tick(start(maasMachine({ image: undefined }, {}, false))));
  t.deepEqual(calls(looked), []);
  t.false(types(looked).includes('requestSlot'));
  t.like(condition(looked.state, 'ImageAvailable'), { status: 'False', reason: 'NoImage' });
});
