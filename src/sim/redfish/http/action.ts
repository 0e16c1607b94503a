import { argOf } from './base-registry.ts';
import { propertyValueError, registryError } from './errors.ts';
import type { RedfishError } from './errors.ts';

// What an action's body may carry. A real BMC refuses a parameter the action does not define
// (bmcweb: Base ActionParameterUnknown naming it) rather than ignore it, and a parameter of the
// wrong JSON type with ActionParameterValueTypeError, not as a value missing from the list. Every
// refusal is the Base registry's message, its arguments in MessageArgs.

/** A value as a message argument; a password's (Password, OldPassword...) is masked, never echoed. */
function shown(name: string, value: unknown): string {
  return /password$/i.test(name) ? '******' : argOf(value);
}

/** Throws ActionParameterUnknown for the first parameter of `body` not in `known`; annotations (@Redfish.OperationApplyTime) pass. */
export function onlyParameters(action: string, body: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(body).find((key) => !key.startsWith('@') && !known.includes(key));
  if (unknown !== undefined) throw registryError(400, 'ActionParameterUnknown', [action, unknown], [`#/${unknown}`]);
}

/** ActionParameterValueTypeError; a password's value is masked. */
export function parameterTypeError(action: string, parameter: string, value: unknown): RedfishError {
  return registryError(400, 'ActionParameterValueTypeError', [shown(parameter, value), parameter, action], [`#/${parameter}`]);
}

/** ActionParameterValueFormatError: the right type, a form the parameter does not take. */
export function parameterFormatError(action: string, parameter: string, value: unknown): RedfishError {
  return registryError(400, 'ActionParameterValueFormatError', [shown(parameter, value), parameter, action], [`#/${parameter}`]);
}

/** PropertyValueTypeError for a PATCH or create; `property` is its path (Boot/BootSourceOverrideTarget). */
export function propertyTypeError(property: string, value: unknown): RedfishError {
  return propertyValueError('PropertyValueTypeError', property, /password$/i.test(property) ? '******' : value);
}

/** ActionParameterValueNotInList in the Base registry's words; the allowable values are the action's AllowableValues. */
export function valueNotInList(action: string, parameter: string, value: unknown): RedfishError {
  return registryError(400, 'ActionParameterValueNotInList', [shown(parameter, value), parameter, action], [`#/${parameter}`]);
}

/** A required string parameter of an action: ActionParameterMissing, else ActionParameterValueTypeError. */
export function stringParameter(action: string, body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (value === undefined) throw registryError(400, 'ActionParameterMissing', [action, name], [`#/${name}`]);
  if (typeof value !== 'string') throw parameterTypeError(action, name, value);
  return value;
}

/** A required string property of a POST that creates a resource: PropertyMissing, else PropertyValueTypeError. */
export function stringProperty(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (value === undefined) throw registryError(400, 'PropertyMissing', [name], [`#/${name}`]);
  if (typeof value !== 'string') throw propertyTypeError(name, value);
  return value;
}
