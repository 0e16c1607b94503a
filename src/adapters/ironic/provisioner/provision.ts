import type { OpResult } from '../../../machines/bmh/index.ts';
import type { RootDeviceHints } from '../../../api/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { IronicNode } from '../client/index.ts';
import type { StepContext } from './context.ts';
import { configDrive } from './configdrive.ts';
import { deployInterfaceFor } from './node-spec.ts';
import { syncDisablePowerOff } from './disable-power-off.ts';
import { findNode } from './find-node.ts';
import { checksumProblem, imageUnreachable } from './image-check.ts';
import { isOciImage, ociPlan } from './oci-image.ts';
import { heldByFault, leaveMaintenanceNow, nodeReason } from './node-reason.ts';
import { continuing, done, failed, needsRegistration } from './outcome.ts';

// reference/bmo.md §5.2 Provision: provide (automated clean) → instance_info → validate → active
// with a config drive. A failed deploy of the same image is an error; there is no rebuild.
// o.rootDeviceHints: what status records (the spec's hints, else the hardware profile's), as
// BMO's ProvisionData carries them; spec.rootDeviceHints alone left a host without hints of its
// own to whatever disk Ironic picked.
// o.forceReboot: BMO's Provision forceReboot (a reboot annotation with force:true): a deployment
// waiting for its agent (wait call-back) is torn down with "deleted", so the host boots a new
// preprovisioning image, and deployed again once available.
export async function provision(ctx: StepContext, host: HostData, o: { rootDeviceHints: RootDeviceHints | undefined; forceReboot?: boolean }): Promise<OpResult> {
  const image = host.spec.image;
  // BMO's validateProvisionData: whenever an image URL is given, custom deploy or not.
  if (image?.url) {
    const problem = checksumProblem(image);
    if (problem) return failed(problem);
  }
  // Checked before anything is sent, so a broken Secret never leaves a half-started deployment.
  const drive = configDrive(host);
  if (!drive.ok) return failed(drive.message);
  // Also before anything is sent: an Ironic that cannot pull an OCI image is refused it up front.
  const oci = isOciImage(image) ? await ociPlan(ctx.client, host, image) : { ok: true as const, pullSecret: undefined };
  if (!oci.ok) return failed(oci.message, oci.retryAfterMs);
  const node = await findNode(ctx, host);
  if (!node) return needsRegistration;
  switch (node.provision_state) {
    case 'manageable':
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      if (node.fault) return heldByFault(node, ctx.polls.longMs);
      if (node.maintenance) return leaveMaintenanceNow(ctx, node);
      await syncDisablePowerOff(ctx, host, node);
      await ctx.client.patchNode(node.uuid, [{ op: 'replace', path: '/automated_clean', value: host.spec.automatedCleaningMode !== 'disabled' }]);
      await ctx.client.setProvisionState(node.uuid, 'provide');
      return continuing(ctx.polls.shortMs);
    case 'wait call-back':
      if (o.forceReboot) {
        await ctx.client.setProvisionState(node.uuid, 'deleted');
        return { kind: 'continuing', afterMs: ctx.polls.shortMs, started: true };
      }
      return continuing(ctx.polls.longMs);
    case 'cleaning':
    case 'clean wait':
    case 'deploying':
      return continuing(ctx.polls.longMs);
    case 'available':
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      return deploy(ctx, host, node, { drive: drive.drive, rootDeviceHints: o.rootDeviceHints, pullSecret: oci.pullSecret });
    // BMO's Provision: a failure with the image asked for now is this attempt's error (once
    // Ironic has said why); a spec corrected since is deployed again from here (deploy --> active).
    // Its target stays "active" (states.py), so it is no sign of a flow under way.
    case 'deploy failed':
      if (!ironicHasOtherImage(host, node)) {
        if (!node.last_error?.trim() && !node.fault) return continuing(ctx.polls.shortMs);
        return failed(`deployment failed: ${nodeReason(node)}`);
      }
      return deploy(ctx, host, node, { drive: drive.drive, rootDeviceHints: o.rootDeviceHints, pullSecret: oci.pullSecret });
    // A failed clean (the automated one after provide, or an earlier manual one) holds the node
    // until it is told to manage it. BMO's Provision retries cleaning (bmo.md §8, #1182): out of
    // maintenance first (Ironic refuses manage in it; leaving it clears the "clean failure"
    // fault), then manage, and provide cleans again from manageable.
    case 'clean failed':
      if (node.maintenance) return leaveMaintenanceNow(ctx, node);
      await ctx.client.setProvisionState(node.uuid, 'manage');
      return continuing(ctx.polls.shortMs);
    case 'active':
      // fake-hardware leaves power_state unknown (null); then the power poll finds out.
      return node.power_state === 'power on' || node.power_state === 'power off' ? done({ poweredOn: node.power_state === 'power on' }) : done();
    default:
      return continuing(ctx.polls.shortMs);
  }
}

type DeployInput = { drive: Record<string, unknown>; rootDeviceHints: RootDeviceHints | undefined; pullSecret: string | undefined };

