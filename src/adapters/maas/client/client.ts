import { apiKeySecrets } from './api-key.ts';
import type { DnsCalls } from './dns-calls.ts';
import { dnsCalls } from './dns-calls.ts';
import type { IpCalls } from './ip-calls.ts';
import { ipCalls } from './ip-calls.ts';
import type { CallStats } from '../../http/index.ts';
import { createCallStats, createTransport } from '../../http/index.ts';
import type { ImageCalls } from './image.ts';
import { imageCalls } from './image.ts';
import type { InterfaceCalls } from './interface-calls.ts';
import { interfaceCalls } from './interface-calls.ts';
import type { MachineCalls } from './machine-calls.ts';
import { machineCalls } from './machine-calls.ts';
import type { MaasClientOptions } from './options.ts';
import type { UserCalls } from './user-calls.ts';
import { userCalls } from './user-calls.ts';
import { resolveOptions } from './options.ts';
import { createSend } from './request.ts';
import type { Send } from './call.ts';

export type { AllocateConstraints, DeployOptions, MachineQuery, MachineUpdate, ReleaseOptions } from './machine-calls.ts';
export type { CreateDnsResource, DnsQuery, UpdateDnsResource } from './dns-calls.ts';
export type { LinkMode, LinkSubnetOptions } from './interface-calls.ts';

export type { ReserveIp } from './ip-calls.ts';

export interface MaasClient extends MachineCalls, DnsCalls, InterfaceCalls, ImageCalls, IpCalls, UserCalls {
  /** The endpoint without a trailing slash or /api/2.0, e.g. http://127.0.0.1:5240/MAAS. */
  readonly endpoint: string;
  readonly stats: CallStats;
  /** Closes the kept-alive connections. */
  close(): void;
}

export function createMaasClient(o: MaasClientOptions): MaasClient {
  const opts = resolveOptions(o);
  // A machine list of a large MAAS is a few MB; a larger body is not MAAS.
  const transport = createTransport(opts.apiBase.protocol === 'https:', opts.tls, 64 * 1024 * 1024);
  const stats = createCallStats();
  const core = { opts, stats, keySecrets: apiKeySecrets(opts.key) };

  const over = (request: Send): MaasClient => ({
    endpoint: opts.endpoint,
    stats,
    ...machineCalls(request),
    ...dnsCalls(request),
    ...interfaceCalls(request),
    ...imageCalls(request),
    ...ipCalls(request),
    ...userCalls(request),
    close() {
      transport.close();
    },
  });
  return over(createSend({ ...core, transport }));
}
