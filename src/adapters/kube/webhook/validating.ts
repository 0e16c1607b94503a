import { validateObject } from '../../../api/index.ts';
import type { ValidateOptions } from '../../../api/index.ts';
import type { AdmissionRequest, AdmissionVerdict } from './admission-review.ts';
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
  const { group, version, kind } = request.kind;
  const gv = group === '' ? version : `${group}/${version}`;
  return `metalfleet does not validate ${gv} ${kind}; admitted without checks (check the webhook configuration's rules)`;
}

/**
 * CREATE checks the object, UPDATE the object against the stored one (the immutability rules);
 * DELETE and CONNECT change nothing the rules cover. A kind metalfleet does not validate is
 * allowed with a warning: the webhook configuration sent it by mistake.
 */
export function admitValidation(request: AdmissionRequest, rules: ValidateOptions = {}): AdmissionVerdict {
  if (request.operation === 'DELETE' || request.operation === 'CONNECT') return { allowed: true };
  const old = request.operation === 'UPDATE' ? request.oldObject ?? undefined : undefined;
  const result = validateObject(request.object, old, rules);
  if (result === null) return { allowed: true, warnings: [unmanagedWarning(request)] };
  if (result.errors.length === 0) return { allowed: true };
  return {
    allowed: false,
    status: invalidStatus({ group: request.kind.group, kind: result.kind, name: requestName(request) }, result.errors),
  };
}
