import { MaasApiError } from './api-error.ts';

// multipart/form-data (RFC 7578) as Django's MultiPartParser reads it for MAAS: parts without a
// filename are form fields (request.POST), parts with one are uploads (request.FILES). The `maas`
// CLI, python-libmaas and gomaasapi's file uploads send this; MAAS's API docs ask for it.

export interface UploadedFile {
  readonly name: string;
  readonly filename: string;
  readonly content: Buffer;
}

export interface MultipartBody {
  readonly fields: Array<[string, string]>;
  readonly files: UploadedFile[];
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

function malformed(what: string): MaasApiError {
  // Django raises MultiPartParserError, which MAAS answers as a plain 400.
  return new MaasApiError(400, `Invalid multipart/form-data body: ${what}.`);
}

/** A parameter of a header value: `name="a \"b\""`, `name=plain` or RFC 5987/2231 `name*=utf-8''a%20b`. */
export function headerParam(header: string, key: string): string | undefined {
  const extended = new RegExp(`(?:^|;)\\s*${key}\\*\\s*=\\s*([^;]*)`, 'i').exec(header);
  if (extended) {
    const m = /^([^']*)'[^']*'(.*)$/.exec((extended[1] ?? '').trim());
    if (m) {
      const bytes = Buffer.from((m[2] ?? '').replace(/%([0-9A-Fa-f]{2})/g, (_x, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
      return (m[1] ?? '').toLowerCase() === 'utf-8' ? bytes.toString('utf8') : bytes.toString('latin1');
    }
  }
  const quoted = new RegExp(`(?:^|;)\\s*${key}\\s*=\\s*"((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(header);
  if (quoted) return (quoted[1] ?? '').replace(/\\(.)/g, '$1');
  const bare = new RegExp(`(?:^|;)\\s*${key}\\s*=\\s*([^;\\s]*)`, 'i').exec(header);
  return bare ? bare[1] : undefined;
}

function partHeaders(raw: string): Map<string, string> {
  const headers = new Map<string, string>();
  // Python's email generator folds long header lines: a line that starts with blanks continues the last.
  for (const line of raw.replace(/\r\n(?=[ \t])/g, '').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw malformed(`a part header line has no name: ${JSON.stringify(line.slice(0, 60))}`);
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function partContent(body: Buffer, headers: Map<string, string>): Buffer {
  // Django decodes base64 parts (email.mime parts from the maas CLI can be base64); others are raw.
  if ((headers.get('content-transfer-encoding') ?? '').toLowerCase() === 'base64') return Buffer.from(body.toString('latin1'), 'base64');
  return body;
}

/** Splits `body` on the boundary named in `contentType`; the preamble and epilogue are ignored. */
export function parseMultipart(body: Buffer, contentType: string): MultipartBody {
  const boundary = headerParam(contentType.split(/;(.*)/s)[1] ?? '', 'boundary');
  if (!boundary) throw malformed('the Content-Type has no boundary');
  const delimiter = Buffer.from(`--${boundary}`);
  const fields: Array<[string, string]> = [];
  const files: UploadedFile[] = [];
  let at = body.indexOf(delimiter);
  if (at === -1) throw malformed('the boundary does not occur in the body');
  for (;;) {
    at += delimiter.length;
    // "--" after a delimiter closes the body.
    if (body.subarray(at, at + 2).toString('latin1') === '--') break;
    // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
    while (body[at] === 0x20 || body[at] === 0x09) at++;
    if (!body.subarray(at, at + 2).equals(CRLF)) throw malformed('a boundary line does not end with CRLF');
    at += 2;
    const next = body.indexOf(Buffer.concat([CRLF, delimiter]), at);
    if (next === -1) throw malformed('the closing boundary is missing');
    const part = body.subarray(at, next);
    const split = part.indexOf(HEADER_END);
    const headers = split === -1 ? partHeaders(part.toString('utf8').replace(/\r\n$/, '')) : partHeaders(part.subarray(0, split).toString('utf8'));
    const content = partContent(split === -1 ? Buffer.alloc(0) : part.subarray(split + HEADER_END.length), headers);
    const disposition = headers.get('content-disposition') ?? '';
    if (!/^\s*form-data\b/i.test(disposition)) throw malformed('a part is not Content-Disposition: form-data');
    const name = headerParam(disposition, 'name');
    // Django skips a part without a name.
    if (name !== undefined) {
      const filename = headerParam(disposition, 'filename');
      if (filename === undefined) fields.push([name, content.toString('utf8')]);
      else files.push({ name, filename, content });
    }
    at = next + CRLF.length;
  }
  return { fields, files };
}
