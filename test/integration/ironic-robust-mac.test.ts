// A boot MAC that Ironic already knows on another node, against a real Ironic. BMO's
// findExistingHost (pkg/provisioner/ironic/ironic.go) looks a host's node up by ID, then by name,
// then by the port of its boot MAC; a node found by MAC that has a name is another host's, and
// Register fails with "MAC address <mac> conflicts with existing node <name>" instead of taking
// that node over. createNodePort refuses a port that belongs to another node the same way.
import test from 'ava';
import type { Fence, HostData } from '../../src/ports/index.ts';
import { useIronicProvisioner } from '../support/ironic.ts';

const it = useIronicProvisioner(test);

function hostData(name: string, mac: string): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: `uid-${name}`, provisionerId: '',
    spec: { online: true, bmc: { address: `redfish://192.168.111.1:8000/redfish/v1/Systems/${name}`, credentialsName: 'bmc' }, bootMACAddress: mac } as HostData['spec'],
    credentials: { username: `${name}-user`, password: `${name}-mac-conflict-password` },
  };
}

type Registered = Awaited<ReturnType<typeof it.provisioner.register>>;

async function register(h: HostData): Promise<Registered> {
  let r: Registered = { kind: 'continuing', afterMs: 0 };
  for (let i = 0; i < 100; i++) {
    r = await it.provisioner.register(h, { op: 'register', restartOnFailure: false, credentialsChanged: false });
    if (r.kind !== 'continuing') return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return r;
}

// Serial: it counts the client's PATCHes, which the other tests (a nameless node given its name) also send.
test.serial('ironic mac - a second host with a boot MAC another named node has is a registration error naming both, and that node is left alone', async (t) => {
  const first = await register(hostData('owner', '52:54:00:ac:00:01'));
  t.like(first, { kind: 'done' });
  const owner = await it.client.getNode('lab~owner');
  const writesBefore = it.client.stats.byRoute['PATCH /v1/nodes/{node}'] ?? 0;

  const second = await register(hostData('intruder', '52:54:00:AC:00:01'));
  t.is(second.kind, 'failed');
  const message = second.kind === 'failed' ? second.message : '';
  t.regex(message, /MAC address 52:54:00:ac:00:01 conflicts with existing node lab~owner/i);
  t.regex(message, /bootMACAddress/);
  t.false(message.includes('mac-conflict-password'));

  t.is(it.client.stats.byRoute['PATCH /v1/nodes/{node}'] ?? 0, writesBefore, 'no write to the other host\'s node');
  const after = await it.client.getNode('lab~owner');
  t.deepEqual(after?.driver_info, owner?.driver_info);
  t.is(await it.client.getNode('lab~intruder'), null, 'no node created for the second host');

  // Deleting the second host finds no node of its own: the other host's node stays.
  t.like(await it.provisioner.delete(hostData('intruder', '52:54:00:ac:00:01'), { op: 'delete' }), { kind: 'done' });
  t.not(await it.client.getNode(owner?.uuid ?? 'lab~owner'), null, 'the other host\'s node was not deleted');
});

test('ironic mac - with an owner fence the other host\'s node is neither claimed nor written', async (t) => {
  t.like(await register(hostData('fenced-owner', '52:54:00:ac:00:04')), { kind: 'done' });
  const before = await it.client.getNode('lab~fenced-owner');
  const fence: Fence = { holder: 'node-x', shard: 9, epoch: 3 };
  const r = await register({ ...hostData('fenced-intruder', '52:54:00:ac:00:04'), fence });
  t.is(r.kind, 'failed');
  t.regex(r.kind === 'failed' ? r.message : '', /conflicts with existing node lab~fenced-owner/);
  const after = await it.client.getNode('lab~fenced-owner');
  t.deepEqual(after?.extra, before?.extra, 'no owner record written on another host\'s node');
  t.deepEqual(after?.driver_info, before?.driver_info);
});

test('ironic mac - a nameless node found by the boot MAC is taken over (an enrolment by hand), as BMO does', async (t) => {
  const bare = await it.client.createNode({ driver: 'fake-hardware' } as Parameters<typeof it.client.createNode>[0]);
  await it.client.createPort({ nodeUuid: bare.uuid, address: '52:54:00:ac:00:02' });
  const r = await register(hostData('adopted', '52:54:00:ac:00:02'));
  t.like(r, { kind: 'done', provisionerId: bare.uuid });
  // Named as BMO's Register names it: found by name from now on, and no stranger's nameless node.
  t.is((await it.client.getNode(bare.uuid))?.name, 'lab~adopted');
  t.is((await it.client.getNode('lab~adopted'))?.uuid, bare.uuid);
});

test('ironic mac - a host\'s own node whose boot MAC is a port of another node fails with the node that holds it, and what to do', async (t) => {
  const other = await it.client.createNode({ driver: 'fake-hardware', name: 'lab~holder' } as Parameters<typeof it.client.createNode>[0]);
  await it.client.createPort({ nodeUuid: other.uuid, address: '52:54:00:ac:00:03' });
  // The host's own node is found by its name, so the MAC lookup never runs: the port create meets Ironic's 409.
  await it.client.createNode({ driver: 'fake-hardware', name: 'lab~late' } as Parameters<typeof it.client.createNode>[0]);
  const r = await register(hostData('late', '52:54:00:ac:00:03'));
  t.is(r.kind, 'failed');
  const message = r.kind === 'failed' ? r.message : '';
  t.regex(message, /52:54:00:ac:00:03/);
  t.regex(message, new RegExp(`lab~holder|${other.uuid}`));
  t.regex(message, /bootMACAddress/);
});
