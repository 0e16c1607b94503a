import { createHmac, randomUUID } from 'node:crypto';
import type { ApiKey } from './api-key.ts';
import type { FormPairs } from './form.ts';
import { percentEncode } from './percent-encode.ts';

// OAuth 1.0 as MAAS takes it (capmaas.md §3.1): a two-legged request signed with the token of
// the API key; the consumer secret is empty.
// - PLAINTEXT (MAAS CLI, python-libmaas, gomaasapi): the signature is `&` + token secret.
// - HMAC-SHA1 (maas-client-go): RFC 5849 §3.4 over the method, the URL without its query and
//   every parameter: the oauth_* fields, the query, and the form body of a POST. A PUT's form
//   body is left out: Django parses form bodies only for POST, so MAAS's server never sees those
//   parameters when it checks the signature. A repeated parameter (`tags`) is signed as one pair
//   per value, sorted by value — signing only one of them is the 401 CAPMAAS PR #333 fixed.

export type SignatureMethod = 'PLAINTEXT' | 'HMAC-SHA1';

export interface RequestToSign {
  readonly method: string;
  /** The absolute URL as sent, query included. */
  readonly url: string;
  /** The form body's pairs (signed only for POST). */
  readonly form?: FormPairs;
}

export interface OAuthNonce {
  /** Unix seconds, as a decimal string. */
  readonly timestamp: string;
  readonly nonce: string;
}

export function newNonce(nowMs: number = Date.now()): OAuthNonce {
  return { timestamp: String(Math.floor(nowMs / 1000)), nonce: randomUUID().replace(/-/g, '') };
}

/** The base string URI (RFC 5849 §3.4.1.2): scheme and host in lower case, no default port, no query. */
export function baseStringUri(url: string): string {
  const u = new URL(url);
  // URL already lower-cases scheme and host and drops :80 for http and :443 for https.
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/** RFC 5849 §3.4.1.3.2: each name and value encoded, sorted by name then value, joined. */
export function normalizedParameters(pairs: FormPairs): string {
  const encoded = pairs.map(([k, v]) => [percentEncode(k), percentEncode(v)] as const);
  encoded.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return encoded.map(([k, v]) => `${k}=${v}`).join('&');
}

function queryPairs(url: string): Array<readonly [string, string]> {
  return [...new URL(url).searchParams.entries()];
}

function oauthFields(key: ApiKey, method: SignatureMethod, n: OAuthNonce): Array<readonly [string, string]> {
  return [
    ['oauth_consumer_key', key.consumerKey],
    ['oauth_token', key.tokenKey],
    ['oauth_signature_method', method],
    ['oauth_timestamp', n.timestamp],
    ['oauth_nonce', n.nonce],
    ['oauth_version', '1.0'],
  ];
}

/** The HMAC-SHA1 signature base string of a request (oauth_signature itself not included). */
export function signatureBaseString(req: RequestToSign, oauthParams: FormPairs): string {
  const method = req.method.toUpperCase();
  const params = [...oauthParams, ...queryPairs(req.url), ...(method === 'POST' ? req.form ?? [] : [])];
  return `${method}&${percentEncode(baseStringUri(req.url))}&${percentEncode(normalizedParameters(params))}`;
}

/** Base64 HMAC-SHA1 of `base` with the key `enc(consumerSecret)&enc(tokenSecret)`. */
export function hmacSha1Signature(base: string, consumerSecret: string, tokenSecret: string): string {
  return createHmac('sha1', `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`).update(base).digest('base64');
}

/** The value of the Authorization header for one request. */
export function oauthAuthorization(key: ApiKey, method: SignatureMethod, req: RequestToSign, n: OAuthNonce = newNonce()): string {
  const fields = oauthFields(key, method, n);
  const signature = method === 'PLAINTEXT'
    ? `&${percentEncode(key.tokenSecret)}`
    : hmacSha1Signature(signatureBaseString(req, fields), '', key.tokenSecret);
  // Header order is free; this is the order of the MAAS CLI. The realm is not signed either way;
  // maas-client-go leaves it out of HMAC requests, and so does this.
  const ordered: Array<readonly [string, string]> = [
    ['oauth_consumer_key', key.consumerKey],
    ['oauth_token', key.tokenKey],
    ['oauth_signature_method', method],
    ['oauth_signature', signature],
    ['oauth_timestamp', n.timestamp],
    ['oauth_nonce', n.nonce],
    ['oauth_version', '1.0'],
  ];
  const realm = method === 'PLAINTEXT' ? 'realm="MAAS API", ' : '';
  return `OAuth ${realm}${ordered.map(([k, v]) => `${k}="${percentEncode(v)}"`).join(', ')}`;
}
