// The DMTF Base message registry (DSP8011) as far as this BMC speaks it: each message's Severity,
// Resolution and, where the sim fills it from MessageArgs, its text (%1, %2... are the arguments).
// A real BMC copies these from the registry it cites; a client may read Severity to decide whether
// a refusal is fatal, so every 4xx is not "Warning".
export type Severity = 'OK' | 'Warning' | 'Critical';

interface Entry {
  severity: Severity;
  resolution: string;
  /** The registry's Message, for the messages the sim builds from arguments. */
  text?: string;
}

const CORRECT_PARAMETER = 'Correct the value for the parameter in the request body and resubmit the request if the operation failed.';
const CORRECT_PROPERTY = 'Correct the value for the property in the request body and resubmit the request if the operation failed.';
const FROM_LIST = 'Choose a value from the enumeration list that the implementation can support and resubmit the request if the operation failed.';

const BASE: Record<string, Entry> = {
  ActionParameterMissing: { severity: 'Critical', resolution: 'Supply the action with the required parameter in the request body when the request is resubmitted.', text: 'The action %1 requires the parameter %2 to be present in the request body.' },
  ActionParameterUnknown: { severity: 'Warning', resolution: 'Correct the invalid action parameter and resubmit the request if the operation failed.', text: 'The action %1 was submitted with the invalid parameter %2.' },
  ActionParameterValueError: { severity: 'Warning', resolution: CORRECT_PARAMETER, text: 'The value for the parameter %1 in the action %2 is invalid.' },
  ActionParameterValueFormatError: { severity: 'Warning', resolution: CORRECT_PARAMETER, text: "The value '%1' for the parameter %2 in the action %3 is of a different format than the parameter can accept." },
  ActionParameterValueNotInList: { severity: 'Warning', resolution: FROM_LIST, text: "The value '%1' for the parameter %2 in the action %3 is not in the list of acceptable values." },
  ActionParameterValueTypeError: { severity: 'Warning', resolution: CORRECT_PARAMETER, text: "The value '%1' for the parameter %2 in the action %3 is of a different type than the parameter can accept." },
  // Its Resolution is the service's own, which the registry leaves to it ("None.").
  GeneralError: { severity: 'Critical', resolution: 'None.' },
  EmptyJSON: { severity: 'Warning', resolution: 'Add properties in the JSON object and resubmit the request.' },
  InternalError: { severity: 'Critical', resolution: 'Resubmit the request.  If the problem persists, consider resetting the service.' },
  InvalidURI: { severity: 'Critical', resolution: 'Provide a valid URI and resubmit the request.' },
  MalformedJSON: { severity: 'Critical', resolution: 'Ensure that the request body is valid JSON and resubmit the request.' },
  NoValidSession: { severity: 'Critical', resolution: 'Establish a session before attempting any operations.' },
  OperationNotAllowed: { severity: 'Critical', resolution: 'None.' },
  PreconditionFailed: { severity: 'Critical', resolution: 'Try the operation again using the appropriate ETag.' },
  PropertyMissing: { severity: 'Warning', resolution: 'Ensure that the property is in the request body and has a valid value and resubmit the request if the operation failed.', text: 'The property %1 is a required property and must be included in the request.' },
  PropertyNotWritable: { severity: 'Warning', resolution: 'Remove the property from the request body and resubmit the request if the operation failed.', text: 'The property %1 is a read only property and cannot be assigned a value.' },
  PropertyUnknown: { severity: 'Warning', resolution: 'Remove the unknown property from the request body and resubmit the request if the operation failed.', text: 'The property %1 is not in the list of valid properties for the resource.' },
  PropertyValueConflict: { severity: 'Warning', resolution: 'No resolution is required.' },
  PropertyValueFormatError: { severity: 'Warning', resolution: CORRECT_PROPERTY, text: "The value '%1' for the property %2 is of a different format than the property can accept." },
  PropertyValueNotInList: { severity: 'Warning', resolution: FROM_LIST, text: "The value '%1' for the property %2 is not in the list of acceptable values." },
  PropertyValueOutOfRange: { severity: 'Warning', resolution: CORRECT_PROPERTY, text: "The value '%1' for the property %2 is not in the supported range of acceptable values." },
  PropertyValueTypeError: { severity: 'Warning', resolution: CORRECT_PROPERTY, text: "The value '%1' for the property %2 is of a different type than the property can accept." },
  ResourceAtUriUnauthorized: { severity: 'Critical', resolution: 'Ensure that the appropriate access is provided for the service in order for it to access the URI.' },
  ResourceInUse: { severity: 'Warning', resolution: 'Remove the condition and resubmit the request if the operation failed.' },
  ResourceMissingAtURI: { severity: 'Critical', resolution: 'Place a valid resource at the URI or correct the URI and resubmit the request.' },
};

/** The registry's entry for a MessageId; undefined for ids it does not list here. */
export function baseEntry(messageId: string): Entry | undefined {
  return Object.hasOwn(BASE, messageId) ? BASE[messageId] : undefined;
}

/** The registry's text of a message with its arguments in place. */
export function baseText(messageId: string, args: readonly string[]): string {
  const text = baseEntry(messageId)?.text;
  if (text === undefined) throw new Error(`Base registry message ${messageId} has no text here`);
  return text.replace(/%(\d+)/g, (_, n: string) => args[Number(n) - 1] ?? '');
}

/**
 * A value as a message argument: a string as it is, anything else as its JSON (bmcweb's dump).
 * Never pass a password: callers name the parameter instead.
 */
export function argOf(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/** MessageSeverity entered the registries with Base 1.8 (MessageRegistry v1_4_0); older ones carry Severity alone. */
export function hasMessageSeverity(registry: string): boolean {
  const m = /^Base\.(\d+)\.(\d+)/.exec(registry);
  if (!m) return true;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 1 || minor >= 8;
}
