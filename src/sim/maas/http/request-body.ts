import type http from 'node:http';
import { MaasApiError } from './api-error.ts';
import { parseMultipart } from './multipart.ts';
import { Params } from './params.ts';

// A request body as Django hands it to MAAS: urlencoded and multipart/form-data both become the
// same form parameters. Only a urlencoded body takes part in the OAuth signature (RFC 5849 §3.4.1.3;
// oauthlib and MAAS's piston leave multipart fields out).

// Bodies beyond this are refused: user_data is the largest thing a client sends.
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface RequestBody {
  readonly params: Params;
  /** The body is application/x-www-form-urlencoded (or has no type): its pairs can be signed. */
  readonly urlencoded: boolean;
}

export function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new MaasApiError(413, 'Request body too large.'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function parseBody(raw: Buffer, contentType: string | undefined): RequestBody {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === '' || type === 'application/x-www-form-urlencoded') return { params: Params.parse(raw.toString('utf8')), urlencoded: true };
  if (type === 'multipart/form-data') {
    const { fields, files } = parseMultipart(raw, contentType ?? '');
    return { params: Params.of(fields, files), urlencoded: false };
  }
  if (raw.length === 0) return { params: Params.empty(), urlencoded: false };
  throw new MaasApiError(415, `Unsupported Content-Type ${type}: send application/x-www-form-urlencoded or multipart/form-data.`);
}
