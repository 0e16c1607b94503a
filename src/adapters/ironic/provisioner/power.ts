import type { BackendHints, OpResult } from '../../../machines/bmh/index.ts';
import type { HostData } from '../../../ports/index.ts';
import { IronicError } from '../client/index.ts';
import type { IronicNode } from '../client/index.ts';
import type { StepContext } from './context.ts';
import { findNode } from './find-node.ts';
import { syncDisablePowerOff } from './disable-power-off.ts';
import { nodeReason } from './node-reason.ts';
import { continuing, done, failed, needsRegistration } from './outcome.ts';

// Soft power-off gets BMO's 180 s before Ironic gives up.
const SOFT_OFF_TIMEOUT_S = 180;

export async function setPower(ctx: StepContext, host: HostData, want: 'on' | 'off', mode: 'soft' | 'hard', force: boolean): Promise<OpResult> {
  let node = await findNode(ctx, host);
  if (!node) return needsRegistration;
  if (want === 'off') {
    const held = await clearWayForPowerOff(ctx, host, node);
    if (held) return held;
  }
  // A node Ironic holds (a power or provision change under way) takes no update; the next call syncs.
  if (!node.target_power_state && !node.target_provision_state) node = await syncDisablePowerOff(ctx, host, node);
  if (want === 'off' && host.spec.disablePowerOff) return rebootInstead(ctx, node, mode);
  const target = want === 'on' ? 'power on' : 'power off';
  if (node.power_state === target && !node.target_power_state) return done({ poweredOn: want === 'on' });
  // Ironic refuses power changes while a provision state change is under way.
  if (node.target_power_state || node.target_provision_state) return continuing(ctx.polls.shortMs);
  // Ironic answers a power request 202 and fails it in the background (a BMC refusing the
  // credentials, not answering): target_power_state is cleared and last_error says why. BMO's
  // PowerOn/PowerOff return that as a failed operation unless forced, so the host shows a power
  // management error and the next attempt is forced (hard); sending it again at every poll left
  // the host provisioned, OK and on, with no error, for as long as the BMC refused.
  // BMO's PowerOff: an error left by an aborted operation (the inspection a forced reboot or this
  // power-off aborted) is no power failure.
  if (node.last_error?.trim() && !force && !(want === 'off' && ABORTED.test(node.last_error))) return failed(want === 'on' ? `PowerOn operation failed: ${nodeReason(node)}` : nodeReason(node));
  if (want === 'off' && mode === 'soft') {
    try {
      await ctx.client.setPowerState(node.uuid, 'soft power off', SOFT_OFF_TIMEOUT_S);
      return continuing(ctx.polls.shortMs);
    } catch (err) {
      // Drivers without soft power-off answer 400: fall back to a hard one.
      if (!(err instanceof IronicError && err.code === 'bad-request')) throw err;
    }
  }
  await ctx.client.setPowerState(node.uuid, target);
  return continuing(ctx.polls.shortMs);
}

const ABORTED = /aborted/i;

/**
 * BMO's abortInspectionOrCleaning, before every power-off: Ironic refuses power changes while
 * target_provision_state is set, so an inspection or a manual clean (an automated one when
 * cleaning is disabled) waiting for its ramdisk is aborted, one still running is waited for, and
 * a failed (or aborted) inspection or clean, which keeps its target, is moved to manageable.
 * Without it a host deleted while inspecting stayed in powering off before delete for as long as
 * the inspection waited. Null when the node is free for the power-off.
 */
async function clearWayForPowerOff(ctx: StepContext, host: HostData, node: IronicNode): Promise<OpResult | null> {
  switch (node.provision_state) {
    case 'inspect wait':
      await ctx.client.setProvisionState(node.uuid, 'abort');
      return continuing(ctx.polls.shortMs);
    case 'inspecting':
      return continuing(ctx.polls.longMs);
    // Both keep their target after failing (an abort is a failure): manage clears it.
    case 'inspect failed':
    case 'clean failed':
      if (!node.target_provision_state) return null;
      await ctx.client.setProvisionState(node.uuid, 'manage');
      return continuing(ctx.polls.shortMs);
    case 'clean wait':
      if (node.target_provision_state === 'manageable' || host.spec.automatedCleaningMode === 'disabled') {
        await ctx.client.setProvisionState(node.uuid, 'abort');
        return continuing(ctx.polls.shortMs);
      }
      return continuing(ctx.polls.longMs);
    case 'cleaning':
      return continuing(ctx.polls.longMs);
    default:
      return null;
  }
}

// A node that may not be powered off (disable_power_off) is rebooted where a power-off was asked
// for, as BMO's PowerOff does; the request is done once Ironic took it (BMO then removes the
// reboot annotation), so a host that is on again is never rebooted a second time for it.
async function rebootInstead(ctx: StepContext, node: IronicNode, mode: 'soft' | 'hard'): Promise<OpResult> {
  if (node.target_power_state || node.target_provision_state) return continuing(ctx.polls.shortMs);
  if (mode === 'soft') {
    try {
      await ctx.client.setPowerState(node.uuid, 'soft rebooting', SOFT_OFF_TIMEOUT_S);
      return done({ poweredOn: true });
    } catch (err) {
      if (!(err instanceof IronicError && err.code === 'bad-request')) throw err;
    }
  }
  await ctx.client.setPowerState(node.uuid, 'rebooting');
  return done({ poweredOn: true });
}

export async function hardwareState(ctx: StepContext, host: HostData): Promise<OpResult> {
  const node = await findNode(ctx, host);
  if (!node) return needsRegistration;
  const hints = hintsOf(node);
  const deployed = deployedOf(node.provision_state);
  const facts = { hints, ...(deployed === undefined ? {} : { deployed }), ...(BUSY.has(node.provision_state) ? { busy: true } : {}) };
  if (node.power_state === 'power on') return done({ poweredOn: true, ...facts });
  if (node.power_state === 'power off') return done({ poweredOn: false, ...facts });
  return done(facts);
}

// Active is deployed; a node back in manageable (a re-created node, a restored database) is
// what BMO's Adopt takes over, and so is one whose adoption is running or failed (BMO's Adopt on
// every steady-state pass is what turns "adopt failed" into a provisioned registration error);
// anything else is on its way somewhere and says nothing.
function deployedOf(state: string): boolean | undefined {
  if (state === 'active') return true;
  if (state === 'manageable' || state === 'adopting' || state === 'adopt failed') return false;
  return undefined;
}

// Ironic's states of a gated operation under way (ironic/common/states.py): deploying, inspecting,
// cleaning, servicing, deleting, with their waits and holds. A power read that finds one tells a
// new owner that work an earlier owner started still runs, whatever the host's status says.
const BUSY: ReadonlySet<string> = new Set([
  'deploying', 'wait call-back', 'deploy hold', 'inspecting', 'inspect wait', 'cleaning', 'clean wait', 'clean hold',
  'servicing', 'service wait', 'service hold', 'deleting',
]);

// BMO's HasPowerFailure and GetHealth, read from the node the power poll fetched anyway.
function hintsOf(node: IronicNode): BackendHints {
  return { powerFailure: node.fault === 'power failure', health: node.health ?? '' };
}
