import { CliError } from '../cli-error.ts';

// What `demo --datacenter N` can be combined with. The datacenter makes the hosts, so flags that
// name other hosts conflict. Its servers are driven by one Ironic: the private one it starts (a
// bare --ironic, or none), or the user's own (--ironic URL), which must reach its BMCs and boot
// server on this machine.
export interface DatacenterFlagInput {
  readonly datacenter?: number;
  readonly ironic?: readonly string[] | true;
  readonly hostsGiven: boolean;
  readonly file?: readonly string[];
  readonly ironicDriver?: string;
}

/** The external Ironic's URL to drive the datacenter with, null for a private one; throws a conflict. */
export function datacenterIronic(f: DatacenterFlagInput): string | null {
  if (f.datacenter === undefined) return null;
  const urls = Array.isArray(f.ironic) ? f.ironic : [];
  const conflict = urls.length > 1 ? `several --ironic URLs (the datacenter's servers are driven by one Ironic: give one URL, or --ironic alone for a private one)`
    : f.hostsGiven ? '--hosts (the hosts are the datacenter\'s servers: their count is --datacenter N)'
      : f.file ? '--file (the hosts are the datacenter\'s servers)'
        : f.ironicDriver ? '--ironic-driver (the datacenter\'s servers have BMCs: the real redfish driver runs)' : null;
  if (conflict) throw new CliError(`--datacenter cannot be used with ${conflict}`, 2);
  return urls[0] ?? null;
}
