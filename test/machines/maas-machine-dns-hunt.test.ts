// A control-plane MaasMachine's Ready summarises MachineDeployed and DNSAttached (capmaas.md §1.2);
// CAPMAAS decides both in the one reconcile, so a control-plane machine is never Ready before
// its DNS attachment is known. Here the record is read by a separate call: while that read is
// under way the machine must not publish Ready=True (kubectl wait, and Cluster API's mirror of
// the infrastructure Ready, would take it as up), only to turn it False when the read answers.
import test from 'ava';
import type { MaasMachineEffect, MaasMachineStatus, MaasMachineStep } from '../../src/machines/maas-machine/index.ts';
import { T0, deployedControlPlane, deploying, dnsReply, reply, tick, types, view } from './maas-fixtures.ts';

const written = (st: MaasMachineStep): MaasMachineStatus | undefined =>
  st.effects.find((e): e is Extract<MaasMachineEffect, { type: 'writeStatus' }> => e.type === 'writeStatus')?.status;
const cond = (s: MaasMachineStatus | undefined, type: string) => s?.conditions?.find((c) => c.type === type);

test('maas machine dns hunt - a control-plane machine just Deployed is not Ready while its DNS record is being read', (t) => {
  const d = deploying({}, true);
  const got = reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
  t.true(types(got).includes('dnsLookup'));
  const status = written(got);
  t.is(cond(status, 'MachineDeployed')?.status, 'True');
  t.not(cond(status, 'Ready')?.status, 'True');
  t.is(cond(status, 'DNSAttached')?.status, 'False');
  t.is(cond(status, 'DNSAttached')?.reason, 'DNSAttachPending');
  t.not(status?.dnsAttached, true);
  // Not in the record yet: still not Ready. In it: Ready.
  const pending = dnsReply(got, [], T0 + 10_000);
  t.is(cond(pending.state.status, 'Ready')?.status, 'False');
  const attached = dnsReply(got, ['10.10.1.5'], T0 + 10_000);
  t.is(cond(attached.state.status, 'Ready')?.status, 'True');
  t.is(cond(attached.state.status, 'DNSAttached')?.status, 'True');
  t.true(attached.state.status.dnsAttached);
});

test('maas machine dns hunt - an attached control-plane machine read again stays Ready while the record is read', (t) => {
  const cp = deployedControlPlane();
  t.is(cond(cp.state.status, 'Ready')?.status, 'True');
  const poll = tick(cp.state, T0 + 70_000);
  const got = reply(poll, { kind: 'done', machine: view('Deployed', 'on') }, T0 + 70_000);
  t.true(types(got).includes('dnsLookup'));
  t.is(cond(got.state.status, 'Ready')?.status, 'True');
  t.is(cond(got.state.status, 'DNSAttached')?.status, 'True');
});

test('maas machine dns hunt - a worker is Ready as soon as it is Deployed and on (no DNS)', (t) => {
  const d = deploying();
  const got = reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
  t.false(types(got).includes('dnsLookup'));
  t.is(cond(written(got), 'Ready')?.status, 'True');
  t.is(cond(written(got), 'DNSAttached'), undefined);
});
