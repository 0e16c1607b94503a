import { pyJsonDumps } from './py-format.ts';

export const TEXT_PLAIN = 'text/plain; charset=utf-8';
export const APPLICATION_JSON = 'application/json; charset=utf-8';

/** An answer other than success, as MAAS would send it: status, body, content type. */
export class MaasApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly contentType: string = TEXT_PLAIN,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`${status} ${body}`);
    this.name = 'MaasApiError';
  }
}

export function badRequest(message: string): MaasApiError {
  return new MaasApiError(400, message);
}

/** A form error: 400 with `{"field": ["message", ...]}` serialised the way Python's json.dumps does. */
export function validationError(errors: Record<string, string[]>): MaasApiError {
  return new MaasApiError(400, pyJsonDumps(errors), APPLICATION_JSON);
}

/** Django's Http404 from get_object_or_404: "No <Model> matches the given query." */
export function notFound(model: string): MaasApiError {
  return new MaasApiError(404, `No ${model} matches the given query.`);
}

/** NodeStateViolation and NodesNotAvailable. */
export function conflict(message: string): MaasApiError {
  return new MaasApiError(409, message);
}

/** PermissionDenied() carries no text; admin_method's carries METHOD_RESERVED_ADMIN. */
export function forbidden(message = ''): MaasApiError {
  return new MaasApiError(403, message);
}

export const METHOD_RESERVED_ADMIN = 'This method is reserved for admin users.';

export function unauthorized(): MaasApiError {
  return new MaasApiError(401, 'Authorization Error: Invalid API key.', TEXT_PLAIN, { 'WWW-Authenticate': 'OAuth realm="MAAS API"' });
}
