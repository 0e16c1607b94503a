import { z } from 'zod';
import { formatFieldPath } from '../../../api/index.ts';

// The admission.k8s.io/v1 AdmissionReview the API server posts to a webhook, and the one it expects
// back (k8s.io/api/admission/v1/types.go). Only v1 is served: the webhook configuration lists
// `admissionReviewVersions: [v1]`.

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';
export const ADMISSION_REVIEW_KIND = 'AdmissionReview';

export const AdmissionOperation = z.enum(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);
export type AdmissionOperation = z.infer<typeof AdmissionOperation>;

const GroupVersionKind = z.object({ group: z.string(), version: z.string(), kind: z.string() });
export type GroupVersionKind = z.infer<typeof GroupVersionKind>;
const GroupVersionResource = z.object({ group: z.string(), version: z.string(), resource: z.string() });

// The object is passed on as the very value JSON.parse made, so the rules see what
// `metalfleet validate` would see for the same document.
const KubeObject = z.custom<Record<string, unknown>>(
  (value) => value !== null && typeof value === 'object' && !Array.isArray(value),
  { error: 'expected a Kubernetes object' },
);

/** "group/version", or "version" for the core group: what an object of `gvk` has as its apiVersion. */
export function apiVersionOf(gvk: GroupVersionKind): string {
  return gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
}

// Go's TypeMeta omits an empty apiVersion or kind, so "" says as little as a missing field.
export const absent = (value: unknown): boolean => value === undefined || value === null || value === '';

/** The kind an object names itself, for a review without request.kind; undefined if it names none. */
function kindOfObject(obj: Record<string, unknown> | null | undefined): GroupVersionKind | undefined {
  if (obj == null || typeof obj.kind !== 'string' || obj.kind === '') return undefined;
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion, kind: obj.kind }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind: obj.kind };
}

export const AdmissionRequest = z.object({
  uid: z.string().min(1),
  // What the API server is sending (the object is converted to this version). Optional only so a
  // review from an older or hand-written client can fall back on the object's own apiVersion/kind.
  kind: GroupVersionKind.optional(),
  resource: GroupVersionResource,
  subResource: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  operation: AdmissionOperation,
  object: KubeObject.nullish(),
  oldObject: KubeObject.nullish(),
  dryRun: z.boolean().optional(),
}).superRefine((request, ctx) => {
  // Without the object there is nothing to check, and an update without its stored version would
  // pass every immutability rule: both are a broken review, not an object to admit.
  const needsObject = request.operation === 'CREATE' || request.operation === 'UPDATE';
  if (needsObject && request.object == null) ctx.addIssue({ code: 'custom', path: ['object'], message: `required for ${request.operation}` });
  if (request.operation === 'UPDATE' && request.oldObject == null) ctx.addIssue({ code: 'custom', path: ['oldObject'], message: 'required for UPDATE' });
}).transform((request, ctx) => {
  // The rules are chosen by request.kind, never by the object alone: an object without apiVersion
  // and kind would otherwise be admitted as a kind metalfleet does not validate. An object that
  // names another kind than the request is a broken review, refused rather than guessed at.
  const source = request.kind !== undefined ? 'request.kind' : request.object != null ? 'request.object' : 'request.oldObject';
  const kind = request.kind ?? kindOfObject(request.object ?? request.oldObject);
  if (kind === undefined) {
    ctx.addIssue({ code: 'custom', path: ['kind'], message: 'required (the object names no kind either)' });
    return z.NEVER;
  }
  const apiVersion = apiVersionOf(kind);
  let agrees = true;
  for (const field of ['object', 'oldObject'] as const) {
    const obj = request[field];
    if (obj == null) continue;
    // Messages name what request.kind expects, never what the object holds.
    if (!absent(obj.apiVersion) && obj.apiVersion !== apiVersion) {
      ctx.addIssue({ code: 'custom', path: [field, 'apiVersion'], message: `expected ${JSON.stringify(apiVersion)} as ${source} says` });
      agrees = false;
    }
    if (!absent(obj.kind) && obj.kind !== kind.kind) {
      ctx.addIssue({ code: 'custom', path: [field, 'kind'], message: `expected ${JSON.stringify(kind.kind)} as ${source} says` });
      agrees = false;
    }
  }
  return agrees ? { ...request, kind } : z.NEVER;
});
export type AdmissionRequest = z.infer<typeof AdmissionRequest>;

export const AdmissionReviewRequest = z.object({
  apiVersion: z.literal(ADMISSION_API_VERSION, { error: `expected "${ADMISSION_API_VERSION}" (list v1 in the webhook configuration's admissionReviewVersions)` }),
  kind: z.literal(ADMISSION_REVIEW_KIND, { error: `expected "${ADMISSION_REVIEW_KIND}"` }),
  request: AdmissionRequest,
});
export type AdmissionReviewRequest = z.infer<typeof AdmissionReviewRequest>;

/** One field of a denial (metav1.StatusCause). */
export type StatusCause = { reason: string; message: string; field: string };

/** metav1.Status, as the API server reads it from a denial and returns it to the client. */
export type Status = {
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message: string;
  reason: string;
  details?: { name: string; group: string; kind: string; causes: StatusCause[] };
  code: number;
};

/** What a route decides about one request; the review wraps it with the request's uid. */
export type AdmissionVerdict = {
  allowed: boolean;
  status?: Status;
  /** Shown to the client (kubectl prints each as `Warning: ...`). */
  warnings?: string[];
  /** Mutating routes: a base64 JSON patch (RFC 6902), the only patch type the API server takes. */
  patchType?: 'JSONPatch';
  patch?: string;
};

export type AdmissionResponse = AdmissionVerdict & { uid: string };

export type AdmissionReviewResponse = {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: typeof ADMISSION_REVIEW_KIND;
  response: AdmissionResponse;
};

/**
 * Why a body is not an AdmissionReview, as `path: message; ...` with the request's field paths.
 * Zod's messages name expected types and values, never what was received, so no object content
 * reaches the answer.
 */
export function describeReviewIssues(error: z.ZodError, max = 5): string {
  const parts = error.issues.slice(0, max).map((issue) => {
    const path = formatFieldPath(issue.path.map((p) => (typeof p === 'number' ? p : String(p))));
    return `${path === '' ? '(body)' : path}: ${issue.message}`;
  });
  const more = error.issues.length > max ? `; and ${error.issues.length - max} more` : '';
  return `${parts.join('; ')}${more}`;
}

export function reviewResponse(uid: string, verdict: AdmissionVerdict): AdmissionReviewResponse {
  return { apiVersion: ADMISSION_API_VERSION, kind: ADMISSION_REVIEW_KIND, response: { uid, ...verdict } };
}
