import { parseBmcAddress } from '../../../api/index.ts';
import type { OpResult } from '../../../machines/bmh/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { StepContext } from './context.ts';
import { findNode } from './find-node.ts';
import { createNodeBody } from './node-spec.ts';
import { continuing, done, failed } from './outcome.ts';

// Create or find the node, make sure the boot MAC has a port, and bring it to manageable
// (reference/bmo.md §5.2 Register). Nodes busy in another flow are left alone.
export async function register(ctx: StepContext, host: HostData, restartOnFailure: boolean): Promise<OpResult> {
  const address = host.spec.bmc?.address ?? '';
  const bmc = parseBmcAddress(address);
  if (!bmc.ok) return failed(`spec.bmc.address: ${bmc.error.message}`, null);
  if (!host.credentials) return failed('BMC credentials are missing', null);
  let node = await findNode(ctx.client, host);
  let created = false;
  if (!node) {
    node = await ctx.client.createNode(createNodeBody(host, bmc.bmc, host.credentials, { override: ctx.override, deploy: ctx.deploy }));
    created = true;
  }
  const mac = host.spec.bootMACAddress?.toLowerCase();
  if (mac && !ctx.ports.has(`${node.uuid} ${mac}`)) {
    // A node we just created has no ports to look at.
    const ports = created ? [] : await ctx.client.listPorts({ node: node.uuid });
    if (!ports.some((p) => p.address.toLowerCase() === mac)) await ctx.client.createPort({ nodeUuid: node.uuid, address: mac, pxeEnabled: true });
    ctx.ports.add(`${node.uuid} ${mac}`);
  }
  const id = { provisionerId: node.uuid };
  switch (node.provision_state) {
    case 'enroll':
      if (node.last_error && !restartOnFailure && node.target_provision_state == null) return failed(`Ironic could not manage node ${node.name ?? node.uuid}: ${node.last_error}`);
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      await ctx.client.setProvisionState(node.uuid, 'manage');
      return continuing(ctx.polls.shortMs);
    case 'verifying':
      return continuing(ctx.polls.shortMs);
    default:
      return done(id);
  }
}
