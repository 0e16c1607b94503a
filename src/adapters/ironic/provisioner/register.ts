import { createHash } from 'node:crypto';
import { parseBmcAddress } from '../../../api/index.ts';
import type { OpResult } from '../../../machines/bmh/index.ts';
import type { HostData } from '../../../ports/index.ts';
import { IronicError } from '../client/index.ts';
import type { StepContext } from './context.ts';
import { lookupNode } from './find-node.ts';
import { gateNodeBody } from './gating.ts';
import { nodeReason } from './node-reason.ts';
import { configureNode } from './configure-node.ts';
import { createNodeBody } from './node-spec.ts';
import { syncDisablePowerOff } from './disable-power-off.ts';
import { nodeName, syncNodeName } from './node-name.ts';
import { continuing, done, failed } from './outcome.ts';
import { OWNER_EXTRA } from './owner-fence.ts';
import { ownerRecordFor } from '../../../ports/index.ts';

// Ironic is in the middle of its own flow in these: an update would fail on the node's lock, and
// BMO leaves the node alone there too.
const BUSY: ReadonlySet<string> = new Set(['cleaning', 'clean wait', 'deploying', 'wait call-back', 'inspecting', 'verifying']);

// Create or find the node, make sure the boot MAC has a port, and bring it to manageable
// (reference/bmo.md §5.2 Register). Nodes busy in another flow are left alone. An existing node
// gets the whole driver_info again when the credentials changed (Ironic never returns the
// password, so only the caller can know) or the BMC address differs from the node's; outside a
// flow it also gets the host's name and disablePowerOff. Once it is past enroll and in no flow
// of its own, configureNode puts back what the host still decides.
export async function register(ctx: StepContext, host: HostData, restartOnFailure: boolean, credentialsChanged = false): Promise<OpResult> {
  const result = await registerOnce(ctx, host, restartOnFailure, credentialsChanged);
  // An answer the host records (its credentials tried): the create it followed is settled.
  if (result.kind !== 'transient') ctx.created.delete(nodeName(host));
  return result;
}

async function registerOnce(ctx: StepContext, host: HostData, restartOnFailure: boolean, credentialsChanged: boolean): Promise<OpResult> {
  const address = host.spec.bmc?.address ?? '';
  const bmc = parseBmcAddress(address);
  if (!bmc.ok) return failed(`spec.bmc.address: ${bmc.error.message}`, null);
  if (!host.credentials) return failed('BMC credentials are missing', null);
  // Fitted to the negotiated version before any node is looked up or written: a field the user
  // asked for that this Ironic lacks fails the host here, with nothing sent.
  const gated = gateNodeBody(createNodeBody(host, bmc.bmc, host.credentials, { override: ctx.override, deploy: ctx.deploy }), await ctx.client.negotiated(), ctx.log);
  if (!gated.ok) return failed(gated.message, null);
  const body = gated.body;
  const found = await lookupNode(ctx, host);
  if (found.macHeldBy) return failed(macConflict(host, found.macHeldBy));
  let node = found.node;
  let created = false;
  if (!node) {
    // Created with its owner's record (the fence), as claimNode would write it: the owner's next
    // call finds it its own and needs no PATCH and no read after it (issue 30: about two of the
    // eleven calls an enrollment made). A second owner meets the record as it would a claimed one.
    ctx.created.set(body.name ?? '', digestOf(body.driver_info));
    node = await ctx.client.createNode(host.fence ? { ...body, extra: { ...body.extra, [OWNER_EXTRA]: ownerRecordFor(host.fence) } } : body);
    created = true;
  } else if (!sameBmcAddress(node.driver_info, body.driver_info) || (credentialsChanged && ctx.created.get(body.name ?? '') !== digestOf(body.driver_info))) {
    // "Changed" credentials that this process created the node with, and whose create's answer
    // was lost (a timeout: the host recorded no credentials tried), are the node's already. An
    // overloaded Ironic answered such PATCHes in 80 s, past the client's timeout, so each retry
    // sent another, the heaviest request it serves (issue 30's enroll at load 29).
    // New credentials wait for a busy node's flow to end: answered (done) now, they would count
    // as sent and never reach the node. A transient answer leaves them new for the next attempt.
    if (BUSY.has(node.provision_state)) return { kind: 'transient', message: `node ${node.name ?? node.uuid} is ${node.provision_state}; its BMC settings are updated when that ends` };
    node = await ctx.client.patchNode(node.uuid, [{ op: 'replace', path: '/driver_info', value: body.driver_info }]);
  }
  if (!created && !BUSY.has(node.provision_state)) node = await syncDisablePowerOff(ctx, host, await syncNodeName(ctx, host, node));
  const mac = host.spec.bootMACAddress?.toLowerCase();
  if (mac && !ctx.ports.has(`${node.uuid} ${mac}`)) {
    // A node we just created has no ports to look at.
    const ports = created ? [] : await ctx.client.listPorts({ node: node.uuid });
    if (!ports.some((p) => p.address.toLowerCase() === mac)) {
      const refused = await createBootPort(ctx, host, node.uuid, mac);
      if (refused) return refused;
    }
    ctx.ports.add(`${node.uuid} ${mac}`);
  }
  const id = { provisionerId: node.uuid };
  switch (node.provision_state) {
    case 'enroll':
      // New credentials are a new attempt: the error they may have caused is not theirs.
      if (node.last_error && !restartOnFailure && !credentialsChanged && node.target_provision_state == null) return failed(`Ironic could not manage node ${node.name ?? node.uuid}: ${nodeReason(node)}`);
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      await ctx.client.setProvisionState(node.uuid, 'manage').catch((err: unknown) => unlessMovedOn(ctx, node?.uuid ?? '', err));
      return continuing(ctx.polls.shortMs);
    case 'verifying':
      return continuing(ctx.polls.shortMs);
    default:
      if (!BUSY.has(node.provision_state)) await configureNode(ctx, host, node, body);
      // A host registering for the first time whose node is past manageable was not enrolled by
      // this registration (a rerun against the same Ironic, a node enrolled by hand): it is taken
      // over as it is, and said so with its state, which decides what comes next (an active node
      // cannot be inspected; inspect.ts says so).
      if (!host.provisionerId && node.provision_state !== 'manageable') {
        ctx.log.info({ host: host.key, node: node.name ?? node.uuid, uuid: node.uuid, provisionState: node.provision_state }, `registered existing Ironic node ${node.name ?? node.uuid} (provision state ${node.provision_state}), not a new one`);
      }
      return done(id);
  }
}

