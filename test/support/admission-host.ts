// A valid BareMetalHost for admission-rule tests: each test applies one change to it and checks
// that exactly the rule it breaks answers. Shared by the rule tests of validate and the webhook.

export type Host = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; annotations?: Record<string, string> };
  spec: Record<string, unknown> & { bmc: { address: string; credentialsName: string } };
  status?: Record<string, unknown>;
};

export function host(patch: (h: Host) => void = () => {}): Host {
  const h: Host = {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name: 'worker-0', namespace: 'metal3' },
    spec: {
      online: true,
      bootMACAddress: '52:54:00:aa:bb:cc',
      bmc: { address: 'redfish-virtualmedia://192.0.2.10/redfish/v1/Systems/1', credentialsName: 'worker-0-bmc' },
      image: { url: 'http://images.example.com/ubuntu.qcow2', checksum: 'http://images.example.com/ubuntu.qcow2.sha256sum', checksumType: 'sha256', format: 'qcow2' },
      rootDeviceHints: { deviceName: '/dev/sda' },
      userData: { name: 'worker-0-user-data', namespace: 'metal3' },
    },
  };
  patch(h);
  return h;
}

/** The host as the controller has written its status: in `state`. */
export function withStatus(h: Host, state: string, operationalStatus = 'OK'): Host {
  h.status = {
    operationalStatus, errorMessage: '', errorCount: 0, poweredOn: true, provisioningFailCount: 0,
    provisioning: { state, ID: 'abc' },
  };
  return h;
}
