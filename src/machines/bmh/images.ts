import type { BareMetalHost, Image } from '../../api/index.ts';

export function sameImage(a: Image | undefined, b: Image | undefined): boolean {
  if (!a || !b) return a === b;
  return a.url === b.url && (a.checksum ?? '') === (b.checksum ?? '') && (a.format ?? '') === (b.format ?? '');
}

// BMO's NeedsProvisioning: online with an image URL or a custom deploy method.
export function wantsProvisioning(host: BareMetalHost): boolean {
  return host.spec.online && (Boolean(host.spec.image?.url) || Boolean(host.spec.customDeploy?.method));
}

export function hasImage(host: BareMetalHost): boolean {
  return Boolean(host.spec.image?.url) || Boolean(host.spec.customDeploy?.method);
}

// A provisioned host is deprovisioned when its image goes away or changes (provisioningCancelled).
export function provisioningCancelled(host: BareMetalHost & { status: NonNullable<BareMetalHost['status']> }): boolean {
  if (!hasImage(host)) return true;
  const deployed = host.status.provisioning;
  if (host.spec.customDeploy?.method) return host.spec.customDeploy.method !== deployed.customDeploy?.method;
  return !sameImage(host.spec.image, deployed.image);
}
