import type { BareMetalHost, Image } from '../../api/index.ts';

type HostWithStatus = BareMetalHost & { status: NonNullable<BareMetalHost['status']> };

/** Every field of an image compared, as BMO's reflect.DeepEqual on the Image struct; a missing string is "". */
export function sameImage(a: Image | undefined, b: Image | undefined): boolean {
  if (!a || !b) return a === b;
  return a.url === b.url && (a.checksum ?? '') === (b.checksum ?? '') && (a.checksumType ?? '') === (b.checksumType ?? '')
    && (a.format ?? '') === (b.format ?? '') && (a.ociAuthSecretName ?? '') === (b.ociAuthSecretName ?? '');
}

export function hasImage(host: BareMetalHost): boolean {
  return Boolean(host.spec.image?.url) || hasCustomDeploy(host);
}

function hasCustomDeploy(host: BareMetalHost): boolean {
  return Boolean(host.spec.customDeploy?.method);
}

/**
 * BMO's NeedsProvisioning: online, and an image URL that status has not recorded yet, or a custom
 * deploy method other than the recorded one. An image in status (BMO writes it only once a
 * deploy finished) means there is nothing new to deploy.
 */
export function wantsProvisioning(host: HostWithStatus): boolean {
  if (!host.spec.online) return false;
  const deployed = host.status.provisioning;
  const newImage = Boolean(host.spec.image?.url) && !deployed.image?.url;
  const method = host.spec.customDeploy?.method;
  const newCustomDeploy = Boolean(method) && deployed.customDeploy?.method !== method;
  return newImage || newCustomDeploy;
}

/**
 * BMO's provisioningCancelled, for provisioning and provisioned hosts. With a custom deploy: a
 * different recorded method, or a recorded image the spec no longer names, cancels. Without: a
 * recorded custom deploy cancels, a missing or empty spec image cancels, and a recorded image
 * cancels only when the spec names another URL. An empty recorded image (a host adopted, or
 * written by a controller that never recorded one) is no reason to deprovision.
 */
export function provisioningCancelled(host: HostWithStatus): boolean {
  const deployed = host.status.provisioning;
  const method = host.spec.customDeploy?.method;
  if (method) {
    if (deployed.customDeploy?.method && deployed.customDeploy.method !== method) return true;
    return Boolean(deployed.image?.url) && host.spec.image?.url !== deployed.image?.url;
  }
  if (deployed.customDeploy?.method) return true;
  const url = host.spec.image?.url;
  if (!url) return true;
  if (!deployed.image?.url) return false;
  return url !== deployed.image.url;
}
