import test from 'ava';
import { provisionerOnNode as withNode, stubHost } from '../support/ironic-node-stub.ts';
import type { HostData } from '../../src/ports/index.ts';

// reference/bmo.md §5.2 Inspect: "`manageable`+refresh → PATCH `inspect_interface`, `inspect`";
// BMO's startInspection sets the interface spec.inspectionMode asks for (redfish for fast, agent
// otherwise) before each inspection, refuses fast on a driver without out-of-band inspection, and
// polls a fast inspection at the short delay.

const inspectArgs = { op: 'inspect', restartOnFailure: false, refresh: true } as const;

function host(address: string, inspectionMode: 'agent' | 'fast'): HostData {
  const h = stubHost();
  return { ...h, spec: { ...h.spec, bmc: { address, credentialsName: 'c' }, inspectionMode } };
}

test('ironic inspect mode - a host switched to fast inspection is inspected out-of-band (inspect_interface redfish)', async (t) => {
  const { p, writes } = withNode({ provision_state: 'manageable', driver: 'redfish', inspect_interface: 'agent' });
  const r = await p.inspect(host('redfish://10.0.0.1/redfish/v1/Systems/1', 'fast'), inspectArgs);
  t.like(r, { kind: 'continuing', started: true });
  t.deepEqual(writes, ['patchNode [[{"op":"replace","path":"/inspect_interface","value":"redfish"}]]', 'setProvisionState ["inspect"]']);
});

test('ironic inspect mode - a node already on the wanted interface is not patched', async (t) => {
  const { p, writes } = withNode({ provision_state: 'manageable', driver: 'redfish', inspect_interface: 'redfish' });
  await p.inspect(host('redfish://10.0.0.1/redfish/v1/Systems/1', 'fast'), inspectArgs);
  t.deepEqual(writes, ['setProvisionState ["inspect"]']);
});

test('ironic inspect mode - fast inspection on IPMI is refused with the driver named, nothing sent', async (t) => {
  const { p, writes } = withNode({ provision_state: 'manageable', driver: 'ipmi', inspect_interface: 'agent' });
  const r = await p.inspect(host('ipmi://10.0.0.1', 'fast'), inspectArgs);
  t.deepEqual(r, { kind: 'failed', message: 'BMC driver ipmi does not support fast (out-of-band) inspection (spec.inspectionMode)', retryAfterMs: null });
  t.deepEqual(writes, []);
});

test('ironic inspect mode - a fast inspection under way is polled at the short delay', async (t) => {
  const { p } = withNode({ provision_state: 'inspect wait', driver: 'redfish', inspect_interface: 'redfish' });
  t.deepEqual(await p.inspect(host('redfish://10.0.0.1/redfish/v1/Systems/1', 'fast'), inspectArgs), { kind: 'continuing', afterMs: 3 });
  const agent = withNode({ provision_state: 'inspect wait', driver: 'redfish', inspect_interface: 'agent' });
  t.deepEqual(await agent.p.inspect(host('redfish://10.0.0.1/redfish/v1/Systems/1', 'agent'), inspectArgs), { kind: 'continuing', afterMs: 10 });
});
