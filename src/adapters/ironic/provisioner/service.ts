import type { CallArgs, OpResult } from '../../../machines/bmh/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { IronicNode } from '../client/index.ts';
import { featureShortfall } from '../client/index.ts';
import type { StepContext } from './context.ts';
import { findNode } from './find-node.ts';
import { firmwareStepsFor } from './firmware-plan.ts';
import { asksForChanges } from './firmware-steps.ts';
import { nodeReason } from './node-reason.ts';
import { continuing, done, failed, needsRegistration } from './outcome.ts';

// Firmware changes on a provisioned host, its instance kept (BMO's Service,
// pkg/provisioner/ironic/servicing.go): from `active`, the `service` verb with BIOS and firmware
// steps; `servicing` and `service wait` are waited out; back in `active` after our request is
// done. The transitions are Ironic's (ironic/common/state_machine.py): `abort` takes `service
// failed` back to `active` (from Ironic 32.0, API 1.101) and `service wait` (or `service hold`)
// to `service failed`.
export async function service(ctx: StepContext, host: HostData, args: Extract<CallArgs, { op: 'service' }>): Promise<OpResult> {
  // Refused before the node is even read: nothing that could change it may go out.
  const negotiated = await ctx.client.negotiated();
  const short = featureShortfall('servicing', 'service', negotiated)
    ?? (args.firmware.updates.length > 0 ? featureShortfall('a firmware update while servicing', 'firmware-service-step', negotiated) : null);
  if (short !== null) return failed(short, null);
  const node = await findNode(ctx, host);
  if (!node) return needsRegistration;
  const wanted = asksForChanges(args.firmware);
  switch (node.provision_state) {
    case 'active':
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      // Our servicing finished (its mark is dropped either way).
      if (ctx.servicing.delete(node.uuid)) return done();
      // Asked before, by an owner whose mark died with it (a restart, a shard move): back in
      // active means it finished, as BMO's Service without `unprepared` takes it. Sending it
      // again would flash the firmware twice.
      if (args.started === true) return done();
      return start(ctx, node, args);
    case 'servicing':
      return continuing(ctx.polls.longMs);
    case 'service wait':
    case 'service hold':
      // The changes were withdrawn: back out rather than finish work no one wants (BMO).
      if (!wanted) return abort(ctx, node);
      return continuing(ctx.polls.longMs);
    case 'service failed':
      ctx.servicing.delete(node.uuid);
      if (!wanted) return abort(ctx, node);
      if (!args.restartOnFailure) return failed(`servicing failed: ${nodeReason(node)}`);
      // A failed service step leaves the node in maintenance; Ironic clears the fault with it.
      if (node.maintenance) {
        await ctx.client.unsetMaintenance(node.uuid);
        return continuing(ctx.polls.shortMs);
      }
      return start(ctx, node, args);
    default:
      return { kind: 'transient', message: `servicing found Ironic node ${node.name ?? node.uuid} in state "${node.provision_state}", not active or servicing` };
  }
}

async function start(ctx: StepContext, node: IronicNode, args: Extract<CallArgs, { op: 'service' }>): Promise<OpResult> {
  const plan = await firmwareStepsFor(ctx, node, args.firmware);
  if ('refused' in plan) return plan.refused;
  if (plan.steps.length === 0) {
    // Nothing left to change; a node left in `service failed` still goes back to `active`.
    return node.provision_state === 'active' ? done() : abort(ctx, node);
  }
  await ctx.client.setProvisionState(node.uuid, 'service', { serviceSteps: plan.steps });
  ctx.servicing.add(node.uuid);
  return continuing(ctx.polls.longMs);
}

async function abort(ctx: StepContext, node: IronicNode): Promise<OpResult> {
  if (node.provision_state === 'service failed') {
    // Before 32.0 only another service (or an undeploy) leaves service failed: said, not sent.
    const short = featureShortfall('aborting a failed servicing', 'service-fail-abort', await ctx.client.negotiated());
    if (short !== null) return failed(`${short}: node ${node.name ?? node.uuid} stays in service failed (${nodeReason(node)}) until servicing is asked for again`, null);
  }
  await ctx.client.setProvisionState(node.uuid, 'abort');
  return continuing(ctx.polls.shortMs);
}
