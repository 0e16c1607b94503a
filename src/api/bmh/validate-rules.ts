import { parseBmcAddress, parseGoUrl, redactRefused, redactUrl, type BmcAccess } from '../bmc/index.ts';
import { annotationPath, fieldError, type FieldError } from '../field-error.ts';
import { isOciUrl } from './oci-image.ts';
import {
  HARDWARE_DETAILS_ANNOTATION, INSPECT_ANNOTATION, INSPECT_DISABLED, STATUS_ANNOTATION, checkRebootAnnotation,
  isRebootAnnotation, parseHardwareDetailsAnnotation, parseInspectAnnotation, parseStatusAnnotation,
} from './annotations.ts';
import type { HostView } from './validate-view.ts';

// The baremetal-operator's validating webhook (internal/webhooks/metal3.io/v1alpha1/
// baremetalhost_validation.go; reference/bmo.md §2.3), rule by rule, with BMO's messages. Each rule
// returns every error it finds, tied to the field it is about.

function inspectionDisabled(host: HostView): boolean {
  return host.spec.inspectionMode === 'disabled' || host.annotations[INSPECT_ANNOTATION] === INSPECT_DISABLED;
}

/** What admission accepts beyond BMO's own rules. */
export interface RuleOptions {
  /**
   * BMC address schemes a loaded provisioner plugin declares (its `supports.bmcSchemes`): such an
   * address is the plugin's to check when it registers the host, not an unknown BMC type.
   */
  readonly pluginBmcSchemes?: ReadonlySet<string>;
}

/** Rule 1: the BMC address parses, names a known type and a valid host. Returns the BMC for rules 5 and 10. */
export function ruleBmcAddress(host: HostView, opts: RuleOptions = {}): { errors: FieldError[]; bmc: BmcAccess | null } {
  const address = host.spec.bmc?.address ?? '';
  // An empty address is an unmanaged host, not an error.
  if (address === '') return { errors: [], bmc: null };
  const parsed = parseBmcAddress(address);
  if (parsed.ok) {
    // BMO would take them, and store and show them as written (issue 19.3): they belong in the
    // Secret. The message shows the address redacted.
    const url = parseGoUrl(address);
    if (url.ok && url.url.userinfo !== null) {
      return { errors: [fieldError('spec.bmc.address', `credentials in the BMC address (${redactUrl(address)}) are not accepted: they would be stored and shown as written; put the username and password in the Secret named by spec.bmc.credentialsName`)], bmc: parsed.bmc };
    }
    return { errors: [], bmc: parsed.bmc };
  }
  if (parsed.error.code === 'unknown-type' && parsed.error.scheme !== undefined && opts.pluginBmcSchemes?.has(parsed.error.scheme)) return { errors: [], bmc: null };
  const type = parsed.error.code === 'unknown-type' ? 'NotSupported' : 'Invalid';
  return { errors: [fieldError('spec.bmc.address', parsed.error.message, type)], bmc: null };
}

/** Rule 2: spec.firmware is gone upstream. */
export function ruleFirmware(host: HostView): FieldError[] {
  if (!host.spec.firmware) return [];
  return [fieldError('spec.firmware', 'the Firmware field is no longer supported, use HostFirmwareSettings resource instead', 'Forbidden')];
}

/** Rule 3: userData, networkData and metaData Secrets live in the host's namespace. */
export function ruleSecretNamespaces(host: HostView): FieldError[] {
  return host.spec.secretRefs
    .filter((ref) => ref.namespace !== '' && ref.namespace !== host.namespace)
    .map((ref) => fieldError(
      `spec.${ref.field}.namespace`,
      `${ref.field}: cross-namespace Secret references are not allowed (Secret in ${JSON.stringify(ref.namespace)}, host in ${JSON.stringify(host.namespace)})`,
      'Forbidden',
    ));
}

