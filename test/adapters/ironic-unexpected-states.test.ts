import test from 'ava';
import { provisionArgs, provisionerOnNode as withNode, stubHost as host } from '../support/ironic-node-stub.ts';

// Ironic states a step did not expect: each either moves on the way Ironic's state machine
// allows (ironic/common/states.py) or says why it cannot, never waits without end and without a word.


test('ironic states - provisioning that finds the automated clean failed retries the cleaning, maintenance off first', async (t) => {
  // provide → cleaning → clean failed (target available): Ironic waits for manage; so would we, for ever.
  // BMO's Provision retries cleaning instead (reference/bmo.md §8, #1182): maintenance off, then manage.
  const { p, writes } = withNode({ provision_state: 'clean failed', target_provision_state: 'available', maintenance: true, fault: 'clean failure', last_error: 'Failed to erase devices' });
  t.deepEqual(await p.provision(host(), provisionArgs), { kind: 'continuing', afterMs: 3 });
  t.deepEqual(writes, ['unsetMaintenance []'], 'out of maintenance first: Ironic refuses manage in it');
});

for (const state of ['rescue', 'rescue wait', 'rescue failed', 'unrescue failed']) {
  test(`ironic states - deprovisioning a node in ${state} undeploys it (states.py: ${state} --delete--> deleting)`, async (t) => {
    const { p, writes } = withNode({ provision_state: state, instance_uuid: 'u1' });
    t.deepEqual(await p.deprovision(host(), { op: 'deprovision', restartOnFailure: false, automatedCleaning: true }), { kind: 'continuing', afterMs: 3 });
    t.deepEqual(writes, ['patchNode [[{"op":"replace","path":"/automated_clean","value":true}]]', 'setProvisionState ["deleted"]']);
  });
}

test('ironic states - deprovisioning a node whose adoption failed takes it to manageable, then cleans it', async (t) => {
  const { p, writes } = withNode({ provision_state: 'adopt failed', target_provision_state: 'active', last_error: 'no image' });
  t.deepEqual(await p.deprovision(host(), { op: 'deprovision', restartOnFailure: false, automatedCleaning: true }), { kind: 'continuing', afterMs: 3 });
  t.deepEqual(writes, ['setProvisionState ["manage"]']);
});

test('ironic states - removing a node while it unrescues waits, as for any conductor flow', async (t) => {
  const { p, writes } = withNode({ provision_state: 'unrescuing', target_provision_state: 'active', reservation: 'conductor-1' });
  t.deepEqual(await p.delete(host(), { op: 'delete' }), { kind: 'continuing', afterMs: 3 });
  t.deepEqual(writes, []);
});