// instance_info, validation, then `active` with the config drive: from available, or from deploy
// failed with a new image.
async function deploy(ctx: StepContext, host: HostData, node: IronicNode, d: DeployInput): Promise<OpResult> {
  const image = host.spec.image;
  if (node.fault) return heldByFault(node, ctx.polls.longMs);
  if (node.maintenance) return leaveMaintenanceNow(ctx, node);
  if (image && ctx.imageCheck.enabled) {
    const unreachable = await imageUnreachable(image.url, ctx.imageCheck.timeoutMs);
    if (unreachable) return failed(unreachable);
  }
  await syncDisablePowerOff(ctx, host, node);
  const deployInterface = ctx.override ? null : deployInterfaceChange(host, node.deploy_interface);
  await ctx.client.patchNode(node.uuid, [
    { op: 'add', path: '/instance_uuid', value: host.uid },
    { op: 'add', path: '/instance_info', value: instanceInfo(host, d.rootDeviceHints, d.pullSecret) },
    ...(deployInterface ? [{ op: 'replace' as const, path: '/deploy_interface', value: deployInterface }] : []),
  ]);
  const validation = await ctx.client.validateNode(node.uuid);
  const broken = ['boot', 'deploy'].filter((i) => validation[i]?.result === false).map((i) => `${i}: ${validation[i]?.reason ?? 'invalid'}`);
  if (broken.length > 0) return failed(`Ironic refused the deployment: ${broken.join('; ')}`);
  await ctx.client.setProvisionState(node.uuid, 'active', { configdrive: d.drive, ...(host.spec.customDeploy?.method ? { deploySteps: [{ interface: 'deploy', step: host.spec.customDeploy.method, args: {}, priority: 80 }] } : {}) });
  return continuing(ctx.polls.longMs);
}

const IMAGE_KEYS = ['boot_iso', 'image_source', 'image_checksum', 'image_os_hash_algo', 'image_os_hash_value'] as const;

/**
 * Whether the node's instance_info names another image than the one the host asks for now (BMO's
 * ironicHasSameImage, negated). A node recording no image at all is taken as failed with this one.
 */
function ironicHasOtherImage(host: HostData, node: IronicNode): boolean {
  const recorded = node.instance_info ?? {};
  if (recorded['image_source'] === undefined && recorded['boot_iso'] === undefined) return false;
  const wanted = instanceInfo(host, undefined, undefined);
  return IMAGE_KEYS.some((k) => (recorded[k] ?? null) !== (wanted[k] ?? null));
}

/**
 * The deploy interface to set before deploying, or null to leave the node's: the node was created
 * with the interface its image of that time needed, and the image may have changed since (BMO sets
 * it at every deployment). An interface someone chose for a plain image is kept, as BMO keeps it.
 */
function deployInterfaceChange(host: HostData, current: string | null | undefined): string | null {
  const wanted = deployInterfaceFor(host);
  if (current === wanted) return null;
  if (wanted === 'direct' && current !== 'ramdisk' && current !== 'custom-agent') return null;
  return wanted;
}

// The whole instance_info is replaced, so what an earlier deployment left (a boot_iso, another
// checksum) never mixes with this one's.
function instanceInfo(host: HostData, hints: RootDeviceHints | undefined, pullSecret: string | undefined): Record<string, unknown> {
  const image = host.spec.image;
  const info: Record<string, unknown> = {
    capabilities: { boot_mode: host.spec.bootMode === 'legacy' ? 'bios' : 'uefi', ...(host.spec.bootMode === 'UEFISecureBoot' ? { secure_boot: 'true' } : {}) },
  };
  // A live ISO is booted, not written (the ramdisk deploy interface): Ironic reads it from
  // boot_iso, and it has no checksum or disk format (BMO's setLiveIsoUpdateOptsForNode).
  if (image?.format === 'live-iso' && !host.spec.customDeploy?.method) info['boot_iso'] = image.url;
  else if (image) {
    info['image_source'] = image.url;
    if (image.format) info['image_disk_format'] = image.format;
    // BMO's image_pull_secret: Ironic's registry credentials for an oci:// image_source.
    if (pullSecret !== undefined) info['image_pull_secret'] = pullSecret;
    // BMO's GetChecksum: a named type (md5 too, a checksum URL too) is image_os_hash_*; auto or
    // none is image_checksum, whose type Ironic tells from the value.
    const checksum = image.checksum ?? '';
    const type = image.checksumType && image.checksumType !== 'auto' ? image.checksumType : '';
    if (checksum && type === '') info['image_checksum'] = checksum;
    else if (checksum) {
      info['image_os_hash_algo'] = type;
      info['image_os_hash_value'] = checksum;
    }
  }
  if (hints && Object.keys(hints).length > 0) info['root_device'] = rootDevice(hints as Record<string, unknown>);
  return info;
}

// Ironic's root device hint names are snake_case versions of ours. A plain string is an exact
// match to Ironic (it reads it as "s== value"); model and vendor match a substring, as the API
// promises and BMO's MakeHintMap sends them ("<in>"): exact, a model of "PERC" matched no disk and
// the deployment failed. A by-path device name is Ironic's by_path hint (name is the kernel's, /dev/sda).
function rootDevice(hints: Record<string, unknown>): Record<string, unknown> {
  const names: Record<string, string> = { deviceName: 'name', serialNumber: 'serial', minSizeGigabytes: 'size', wwnWithExtension: 'wwn_with_extension', wwnVendorExtension: 'wwn_vendor_extension' };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(hints)) {
    if (v === undefined) continue;
    if (k === 'deviceName' && typeof v === 'string' && v.startsWith('/dev/disk/by-path/')) out['by_path'] = `s== ${v}`;
    else if ((k === 'model' || k === 'vendor') && typeof v === 'string') out[k] = `<in> ${v}`;
    else out[names[k] ?? k] = k === 'minSizeGigabytes' ? `>= ${String(v)}` : v;
  }
  return out;
}
