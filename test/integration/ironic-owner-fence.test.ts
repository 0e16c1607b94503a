// Fencing at a real Ironic (issue 19.2): the owner of a host records its shard lease in the node's
// `extra`; an owner whose lease is older than the recorded one does not act, and no write leaves
// once the caller's lease is no longer safely held, even in the middle of a multi-request step.
import test from 'ava';
import { OWNER_EXTRA } from '../../src/adapters/ironic/provisioner/index.ts';
import type { Fence, FenceRefusal, HostData } from '../../src/ports/index.ts';
import { useIronicProvisioner } from '../support/ironic.ts';

const it = useIronicProvisioner(test);

function hostData(name: string, fence: Fence, leaseHeld?: () => boolean): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: `uid-${name}`, provisionerId: '',
    spec: { online: true, bmc: { address: `redfish://192.168.111.1:8000/redfish/v1/Systems/${name}`, credentialsName: 'bmc' }, bootMACAddress: '52:54:00:aa:bb:0' + String(name.length % 10) } as HostData['spec'],
    credentials: { username: 'admin', password: 'owner-fence-password' },
    fence,
    ...(leaseHeld ? { leaseHeld } : {}),
  };
}

async function registered(name: string, fence: Fence): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const r = await it.provisioner.register(hostData(name, fence), { op: 'register', restartOnFailure: false, credentialsChanged: false });
    if (r.kind === 'done') return (await it.client.getNode(`lab~${name}`))!.uuid;
    if (r.kind === 'failed') throw new Error(`register failed: ${r.message}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('register did not finish');
}

test('ironic owner fence - the owner records its lease on the node; an owner of an older epoch is refused and changes nothing', async (t) => {
  const b: Fence = { holder: 'node-b', shard: 3, epoch: 10 };
  const uuid = await registered('fence1', b);
  // The first call with a fence on an existing node records it.
  const first = await it.provisioner.hardwareState(hostData('fence1', b), { op: 'hardwareState' });
  t.not(first.kind, 'failed');
  t.deepEqual((await it.client.getNode(uuid))?.extra?.[OWNER_EXTRA], { holder: 'node-b', shard: 3, epoch: 10 });

  const before = (await it.client.getNode(uuid))!;
  // The refusal is told with the epoch it lost to, so the shard's owner retakes above it (issue 30).
  const told: FenceRefusal[] = [];
  const stale = await it.provisioner.powerOn({ ...hostData('fence1', { holder: 'node-a', shard: 3, epoch: 7 }), onFenceRefused: (r) => told.push(r) }, { op: 'powerOn', force: false });
  t.deepEqual(told, [{ fence: { holder: 'node-a', shard: 3, epoch: 7 }, current: 10, by: 'backend' }]);
  t.is(stale.kind, 'transient');
  t.regex(stale.kind === 'transient' ? stale.message : '', /driven by node-b \(lease epoch 10 of shard 3\).*epoch 7/);
  const after = (await it.client.getNode(uuid))!;
  t.is(after.power_state, before.power_state);
  t.is(after.target_power_state ?? null, before.target_power_state ?? null);
  t.deepEqual(after.extra?.[OWNER_EXTRA], { holder: 'node-b', shard: 3, epoch: 10 }, 'the older owner did not overwrite the record');

  // A later epoch (the shard moved again) takes over the record and acts.
  const c = await it.provisioner.hardwareState(hostData('fence1', { holder: 'node-c', shard: 3, epoch: 12 }), { op: 'hardwareState' });
  t.not(c.kind, 'failed');
  t.deepEqual((await it.client.getNode(uuid))?.extra?.[OWNER_EXTRA], { holder: 'node-c', shard: 3, epoch: 12 });
});

test('ironic owner fence - no write leaves once the lease is no longer safely held, even between the requests of one step', async (t) => {
  const fence: Fence = { holder: 'node-b', shard: 5, epoch: 20 };
  const uuid = await registered('fence22', fence);
  const before = (await it.client.getNode(uuid))!;
  // Lost by the time the step sends its first write (the reads before it still go out).
  let asked = 0;
  const result = await it.provisioner.powerOff(hostData('fence22', { ...fence, epoch: 21 }, () => {
    asked += 1;
    return false;
  }), { op: 'powerOff', mode: 'hard', force: false });
  t.is(result.kind, 'transient');
  t.regex(result.kind === 'transient' ? result.message : '', /lease of lab\/fence22 is no longer safely held.*Ironic was not called/);
  const after = (await it.client.getNode(uuid))!;
  t.is(after.power_state, before.power_state);
  t.is(after.target_power_state ?? null, before.target_power_state ?? null);
  t.not((after.extra?.[OWNER_EXTRA] as { epoch?: number } | undefined)?.epoch, 21, 'not even the owner record was written');
  t.true(asked >= 1, 'the lease was asked before the write');
});

// Serial: it counts the client's requests, which the other tests of this file share. Its name's
// length sets a boot MAC no other host here has (hostData).
test.serial('ironic owner fence - a node is created with its owner\'s record: a fresh registration sends no PATCH and no read after one, and an older owner is still refused', async (t) => {
  const fence: Fence = { holder: 'node-b', shard: 4, epoch: 9 };
  const patches = (): number => it.client.stats.byRoute['PATCH /v1/nodes/{node}'] ?? 0;
  const before = patches();
  const uuid = await registered('fence-new', fence);
  const node = (await it.client.getNode(uuid))!;
  t.deepEqual(node.extra?.[OWNER_EXTRA], { holder: 'node-b', shard: 4, epoch: 9 }, 'recorded by the POST that created the node');
  t.is(patches() - before, 0, 'no PATCH to record the owner: the calls after the first found it theirs');
  // The owner's next call is as cheap: its own record, nothing written.
  t.not((await it.provisioner.hardwareState(hostData('fence-new', fence), { op: 'hardwareState' })).kind, 'failed');
  t.is(patches() - before, 0);

  // A second owner of an older epoch of the shard meets the record as it would a claimed one.
  const stale = await it.provisioner.powerOn(hostData('fence-new', { holder: 'node-a', shard: 4, epoch: 8 }), { op: 'powerOn', force: false });
  t.is(stale.kind, 'transient');
  t.regex(stale.kind === 'transient' ? stale.message : '', /driven by node-b \(lease epoch 9 of shard 4\).*epoch 8/);
  t.deepEqual((await it.client.getNode(uuid))?.extra?.[OWNER_EXTRA], { holder: 'node-b', shard: 4, epoch: 9 });
  // A later epoch takes it over with one PATCH, and goes on with the node that PATCH answered.
  const gets = (): number => it.client.stats.byRoute['GET /v1/nodes/{node}'] ?? 0;
  const getsBefore = gets();
  t.not((await it.provisioner.hardwareState(hostData('fence-new', { holder: 'node-c', shard: 4, epoch: 11 }), { op: 'hardwareState' })).kind, 'failed');
  t.is(patches() - before, 1);
  t.is(gets() - getsBefore, 1, 'one read to find the node; none after the PATCH');
  t.deepEqual((await it.client.getNode(uuid))?.extra?.[OWNER_EXTRA], { holder: 'node-c', shard: 4, epoch: 11 });
});
