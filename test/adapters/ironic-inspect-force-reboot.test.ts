import test from 'ava';
import type { IronicClient, IronicNode } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { HostData } from '../../src/ports/index.ts';

// reference/bmo.md §5.2 Inspect: "`inspect wait` → poll (or `abort` on force reboot); `inspect
// failed` → error or restart (also restart if `last_error` says "aborted")" — BMO's
// InspectHardware(..., forceReboot): abortInspection sends the `abort` verb and reports started.
// The Ironic API test server (test/support/ironic-api) has the inspect wait --abort--> transition
// but its fake inspection never waits in `inspect wait`, so the node is a stub here.

function host(): HostData {
  return {
    key: 'ns/h1', namespace: 'ns', name: 'h1', uid: 'u1', provisionerId: 'node-1', credentials: { username: 'admin', password: 'pw' },
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc: { address: 'ipmi://10.0.0.1', credentialsName: 'c' }, bootMACAddress: '52:54:00:00:00:01' },
  };
}

/** A provisioner on a client whose node is `node`; the state changes it asks for are listed in `writes`. */
function withNode(node: Partial<IronicNode>) {
  const writes: string[] = [];
  const full = { uuid: 'node-1', name: 'ns~h1', provision_state: 'inspect wait', target_provision_state: 'manageable', driver: 'ipmi', ...node } as IronicNode;
  const client = {
    endpoint: 'http://ironic.test',
    stats: { byRouteStatus: {} },
    getNode: async () => full,
    setProvisionState: async (_id: string, target: string) => {
      writes.push(target);
      return full;
    },
  } as unknown as IronicClient;
  return { p: createIronicProvisioner({ client, imageCheck: { enabled: false }, polls: { shortMs: 3, longMs: 10 } }), writes };
}

const plain = { op: 'inspect', restartOnFailure: false, refresh: false } as const;

test('ironic inspect - a forced reboot aborts an inspection in inspect wait and says it started', async (t) => {
  const { p, writes } = withNode({});
  t.deepEqual(await p.inspect(host(), { ...plain, forceReboot: true }), { kind: 'continuing', afterMs: 3, started: true });
  t.deepEqual(writes, ['abort']);
});

test('ironic inspect - without a forced reboot an inspection in inspect wait is only polled', async (t) => {
  const { p, writes } = withNode({});
  t.deepEqual(await p.inspect(host(), plain), { kind: 'continuing', afterMs: 10 });
  t.deepEqual(writes, []);
});

test('ironic inspect - a forced reboot cannot abort an inspection still in inspecting: it is polled', async (t) => {
  const { p, writes } = withNode({ provision_state: 'inspecting' });
  t.deepEqual(await p.inspect(host(), { ...plain, forceReboot: true }), { kind: 'continuing', afterMs: 10 });
  t.deepEqual(writes, []);
});

test('ironic inspect - an inspection aborted by request is restarted, not reported as failed', async (t) => {
  // Ironic's abort_inspection records "Inspection was aborted by request." as the node's last error.
  const aborted = withNode({ provision_state: 'inspect failed', last_error: 'Inspection was aborted by request.' });
  t.is((await aborted.p.inspect(host(), plain)).kind, 'continuing');
  t.deepEqual(aborted.writes, ['manage']);
  // A backend that says nothing of the abort: the machine's restartOnFailure restarts it.
  const silent = withNode({ provision_state: 'inspect failed', last_error: null });
  t.is((await silent.p.inspect(host(), { ...plain, restartOnFailure: true })).kind, 'continuing');
  t.deepEqual(silent.writes, ['manage']);
});
