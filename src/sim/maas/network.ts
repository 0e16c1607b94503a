import type { Places } from './machine-json.ts';

// Fabrics, VLANs, spaces and subnets of the simulated MAAS.
export class Network {
  constructor(private readonly places: Places) {}

  /** The subnet an address of a machine's interface link belongs to, as MAAS renders it in `links[].subnet`. */
  subnetForAddress(ip: string): Record<string, unknown> | undefined {
    void this.places;
    void ip;
    return undefined;
  }
}
