// BMO's Register on an existing node, against a real Ironic: the whole driver_info goes again
// when the credentials changed or the BMC address moved, and not on every pass (Ironic never
// returns the password, so an unchanged pass must not write).
import test from 'ava';
import type { HostData } from '../../src/ports/index.ts';
import { useIronicProvisioner } from '../support/ironic.ts';

const it = useIronicProvisioner(test);

function hostData(name: string, o: { username: string; address?: string }): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: `uid-${name}`, provisionerId: '',
    spec: { online: true, bmc: { address: o.address ?? 'redfish://192.168.111.1:8000/redfish/v1/Systems/r1', credentialsName: 'bmc' }, bootMACAddress: '52:54:00:aa:bc:01' } as HostData['spec'],
    credentials: { username: o.username, password: `${o.username}-register-update-password` },
  };
}

async function register(h: HostData, credentialsChanged: boolean): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const r = await it.provisioner.register(h, { op: 'register', restartOnFailure: false, credentialsChanged });
    if (r.kind === 'done') return;
    if (r.kind === 'failed') throw new Error(`register failed: ${r.message}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('register did not finish');
}

const driverInfo = async (): Promise<Record<string, unknown>> => (await it.client.getNode('lab~r1'))?.driver_info ?? {};

test('ironic register - changed credentials replace driver_info; unchanged ones write nothing; a moved BMC address replaces it too (BMO Register)', async (t) => {
  await register(hostData('r1', { username: 'first-user' }), false);
  t.is((await driverInfo())['redfish_username'], 'first-user');
  t.is((await driverInfo())['redfish_password'], '******', 'Ironic masks the password');

  await register(hostData('r1', { username: 'second-user' }), true);
  t.is((await driverInfo())['redfish_username'], 'second-user', 'credentialsChanged: driver_info updated');

  const before = it.client.stats.byRoute['PATCH /v1/nodes/{node}'] ?? 0;
  await register(hostData('r1', { username: 'third-user' }), false);
  t.is((await driverInfo())['redfish_username'], 'second-user', 'without credentialsChanged and the same address, nothing is written');
  t.is(it.client.stats.byRoute['PATCH /v1/nodes/{node}'] ?? 0, before);

  await register(hostData('r1', { username: 'third-user', address: 'redfish://192.168.111.2:8000/redfish/v1/Systems/r1' }), false);
  const moved = await driverInfo();
  t.is(moved['redfish_address'], 'https://192.168.111.2:8000');
  t.is(moved['redfish_username'], 'third-user', 'a moved address sends the whole driver_info');
  t.false(JSON.stringify(moved).includes('register-update-password'));
});