/** Rule 4: RAID layout. */
export function ruleRaid(host: HostView): FieldError[] {
  const raid = host.spec.raid;
  if (!raid) return [];
  const errors: FieldError[] = [];
  if (raid.hardware.length > 0 && raid.software.length > 0) {
    errors.push(fieldError('spec.raid', 'hardwareRAIDVolumes and softwareRAIDVolumes can not be set at the same time', 'Forbidden'));
  }
  raid.hardware.forEach((volume, i) => {
    const path = `spec.raid.hardwareRAIDVolumes[${i}]`;
    if (volume.physicalDisks > 0 && volume.controller === '') {
      errors.push(fieldError(`${path}.controller`, `'physicalDisks' specified without 'controller' in hardware RAID volume ${i}`, 'Required'));
    }
    if (volume.numberOfPhysicalDisks !== undefined && volume.physicalDisks > 0 && volume.numberOfPhysicalDisks !== volume.physicalDisks) {
      errors.push(fieldError(
        `${path}.numberOfPhysicalDisks`,
        `the 'numberOfPhysicalDisks'[${volume.numberOfPhysicalDisks}] and number of 'physicalDisks'[${volume.physicalDisks}] is not same for volume ${i}`,
      ));
    }
  });
  const roots = raid.software.filter((v) => v.rootVolume).length;
  if (roots > 1) errors.push(fieldError('spec.raid.softwareRAIDVolumes', 'softwareRAIDVolumes[*].rootVolume can only be set once'));
  if (roots === 1 && host.spec.rootDeviceHints) {
    errors.push(fieldError('spec.rootDeviceHints', 'softwareRAIDVolumes[*].rootVolume and rootDeviceHints can not be set at the same time', 'Forbidden'));
  }
  // The deployment device must survive a disk failure, so a root volume is a mirror.
  raid.software.forEach((volume, i) => {
    if (volume.rootVolume && volume.level !== '1') {
      errors.push(fieldError(`spec.raid.softwareRAIDVolumes[${i}].level`, `softwareRAIDVolumes[${i}] with rootVolume set must use RAID level 1`));
    }
  });
  return errors;
}

const HEX2 = '[0-9A-Fa-f]{2}';
const HEX4 = '[0-9A-Fa-f]{4}';
// Go's net.ParseMAC: 6, 8 or 20 octets as xx:xx / xx-xx groups (one separator throughout) or
// xxxx.xxxx groups.
const MAC_FORMS = [6, 8, 20].flatMap((n) => [
  new RegExp(`^${HEX2}(:${HEX2}){${n - 1}}$`),
  new RegExp(`^${HEX2}(-${HEX2}){${n - 1}}$`),
  new RegExp(`^${HEX4}(\\.${HEX4}){${n / 2 - 1}}$`),
]);

export function isValidMac(mac: string): boolean {
  return MAC_FORMS.some((re) => re.test(mac));
}

/** Rule 5: what the BMC driver needs or cannot do. */
export function ruleDriver(host: HostView, bmc: BmcAccess | null): FieldError[] {
  const errors: FieldError[] = [];
  const { spec } = host;
  if (bmc && spec.raid && spec.raid.hardware.length > 0 && bmc.interfaces.raid === 'no-raid') {
    errors.push(fieldError('spec.raid.hardwareRAIDVolumes', `BMC driver ${bmc.scheme} does not support configuring RAID`, 'Forbidden'));
  }
  if (bmc && spec.bootMACAddress === '') {
    if (bmc.needsMac) {
      errors.push(fieldError('spec.bootMACAddress', `BMC driver ${bmc.scheme} requires a BootMACAddress value`, 'Required'));
    } else if (inspectionDisabled(host)) {
      errors.push(fieldError('spec.bootMACAddress', `BMC driver ${bmc.scheme} requires a BootMACAddress value when inspection is disabled`, 'Required'));
    }
  }
  // BMO checks the MAC only with a usable BMC address; a bad MAC is bad either way.
  if (spec.bootMACAddress !== '' && !isValidMac(spec.bootMACAddress)) {
    errors.push(fieldError('spec.bootMACAddress', `address ${spec.bootMACAddress}: invalid MAC address`));
  }
  if (bmc && spec.bootMode === 'UEFISecureBoot' && !bmc.supportsSecureBoot) {
    errors.push(fieldError('spec.bootMode', `BMC driver ${bmc.scheme} does not support secure boot`, 'NotSupported'));
  }
  return errors;
}

