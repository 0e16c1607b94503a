import type { Call, Answer, Send } from './call.ts';
import { fail, header } from './call.ts';
import { RootDocument, V1Document } from './discovery.ts';
import type { Feature, Negotiated } from './features.ts';
import { featureShortfall } from './features.ts';
import type { ResolvedOptions } from './options.ts';
import type { ApiVersion, ServerVersions } from './version.ts';
import { negotiate, parseApiVersion } from './version.ts';

// Microversion negotiation: GET / and GET /v1/, the version chosen, how long it is trusted, and
// the gate that refuses a field or call the chosen version lacks.

export interface Negotiator {
  /** The negotiated version, null before the first call (and after a 406). */
  readonly version: ApiVersion | null;
  /** The known version while it is fresh, else a new negotiation. */
  ensureVersion(): Promise<ApiVersion>;
  /** Negotiates again; concurrent callers share one discovery. */
  renegotiate(): Promise<ApiVersion>;
  negotiated(): Promise<Negotiated>;
  gate(c: Call, needs: readonly (readonly [string, Feature])[]): Promise<void>;
  /** Drops the version, so that the next call negotiates again. */
  forget(): void;
}

export function createNegotiator(opts: ResolvedOptions, send: Send): Negotiator {
  let version: ApiVersion | null = null;
  let serverMax: ApiVersion | null = null;
  let negotiatedAt = 0;
  let negotiating: Promise<ApiVersion> | null = null;
  // The last version given to onVersion: forget() and the TTL renegotiate the same one unannounced.
  let announced: ApiVersion | null = null;

  async function ensureVersion(): Promise<ApiVersion> {
    if (version !== null && Date.now() - negotiatedAt < opts.versionTtlMs) return version;
    return renegotiate();
  }

  function renegotiate(): Promise<ApiVersion> {
    negotiating ??= discover().finally(() => {
      negotiating = null;
    });
    return negotiating;
  }

  async function discover(): Promise<ApiVersion> {
    const rootCall: Call = { method: 'GET', path: '/', route: 'GET /', unversioned: true };
    const v1Call: Call = { method: 'GET', path: '/v1/', route: 'GET /v1/', unversioned: true };
    const [root, v1] = await Promise.allSettled([send(rootCall), send(v1Call)]);
    if (root.status === 'rejected' && v1.status === 'rejected') throw v1.reason;
    const server = serverVersions(
      root.status === 'fulfilled' ? root.value : null,
      v1.status === 'fulfilled' ? v1.value : null,
    );
    if (server === null) {
      throw fail(v1Call, 'version', false, `Ironic at ${opts.endpoint} reports no API version in GET / or GET /v1/ (is this Ironic?)`);
    }
    const chosen = negotiate(server, opts.maxVersion);
    if (!chosen.ok) throw fail(v1Call, 'version', false, `Ironic at ${opts.endpoint} ${chosen.reason}`);
    version = chosen.version;
    serverMax = server.max;
    negotiatedAt = Date.now();
    if (announced?.text !== chosen.version.text) {
      const previous = announced;
      announced = chosen.version;
      opts.onVersion?.(chosen.version, previous);
    }
    return chosen.version;
  }

  async function negotiated(): Promise<Negotiated> {
    const v = await ensureVersion();
    return { version: v, serverMax: serverMax ?? v };
  }

  // A field or call the negotiated version lacks is refused here, before anything is sent:
  // Ironic would answer 400 for the whole request (or, worse, ignore part of it).
  async function gate(c: Call, needs: readonly (readonly [string, Feature])[]): Promise<void> {
    if (needs.length === 0) return;
    const n = await negotiated();
    for (const [what, feature] of needs) {
      const short = featureShortfall(what, feature, n);
      if (short !== null) throw fail(c, 'unsupported', false, short, { attempts: 0 });
    }
  }

  return {
    get version() {
      return version;
    },
    ensureVersion,
    renegotiate,
    negotiated,
    gate,
    forget: () => {
      version = null;
    },
  };
}

// Prefer GET /v1/'s own version entry, then GET /'s entry for v1, then the range headers.
function serverVersions(root: Answer | null, v1: Answer | null): ServerVersions | null {
  const candidates: { min?: string; max?: string }[] = [];
  const v1doc = v1 ? V1Document.safeParse(v1.json) : null;
  if (v1doc?.success && v1doc.data.version) candidates.push({ min: v1doc.data.version.min_version, max: v1doc.data.version.version });
  const rootDoc = root ? RootDocument.safeParse(root.json) : null;
  if (rootDoc?.success) {
    const entries = [...(rootDoc.data.versions ?? []), ...(rootDoc.data.default_version ? [rootDoc.data.default_version] : [])];
    const entry = entries.find((e) => e.id === 'v1' && e.version !== undefined);
    if (entry) candidates.push({ min: entry.min_version, max: entry.version });
  }
  for (const a of [v1, root]) {
    const max = header(a?.raw, 'x-openstack-ironic-api-maximum-version');
    if (max !== null) candidates.push({ min: header(a?.raw, 'x-openstack-ironic-api-minimum-version') ?? undefined, max });
  }
  for (const c of candidates) {
    const max = c.max === undefined ? null : parseApiVersion(c.max);
    if (max === null) continue;
    const min = (c.min === undefined ? null : parseApiVersion(c.min)) ?? { major: 1, minor: 1, text: '1.1' };
    if (max.major !== 1) return null;
    return { min, max };
  }
  return null;
}
