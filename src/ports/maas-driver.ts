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
}
