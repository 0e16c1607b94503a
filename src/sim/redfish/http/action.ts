import { badRequest } from './errors.ts';
import type { RedfishError } from './errors.ts';

// What an action's body may carry. A real BMC refuses a parameter the action does not define
// (bmcweb: Base ActionParameterUnknown naming it) rather than ignore it, and a parameter of the
// wrong JSON type with ActionParameterValueTypeError, not as a value missing from the list.

/** Throws ActionParameterUnknown for the first parameter of `body` not in `known`; annotations (@Redfish.OperationApplyTime) pass. */
export function onlyParameters(action: string, body: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(body).find((key) => !key.startsWith('@') && !known.includes(key));
  if (unknown !== undefined) {
    throw badRequest('ActionParameterUnknown', `The action ${action} was submitted with the invalid parameter ${unknown}.`, unknown);
  }
}

/** ActionParameterValueTypeError; the value is not quoted (it may be a password). */
export function parameterTypeError(action: string, parameter: string, expected: string): RedfishError {
  return badRequest('ActionParameterValueTypeError', `The value for the parameter ${parameter} in the action ${action} is of a different type than the parameter can accept (${expected}).`, parameter);
}

/** PropertyValueTypeError for a PATCH or create; `property` is its path (Boot/BootSourceOverrideTarget). */
export function propertyTypeError(property: string, expected: string): RedfishError {
  return badRequest('PropertyValueTypeError', `The value for the property ${property} is of a different type than the property can accept (${expected}).`, property);
}

/** ActionParameterValueNotInList in the Base registry's words; the allowable values are the action's AllowableValues. */
export function valueNotInList(action: string, parameter: string, value: string): RedfishError {
  return badRequest('ActionParameterValueNotInList', `The value '${value}' for the parameter ${parameter} in the action ${action} is not in the list of acceptable values.`, parameter);
}

/** A required string parameter of an action: ActionParameterMissing, else ActionParameterValueTypeError. */
export function stringParameter(action: string, body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (value === undefined) throw badRequest('ActionParameterMissing', `The action ${action} requires the parameter ${name} to be present in the request body.`, name);
  if (typeof value !== 'string') throw parameterTypeError(action, name, 'a string');
  return value;
}

/** A required string property of a POST that creates a resource: PropertyMissing, else PropertyValueTypeError. */
export function stringProperty(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (value === undefined) throw badRequest('PropertyMissing', `The property ${name} is a required property and must be included in the request.`, name);
  if (typeof value !== 'string') throw propertyTypeError(name, 'a string');
  return value;
}
