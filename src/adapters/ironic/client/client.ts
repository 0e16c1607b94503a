import { createListAll } from './answers.ts';
import type { Feature, Negotiated } from './features.ts';
import { versionSupports } from './features.ts';
import { createCallStats, createTransport, leaveChecked } from '../../http/index.ts';
import type { CallStats } from '../../http/index.ts';
import type { FirmwareCalls } from './firmware-calls.ts';
import { firmwareCalls } from './firmware-calls.ts';
import { createNegotiator } from './negotiation.ts';
import type { NodeCalls } from './node-calls.ts';
import { nodeCalls } from './node-calls.ts';
import type { IronicClientOptions } from './options.ts';
import { authHeaders, authSecrets, resolveOptions } from './options.ts';
import type { PortCalls } from './port-calls.ts';
import { portCalls } from './port-calls.ts';
import { createSend } from './request.ts';
import type { Send } from './call.ts';
import type { ApiVersion } from './version.ts';

export interface IronicClient extends NodeCalls, PortCalls, FirmwareCalls {
  /** The endpoint without a trailing /v1, e.g. http://127.0.0.1:6385. */
  readonly endpoint: string;
  /** GET / and GET /v1/; negotiates min(server max, maxVersion); refuses below 1.81. */
  connect(): Promise<ApiVersion>;
  /** The negotiated version, null before the first call. */
  readonly version: ApiVersion | null;
  supports(feature: Feature): boolean;
  /**
   * The negotiated version and the server's maximum, negotiating first when none is known (or
   * it is older than versionTtlMs), as any call does. Rejects like a call when Ironic is down.
   */
  negotiated(): Promise<Negotiated>;
  readonly stats: CallStats;
  /**
   * This client, with each of its requests asking `mayLeave` once its connection is ready: false
   * withholds it (IronicError 'withheld', retryable; nothing sent). A request may wait for one of
   * the pool's sockets after its caller last asked its shard lease (issue 30). Same connections,
   * stats and negotiated version; version discovery is not asked (it changes nothing).
   */
  withLeaveCheck(mayLeave: () => boolean): IronicClient;
  /** Closes the kept-alive connections. */
  close(): void;
}

export function createIronicClient(o: IronicClientOptions): IronicClient {
  const opts = resolveOptions(o);
  // Ironic answers are small; a larger body is not Ironic (and not worth buffering).
  const transport = createTransport(opts.base.protocol === 'https:', opts.tls, 32 * 1024 * 1024);
  const stats = createCallStats();
  // Discovery sends through the request core, and the core asks the negotiator for the version.
  const negotiator = createNegotiator(opts, (c) => request(c));
  const core = {
    opts,
    stats,
    prefix: `${opts.base.origin}${opts.base.pathname.replace(/\/+$/, '')}`,
    fixedHeaders: { Accept: 'application/json', 'User-Agent': 'metalfleet-ironic-client', ...authHeaders(opts.auth) },
    fixedSecrets: authSecrets(opts.auth),
    versions: negotiator,
  };
  const request = createSend({ ...core, transport });

  const over = (send: Send): IronicClient => {
    const listAll = createListAll(send, opts.endpoint);
    return {
      endpoint: opts.endpoint,
      get version() {
        return negotiator.version;
      },
      stats,
      connect: () => negotiator.renegotiate(),
      supports: (feature) => versionSupports(negotiator.version, feature),
      negotiated: () => negotiator.negotiated(),
      ...nodeCalls({ request: send, gate: (c, needs) => negotiator.gate(c, needs), listAll }),
      ...portCalls({ request: send, listAll }),
      ...firmwareCalls({ request: send, gate: (c, needs) => negotiator.gate(c, needs) }),
      withLeaveCheck: (mayLeave) => over(createSend({ ...core, transport: leaveChecked(transport, mayLeave) })),
      close() {
        transport.close();
      },
    };
  };
  return over(request);
}
