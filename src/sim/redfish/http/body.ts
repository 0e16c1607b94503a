import type { IncomingMessage } from 'node:http';
import { badRequest, RedfishError } from './errors.ts';

const MAX_BODY = 1_048_576;

/**
 * DSP0266: a request body is JSON, sent as application/json (a charset parameter allowed); a body
 * declared as anything else is refused with 415 Unsupported Media Type rather than parsed anyway
 * (a form-encoded login is not a login). A body with no Content-Type at all is read as JSON.
 */
function checkContentType(header: string | undefined): void {
  if (header === undefined) return;
  const type = (header.split(';')[0] ?? '').trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return;
  // The type is named, cut short: it is the client's text, never a credential.
  throw new RedfishError(415, 'GeneralError', `The request body's Content-Type ${type.slice(0, 64) || '(empty)'} is not supported: this service reads request bodies as application/json.`, 'Resubmit the request with the body as JSON and the header Content-Type: application/json.');
}

/**
 * The JSON object a request carries ({} when it carries nothing, as sushy's bare action POSTs do),
 * and whether it carried one at all (a PATCH of {} is refused, a bodiless one is not).
 */
export async function readJsonBody(req: IncomingMessage): Promise<{ body: Record<string, unknown>; sent: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new RedfishError(413, 'GeneralError', `The request body exceeds ${MAX_BODY} bytes.`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return { body: {}, sent: false };
  checkContentType(req.headers['content-type']);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('MalformedJSON', 'The request body submitted was malformed JSON and could not be parsed by the receiving service.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('MalformedJSON', 'The request body must be a JSON object.');
  return { body: parsed as Record<string, unknown>, sent: true };
}
