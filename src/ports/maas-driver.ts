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
  findDns(fqdn: string): Promise<DnsRecord | null>;
  createDns(fqdn: string, ttl: number, ips: readonly string[]): Promise<DnsRecord>;
  updateDns(id: number, ips: readonly string[]): Promise<DnsRecord>;
  deleteDns(id: number): Promise<void>;
}
