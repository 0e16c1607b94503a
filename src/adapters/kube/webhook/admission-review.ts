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
const GroupVersionResource = z.object({ group: z.string(), version: z.string(), resource: z.string() });

// The object is passed on as the very value JSON.parse made, so the rules see what
// `metalfleet validate` would see for the same document.
const KubeObject = z.custom<Record<string, unknown>>(
  (value) => value !== null && typeof value === 'object' && !Array.isArray(value),
  { error: 'expected a Kubernetes object' },
);

export const AdmissionRequest = z.object({
  uid: z.string().min(1),
  kind: GroupVersionKind,
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