const UUID = /^([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|[0-9A-Fa-f]{32})$/;

/** Rule 6: the name becomes the Ironic node name `<namespace>~<name>`; a UUID would read as a node ID. */
export function ruleName(host: HostView): FieldError[] {
  if (/[^A-Za-z0-9._-]/.test(host.name)) {
    return [fieldError('metadata.name', 'BareMetalHost resource name cannot contain characters other than [A-Za-z0-9._-]')];
  }
  if (UUID.test(host.name)) return [fieldError('metadata.name', 'BareMetalHost resource name cannot be a UUID')];
  return [];
}

/** Rule 7: rootDeviceHints.deviceName is /dev/X or /dev/disk/by-path/X. */
export function ruleRootDeviceHints(host: HostView): FieldError[] {
  const name = host.spec.rootDeviceHints?.deviceName ?? '';
  if (name === '') return [];
  const path = 'spec.rootDeviceHints.deviceName';
  if (!name.startsWith('/dev/')) return [fieldError(path, `device name of root device hint must be a /dev/ path, not ${JSON.stringify(name)}`)];
  let sub = name.slice('/dev/'.length);
  if (sub.startsWith('disk/by-path/')) sub = sub.slice('disk/by-path/'.length);
  if (sub.includes('/')) {
    return [fieldError(path, `device name of root device hint must be path in /dev/ or /dev/disk/by-path/, not ${JSON.stringify(name)}`)];
  }
  return [];
}

const IMAGE_SCHEMES = ['http', 'https', 'ftp', 'gopher', 'oci'];
const CHECKSUM_TYPES = ['md5', 'sha256', 'sha512'];

/** Rule 8: image URL scheme and checksum. */
export function ruleImage(host: HostView): FieldError[] {
  const image = host.spec.image;
  if (!image) return [];
  const errors: FieldError[] = [];
  // An image URL may carry credentials for the image server.
  const shown = redactUrl(image.url);
  const parsed = parseGoUrl(image.url, { viaRequest: true });
  if (!parsed.ok) {
    // Unparsed, a password holding "/", "?" or "#" is no userinfo to redactUrl.
    const refused = redactRefused(image.url);
    errors.push(fieldError('spec.image.url', `image URL ${refused.shown} is invalid: ${refused.hide(parsed.reason)}`));
  } else if (!IMAGE_SCHEMES.includes(parsed.url.scheme)) {
    errors.push(fieldError('spec.image.url', `image URL ${shown} is invalid: invalid scheme in URL, ${JSON.stringify(parsed.url.scheme)} not allowed`, 'NotSupported'));
  }
  if (isOciUrl(image.url)) {
    if (image.checksum !== '') {
      errors.push(fieldError('spec.image.checksum', 'spec.image.checksum must be empty for OCI images (oci:// images have embedded checksums)', 'Forbidden'));
    }
  } else if (image.format !== 'live-iso') {
    if (image.checksum === '') {
      errors.push(fieldError('spec.image.checksum', 'checksum is required for normal images', 'Required'));
    } else if (image.checksumType !== '' && image.checksumType !== 'auto' && !CHECKSUM_TYPES.includes(image.checksumType)) {
      errors.push(fieldError('spec.image.checksumType', `unknown checksumType ${image.checksumType}, supported are auto, md5, sha256, sha512`, 'NotSupported'));
    }
  }
  return errors;
}

/** Rule 9: the annotations metalfleet reads have values it can read. */
export function ruleAnnotations(host: HostView): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of Object.keys(host.annotations).sort()) {
    const value = host.annotations[key] ?? '';
    if (key === STATUS_ANNOTATION) {
      const r = parseStatusAnnotation(value);
      if (!r.ok) errors.push(r.error);
    } else if (isRebootAnnotation(key)) {
      const e = checkRebootAnnotation(key, value);
      if (e) errors.push(e);
    } else if (key === INSPECT_ANNOTATION) {
      const r = parseInspectAnnotation(value);
      if (!r.ok) errors.push(r.error);
    } else if (key === HARDWARE_DETAILS_ANNOTATION && value !== '') {
      if (!inspectionDisabled(host)) {
        errors.push(fieldError(
          annotationPath(key),
          'when hardware details are provided, inspection must be disabled (either via inspect.metal3.io annotation or inspectionMode field)',
          'Forbidden',
        ));
      } else {
        const r = parseHardwareDetailsAnnotation(value);
        if (!r.ok) errors.push(r.error);
      }
    }
  }
  return errors;
}