// An earlier manage can land after all: on a loaded Ironic its answer came too late (the host
// tried again) or it waited behind the node's lock, and the node left enroll before this one
// arrived, so Ironic refuses it (400, "can not be performed ... in state verifying/manageable").
// That is no registration error (seen: an eighth of an enrollment's hosts held in backoff for a
// minute, issue 30); the node is read once to tell it from a refusal that stands (still enroll).
async function unlessMovedOn(ctx: StepContext, uuid: string, err: unknown): Promise<void> {
  if (!(err instanceof IronicError && err.code === 'bad-request')) throw err;
  const now = await ctx.client.getNode(uuid);
  if (!now || now.provision_state === 'enroll') throw err;
}

// Ironic's 409 for a MAC another node has a port of says only "A port with MAC address <mac>
// already exists.": the node holding it is looked up, so the host's status names it (BMO's
// createNodePort: "port belongs to another node"). A port of the host's own node (a create that
// raced ours) is no failure.
async function createBootPort(ctx: StepContext, host: HostData, uuid: string, mac: string): Promise<OpResult | null> {
  try {
    await ctx.client.createPort({ nodeUuid: uuid, address: mac, pxeEnabled: true });
    return null;
  } catch (err) {
    if (!(err instanceof IronicError && err.code === 'conflict')) throw err;
    const holder = (await ctx.client.listPorts({ address: mac }))[0];
    if (!holder) throw err;
    if (holder.node_uuid === uuid) return null;
    const other = await ctx.client.getNode(holder.node_uuid);
    return failed(macConflict(host, other ?? { uuid: holder.node_uuid, name: null }));
  }
}

function macConflict(host: HostData, other: { readonly uuid: string; readonly name?: string | null }): string {
  const mac = host.spec.bootMACAddress?.toLowerCase() ?? '';
  const which = other.name ? `${other.name} (${other.uuid})` : other.uuid;
  return `MAC address ${mac} conflicts with existing node ${which}: Ironic has a port with it on that node, and a MAC can belong to one node only; correct spec.bootMACAddress, or remove that node (or its port) from Ironic if it is stale`;
}

// A digest, so the credentials in driver_info are kept in no form that could be read back.
function digestOf(driverInfo: Readonly<Record<string, unknown>> | undefined): string {
  return createHash('sha256').update(JSON.stringify(driverInfo ?? {})).digest('base64');
}

/** BMO's bmcAddressMatches: the one `*_address` key of driver_info, compared by value. */
function sameBmcAddress(current: Readonly<Record<string, unknown>> | null | undefined, wanted: Readonly<Record<string, unknown>> | undefined): boolean {
  const address = (info: Readonly<Record<string, unknown>>): [string, unknown] | undefined => Object.entries(info).find(([k]) => k.endsWith('_address'));
  const a = address(current ?? {});
  const b = address(wanted ?? {});
  return a?.[0] === b?.[0] && a?.[1] === b?.[1];
}
