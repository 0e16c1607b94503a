// Ironic down when metalfleet starts, or going away later: calls come back as transient
// failures that say Ironic is not reachable (the host backs off and retries), never as throws,
// and hosts proceed once Ironic answers again.
import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { OpResult } from '../../src/machines/bmh/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { freePort, startIronic } from '../support/ironic.ts';
import type { IronicServer } from '../support/ironic.ts';

const servers: IronicServer[] = [];
test.after.always(async () => {
  for (const s of servers) await s.stop();
});

function hostData(name: string): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: `uid-${name}`, provisionerId: '',
    spec: { online: true, bootMode: 'UEFI', bmc: { address: `ipmi://10.0.0.9:623`, credentialsName: 'bmc' }, bootMACAddress: '52:54:00:dd:00:01' } as HostData['spec'],
    credentials: { username: 'admin', password: 'down-password' },
  };
}

/** Calls register until it is done; fails on a failed result or after the deadline. */
async function registerUntilDone(p: Provisioner, h: HostData, timeoutMs = 30_000): Promise<OpResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await p.register(h, { op: 'register', restartOnFailure: false, credentialsChanged: false });
    if (r.kind === 'done' || r.kind === 'failed' || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function provisionerAt(port: number): { p: Provisioner; close: () => void } {
  const client = createIronicClient({ endpoint: `http://127.0.0.1:${port}`, timeoutMs: 10_000 });
  const p = createIronicProvisioner({ client, driverOverride: { hardwareType: 'fake-hardware' }, polls: { shortMs: 50, longMs: 100 }, imageCheck: { enabled: false } });
  return { p, close: () => client.close() };
}

test('ironic down - before Ironic starts calls are transient; once it answers, a register completes', async (t) => {
  const port = await freePort();
  const { p, close } = provisionerAt(port);
  t.teardown(close);
  const h = hostData('d1');
  const before = await p.register(h, { op: 'register', restartOnFailure: false, credentialsChanged: false });
  t.deepEqual(before, { kind: 'transient', message: `Ironic at http://127.0.0.1:${port} is not reachable: ECONNREFUSED; retrying` });
  t.is((await p.hardwareState(h, { op: 'hardwareState' })).kind, 'transient');

  const ironic = await startIronic({ port });
  servers.push(ironic);
  const r = await registerUntilDone(p, h);
  t.like(r, { kind: 'done' });
  t.truthy(r.kind === 'done' && r.provisionerId);
});

test('ironic down - Ironic going away mid-way gives transient results, not throws, and coming back heals', async (t) => {
  const ironic = await startIronic();
  servers.push(ironic);
  const port = ironic.port;
  const { p, close } = provisionerAt(port);
  t.teardown(close);
  const h = hostData('d2');
  const first = await registerUntilDone(p, h);
  t.like(first, { kind: 'done' });
  const registered = { ...h, provisionerId: first.kind === 'done' ? first.provisionerId ?? '' : '' };

  await ironic.stop();
  const calls: Array<Promise<OpResult>> = [
    p.register(registered, { op: 'register', restartOnFailure: false, credentialsChanged: false }),
    p.hardwareState(registered, { op: 'hardwareState' }),
    p.inspect(registered, { op: 'inspect', restartOnFailure: false, refresh: false }),
    p.powerOn(registered, { op: 'powerOn', force: false }),
    p.delete(registered, { op: 'delete' }),
  ];
  for (const r of await Promise.all(calls)) {
    t.is(r.kind, 'transient');
    t.deepEqual(r, { kind: 'transient', message: `Ironic at http://127.0.0.1:${port} is not reachable: ECONNREFUSED; retrying` });
  }

  // Ironic back (with an empty database here): the host's node is registered again.
  const again = await startIronic({ port });
  servers.push(again);
  t.like(await registerUntilDone(p, registered), { kind: 'done' });
});