/** Rule 10: inspectionMode agrees with the legacy annotation and the driver. */
export function ruleInspectionMode(host: HostView, bmc: BmcAccess | null): FieldError[] {
  const mode = host.spec.inspectionMode;
  const annotation = host.annotations[INSPECT_ANNOTATION] ?? '';
  const path = 'spec.inspectionMode';
  if (annotation !== '' && mode !== '' && (annotation === INSPECT_DISABLED) !== (mode === 'disabled')) {
    return [fieldError(path, 'inspect.metal3.io annotation and inspectionMode field have contradicting values')];
  }
  if (mode !== '' && mode !== 'disabled' && mode !== 'agent' && mode !== 'fast') {
    return [fieldError(path, `invalid inspectionMode value: ${mode}, allowed values are 'disabled', 'agent', or 'fast'`, 'NotSupported')];
  }
  if (mode === 'fast' && bmc && !bmc.supportsOutOfBandInspect) {
    return [fieldError(path, `BMC driver ${bmc.scheme} does not support fast (out-of-band) inspection`, 'NotSupported')];
  }
  return [];
}

/** Rule 11: with power-off disabled the host cannot be kept off. */
export function rulePower(host: HostView): FieldError[] {
  if (!host.spec.disablePowerOff || host.spec.online) return [];
  return [fieldError('spec.disablePowerOff', "node can't simultaneously have online set to false and have power off disabled", 'Forbidden')];
}

/** Rule 12: each network interface names a NIC by name or by MAC, once. */
export function ruleNetworkInterfaces(host: HostView): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  host.spec.networkInterfaces.forEach((iface, i) => {
    const path = `spec.networkInterfaces[${i}]`;
    if (iface.name === '' && iface.macAddress === '') {
      errors.push(fieldError(path, 'must specify either name or macAddress', 'Required'));
      return;
    }
    if (iface.name !== '' && iface.macAddress !== '') {
      errors.push(fieldError(path, 'name and macAddress are mutually exclusive', 'Forbidden'));
      return;
    }
    const key = iface.macAddress !== '' ? iface.macAddress : iface.name;
    if (seen.has(key.toLowerCase())) errors.push(fieldError(path, `duplicate interface selector for ${JSON.stringify(key)}`, 'Duplicate'));
    seen.add(key.toLowerCase());
  });
  return errors;
}

/** Rules 1-12, in BMO's order. */
export function createRules(host: HostView, opts: RuleOptions = {}): FieldError[] {
  const { errors: bmcErrors, bmc } = ruleBmcAddress(host, opts);
  return [
    ...bmcErrors,
    ...ruleFirmware(host),
    ...ruleSecretNamespaces(host),
    ...ruleRaid(host),
    ...ruleDriver(host, bmc),
    ...ruleName(host),
    ...ruleRootDeviceHints(host),
    ...ruleImage(host),
    ...ruleAnnotations(host),
    ...ruleInspectionMode(host, bmc),
    ...rulePower(host),
    ...ruleNetworkInterfaces(host),
  ];
}

/** Rules 13-15, comparing the stored host with the new one. */
export function updateRules(old: HostView, host: HostView): FieldError[] {
  const errors: FieldError[] = [];
  const oldAddress = old.spec.bmc?.address ?? '';
  const newAddress = host.spec.bmc?.address ?? '';
  // The address may change while nothing is registered yet or the host is detached from Ironic.
  if (
    oldAddress !== '' && newAddress !== oldAddress
    && old.status.operationalStatus !== 'detached' && host.status.operationalStatus !== 'detached'
    && old.status.provisioningState !== 'registering' && host.status.provisioningState !== 'registering'
  ) {
    errors.push(fieldError('spec.bmc.address', 'BMC address can not be changed if the BMH is not in the Registering state, or if the BMH is not detached', 'Forbidden'));
  }
  if (old.spec.bootMACAddress !== '' && host.spec.bootMACAddress.toLowerCase() !== old.spec.bootMACAddress.toLowerCase()) {
    errors.push(fieldError('spec.bootMACAddress', 'bootMACAddress can not be changed once it is set', 'Forbidden'));
  }
  if (
    !old.spec.externallyProvisioned && host.spec.externallyProvisioned
    && old.status.provisioningState !== 'available' && host.status.provisioningState !== 'available'
  ) {
    const state = old.status.provisioningState === '' ? '""' : old.status.provisioningState;
    errors.push(fieldError('spec.externallyProvisioned', `externallyProvisioned can only be enabled when in Available state, currently in ${state}`, 'Forbidden'));
  }
  return errors;
}
