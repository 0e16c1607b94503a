import test from 'ava';
import type { IronicClient, IronicNode } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { invoke } from '../../src/ports/index.ts';
import { HOST_FINALIZER, step } from '../../src/machines/bmh/index.ts';
import type { Step } from '../../src/machines/bmh/index.ts';
import { atState, lastCall, T0, tick } from '../support/bmh.ts';

// reference/bmo.md §1.3: "powering off before delete | done or `disablePowerOff` → deleting; failed
// with ErrorCount > 3, or no creds → deleting". BMO's actionPowerOffBeforeDeleting asks
// PowerOff(hard, force = errorType is a power management error): an unforced attempt reports the
// failure Ironic left in last_error (ErrorCount +1); the forced retry sends the power-off again and,
// Dirty, clears the error (the count kept), so the next unforced poll fails and counts again.
// The reported bug: every attempt was forced, so Ironic's failures were never read and the host
// stayed in powering off before delete for good.

function host(): HostData {
  return {
    key: 'metal3/worker-0', namespace: 'metal3', name: 'worker-0', uid: 'uid-0', provisionerId: 'node-1', credentials: null,
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc: { address: 'ipmi://10.0.0.1', credentialsName: 'worker-0-bmc' }, bootMACAddress: '52:54:00:00:00:01' },
  };
}

/**
 * An Ironic of one node (at `fields`) that records each write; a deleted node is gone. Its BMC
 * never acts: a power request changes nothing.
 */
function stubIronic(fields: Partial<IronicNode>, polls: { shortMs: number; longMs: number }): { p: Provisioner; writes: string[] } {
  const writes: string[] = [];
  let node: IronicNode | null = {
    uuid: 'node-1', name: 'metal3~worker-0', provision_state: 'manageable', target_provision_state: null,
    power_state: 'power on', target_power_state: null, driver: 'ipmi', maintenance: false, last_error: null, ...fields,
  } as unknown as IronicNode;
  const client = {
    endpoint: 'http://ironic.test',
    stats: { byRouteStatus: {} },
    getNode: async () => node,
    setPowerState: async (_id: string, target: string) => { writes.push(`power ${target}`); },
    setProvisionState: async (_id: string, target: string) => { writes.push(target); },
    setMaintenance: async () => { writes.push('maintenance'); },
    patchNode: async () => node,
    deleteNode: async () => {
      writes.push('delete');
      node = null;
    },
  } as unknown as IronicClient;
  return { p: createIronicProvisioner({ client, imageCheck: { enabled: false }, polls }), writes };
}

/** An Ironic whose BMC never powers the node off: each power request fails in the background. */
function stuckOn(): { p: Provisioner; writes: string[] } {
  return stubIronic({ last_error: 'Failed to change power state to power off: IPMI call failed: power off.' }, { shortMs: 3_000, longMs: 10_000 });
}

test('bmh + ironic - a deleted host whose power-off keeps failing goes on to deleting after more than 3 failures, and is deleted', async (t) => {
  const { p, writes } = stuckOn();
  const deleted = { deletionTimestamp: '2026-01-01T00:00:00Z' };
  let s: Step = tick(atState('available', { ...deleted, status: { poweredOn: true } }));
  t.is(s.state.host.status.provisioning.state, 'powering off before delete');
  let now = T0;
  const forced: boolean[] = [];
  const removed: string[] = [];
  for (let i = 0; i < 60 && !s.state.gone; i++) {
    for (const e of s.effects) if (e.type === 'removeFinalizer') removed.push(e.finalizer);
    const call = lastCall(s);
    if (call === undefined) {
      now = Math.max(now + 1, s.state.retryAt ?? now);
      s = tick(s.state, now);
      continue;
    }
    if (call.args.op === 'powerOff') forced.push(call.args.force);
    s = step(s.state, { type: 'result', seq: call.seq, result: await invoke(p, host(), call.args), jitter: 0 }, now);
  }
  for (const e of s.effects) if (e.type === 'removeFinalizer') removed.push(e.finalizer);
  t.true(s.state.gone, `still ${s.state.host.status.provisioning.state} after 60 turns (power-off calls forced: ${forced.join(',')})`);
  t.deepEqual(removed, [HOST_FINALIZER]);
  // Unforced attempts read Ironic's failure; each forced retry sends the power-off again.
  t.deepEqual(forced, [false, true, false, true, false, true, false]);
  t.deepEqual(writes, ['power power off', 'power power off', 'power power off', 'delete']);
});

