import type { Logger } from '../../../ports/index.ts';
import {
  ADMISSION_API_VERSION, AdmissionReviewRequest, describeReviewIssues, reviewResponse,
  type AdmissionRequest, type AdmissionVerdict,
} from './admission-review.ts';
import { HttpError, type Route } from './route.ts';
import { requestName } from './validating.ts';

// One AdmissionReview endpoint: read and parse the review, let `admit` decide, answer with the
// request's uid. Validating and (later) mutating endpoints differ only in `admit`.

export type Admit = (request: AdmissionRequest) => AdmissionVerdict;

const EXPECTED = `expected an ${ADMISSION_API_VERSION} AdmissionReview`;

function parseReview(body: Buffer): AdmissionReviewRequest {
  if (body.length === 0) throw new HttpError(400, `body: empty; ${EXPECTED}`);
  let raw: unknown;
  try {
    raw = JSON.parse(body.toString('utf8'));
  } catch {
    // JSON.parse's message quotes the input, which may be a Secret.
    throw new HttpError(400, `body: not valid JSON; ${EXPECTED}`);
  }
  const parsed = AdmissionReviewRequest.safeParse(raw);
  if (!parsed.success) throw new HttpError(400, `body: not an ${ADMISSION_API_VERSION} AdmissionReview: ${describeReviewIssues(parsed.error)}`);
  return parsed.data;
}

// Who and what, never the object: its fields may hold user data or credentials. The paths of the
// denied fields are schema names (and annotation keys), not values.
function subject(route: string, request: AdmissionRequest): Record<string, unknown> {
  return {
    webhook: route,
    uid: request.uid,
    operation: request.operation,
    kind: request.kind.kind,
    group: request.kind.group,
    namespace: request.namespace ?? '',
    name: requestName(request),
    ...(request.subResource ? { subResource: request.subResource } : {}),
    ...(request.dryRun ? { dryRun: true } : {}),
  };
}

function logVerdict(log: Logger, route: string, request: AdmissionRequest, verdict: AdmissionVerdict): void {
  const fields = { ...subject(route, request), allowed: verdict.allowed };
  if (!verdict.allowed) {
    log.info({ ...fields, fields: verdict.status?.details?.causes.map((c) => c.field) ?? [] }, 'admission denied');
  } else if (verdict.warnings?.length) {
    // Only a webhook configuration that sends kinds metalfleet does not own gets here.
    log.warn({ ...fields, warnings: verdict.warnings.length }, 'admission allowed with warnings');
  } else {
    log.debug(fields, 'admission allowed');
  }
}

export function reviewRoute(route: string, admit: Admit, log: Logger): Route {
  return {
    methods: ['POST'],
    async handle(req) {
      const { request } = parseReview(await req.body());
      let verdict: AdmissionVerdict;
      try {
        verdict = admit(request);
      } catch (err) {
        // A rule that throws is a bug; its message may quote the object, so only the name is logged.
        log.error({ ...subject(route, request), err: { name: (err as Error)?.name ?? 'Error' } }, 'admission failed');
        throw new HttpError(500, `${route}: internal error while checking ${request.kind.kind} ${JSON.stringify(requestName(request))}`);
      }
      logVerdict(log, route, request, verdict);
      return { status: 200, json: reviewResponse(request.uid, verdict) };
    },
  };
}
