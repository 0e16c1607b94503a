import test from 'ava';
import type { IronicClient, IronicNode } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { OpResult } from '../../src/machines/bmh/index.ts';
import type { HostData } from '../../src/ports/index.ts';

// Issue 30.1: the power read a resumed host makes first says when Ironic runs a gated operation on
// the node (deploying, inspecting, cleaning, ... with their waits and holds): work an earlier owner
// started whose status write was lost. The host then adopts its grant instead of releasing it.

function host(): HostData {
  return {
    key: 'ns/h1', namespace: 'ns', name: 'h1', uid: 'u1', provisionerId: 'node-1', credentials: { username: 'admin', password: 'pw' },
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc: { address: 'ipmi://10.0.0.1', credentialsName: 'c' }, bootMACAddress: '52:54:00:00:00:01' },
  };
}

async function powerRead(provisionState: string): Promise<OpResult> {
  const node = { uuid: 'node-1', name: 'ns~h1', provision_state: provisionState, power_state: 'power on', driver: 'ipmi' } as IronicNode;
  const client = { endpoint: 'http://ironic.test', stats: { byRouteStatus: {} }, getNode: async () => node } as unknown as IronicClient;
  const p = createIronicProvisioner({ client, imageCheck: { enabled: false }, polls: { shortMs: 3, longMs: 10 } });
  return p.hardwareState(host(), { op: 'hardwareState' });
}

const busy = (r: OpResult): boolean | undefined => (r.kind === 'done' ? r.busy : undefined);

test('ironic busy read - a node mid-deploy, -inspection, -cleaning or -servicing reads busy', async (t) => {
  for (const state of ['deploying', 'wait call-back', 'deploy hold', 'inspecting', 'inspect wait', 'cleaning', 'clean wait', 'clean hold', 'servicing', 'service wait', 'deleting']) {
    t.true(busy(await powerRead(state)), state);
  }
});

test('ironic busy read - a node at rest (or failed) does not', async (t) => {
  for (const state of ['active', 'available', 'manageable', 'enroll', 'deploy failed', 'clean failed', 'inspect failed']) {
    t.is(busy(await powerRead(state)), undefined, state);
  }
});
