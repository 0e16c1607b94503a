// BMO's ensureRegistered with a new version of the BMC Secret, against a real Ironic: the new
// credentials reach the node's driver_info, status records the version BMO records
// (goodCredentials/triedCredentials.credentialsVersion), and the host keeps its state: a
// provisioned host stays deployed.
import test from 'ava';
import { ironicHost, useIronicNode } from '../support/ironic-node.ts';
import { waitUntil } from '../support/wait.ts';

const it = useIronicNode(test);

const status = async (name: string) => (await it.node.snapshot(`lab/${name}`))?.status;
const rotated = (username: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc', namespace: 'lab' }, stringData: { username, password: `${username}-rotation-password` } });

test.serial('credentials rotation - a new Secret version updates a provisioned node\'s driver_info and is recorded as good; the host stays provisioned', async (t) => {
  t.true((await it.store.applyObjects([ironicHost('rot-1')])).ok);
  await waitUntil(async () => (await status('rot-1'))?.provisioning.state === 'provisioned', 60_000, 'provisioned');
  const before = await status('rot-1');
  const firstVersion = before?.goodCredentials?.credentialsVersion;
  t.truthy(firstVersion, 'the version registration used is recorded');
  t.is(before?.triedCredentials?.credentialsVersion, firstVersion);
  t.is((await it.client.getNode('lab~rot-1'))?.driver_info?.['redfish_username'], 'admin');

  t.true((await it.store.applyObjects([rotated('rotated-user')])).ok);
  await waitUntil(async () => {
    const s = await status('rot-1');
    return s?.goodCredentials?.credentialsVersion !== undefined && s.goodCredentials.credentialsVersion !== firstVersion;
  }, 30_000, 'the new version validated');
  const node = await it.client.getNode('lab~rot-1');
  t.is(node?.driver_info?.['redfish_username'], 'rotated-user');
  t.is(node?.provision_state, 'active', 'still deployed');
  const after = await status('rot-1');
  t.is(after?.provisioning.state, 'provisioned');
  t.is(after?.triedCredentials?.credentialsVersion, after?.goodCredentials?.credentialsVersion);
  const snap = await it.node.snapshot('lab/rot-1');
  t.true(snap?.recent.some((e) => e.reason === 'BMCAccessValidated') ?? false);
  t.false(snap?.recent.some((e) => /Deprovisioning/.test(e.reason)) ?? true);
  t.false(JSON.stringify(after).includes('rotation-password'), 'status never holds the password');
});

// Issue 31.4: BMO's ensureRegistered compares goodCredentials with the Secret the spec names, so
// pointing spec.bmc.credentialsName at another Secret registers the host again with it.
test.serial('credentials rotation - spec.bmc.credentialsName pointed at another Secret updates a provisioned node\'s driver_info and records that Secret as good; the host stays provisioned', async (t) => {
  t.true((await it.store.applyObjects([ironicHost('rot-2')])).ok);
  await waitUntil(async () => (await status('rot-2'))?.provisioning.state === 'provisioned', 60_000, 'provisioned');
  t.is((await status('rot-2'))?.goodCredentials?.credentials?.name, 'bmc');
  const other = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc-other', namespace: 'lab' }, stringData: { username: 'other-user', password: 'other-rotation-password' } };
  const host = ironicHost('rot-2') as { spec: { bmc: { credentialsName: string } } };
  host.spec.bmc.credentialsName = 'bmc-other';
  t.true((await it.store.applyObjects([other, host])).ok);
  await waitUntil(async () => (await status('rot-2'))?.goodCredentials?.credentials?.name === 'bmc-other', 30_000, 'the other Secret validated');
  const node = await it.client.getNode('lab~rot-2');
  t.is(node?.driver_info?.['redfish_username'], 'other-user');
  t.is(node?.provision_state, 'active', 'still deployed');
  const after = await status('rot-2');
  t.is(after?.provisioning.state, 'provisioned');
  t.is(after?.triedCredentials?.credentials?.name, 'bmc-other');
  t.false(JSON.stringify(after).includes('rotation-password'), 'status never holds the password');
});
