// metav1.Status bodies exactly as the API server writes them (kube-api.md §4): field order kind,
// apiVersion, metadata, status, message, reason, details, code; empty details fields left out.
import { aggregate, causeOf } from './field-errors.ts';
import type { FieldError } from './field-errors.ts';
import { qualifiedResource } from './types.ts';
import type { ResourceDef } from './types.ts';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { reason?: string; message?: string; field?: string }[];
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** A request the server refuses; `status` is the body it sends, `status.code` the HTTP code. */
export class KubeApiError extends Error {
  constructor(readonly status: StatusBody, readonly headers: Record<string, string> = {}) {
    super(status.message ?? `HTTP ${status.code}`);
    this.name = 'KubeApiError';
  }

  get code(): number {
    return this.status.code ?? 500;
  }

  get reason(): string {
    return this.status.reason ?? '';
  }
}

export function details(d: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes && d.causes.length > 0) out.causes = d.causes;
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  return out;
}

export function failure(code: number, reason: string, message: string, d?: StatusDetails, continueToken?: string): StatusBody {
  const body: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata: continueToken ? { continue: continueToken } : {}, status: 'Failure', message };
  if (reason) body.reason = reason;
  if (d !== undefined) body.details = details(d);
  body.code = code;
  return body;
}

export function fail(code: number, reason: string, message: string, d?: StatusDetails, headers?: Record<string, string>): KubeApiError {
  return new KubeApiError(failure(code, reason, message, d), headers);
}

/** Go %q of a resource name; names are plain ASCII in practice, so JSON quoting is the same. */
const q = (name: string): string => JSON.stringify(name);

export const apiErrors = {
  notFound(res: ResourceDef, name: string): KubeApiError {
    return fail(404, 'NotFound', `${qualifiedResource(res)} ${q(name)} not found`, { name, group: res.group, kind: res.plural });
  },
  alreadyExists(res: ResourceDef, name: string, terminating: boolean): KubeApiError {
    const prefix = terminating ? 'object is being deleted: ' : '';
    return fail(409, 'AlreadyExists', `${prefix}${qualifiedResource(res)} ${q(name)} already exists`, { name, group: res.group, kind: res.plural });
  },
  /** Conflict on `group`/`resource` (a plural, or a Kind for delete preconditions). */
  conflict(group: string, resource: string, name: string, why: string): KubeApiError {
    const qualified = group ? `${resource}.${group}` : resource;
    return fail(409, 'Conflict', `Operation cannot be fulfilled on ${qualified} ${q(name)}: ${why}`, { name, group, kind: resource });
  },
  staleResourceVersion(res: ResourceDef, name: string): KubeApiError {
    return apiErrors.conflict(res.group, res.plural, name,
      'the object has been modified; please apply your changes to the latest version and try again');
  },
  /** 422 with field causes; `kind` is the Kind for schema errors, the plural for a missing RV. */
  invalid(group: string, kind: string, name: string, errors: readonly FieldError[]): KubeApiError {
    const qualified = group ? `${kind}.${group}` : kind;
    const message = errors.length > 0 ? `${qualified} ${q(name)} is invalid: ${aggregate(errors)}` : `${qualified} ${q(name)} is invalid`;
    return fail(422, 'Invalid', message, { name, group, kind, causes: errors.map(causeOf) });
  },
  invalidObject(res: ResourceDef, name: string, errors: readonly FieldError[]): KubeApiError {
    return apiErrors.invalid(res.group, res.kind, name, errors);
  },
  badRequest(message: string): KubeApiError {
    return fail(400, 'BadRequest', message);
  },
  /** A body that does not decode as the resource's kind. */
  undecodable(res: ResourceDef, version: string, why: string): KubeApiError {
    return apiErrors.badRequest(`${res.kind} in version ${q(version)} cannot be handled as a ${res.kind}: ${why}`);
  },
  methodNotSupported(res: ResourceDef, verb: string): KubeApiError {
    return fail(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind ${q(qualifiedResource(res))}`, { group: res.group, kind: res.plural });
  },
  unsupportedMediaType(accepted: readonly string[]): KubeApiError {
    return fail(415, 'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
  },
  /** ListOptions / PatchOptions / DeleteOptions errors: `<Kind>.meta.k8s.io "" is invalid: …`. */
  invalidOptions(kind: string, errors: readonly FieldError[]): KubeApiError {
    return apiErrors.invalid('meta.k8s.io', kind, '', errors);
  },
  expired(message: string, continueToken?: string): KubeApiError {
    return new KubeApiError(failure(410, 'Expired', message, undefined, continueToken));
  },
  internal(message: string): KubeApiError {
    return fail(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
  },
  /** An InternalError-free 500, as for an RV set on create (kube-api.md §4). */
  plain500(message: string): KubeApiError {
    return fail(500, '', message);
  },
  tooLargeResourceVersion(requested: number, current: number): KubeApiError {
    return fail(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`,
      { causes: [{ reason: 'ResourceVersionTooLarge', message: `Too large resource version` }], retryAfterSeconds: 1 },
      { 'Retry-After': '1' });
  },
  requestTooLarge(message: string): KubeApiError {
    return fail(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
  },
};

export function successStatus(res: ResourceDef, name: string, uid: string): StatusBody {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: details({ name, group: res.group, kind: res.plural, uid }) };
}

