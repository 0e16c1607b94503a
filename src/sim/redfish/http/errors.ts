// Redfish error bodies (DSP0266 §9.6): an `error` object whose `code` is the MessageId of its one
// message, as bmcweb and the BMC in sushy's story 2009871 send it (GeneralError is for a body of
// several messages, or of an OEM message, as iDRAC's), and whose @Message.ExtendedInfo says what to
// do. Severity, MessageSeverity and Resolution are the cited registry's (base-registry.ts). sushy
// reads both into its HTTPError and matches on `code` to retry VirtualMedia.InsertMedia.
import { argOf, baseEntry, baseText, hasMessageSeverity } from './base-registry.ts';

const REGISTRY = 'Base.1.8';

export class RedfishError extends Error {
  /** The Base registry of the BMC that answers (handle.ts sets it from the system's BMC profile). */
  registry = REGISTRY;
  /** The registry message's arguments (%1, %2...), when its text was filled from them. */
  messageArgs: readonly string[] = [];

  constructor(
    readonly status: number,
    readonly messageId: string,
    message: string,
    readonly resolution = 'None.',
    readonly relatedProperties: readonly string[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'RedfishError';
  }
}

/** A Base registry message in the registry's words, its arguments in MessageArgs. */
export function registryError(status: number, messageId: string, args: readonly string[], relatedProperties: readonly string[] = [], headers: Record<string, string> = {}): RedfishError {
  const entry = baseEntry(messageId);
  const err = new RedfishError(status, messageId, baseText(messageId, args), entry?.resolution, relatedProperties, headers);
  err.messageArgs = args;
  return err;
}

export function errorBody(err: RedfishError): object {
  const entry = baseEntry(err.messageId);
  const severity = entry?.severity ?? (err.status >= 500 ? 'Critical' : 'Warning');
  return {
    error: {
      code: `${err.registry}.${err.messageId}`,
      message: err.message,
      '@Message.ExtendedInfo': [
        {
          '@odata.type': '#Message.v1_1_1.Message',
          MessageId: `${err.registry}.${err.messageId}`,
          Message: err.message,
          ...(err.messageArgs.length > 0 ? { MessageArgs: [...err.messageArgs] } : {}),
          Severity: severity,
          ...(hasMessageSeverity(err.registry) ? { MessageSeverity: severity } : {}),
          // The registry's advice, unless it has none ("None.") and the service gave its own (a 405's methods).
          Resolution: entry !== undefined && entry.resolution !== 'None.' ? entry.resolution : err.resolution,
          ...(err.relatedProperties.length > 0 ? { RelatedProperties: [...err.relatedProperties] } : {}),
        },
      ],
    },
  };
}

export const notFound = (path: string) => withArgs(new RedfishError(404, 'ResourceMissingAtURI', `The resource at the URI ${path} was not found.`), [path]);
export const unauthorized = () => new RedfishError(401, 'NoValidSession', 'There is no valid session established with the implementation.', 'Establish a session (POST to SessionService/Sessions) or send Basic credentials for this system.', [], { 'WWW-Authenticate': 'Basic realm="Redfish"' });
/**
 * A login (POST to Sessions) whose user name and password open nothing: an authorization error at
 * that URI, as bmcweb answers it, not NoValidSession and its advice to log in. Neither the password
 * nor which of the two was wrong is told.
 */
export const loginRefused = (path: string) => new RedfishError(401, 'ResourceAtUriUnauthorized', `While accessing the resource at ${path}, the service received an authorization error: the user name or password is not valid.`, 'Check the user name and password of this BMC and resubmit the request.', [], { 'WWW-Authenticate': 'Basic realm="Redfish"' });
export const badRequest = (messageId: string, message: string, property?: string) => new RedfishError(400, messageId, message, 'Correct the request body and resubmit the request.', property === undefined ? [] : [`#/${property}`]);
export const emptyJson = () => new RedfishError(400, 'EmptyJSON', 'The request body submitted contained an empty JSON object and the service is unable to process it.', 'Add properties in the JSON object and resubmit the request.');
export const notAllowed = (method: string, path: string, allow: string, resolution = `Use one of: ${allow}.`) => new RedfishError(405, 'OperationNotAllowed', `${method} is not allowed on ${path}.`, resolution, [], { Allow: allow });
export const preconditionFailed = (path: string) => new RedfishError(412, 'PreconditionFailed', `The ETag given in If-Match does not match the current ETag of ${path}.`, 'GET the resource again and retry with its current ETag.');
export const internalError = () => new RedfishError(500, 'InternalError', 'The request failed due to an internal service error (a simulated fault).', 'Resubmit the request; if the problem persists, reset the service.');
/**
 * A PATCH naming a property the resource cannot take: PropertyNotWritable when the resource has it
 * (read-only), PropertyUnknown when it has no such property, as the Base registry tells them apart.
 */
export function notPatchable(property: string, representation: object): RedfishError {
  return registryError(400, property in representation ? 'PropertyNotWritable' : 'PropertyUnknown', [property], [`#/${property}`]);
}

/** A refusal of a property's value in the registry's words: PropertyValueTypeError, PropertyValueNotInList, PropertyValueFormatError... */
export const propertyValueError = (messageId: string, property: string, value: unknown) => registryError(400, messageId, [argOf(value), property], [`#/${property}`]);

function withArgs(err: RedfishError, args: readonly string[]): RedfishError {
  err.messageArgs = args;
  return err;
}
