// The Kubernetes admission webhook: AdmissionReview v1 over HTTPS, with the same rules as
// `metalfleet validate` (BareMetalHost and the MAAS kinds). POST /validate, GET /healthz.
export { startWebhookServer, DEFAULT_MAX_BODY_BYTES } from './server.ts';
export type { WebhookServer, WebhookServerOptions } from './server.ts';
export { WebhookTlsError } from './tls-files.ts';
export type { TlsFile } from './tls-files.ts';
export { admitValidation } from './validating.ts';
export {
  ADMISSION_API_VERSION, AdmissionOperation, AdmissionRequest, AdmissionReviewRequest,
} from './admission-review.ts';
export type { AdmissionResponse, AdmissionReviewResponse, AdmissionVerdict, Status, StatusCause } from './admission-review.ts';
