import type { ApiEndpoint, CapiCluster, MaasCluster, MaasClusterStatus, MaasMachine } from '../../api/index.ts';
import type { MachineStep } from '../logic.ts';

/** The Cluster API objects around a MaasCluster, resolved by the actor and parsed with their schemas. */
export interface MaasClusterWorld {
  /** The owning Cluster; null while it does not exist. */
  readonly cluster: CapiCluster | null;
  /** Every MaasMachine of the cluster (control plane or not), as last written. */
  readonly machines: readonly MaasMachine[];
}

/** The control-plane DNS record as MAAS holds it. */
export interface DnsRecordView {
  readonly id: number;
  readonly fqdn: string;
  readonly ips: readonly string[];
}

export type DnsCall =
  | { readonly op: 'find'; readonly fqdn: string }
  | { readonly op: 'create'; readonly fqdn: string; readonly ttl: number; readonly ips: readonly string[] }
  | { readonly op: 'update'; readonly id: number; readonly ips: readonly string[] }
  | { readonly op: 'delete'; readonly id: number };

export type DnsCallResult =
  /** find found it; create or update returned it. */
  | { readonly kind: 'record'; readonly record: DnsRecordView }
  /** find found nothing; delete is done. */
  | { readonly kind: 'none' }
  /**
   * domainNotFound: MAAS has no DNS domain of that name (404 "No Domain matches the given query.",
   * capmaas.md §3.2), so no record can exist in it.
   */
  | { readonly kind: 'failed'; readonly message: string; readonly reason?: 'domainNotFound' };

/** One NIC of a machine as MAAS lists it: what spec.apiServerInterface matches on. */
export interface MachineNic {
  readonly name: string;
  readonly tags: readonly string[];
  /** Its linked addresses, each with the subnet MAAS puts it in (CIDR and name). */
  readonly addresses: ReadonlyArray<{ readonly ip: string; readonly subnetCidr?: string | undefined; readonly subnetName?: string | undefined }>;
}

/** MAAS calls beyond DNS: the control-plane VIP (ipaddresses/) and machines' interfaces. */
export type IpCall =
  /** Is a VIP already reserved by us: the given address, else an address of `fqdn` (the reservation's hostname) in the subnet? */
  | { readonly op: 'findVip'; readonly fqdn: string; readonly subnet: string; readonly address?: string | undefined }
  | { readonly op: 'reserveVip'; readonly subnet: string; readonly address?: string | undefined; readonly hostname: string }
  | { readonly op: 'releaseVip'; readonly address: string }
  | { readonly op: 'interfaces'; readonly systemId: string };

export type IpCallResult =
  | { readonly kind: 'vip'; readonly address: string }
  /** find found nothing; release is done (or there was nothing to release). */
  | { readonly kind: 'none' }
  /** null: MAAS has no such machine. */
  | { readonly kind: 'interfaces'; readonly nics: readonly MachineNic[] | null }
  /**
   * heldByAnotherUser: the machine's read was refused (403) and the key's own listing lacks it:
   * another MAAS user holds it (held.ts; the driver's failure message says so too).
   */
  | { readonly kind: 'failed'; readonly message: string; readonly retryable: boolean; readonly reason?: 'heldByAnotherUser' };

export interface MaasClusterConfig {
  /** How often the record is read again from MAAS and the status refreshed. */
  readonly resyncMs: number;
  /** CAPMAAS creates the API record with a 10 s TTL so control-plane changes spread fast. */
  readonly dnsTtl: number;
  /** A deleting cluster looks again this often while machines remain (it is also woken by their deletion). */
  readonly deleteWaitMs: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
}

export const DEFAULT_MAAS_CLUSTER_CONFIG: MaasClusterConfig = {
  resyncMs: 30_000,
  dnsTtl: 10,
  deleteWaitMs: 10_000,
  backoffBaseMs: 1_000,
  backoffMaxMs: 60_000,
};

/**
 * - pending: no record known yet (find it, else create it); with a VIP: none reserved yet (find it, else reserve it);
 * - active: the record follows the running control plane; status and endpoint are published
 *   (with a VIP: the endpoint is the VIP and no record is kept);
 * - deleting: waits for the cluster's machines to go, then deletes the record (CAPMAAS leaks it)
 *   or releases the VIP;
 * - gone: the finalizer is off.
 */
export type MaasClusterPhase = 'pending' | 'active' | 'deleting' | 'gone';

export interface MaasClusterState {
  readonly config: MaasClusterConfig;
  readonly object: MaasCluster;
  readonly world: MaasClusterWorld;
  readonly phase: MaasClusterPhase;
  readonly record: DnsRecordView | null;
  /** When the record was last read from (or written to) MAAS. */
  readonly recordAt: number | null;
  readonly status: MaasClusterStatus;
  readonly inFlight: { readonly op: DnsCall['op'] | IpCall['op']; readonly seq: number; readonly fqdn: string | null; readonly systemId?: string | undefined; readonly nicsKey?: string | undefined } | null;
  /** This owner has asked MAAS whether a VIP is already reserved for the cluster (a former owner may have reserved it). */
  readonly vipLooked: boolean;
  /**
   * Control-plane machines' NICs as last read, by the member's identity (system id and addresses).
   * held: the last read found the machine held by another MAAS user; nics are then those read
   * before (null when none were), kept as CAPMAAS keeps a member its MaasMachine calls running.
   */
  readonly nics: Readonly<Record<string, { readonly at: number; readonly nics: readonly MachineNic[] | null; readonly held?: boolean }>>;
  readonly seq: number;
  readonly attempts: number;
  /** The call whose failure the backoff counts (attempts); null when the last call succeeded. */
  readonly failedOp: DnsCall['op'] | IpCall['op'] | null;
  readonly retryAt: number | null;
  readonly lastError: string | null;
  /** Why nothing happens now (paused, no Cluster yet), for views. */
  readonly waiting: string | null;
  readonly gone: boolean;
}

export type MaasClusterEvent =
  | { readonly type: 'observed'; readonly object: MaasCluster; readonly world: MaasClusterWorld }
  | { readonly type: 'dnsResult'; readonly seq: number; readonly result: DnsCallResult }
  | { readonly type: 'ipResult'; readonly seq: number; readonly result: IpCallResult }
  | { readonly type: 'tick' };

export type MaasClusterEffect =
  | { readonly type: 'dns'; readonly seq: number; readonly call: DnsCall }
  | { readonly type: 'ip'; readonly seq: number; readonly call: IpCall }
  | { readonly type: 'writeStatus'; readonly status: MaasClusterStatus }
  | { readonly type: 'writeSpec'; readonly patch: { readonly controlPlaneEndpoint: ApiEndpoint } }
  /** The record changed: control-plane machines waiting on it should read it again. */
  | { readonly type: 'notifyMembers' }
  | { readonly type: 'requeue'; readonly afterMs: number }
  | { readonly type: 'addFinalizer'; readonly finalizer: string }
  | { readonly type: 'removeFinalizer'; readonly finalizer: string }
  | { readonly type: 'event'; readonly severity: 'Normal' | 'Warning'; readonly reason: string; readonly message: string };

export type MaasClusterStep = MachineStep<MaasClusterState, MaasClusterEffect>;
