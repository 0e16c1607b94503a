import { parseGoUrl, redactRefused } from '../../bmc/index.ts';
import { fieldError, formatFieldPath, type FieldError } from '../../field-error.ts';
import type { FirmwareUpdate } from '../firmware.ts';

// HostFirmwareComponents' updates checked as BMO checks them, with its messages:
// - the URL, by its admission webhook (internal/webhooks/metal3.io/v1alpha1/
//   hostfirmwarecomponents_validation.go, validateURL in common_validation.go): it refuses the
//   object;
// - the component name, by its controller (apis/metal3.io/v1alpha1/hostfirmwarecomponents_types.go
//   ValidateHostFirmwareComponents): the object is stored and the Valid condition turns False
//   (reason InvalidComponent, "Invalid Firmware Components: ..."), so it is not an admission rule.

/** The Valid condition's reason and message prefix for a bad component (BMO's). */
export const INVALID_COMPONENT_REASON = 'InvalidComponent';
export const INVALID_FIRMWARE_COMPONENTS = 'Invalid Firmware Components';
/** The reason of both conditions otherwise (BMO's reasonValidComponent). */
export const VALID_COMPONENT_REASON = 'OK';

/** BMO's NICComponentPrefix: a NIC's firmware is named nic:<id>. */
export const NIC_COMPONENT_PREFIX = 'nic:';

// As validateURL allows them (the same list as a BareMetalHost's image URL).
const FIRMWARE_URL_SCHEMES = ['http', 'https', 'ftp', 'gopher', 'oci'];

/** Why BMO's validateURL refuses `url` (Go's url.ParseRequestURI, then the scheme), or null. */
function urlError(url: string): string | null {
  // A firmware URL may carry credentials for the file server: never shown.
  const parsed = parseGoUrl(url, { viaRequest: true });
  if (!parsed.ok) {
    // Unparsed, a password holding "/", "?" or "#" is no userinfo to redactUrl.
    const refused = redactRefused(url);
    return `parse ${JSON.stringify(refused.shown)}: ${refused.hide(parsed.reason)}`;
  }
  if (!FIRMWARE_URL_SCHEMES.includes(parsed.url.scheme)) return `invalid scheme in URL, ${JSON.stringify(parsed.url.scheme)} not allowed`;
  return null;
}

/** BMO's webhook rule for one update, in its words: why its URL is refused, or null. */
export function updateUrlError(update: FirmwareUpdate): string | null {
  const reason = urlError(update.url);
  return reason === null ? null : `invalid URL "${redactRefused(update.url).shown}" in FirmwareUpdate in component "${update.component}": ${reason}`;
}

/** BMO's webhook rule: each update's URL parses as a request URI with an allowed scheme. */
export function validateUpdateUrls(updates: readonly FirmwareUpdate[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const [i, update] of updates.entries()) {
    const message = updateUrlError(update);
    if (message !== null) errors.push(fieldError(formatFieldPath(['spec', 'updates', i, 'url']), message));
  }
  return errors;
}

/** BMO's ValidateHostFirmwareComponents for one component name: its message, or null. */
export function componentNameError(component: string): string | null {
  if (component === 'bmc' || component === 'bios' || component.startsWith(NIC_COMPONENT_PREFIX)) return null;
  return `component ${component} is invalid, only 'bmc', 'bios', or names starting with '${NIC_COMPONENT_PREFIX}' are allowed as update names`;
}

/**
 * Every update whose component BMO's controller refuses, at `spec.updates[i].component`. BMO stops
 * at the first and puts it in the Valid condition's message (`Invalid Firmware Components: <reason>`);
 * all are returned here so one look shows all there is to fix.
 */
export function validateUpdateComponents(updates: readonly FirmwareUpdate[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const [i, update] of updates.entries()) {
    const reason = componentNameError(update.component);
    if (reason !== null) errors.push(fieldError(formatFieldPath(['spec', 'updates', i, 'component']), reason, 'NotSupported'));
  }
  return errors;
}

/**
 * The Valid condition's message when an update's component is refused, or null: BMO's
 * `Invalid Firmware Components: %s` of the list of errors its controller got, which Go prints in
 * brackets; it names the first bad component only (ValidateHostFirmwareComponents stops there),
 * and never a URL.
 */
export function invalidComponentsMessage(updates: readonly FirmwareUpdate[]): string | null {
  for (const update of updates) {
    const reason = componentNameError(update.component);
    if (reason !== null) return `${INVALID_FIRMWARE_COMPONENTS}: [${reason}]`;
  }
  return null;
}
