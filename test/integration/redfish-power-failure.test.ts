import test from 'ava';
import { applyRedfishHost, useRedfishNode, waitHost } from '../support/redfish-node.ts';

// A power change Ironic cannot carry out on the BMC: Ironic answers the request 202, fails it in
// the background and records last_error with no target_power_state. BMO's PowerOff/PowerOn read
// that as a failed operation (power management error), not as one to send again forever.
const it = useRedfishNode(test, { systems: 1 });

const state = (name: string) => it.node.stats.hosts.get(`lab/${name}`);

test('redfish power failure - a BMC refusing the credentials of a provisioned host is a power management error, no password in it; it heals when the BMC accepts them again', async (t) => {
  const system = it.dc.systems[0]!;
  const name = 'rf-power-refused';
  const server = await applyRedfishHost(it, system, name);
  await waitHost(it, name, () => state(name)?.state === 'provisioned' && state(name)?.poweredOn === true, 90_000, 'provisioned and on', server);

  server.system.setFaults({ refuseCredentials: true });
  await applyRedfishHost(it, system, name, { online: false });
  await waitHost(it, name, () => state(name)?.errorType === 'power management error', 30_000, 'power management error', server);
  const snap = await it.node.snapshot(`lab/${name}`);
  const message = snap?.status.errorMessage ?? '';
  t.is(snap?.status.operationalStatus, 'error');
  t.regex(message, /401|session|credentials/i, `says the BMC refused: ${message}`);
  for (const text of [message, ...(snap?.recent ?? []).map((e) => e.message)]) t.false(text.includes(system.password), `no password in: ${text}`);
  t.true(server.system.state.on, 'the refusing BMC never powered the server off');

  server.system.setFaults({ refuseCredentials: false });
  await waitHost(it, name, () => !server.system.state.on && state(name)?.poweredOn === false && state(name)?.errorType === '', 60_000, 'powered off, error cleared', server);
  t.is(state(name)?.state, 'provisioned');
});
