import type { IncomingMessage } from 'node:http';
import { badRequest, RedfishError } from './errors.ts';

const MAX_BODY = 1_048_576;

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
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('MalformedJSON', 'The request body submitted was malformed JSON and could not be parsed by the receiving service.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('MalformedJSON', 'The request body must be a JSON object.');
  return { body: parsed as Record<string, unknown>, sent: true };
}
