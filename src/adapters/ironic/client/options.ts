import { z } from 'zod';
import type { ApiVersion } from './version.ts';
import { NEWEST_KNOWN_VERSION, parseApiVersion } from './version.ts';

export type IronicAuth =
  | { type: 'none' }
  | { type: 'basic'; username: string; password: string }
  | { type: 'bearer'; token: string }
  | { type: 'keystone-token'; token: string };

/** PEM text, not file names: the CLI reads the files. */
export interface IronicTls {
  ca?: string;
  cert?: string;
  key?: string;
  insecure?: boolean;
}

export interface LockedRetries {
  /** Requests sent in all for a call that keeps meeting a locked node (1 = no retry). */
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export interface IronicClientOptions {
  /** e.g. http://127.0.0.1:6385; a trailing /v1 is accepted and dropped. */
  endpoint: string;
  auth?: IronicAuth;
  tls?: IronicTls;
  /** Per request; BMO's IRONIC_CLIENT_TIMEOUT, 30 s. */
  timeoutMs?: number;
  /** 409 "node locked": retried inside the client. Default 5 attempts, 200 ms doubling to 3 s. */
  lockedRetries?: LockedRetries;
  /** The highest microversion to ask for (default: the newest in the feature table). */
  maxVersion?: string;
  /** How long a negotiated version is trusted before `GET /` and `GET /v1/` are asked again. */
  versionTtlMs?: number;
  /**
   * Told each version negotiated that differs from the last one told (the first, and a change
   * after an Ironic upgrade or downgrade): where a caller logs it, whenever Ironic first answers.
   */
  onVersion?: (version: ApiVersion, previous: ApiVersion | null) => void;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_LOCKED_RETRIES: LockedRetries = { attempts: 5, baseMs: 200, maxMs: 3_000 };
// BMO caches the client and its features for 5 s (IRONIC_CLIENT_CACHE_TTL).
export const DEFAULT_VERSION_TTL_MS = 5_000;

export interface ResolvedOptions {
  readonly base: URL;
  /** The endpoint as shown in messages and `client.endpoint`: no trailing slash, no /v1. */
  readonly endpoint: string;
  readonly auth: IronicAuth;
  readonly tls: IronicTls | undefined;
  readonly timeoutMs: number;
  readonly lockedRetries: LockedRetries;
  readonly maxVersion: ApiVersion;
  readonly versionTtlMs: number;
  readonly onVersion: ((version: ApiVersion, previous: ApiVersion | null) => void) | undefined;
}

const Options = z.object({
  endpoint: z.string().min(1, 'endpoint is required'),
  auth: z.discriminatedUnion('type', [
    z.object({ type: z.literal('none') }),
    z.object({ type: z.literal('basic'), username: z.string().min(1, 'auth.username is required'), password: z.string() }),
    z.object({ type: z.literal('bearer'), token: z.string().min(1, 'auth.token is required') }),
    z.object({ type: z.literal('keystone-token'), token: z.string().min(1, 'auth.token is required') }),
  ]).default({ type: 'none' }),
  tls: z.object({ ca: z.string().optional(), cert: z.string().optional(), key: z.string().optional(), insecure: z.boolean().optional() }).optional(),
  timeoutMs: z.number().int().positive().default(DEFAULT_TIMEOUT_MS),
  lockedRetries: z.object({ attempts: z.number().int().min(1), baseMs: z.number().min(0), maxMs: z.number().min(0) }).default(DEFAULT_LOCKED_RETRIES),
  maxVersion: z.string().optional(),
  versionTtlMs: z.number().min(0).default(DEFAULT_VERSION_TTL_MS),
});

/** Options checked and defaulted; throws a plain Error naming the bad field (never its value). */
export function resolveOptions(o: IronicClientOptions): ResolvedOptions {
  const parsed = Options.safeParse(o);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`ironic client: invalid option ${issue?.path.join('.') || '(options)'}: ${issue?.message ?? 'invalid'}`);
  }
  const p = parsed.data;
  let base: URL;
  try {
    base = new URL(p.endpoint);
  } catch {
    throw new Error('ironic client: endpoint is not a URL (expected e.g. http://127.0.0.1:6385)');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`ironic client: endpoint must be http:// or https://, not ${base.protocol}//`);
  if (base.username !== '' || base.password !== '') throw new Error('ironic client: credentials go in the auth option, not in the endpoint URL');
  base.search = '';
  base.hash = '';
  base.pathname = base.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  const maxVersion = p.maxVersion === undefined ? NEWEST_KNOWN_VERSION : parseApiVersion(p.maxVersion);
  if (maxVersion === null) throw new Error(`ironic client: maxVersion must look like 1.81, not ${JSON.stringify(p.maxVersion)}`);
  return {
    base,
    endpoint: base.toString().replace(/\/+$/, ''),
    auth: p.auth,
    tls: p.tls,
    timeoutMs: p.timeoutMs,
    lockedRetries: p.lockedRetries,
    maxVersion,
    versionTtlMs: p.versionTtlMs,
    // A function, so not in the zod schema (which would strip it).
    onVersion: o.onVersion,
  };
}

/** The request headers that carry credentials. */
export function authHeaders(auth: IronicAuth): Record<string, string> {
  switch (auth.type) {
    case 'none':
      return {};
    case 'basic':
      return { Authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` };
    case 'bearer':
      return { Authorization: `Bearer ${auth.token}` };
    case 'keystone-token':
      return { 'X-Auth-Token': auth.token };
  }
}

/** Strings of the options that are secret, for redaction. */
export function authSecrets(auth: IronicAuth): string[] {
  switch (auth.type) {
    case 'none':
      return [];
    case 'basic':
      return [auth.password, Buffer.from(`${auth.username}:${auth.password}`).toString('base64')].filter((s) => s !== '');
    case 'bearer':
    case 'keystone-token':
      return [auth.token];
  }
}
