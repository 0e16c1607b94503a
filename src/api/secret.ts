import { z } from 'zod';
import { validateBmcCredentials, type BmcCredentials } from './bmc/index.ts';
import { ObjectMeta } from './meta.ts';

// core/v1 Secret, as far as metalfleet reads one: BMC credentials (`username`/`password`) and
// user/network/meta data. zod messages never include the input, so a bad value is not echoed.
export const Secret = z.object({
  apiVersion: z.literal('v1'),
  kind: z.literal('Secret'),
  metadata: ObjectMeta,
  type: z.string().optional(),
  immutable: z.boolean().optional(),
  data: z.record(z.string(), z.base64('data values must be base64')).optional(),
  stringData: z.record(z.string(), z.string()).optional(),
});
export type Secret = z.infer<typeof Secret>;

/**
 * The value of `key`, trimmed (BMO trims credentials). `stringData` wins over `data`, as the API
 * server merges it on write. Undefined when the key is absent.
 */
export function secretValue(secret: Pick<Secret, 'data' | 'stringData'>, key: string): string | undefined {
  return secretContent(secret, key)?.trim();
}

/**
 * A Secret's value exactly as stored: user, network and meta data go to the host verbatim (a
 * cloud-config's final newline is part of it), where credentials are trimmed as BMO trims them.
 */
export function secretContent(secret: Pick<Secret, 'data' | 'stringData'>, key: string): string | undefined {
  const plain = secret.stringData?.[key];
  if (plain !== undefined) return plain;
  const encoded = secret.data?.[key];
  if (encoded === undefined) return undefined;
  return Buffer.from(encoded, 'base64').toString('utf8');
}

export type BmcCredentialsResult = { ok: true; credentials: BmcCredentials } | { ok: false; reason: string };

/** BMC credentials from a Secret: `username` and `password`, trimmed, both required. */
export function bmcCredentialsFromSecret(secret: Pick<Secret, 'data' | 'stringData'>): BmcCredentialsResult {
  const credentials = { username: secretValue(secret, 'username') ?? '', password: secretValue(secret, 'password') ?? '' };
  const reason = validateBmcCredentials(credentials);
  return reason === null ? { ok: true, credentials } : { ok: false, reason };
}
