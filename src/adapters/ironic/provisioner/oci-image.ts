import { isOciUrl, ociRegistryHost, type Image } from '../../../api/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { IronicClient } from '../client/index.ts';
import { featureShortfall } from '../client/index.ts';

// BMO's Image.IsOCI: the scheme in any case.
export function isOciImage(image: Image | undefined): image is Image {
  return image !== undefined && isOciUrl(image.url);
}

// retryAfterMs null: only a change (of Ironic, or of the spec) helps, so the host waits for one.
export type OciPlan = { ok: true; pullSecret: string | undefined } | { ok: false; message: string; retryAfterMs?: null };

/**
 * Whether an oci:// image may be deployed, and with which pull secret. Refused, before anything
 * is sent, on an Ironic older than 29.0 (it would take the reference for a plain URL and fail deep
 * in the deployment) and when a named pull secret reached us unresolved (a registry would refuse
 * the anonymous pull much later, with a less useful error). No message quotes the secret.
 */
export async function ociPlan(client: IronicClient, host: HostData, image: Image): Promise<OciPlan> {
  const short = featureShortfall('an oci:// image (spec.image.url)', 'oci-images', await client.negotiated());
  if (short !== null) return { ok: false, message: `${short}: upgrade Ironic to 29.0 or later, or use an http(s) image URL`, retryAfterMs: null };
  const named = image.ociAuthSecretName ?? '';
  const pullSecret = host.imagePullSecret !== undefined && host.imagePullSecret !== '' ? host.imagePullSecret : undefined;
  if (named !== '' && pullSecret === undefined) {
    return { ok: false, message: `spec.image.ociAuthSecretName "${named}": no registry credentials were resolved from that Secret for ${registryOf(image.url)}; check that it is a kubernetes.io/dockerconfigjson Secret in namespace ${host.namespace} with an entry for that registry` };
  }
  return { ok: true, pullSecret };
}

function registryOf(url: string): string {
  const authority = ociRegistryHost(url);
  // Whatever precedes an "@" would be userinfo: never repeated.
  return authority.slice(authority.lastIndexOf('@') + 1);
}
