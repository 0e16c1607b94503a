import { validateObject } from '../../../api/index.ts';
import type { ValidateOptions } from '../../../api/index.ts';
import { absent, apiVersionOf, type AdmissionRequest, type AdmissionVerdict, type GroupVersionKind } from './admission-review.ts';
import { invalidStatus } from './status.ts';

// The validating webhook's decision: the same validateObject `metalfleet validate` runs, so the
// CLI and the API server can never disagree about an object.

function metadataName(obj: Record<string, unknown> | null | undefined): string {
  const metadata = obj?.metadata;
  if (metadata === null || typeof metadata !== 'object') return '';
  const name = (metadata as Record<string, unknown>).name;
  return typeof name === 'string' ? name : '';
}

/** The name an admission is about: the request's, else the object's (a create may have neither yet). */
export function requestName(request: AdmissionRequest): string {
  return request.name || metadataName(request.object) || metadataName(request.oldObject);
}

function unmanagedWarning(request: AdmissionRequest): string {
  // A review without request.kind whose object has no apiVersion has no version to name.
  const named = [apiVersionOf(request.kind), request.kind.kind].filter((part) => part !== '').join(' ');
  return `metalfleet does not validate ${named}; admitted without checks (check the webhook configuration's rules)`;
}

/**
 * The object as the rules read it: of the kind the API server says it is sending. It may omit its
 * own apiVersion and kind; the review's parse has refused one that names another kind.
 */
function asKind(obj: Record<string, unknown> | null | undefined, gvk: GroupVersionKind): Record<string, unknown> | undefined {
  if (obj == null) return undefined;
  const apiVersion = apiVersionOf(gvk);
  return {
    ...obj,
    // A version-less fallback (no request.kind, no apiVersion in the object) stays missing, so the rules name it.
    ...(absent(obj.apiVersion) && gvk.version !== '' ? { apiVersion } : {}),
    ...(absent(obj.kind) ? { kind: gvk.kind } : {}),
  };
}

/**
 * CREATE checks the object, UPDATE the object against the stored one (the immutability rules);
 * DELETE and CONNECT change nothing the rules cover. A kind metalfleet does not validate is
 * allowed with a warning: the webhook configuration sent it by mistake. A subresource (status,
 * scale, ...) is allowed unchecked and without a warning, as BMO's webhook checks only the main
 * resource: a rule naming "baremetalhosts/status" must not judge a status write as a spec change.
 */
export function admitValidation(request: AdmissionRequest, rules: ValidateOptions = {}): AdmissionVerdict {
  if (request.subResource) return { allowed: true };
  if (request.operation === 'DELETE' || request.operation === 'CONNECT') return { allowed: true };
  const old = request.operation === 'UPDATE' ? asKind(request.oldObject, request.kind) : undefined;
  const result = validateObject(asKind(request.object, request.kind), old, rules);
  if (result === null) return { allowed: true, warnings: [unmanagedWarning(request)] };
  if (result.errors.length === 0) return { allowed: true };
  return {
    allowed: false,
    status: invalidStatus({ group: request.kind.group, kind: result.kind, name: requestName(request) }, result.errors),
  };
}
