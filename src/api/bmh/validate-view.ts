// A lenient reading of a BareMetalHost for the webhook rules: every field as Go would see it after
// decoding (absent or of the wrong type = zero value). The rules then run even when the structural
// parse failed, so one pass reports every problem; the zod issues cover the wrong types.

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : undefined;
}
function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
function bool(value: unknown): boolean {
  return value === true;
}
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export type SecretRefField = 'userData' | 'networkData' | 'metaData';

export type HostView = {
  name: string;
  namespace: string;
  annotations: Record<string, string>;
  spec: {
    online: boolean;
    /** Absent when spec.bmc is absent. */
    bmc?: { address: string; disableCertificateVerification: boolean };
    bootMACAddress: string;
    bootMode: string;
    image?: { url: string; checksum: string; checksumType: string; format: string };
    firmware: boolean;
    secretRefs: Array<{ field: SecretRefField; namespace: string }>;
    rootDeviceHints?: { deviceName: string };
    raid?: {
      hardware: Array<{ controller: string; numberOfPhysicalDisks?: number; physicalDisks: number }>;
      software: Array<{ rootVolume: boolean; level: string }>;
    };
    externallyProvisioned: boolean;
    disablePowerOff: boolean;
    inspectionMode: string;
    networkInterfaces: Array<{ name: string; macAddress: string }>;
  };
  status: { operationalStatus: string; provisioningState: string };
};

export function readHost(raw: unknown): HostView {
  const root = obj(raw) ?? {};
  const metadata = obj(root.metadata) ?? {};
  const spec = obj(root.spec) ?? {};
  const status = obj(root.status) ?? {};
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj(metadata.annotations) ?? {})) if (typeof v === 'string') annotations[k] = v;

  const bmc = obj(spec.bmc);
  const image = obj(spec.image);
  const hints = obj(spec.rootDeviceHints);
  const raid = obj(spec.raid);
  const view: HostView = {
    name: str(metadata.name),
    namespace: str(metadata.namespace) || 'default',
    annotations,
    spec: {
      online: bool(spec.online),
      bootMACAddress: str(spec.bootMACAddress),
      bootMode: str(spec.bootMode),
      // A null firmware decodes to a nil pointer in Go: not set.
      firmware: spec.firmware !== undefined && spec.firmware !== null,
      secretRefs: (['userData', 'networkData', 'metaData'] as const).flatMap((field) => {
        const ref = obj(spec[field]);
        return ref ? [{ field, namespace: str(ref.namespace) }] : [];
      }),
      externallyProvisioned: bool(spec.externallyProvisioned),
      disablePowerOff: bool(spec.disablePowerOff),
      inspectionMode: str(spec.inspectionMode),
      networkInterfaces: list(spec.networkInterfaces).map((i) => ({ name: str(obj(i)?.name), macAddress: str(obj(i)?.macAddress) })),
    },
    status: {
      operationalStatus: str(status.operationalStatus),
      provisioningState: str(obj(status.provisioning)?.state),
    },
  };
  if (bmc) view.spec.bmc = { address: str(bmc.address), disableCertificateVerification: bool(bmc.disableCertificateVerification) };
  if (image) {
    view.spec.image = { url: str(image.url), checksum: str(image.checksum), checksumType: str(image.checksumType), format: str(image.format) };
  }
  if (hints) view.spec.rootDeviceHints = { deviceName: str(hints.deviceName) };
  if (raid) {
    view.spec.raid = {
      hardware: list(raid.hardwareRAIDVolumes).map((v) => {
        const volume = obj(v) ?? {};
        const count = volume.numberOfPhysicalDisks;
        return {
          controller: str(volume.controller),
          ...(typeof count === 'number' ? { numberOfPhysicalDisks: count } : {}),
          physicalDisks: list(volume.physicalDisks).length,
        };
      }),
      // rootVolume is read from the raw object: the zod schema may not carry it.
      software: list(raid.softwareRAIDVolumes).map((v) => ({ rootVolume: bool(obj(v)?.rootVolume), level: str(obj(v)?.level) })),
    };
  }
  return view;
}
