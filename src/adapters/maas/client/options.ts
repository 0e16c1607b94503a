import { z } from 'zod';
import type { ApiKey } from './api-key.ts';
import { parseApiKey } from './api-key.ts';
import type { SignatureMethod } from './oauth.ts';

/** PEM text, not file names: the CLI reads the files. */
export interface MaasTls {
  ca?: string;
  /** CAPMAAS runs with InsecureSkipVerify; here it is a choice. */
  insecure?: boolean;
}

export interface Retries {
  /** Requests sent in all for a call that keeps failing with 5xx or on the network (1 = no retry). */
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export interface MaasClientOptions {
  /** MAAS_ENDPOINT, e.g. http://127.0.0.1:5240/MAAS; the API is <endpoint>/api/2.0/. A trailing /api/2.0 is accepted. */
  endpoint: string;
  /** MAAS_API_KEY, `consumer_key:token_key:token_secret`. */
  apiKey: string;
  /** Default PLAINTEXT, as the MAAS CLI signs; HMAC-SHA1 as maas-client-go does. */
  signature?: SignatureMethod;
  /**
   * Where the key came from, named in the hint when MAAS rejects it: "check <keySource>", e.g.
   * `--maas-key` or `--maas-key-file /etc/metalfleet/maas.key`; default MAAS_API_KEY. Never the key.
   */
  keySource?: string;
  /** Per request; default 30 s. */
  timeoutMs?: number;
  tls?: MaasTls;
  /** For 5xx, timeouts and network failures; default 3 attempts, 200 ms doubling to 2 s. */
  retries?: Retries;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRIES: Retries = { attempts: 3, baseMs: 200, maxMs: 2_000 };
export const API_PATH = '/api/2.0';

export interface ResolvedOptions {
  /** The endpoint as shown in messages and `client.endpoint`: no trailing slash, no /api/2.0. */
  readonly endpoint: string;
  /** <endpoint>/api/2.0 as a URL; request paths are appended to its pathname. */
  readonly apiBase: URL;
  readonly key: ApiKey;
  readonly signature: SignatureMethod;
  /** Where the key came from, for the hint on a 401; MAAS_API_KEY unless told. */
  readonly keySource: string;
  readonly timeoutMs: number;
  readonly tls: MaasTls | undefined;
  readonly retries: Retries;
}

// The key is checked by parseApiKey, whose errors never quote it; zod sees everything else.
const Options = z.object({
  endpoint: z.string().min(1, 'endpoint is required (MAAS_ENDPOINT, e.g. http://127.0.0.1:5240/MAAS)'),
  signature: z.enum(['PLAINTEXT', 'HMAC-SHA1']).default('PLAINTEXT'),
  keySource: z.string().min(1).max(300).regex(/^[^\p{Cc}]+$/u, 'must be one line of text (a flag, a file or a variable)').default('MAAS_API_KEY'),
  timeoutMs: z.number().int().positive().default(DEFAULT_TIMEOUT_MS),
  tls: z.object({ ca: z.string().optional(), insecure: z.boolean().optional() }).optional(),
  retries: z.object({ attempts: z.number().int().min(1), baseMs: z.number().min(0), maxMs: z.number().min(0) }).default(DEFAULT_RETRIES),
});

/** Options checked and defaulted; throws a plain Error naming the bad field, never the key. */
export function resolveOptions(o: MaasClientOptions): ResolvedOptions {
  if (typeof o !== 'object' || o === null) throw new Error('maas client: options are required');
  const key = parseApiKey(o.apiKey);
  const parsed = Options.safeParse({ endpoint: o.endpoint, signature: o.signature, keySource: o.keySource, timeoutMs: o.timeoutMs, tls: o.tls, retries: o.retries });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`maas client: invalid option ${issue?.path.join('.') || '(options)'}: ${issue?.message ?? 'invalid'}`);
  }
  const p = parsed.data;
  let base: URL;
  try {
    base = new URL(p.endpoint);
  } catch {
    throw new Error('maas client: endpoint is not a URL (expected e.g. http://127.0.0.1:5240/MAAS)');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`maas client: endpoint must be http:// or https://, not ${base.protocol}//`);
  if (base.username !== '' || base.password !== '') throw new Error('maas client: credentials go in apiKey, not in the endpoint URL');
  base.search = '';
  base.hash = '';
  base.pathname = base.pathname.replace(/\/+$/, '').replace(/\/api\/2\.0$/, '');
  const endpoint = base.toString().replace(/\/+$/, '');
  const apiBase = new URL(base.toString());
  apiBase.pathname = `${base.pathname.replace(/\/+$/, '')}${API_PATH}`;
  return { endpoint, apiBase, key, signature: p.signature, keySource: p.keySource, timeoutMs: p.timeoutMs, tls: p.tls, retries: p.retries };
}
