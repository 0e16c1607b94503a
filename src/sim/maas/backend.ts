import type { Accounts } from './site/accounts.ts';
import type { DnsResources } from './places/dns.ts';
import type { EventLog } from './fleet/events.ts';
import type { Fleet } from './fleet/fleet.ts';
import type { Places } from './fleet/machine-json.ts';
import type { MaasConfig } from './site/maas-config.ts';
import type { Network } from './network/network.ts';
import type { SimUser } from './http/oauth.ts';
import type { Params } from './http/params.ts';
import type { TagBook } from './places/tags.ts';
import type { FileStore } from './files/file-store.ts';
import type { ReservedIps } from './network/reserved-ips.ts';
import type { IpRanges } from './network/ip-ranges.ts';

/** Everything one simulated MAAS holds; the API handlers read and change it. */
export interface Backend {
  readonly fleet: Fleet;
  readonly dns: DnsResources;
  readonly tags: TagBook;
  readonly places: Places;
  readonly network: Network;
  /** Addresses users reserved (ipaddresses/). */
  readonly ips: ReservedIps;
  /** Dynamic and reserved ranges of subnets (ipranges/). */
  readonly ranges: IpRanges;
  readonly events: EventLog;
  /** Users and their API tokens (users/, account/). */
  readonly accounts: Accounts;
  /** MAAS settings (maas/ op=get_config/set_config). */
  readonly config: MaasConfig;
  /** Users' files (files/). */
  readonly files: FileStore;
}

export interface CallContext {
  readonly user: SimUser;
  /** The `{id}` of the path (system_id, name, numeric id), '' on collection routes. */
  readonly id: string;
  /** What the handler reads: the query string for GET (and a body, if one was sent), else the body. */
  readonly params: Params;
  /** http://host:port/MAAS — what `describe/` and absolute URIs are built from. */
  readonly siteUrl: string;
}

export type Reply =
  | { status: 200; json: unknown }
  | { status: 204 }
  | { status: 200; text: string; contentType: string }
  // Bytes as they are (a stored file's content), and files/'s create, which answers 201 and no body.
  | { status: 200 | 201; bytes: Buffer; contentType: string };

export type Handler = (b: Backend, c: CallContext) => Reply;

export const ok = (json: unknown): Reply => ({ status: 200, json });
export const noContent: Reply = { status: 204 };

/**
 * One resource of the API: a path pattern under /MAAS/api/2.0/ and its handlers keyed by
 * signature "METHOD op" (op '' for plain CRUD) — piston's OperationsHandlerMixin.dispatch.
 * The pattern's first group is the `{id}` when `hasId`, and the last optional group an /op-<name>.
 */
export interface Resource {
  readonly name: string;
  readonly pattern: RegExp;
  readonly hasId: boolean;
  /** Answered without OAuth (MAAS's version/ and describe/). */
  readonly anonymous?: boolean;
  /**
   * Answered without OAuth when the request carries none (piston's anonymous handler, e.g.
   * AnonFilesHandler): a request of one of their methods without credentials is dispatched here,
   * any other without credentials is 401.
   */
  readonly anonymousSignatures?: Readonly<Record<string, Handler>>;
  readonly signatures: Readonly<Record<string, Handler>>;
}
