import type { BackendRequestCount } from './provisioner.ts';
import type { MachineNic } from '../machines/maas-cluster/index.ts';
import type { MaasCall, MaasResult } from '../machines/maas-machine/index.ts';

export interface DnsRecord {
  readonly id: number;
  readonly fqdn: string;
  readonly ips: readonly string[];
}

// One MAAS behind one interface: the actors never see the client or the wire.
export interface MaasDriver {
  readonly endpoint: string;
  // The capacity pool of this MAAS: deploys and releases hold its slots.
  readonly pool: string;
  // userDataBase64 goes with deploy only: the bootstrap data, a secret.
  run(call: MaasCall, userDataBase64?: string): Promise<MaasResult>;
  /**
   * The machine's owner data (MAAS op=set_owner_data), where the shard owner records its lease;
   * null when MAAS has no such machine. Optional: a driver without it is not fenced this way.
   */
  ownerData?(systemId: string): Promise<Readonly<Record<string, string>> | null>;
  setOwnerData?(systemId: string, data: Readonly<Record<string, string>>): Promise<void>;
  findDns(fqdn: string): Promise<DnsRecord | null>;
  createDns(fqdn: string, ttl: number, ips: readonly string[]): Promise<DnsRecord>;
  updateDns(id: number, ips: readonly string[]): Promise<DnsRecord>;
  deleteDns(id: number): Promise<void>;
  /**
   * Control-plane VIPs (ipaddresses/). Optional: a driver without them refuses a MaasCluster with
   * spec.controlPlaneVIP. findReservedIp answers a reservation of ours: the address given, else an
   * address of the DNS name `fqdn` (the reservation's hostname) inside `subnet`.
   */
  findReservedIp?(q: { readonly fqdn: string; readonly subnet: string; readonly address?: string | undefined }): Promise<string | null>;
  reserveIp?(r: { readonly subnet: string; readonly address?: string | undefined; readonly hostname: string }): Promise<string>;
  /** False when MAAS held no such reservation (already released). */
  releaseIp?(address: string): Promise<boolean>;
  /** A machine's NICs with their tags and addresses; null when MAAS has no such machine. */
  machineInterfaces?(systemId: string): Promise<MachineNic[] | null>;
  /** What its HTTP client sent (and withheld), by route and answer (running totals); absent: none. */
  requests?(): readonly BackendRequestCount[];
}
