// RFC 3986 percent-encoding, as OAuth 1.0 (RFC 5849 §3.6) requires: everything but the
// unreserved characters A-Z a-z 0-9 - . _ ~ is encoded, a space is %20 (never '+'), and the
// hex digits are upper case. encodeURIComponent leaves ! ' ( ) * alone, so those are added.
export function percentEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
