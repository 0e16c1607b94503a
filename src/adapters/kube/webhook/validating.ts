import { validateObject } from '../../../api/index.ts';
import type { FieldError, ValidateOptions } from '../../../api/index.ts';
import { CUSTOM_RESOURCES } from '../../../machines/kinds.ts';
import { absent, apiVersionOf, type AdmissionRequest, type AdmissionVerdict, type GroupVersionKind } from './admission-review.ts';
import { ratchetUpdate } from './ratchet.ts';
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

// "group/Kind" of the kinds whose status is a subresource. The API server drops the status of such
// an object on CREATE before the validating webhooks run, and on an UPDATE of the main resource
// puts the stored status in place of the request's (reference/kube-api.md §5): what the review
// carries there is the controller's last write, which the request cannot change. The API server
// checks it only with ratcheting (§8), so a status written under an older, looser schema stays
// updatable; a denial here for it would block every edit of the object, the controller's
// finalizer and annotation writes included. BMO's webhook reads status only for its update rules.
const STATUS_SUBRESOURCE: ReadonlySet<string> = new Set(
  CUSTOM_RESOURCES.filter((r) => r.statusSubresource).map((r) => `${r.apiVersion.split('/')[0] ?? ''}/${r.kind}`),
);

function isStatusPath(path: string): boolean {
  return path === 'status' || path.startsWith('status.') || path.startsWith('status[');
}

/** The errors the request can be denied for: not the stored status of a kind with a status subresource. */
function requestErrors(request: AdmissionRequest, errors: readonly FieldError[]): FieldError[] {
  if (!STATUS_SUBRESOURCE.has(`${request.kind.group}/${request.kind.kind}`)) return [...errors];
  return errors.filter((e) => !isStatusPath(e.path));
}

/**
 * CREATE checks the object, UPDATE the object against the stored one (the immutability rules);
 * DELETE and CONNECT change nothing the rules cover. A kind metalfleet does not validate is
 * allowed with a warning: the webhook configuration sent it by mistake. A subresource (status,
 * scale, ...) is allowed unchecked and without a warning, as BMO's webhook checks only the main
 * resource: a rule naming "baremetalhosts/status" must not judge a status write as a spec change.
 * Nor is a main-resource request denied for the status the API server keeps from the stored
 * object (the update rules still read it), nor an UPDATE for a schema error in a value it leaves
 * as stored (ratchet.ts).
 */
export function admitValidation(request: AdmissionRequest, rules: ValidateOptions = {}): AdmissionVerdict {
  if (request.subResource) return { allowed: true };
  if (request.operation === 'DELETE' || request.operation === 'CONNECT') return { allowed: true };
  const object = asKind(request.object, request.kind);
  const old = request.operation === 'UPDATE' ? asKind(request.oldObject, request.kind) : undefined;
  const result = validateObject(object, old, rules);
  if (result === null) return { allowed: true, warnings: [unmanagedWarning(request)] };
  const checked = requestErrors(request, result.errors);
  // The API server ratchets its schema check on an update: what it let through is not denied here.
  const errors = old === undefined ? checked : ratchetUpdate(result.kind, object, old, checked);
  if (errors.length === 0) return { allowed: true };
  return {
    allowed: false,
    status: invalidStatus({ group: request.kind.group, kind: result.kind, name: requestName(request) }, errors),
  };
}
