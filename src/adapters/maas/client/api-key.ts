// A MAAS API key is `consumer_key:token_key:token_secret` (MAAS_API_KEY); the consumer secret is
// always empty. Nothing here ever puts a part of the key into an error message.

export interface ApiKey {
  readonly consumerKey: string;
  readonly tokenKey: string;
  readonly tokenSecret: string;
}

// Printable ASCII without ':' and whitespace: what MAAS generates (alphanumeric) and what an
// OAuth header can carry.
const PART = /^[\x21-\x39\x3b-\x7e]+$/;

/** Splits and checks a key; throws a plain Error that says what is wrong but never quotes it. */
export function parseApiKey(raw: string): ApiKey {
  if (typeof raw !== 'string') throw new Error('maas client: apiKey must be a string of the form consumer_key:token_key:token_secret');
  // A key read from a file or a Secret often ends with a newline.
  const key = raw.trim();
  if (key === '') throw new Error('maas client: apiKey is empty (expected consumer_key:token_key:token_secret, as `maas apikey` prints it)');
  const parts = key.split(':');
  if (parts.length !== 3) {
    throw new Error(`maas client: apiKey must have 3 parts separated by ':' (consumer_key:token_key:token_secret), it has ${parts.length}`);
  }
  const names = ['consumer key', 'token key', 'token secret'] as const;
  parts.forEach((p, i) => {
    if (p === '') throw new Error(`maas client: apiKey has an empty ${names[i]} (expected consumer_key:token_key:token_secret)`);
    if (!PART.test(p)) throw new Error(`maas client: apiKey's ${names[i]} contains whitespace or characters that are not printable ASCII`);
  });
  const [consumerKey, tokenKey, tokenSecret] = parts as [string, string, string];
  return { consumerKey, tokenKey, tokenSecret };
}

/** The strings of a key that must never be shown. */
export function apiKeySecrets(k: ApiKey): string[] {
  return [k.consumerKey, k.tokenKey, k.tokenSecret, `${k.consumerKey}:${k.tokenKey}:${k.tokenSecret}`];
}
