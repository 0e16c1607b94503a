import { createHmac, timingSafeEqual } from 'node:crypto';
import { MaasApiError, TEXT_PLAIN, unauthorized } from './api-error.ts';

// OAuth 1.0 as MAAS checks it (src/maasserver/api/auth.py over piston3's oauth): the key is
// "consumer_key:token_key:token_secret", the consumer secret is empty, PLAINTEXT and HMAC-SHA1
// signatures are both accepted and both really verified (capmaas.md §3.1). The oauth_* fields may
// come in the Authorization header, the query string or a POST form (auth.py check_validity,
// piston3's is_valid_request and OAuthRequest.from_request), as oauthlib's signature types put them.

export interface ApiKey {
  readonly consumerKey: string;
  readonly tokenKey: string;
  readonly tokenSecret: string;
}

export interface SimUser {
  readonly name: string;
  readonly admin: boolean;
}

export interface Credential {
  readonly key: ApiKey;
  readonly user: SimUser;
}

export function parseApiKey(text: string): ApiKey | undefined {
  const parts = text.split(':');
  if (parts.length !== 3 || parts.some((p) => p === '')) return undefined;
  const [consumerKey = '', tokenKey = '', tokenSecret = ''] = parts;
  return { consumerKey, tokenKey, tokenSecret };
}

/** RFC 3986 percent-encoding as RFC 5849 §3.6 wants it: only A-Z a-z 0-9 - . _ ~ stay. */
export function oauthEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const REQUIRED = ['oauth_consumer_key', 'oauth_token', 'oauth_signature', 'oauth_signature_method', 'oauth_timestamp', 'oauth_nonce'] as const;

/** `OAuth realm="MAAS API", oauth_consumer_key="…", …` → its parameters, values unescaped. */
export function parseAuthorization(header: string | undefined): Map<string, string> | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*OAuth\s+(.*)$/is.exec(header);
  if (!match) return undefined;
  const params = new Map<string, string>();
  for (const part of (match[1] ?? '').split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const key = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim().replace(/^"(.*)"$/s, '$1');
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      value = raw;
    }
    params.set(key, value);
  }
  return params;
}

type Pairs = ReadonlyArray<readonly [string, string]>;

export interface SignedRequest {
  readonly method: string;
  /** scheme://host[:port]/path, no query: the URL the base string is built from. */
  readonly baseUrl: string;
  readonly query: Pairs;
  /** Form pairs of a urlencoded POST body; empty otherwise (a PUT or multipart body is not signed). */
  readonly form: Pairs;
  readonly authorization: string | undefined;
}

/** Where a request's OAuth credentials can be: the header, the query string, a POST form. */
export interface OAuthCarriers {
  readonly authorization: string | undefined;
  readonly query: Pairs;
  readonly form: Pairs;
}

function oauthPairsOf(pairs: Pairs): Map<string, string> {
  const found = new Map<string, string>();
  for (const [k, v] of pairs) if (k.startsWith('oauth_')) found.set(k, v);
  return found;
}

function complete(fields: Map<string, string> | undefined): fields is Map<string, string> {
  return fields !== undefined && REQUIRED.every((k) => fields.has(k));
}

// The oauth_* fields as piston3's from_request gathers them: the form first, the header over it,
// the query string over both. Undefined when no one place carries all six (MAAS's check_validity:
// such a request is unauthenticated, not a bad key).
function oauthFields(c: OAuthCarriers): Map<string, string> | undefined {
  const header = parseAuthorization(c.authorization);
  const query = oauthPairsOf(c.query);
  const form = oauthPairsOf(c.form);
  if (!complete(header) && !complete(query) && !complete(form)) return undefined;
  return new Map([...form, ...(header ?? []), ...query]);
}

/** RFC 5849 §3.4.1: METHOD&enc(url)&enc(sorted, encoded k=v pairs joined by &). */
export function signatureBaseString(method: string, baseUrl: string, params: ReadonlyArray<readonly [string, string]>): string {
  const encoded = params.map(([k, v]) => [oauthEncode(k), oauthEncode(v)] as const);
  encoded.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const normalized = encoded.map(([k, v]) => `${k}=${v}`).join('&');
  return [method.toUpperCase(), oauthEncode(baseUrl), oauthEncode(normalized)].join('&');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The request carries OAuth credentials with every field MAAS requires. One without them is
 * anonymous to MAAS (auth.py hands it to a resource's anonymous handler, if it has one); one
 * with them is checked, and a bad key is 401 even where anonymous access exists.
 */
export function carriesOAuth(carriers: OAuthCarriers): boolean {
  return oauthFields(carriers) !== undefined;
}

/** Throws when the timestamp is stale or the nonce was seen (nonces.ts); called once the key is known. */
export type ReplayCheck = (consumerKey: string, tokenKey: string, nonce: string, timestamp: number) => void;

/**
 * The user a request is signed for. Missing or malformed credentials, an unknown key and a wrong
 * signature are 401 `Authorization Error: Invalid API key.`; a timestamp that is not an integer is 400;
 * a stale timestamp or a replayed nonce is whatever `replay` throws (nonces.ts: 401, as MAAS).
 */
export function authenticate(request: SignedRequest, credentials: readonly Credential[], replay?: ReplayCheck): SimUser {
  const oauth = oauthFields(request);
  if (!oauth) throw unauthorized();
  const timestamp = oauth.get('oauth_timestamp') ?? '';
  if (!/^\s*[+-]?\d+\s*$/.test(timestamp)) throw new MaasApiError(400, 'Invalid timestamp: not an integer.', TEXT_PLAIN);
  const credential = credentials.find((c) => c.key.consumerKey === oauth.get('oauth_consumer_key') && c.key.tokenKey === oauth.get('oauth_token'));
  if (!credential) throw unauthorized();
  replay?.(credential.key.consumerKey, credential.key.tokenKey, oauth.get('oauth_nonce') ?? '', Number(timestamp.trim()));
  const signature = oauth.get('oauth_signature') ?? '';
  const secret = credential.key.tokenSecret;
  switch (oauth.get('oauth_signature_method')?.toUpperCase()) {
    case 'PLAINTEXT':
      // The signature is enc(consumer secret) & enc(token secret); the consumer secret is empty.
      if (sameText(signature, `&${oauthEncode(secret)}`) || sameText(signature, `&${secret}`)) return credential.user;
      throw unauthorized();
    case 'HMAC-SHA1': {
      // Every parameter but the signature, wherever it came from; header fields join the query's and the form's.
      const params: Array<readonly [string, string]> = [...request.query, ...request.form].filter(([k]) => k !== 'oauth_signature');
      const header = parseAuthorization(request.authorization);
      const elsewhere = new Set(params.map(([k]) => k));
      for (const [k, v] of header ?? []) if (k.startsWith('oauth_') && k !== 'oauth_signature' && !elsewhere.has(k)) params.push([k, v]);
      const base = signatureBaseString(request.method, request.baseUrl, params);
      const expected = createHmac('sha1', `&${oauthEncode(secret)}`).update(base).digest('base64');
      if (sameText(signature, expected)) return credential.user;
      throw unauthorized();
    }
    default:
      throw unauthorized();
  }
}