// reference/bmo.md §5.2 Power: "refused while `target_provision_state` set; ... inspect wait and
// manual (or cleaning-disabled) clean wait aborted first" (BMO's abortInspectionOrCleaning in
// PowerOff). Without it a host deleted while inspecting waited in powering off before delete for
// as long as the inspection waited for its ramdisk: Ironic keeps target_provision_state set.
function atNode(fields: Partial<IronicNode>): { p: Provisioner; writes: string[] } {
  return stubIronic(fields, { shortMs: 3, longMs: 10 });
}

const hardOff = { op: 'powerOff', mode: 'hard', force: false } as const;

test('ironic power-off - an inspection waiting for its ramdisk is aborted first', async (t) => {
  const { p, writes } = atNode({ provision_state: 'inspect wait', target_provision_state: 'manageable' });
  t.like(await p.powerOff(host(), hardOff), { kind: 'continuing' });
  t.deepEqual(writes, ['abort']);
});

test('ironic power-off - an inspection still in inspecting is waited for', async (t) => {
  const { p, writes } = atNode({ provision_state: 'inspecting', target_provision_state: 'manageable' });
  t.deepEqual(await p.powerOff(host(), hardOff), { kind: 'continuing', afterMs: 10 });
  t.deepEqual(writes, []);
});

test('ironic power-off - the aborted inspection is moved to manageable, then the node is powered off despite the abort in last_error', async (t) => {
  const aborted = { provision_state: 'inspect failed', last_error: 'Inspection was aborted by request.' } as const;
  const target = atNode({ ...aborted, target_provision_state: 'manageable' });
  t.like(await target.p.powerOff(host(), hardOff), { kind: 'continuing' });
  t.deepEqual(target.writes, ['manage']);
  const clear = atNode({ ...aborted, target_provision_state: null });
  t.like(await clear.p.powerOff(host(), hardOff), { kind: 'continuing' });
  t.deepEqual(clear.writes, ['power power off']);
});

test('ironic power-off - a manual clean waiting for its ramdisk is aborted; an automated one is waited for unless cleaning is disabled', async (t) => {
  const manual = atNode({ provision_state: 'clean wait', target_provision_state: 'manageable' });
  t.like(await manual.p.powerOff(host(), hardOff), { kind: 'continuing' });
  t.deepEqual(manual.writes, ['abort']);
  const automated = atNode({ provision_state: 'clean wait', target_provision_state: 'available' });
  t.deepEqual(await automated.p.powerOff(host(), hardOff), { kind: 'continuing', afterMs: 10 });
  t.deepEqual(automated.writes, []);
  const disabled = atNode({ provision_state: 'clean wait', target_provision_state: 'available' });
  const h = host();
  t.like(await disabled.p.powerOff({ ...h, spec: { ...h.spec, automatedCleaningMode: 'disabled' } }, hardOff), { kind: 'continuing' });
  t.deepEqual(disabled.writes, ['abort']);
});

test('ironic power-off - a failed clean that keeps its target is moved to manageable first', async (t) => {
  const { p, writes } = atNode({ provision_state: 'clean failed', target_provision_state: 'available', last_error: 'By request, the clean operation was aborted' });
  t.like(await p.powerOff(host(), hardOff), { kind: 'continuing' });
  t.deepEqual(writes, ['manage']);
});
