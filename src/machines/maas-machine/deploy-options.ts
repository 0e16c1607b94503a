import { imageName, imageOf } from '../../api/index.ts';
import type { MaasMachine } from '../../api/index.ts';
import type { Turn } from './turn.ts';
import type { MaasCall, MaasFailureReason, MaasView, StaticLink } from './types.ts';

// What metalfleet deploys beyond CAPMAAS's image string: the image named as MAAS names it
// (osSystem/distroSeries, custom images), MAAS's kernel options, hardware sync, and a static
// address linked before deploy. Each is refused with a condition that says why, before any
// deploy call, when MAAS cannot do it.

/** Whether MAAS has the image (boot-resources/) for this machine; False stops the deploy. */
export const IMAGE_AVAILABLE = 'ImageAvailable';
/** Whether spec.staticAddress is linked on the machine; False says why the address is missing. */
export const STATIC_ADDRESS = 'StaticAddress';

export const IMAGE_REASONS = { ImageAvailable: 'ImageAvailable', ImageNotFound: 'ImageNotFound', NoImage: 'NoImage' } as const;

// The StaticAddress reasons, one per way link_subnet refuses (MAAS's texts go in the message).
export const STATIC_ADDRESS_REASONS = {
  StaticAddressAssigned: 'StaticAddressAssigned',
  AddressInUse: 'AddressInUse',
  AddressNotInSubnet: 'AddressNotInSubnet',
  SubnetNotFound: 'SubnetNotFound',
  InterfaceNotFound: 'InterfaceNotFound',
  StaticAddressForbidden: 'StaticAddressForbidden',
  StaticAddressFailed: 'StaticAddressFailed',
} as const;

/** The image this MaasMachine deploys, as `osystem/series`; null when the spec names none. */
export function imageToDeploy(object: MaasMachine): string | null {
  const image = imageOf(object.spec);
  return image ? imageName(image) : null;
}

/** The static address the spec asks for, in the driver's words; null when none. */
export function staticLinkOf(object: MaasMachine): StaticLink | null {
  const ip = object.spec.staticAddress;
  if (!ip) return null;
  return {
    subnet: ip.subnet,
    ...(ip.interface ? { interface: ip.interface } : {}),
    ...(ip.address ? { address: ip.address } : {}),
    ...(ip.defaultGateway !== undefined ? { defaultGateway: ip.defaultGateway } : {}),
  };
}

/** The deploy call with the spec's options; only the options the spec sets are sent. */
export function deployCall(object: MaasMachine, view: MaasView, image: string): MaasCall {
  const spec = object.spec;
  return {
    op: 'deploy', systemId: view.systemId, image, ephemeral: spec.deployInMemory,
    // The image is checked for the machine's architecture (MAAS may have it for arm64 only).
    ...(view.architecture ? { architecture: view.architecture } : {}),
    ...(spec.hweKernel ? { hweKernel: spec.hweKernel } : {}),
    ...(spec.enableHwSync !== undefined ? { enableHwSync: spec.enableHwSync } : {}),
  };
}

/**
 * The image to deploy; null for a spec with none (admission refuses it, but a store without
 * admission may hold one): then no allocate or deploy, the reason in both conditions.
 */
export function imageNamed(t: Turn): string | null {
  const image = imageToDeploy(t.s.object);
  if (image) return image;
  const message = 'spec names no image: set image (e.g. ubuntu/jammy) or osSystem with distroSeries';
  t.setStatus({ ready: false });
  t.condition(IMAGE_AVAILABLE, { status: 'False', reason: IMAGE_REASONS.NoImage, message });
  t.deployed('False', IMAGE_REASONS.NoImage, message);
  t.releaseSlot();
  return null;
}

/**
 * The steps between allocation and deploy, each one call: the minimum kernel (a machine field in
 * MAAS), then the static address. True when they are done and the deploy may go.
 */
export function beforeDeploy(t: Turn, systemId: string): boolean {
  const spec = t.s.object.spec;
  if (!t.s.minKernelSet && spec.minHweKernel) {
    t.call({ op: 'setMinHweKernel', systemId, minHweKernel: spec.minHweKernel });
    return false;
  }
  const link = staticLinkOf(t.s.object);
  if (!t.s.staticLinked && link) {
    t.call({ op: 'linkStatic', systemId, ...link });
    return false;
  }
  return true;
}

/** MAAS had the image: said once, so a later ImageNotFound is a change people see. */
export function imageFound(t: Turn): void {
  t.condition(IMAGE_AVAILABLE, { status: 'True', reason: IMAGE_REASONS.ImageAvailable });
}

/** MAAS lacks the image: no deploy, no slot held, looked at again after imageRecheckMs. */
export function imageMissing(t: Turn, message: string): void {
  t.setStatus({ ready: false });
  t.condition(IMAGE_AVAILABLE, { status: 'False', reason: IMAGE_REASONS.ImageNotFound, message });
  t.deployed('False', IMAGE_REASONS.ImageNotFound, message);
  t.event('Warning', IMAGE_REASONS.ImageNotFound, message);
  t.releaseSlot();
  t.s.fresh = false;
  t.s.nextPollAt = t.now + t.s.config.imageRecheckMs;
  t.s.retryAt = t.now + t.s.config.imageRecheckMs;
  t.requeue(t.s.config.imageRecheckMs);
}

/** The static address is linked: the condition names it, from what MAAS answered. */
export function staticLinked(t: Turn, addresses: readonly string[]): void {
  t.s.staticLinked = true;
  const link = staticLinkOf(t.s.object);
  const where = `${link?.interface ?? 'the boot interface'}, subnet ${link?.subnet ?? ''}`;
  const ips = addresses.length > 0 ? addresses.join(', ') : (link?.address ?? 'an address MAAS picks');
  t.condition(STATIC_ADDRESS, { status: 'True', reason: STATIC_ADDRESS_REASONS.StaticAddressAssigned, message: `${ips} linked STATIC on ${where}` });
}

const ADDRESS_REASONS: Partial<Record<MaasFailureReason, string>> = {
  addressInUse: STATIC_ADDRESS_REASONS.AddressInUse,
  addressInvalid: STATIC_ADDRESS_REASONS.AddressNotInSubnet,
  subnetNotFound: STATIC_ADDRESS_REASONS.SubnetNotFound,
  interfaceNotFound: STATIC_ADDRESS_REASONS.InterfaceNotFound,
  forbidden: STATIC_ADDRESS_REASONS.StaticAddressForbidden,
};

/**
 * link_subnet refused: no deploy without the address asked for. The condition says why, and the
 * link is tried again after the backoff (an address in use may be freed; a spec fixed is new).
 */
export function staticLinkFailed(t: Turn, message: string, reason: MaasFailureReason | undefined): void {
  const why = (reason && ADDRESS_REASONS[reason]) ?? STATIC_ADDRESS_REASONS.StaticAddressFailed;
  const hint = reason === 'forbidden' ? ' (MAAS lets only an admin key change a machine\'s interfaces)' : '';
  t.setStatus({ ready: false });
  t.condition(STATIC_ADDRESS, { status: 'False', reason: why, message: `${message}${hint}` });
  t.deployed('False', why, `no deploy without the static address asked for: ${message}`);
  t.event('Warning', why, message);
  t.releaseSlot();
  // MAAS is looked at again before the next try: the machine may have moved meanwhile.
  t.s.fresh = false;
  t.s.nextPollAt = t.now;
  t.backoff();
}
