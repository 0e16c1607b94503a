/** A BareMetalHost manifest in namespace metal3 with a Redfish BMC, as the store tests apply them. */
export function hostManifest(name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: 'metal3', ...metadata },
    spec: { online: true, bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: `${name}-bmc` }, ...spec },
  };
}
