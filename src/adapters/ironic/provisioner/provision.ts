import type { OpResult } from '../../../machines/bmh/index.ts';
import type { RootDeviceHints } from '../../../api/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { StepContext } from './context.ts';
import { configDrive } from './configdrive.ts';
import { findNode } from './find-node.ts';
import { checksumProblem, imageUnreachable } from './image-check.ts';
import { heldByFault, leaveMaintenanceNow, nodeReason } from './node-reason.ts';
import { continuing, done, failed, needsRegistration } from './outcome.ts';

// reference/bmo.md §5.2 Provision: provide (automated clean) → instance_info → validate → active
// with a config drive. A failed deploy of the same image is an error; there is no rebuild.
// o.rootDeviceHints: what status records (the spec's hints, else the hardware profile's), as
// BMO's ProvisionData carries them; spec.rootDeviceHints alone left a host without hints of its
// own to whatever disk Ironic picked.
export async function provision(ctx: StepContext, host: HostData, o: { rootDeviceHints: RootDeviceHints | undefined }): Promise<OpResult> {
  const image = host.spec.image;
  if (image && !host.spec.customDeploy?.method) {
    const problem = checksumProblem(image);
    if (problem) return failed(problem);
  }
  // Checked before anything is sent, so a broken Secret never leaves a half-started deployment.
  const drive = configDrive(host);
  if (!drive.ok) return failed(drive.message);
  const node = await findNode(ctx, host);
  if (!node) return needsRegistration;
  switch (node.provision_state) {
    case 'manageable':
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      if (node.fault) return heldByFault(node, ctx.polls.longMs);
      if (node.maintenance) return leaveMaintenanceNow(ctx, node);
      await ctx.client.patchNode(node.uuid, [{ op: 'replace', path: '/automated_clean', value: host.spec.automatedCleaningMode !== 'disabled' }]);
      await ctx.client.setProvisionState(node.uuid, 'provide');
      return continuing(ctx.polls.shortMs);
    case 'cleaning':
    case 'clean wait':
    case 'deploying':
    case 'wait call-back':
      return continuing(ctx.polls.longMs);
    case 'available': {
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      if (node.fault) return heldByFault(node, ctx.polls.longMs);
      if (node.maintenance) return leaveMaintenanceNow(ctx, node);
      if (image && ctx.imageCheck.enabled) {
        const unreachable = await imageUnreachable(image.url, ctx.imageCheck.timeoutMs);
        if (unreachable) return failed(unreachable);
      }
      await ctx.client.patchNode(node.uuid, [
        { op: 'add', path: '/instance_uuid', value: host.uid },
        { op: 'add', path: '/instance_info', value: instanceInfo(host, o.rootDeviceHints) },
      ]);
      const validation = await ctx.client.validateNode(node.uuid);
      const broken = ['boot', 'deploy'].filter((i) => validation[i]?.result === false).map((i) => `${i}: ${validation[i]?.reason ?? 'invalid'}`);
      if (broken.length > 0) return failed(`Ironic refused the deployment: ${broken.join('; ')}`);
      await ctx.client.setProvisionState(node.uuid, 'active', { configdrive: drive.drive, ...(host.spec.customDeploy?.method ? { deploySteps: [{ interface: 'deploy', step: host.spec.customDeploy.method, args: {}, priority: 80 }] } : {}) });
      return continuing(ctx.polls.longMs);
    }
    case 'deploy failed':
      return failed(`deployment failed: ${nodeReason(node)}`);
    // The automated clean after provide failed: Ironic holds the node there until it is told to
    // manage it. As BMO's Provision without restartOnFailure: a provisioning error, whose retry
    // (deprovisioning) manages and cleans it again.
    case 'clean failed':
      return failed(`cleaning failed: ${nodeReason(node)}`);
    case 'active':
      // fake-hardware leaves power_state unknown (null); then the power poll finds out.
      return node.power_state === 'power on' || node.power_state === 'power off' ? done({ poweredOn: node.power_state === 'power on' }) : done();
    default:
      return continuing(ctx.polls.shortMs);
  }
}

function instanceInfo(host: HostData, hints: RootDeviceHints | undefined): Record<string, unknown> {
  const image = host.spec.image;
  const info: Record<string, unknown> = {
    capabilities: { boot_mode: host.spec.bootMode === 'legacy' ? 'bios' : 'uefi', ...(host.spec.bootMode === 'UEFISecureBoot' ? { secure_boot: 'true' } : {}) },
  };
  if (image) {
    info['image_source'] = image.url;
    if (image.format) info['image_disk_format'] = image.format;
    const checksum = image.checksum ?? '';
    const type = image.checksumType && image.checksumType !== 'auto' ? image.checksumType : '';
    if (checksum && (type === '' || type === 'md5')) info['image_checksum'] = checksum;
    else if (checksum) {
      info['image_os_hash_algo'] = type;
      info['image_os_hash_value'] = checksum;
    }
  }
  if (hints && Object.keys(hints).length > 0) info['root_device'] = rootDevice(hints as Record<string, unknown>);
  return info;
}

// Ironic's root device hint names are snake_case versions of ours.
function rootDevice(hints: Record<string, unknown>): Record<string, unknown> {
  const names: Record<string, string> = { deviceName: 'name', serialNumber: 'serial', minSizeGigabytes: 'size', wwnWithExtension: 'wwn_with_extension', wwnVendorExtension: 'wwn_vendor_extension' };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(hints)) {
    if (v === undefined) continue;
    out[names[k] ?? k] = k === 'minSizeGigabytes' ? `>= ${String(v)}` : v;
  }
  return out;
}
