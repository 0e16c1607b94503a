import type { PowerActionCounts } from './fleet/bmc.ts';
import type { SimClock } from './clock.ts';
import type { SimFile } from './files/file-store.ts';
import type { SimDnsResource } from './places/dns.ts';
import type { MaasFaults } from './fleet/faults.ts';
import type { SimMachine } from './fleet/machine.ts';
import type { SeedMachine } from './fleet/seed.ts';
import type { SeedBootResource } from './fleet/boot-images.ts';

export interface MaasSimOptions {
  /** 0 or absent: a free port. The simulator always binds 127.0.0.1. */
  port?: number;
  /** Absent: DEFAULT_FLEET (12 Ready machines over zones az1/az2 and pools default/gpu). */
  machines?: SeedMachine[];
  /** DNS domains that exist; default ['maas']. Domains of seeded machines exist too. */
  domains?: string[];
  /** Deploying → Deployed after this long (0 = on the next tick); default 1000 (see speed). Commissioning takes as long. */
  deployMs?: number;
  /** Releasing / Disk erasing → Ready after this long; default 200 (see speed). */
  releaseMs?: number;
  /** Addresses a zone can hand out before deploys get 503 (address exhaustion); default 241 × 236. */
  zoneAddresses?: number;
  /** The global enable_disk_erasing_on_release; default false. */
  eraseOnRelease?: boolean;
  /** API keys 'consumer_key:token_key:token_secret'; random hex when absent. */
  keys?: { admin?: string; user?: string };
  faults?: Partial<MaasFaults>;
  clock?: SimClock;
  /**
   * With it, machines take MAAS-like times divided by it (commissioning 180 s, deploying 300 s,
   * releasing 10 s, erasing 60 s; timings.ts); deployMs/releaseMs given explicitly still win.
   * Without it, the quick defaults above.
   */
  speed?: number;
  /**
   * Custom images MAAS has, beside the synced Ubuntu LTS images (focal, jammy, noble) it always
   * has: boot-resources/ lists them as Uploaded and deploy takes them (custom/<name>).
   */
  bootResources?: SeedBootResource[];
}

export interface SimCounts {
  /** Machines in Deploying now. */
  deploying: number;
  /** The most machines in Deploying at once since start or resetCounts(). */
  maxDeploying: number;
  requests: number;
  /** Requests per route, e.g. "POST machines/ op=allocate", "GET machines/{id}/". */
  byRoute: Record<string, number>;
}

export interface MaasSim {
  /** http://127.0.0.1:PORT/MAAS: the API is under /MAAS/api/2.0/. */
  readonly url: string;
  readonly adminKey: string;
  /** A non-admin user's key: machine PUT and DNS writes are 403 with it. */
  readonly userKey: string;
  machines(): SimMachine[];
  /** The fleet as it is now, in the seed format (round-trips through `machines`). */
  seeds(): SeedMachine[];
  machine(systemIdOrHostname: string): SimMachine | undefined;
  dnsResources(): SimDnsResource[];
  /** Every user's stored files (files/), with their owners and anonymous keys. */
  files(): SimFile[];
  /** Addresses reserved through ipaddresses/ op=reserve, oldest first. */
  reservedIps(): Array<{ ip: string; user: string; subnet: string | undefined }>;
  counts(): SimCounts;
  /** Also clears powerActions. */
  resetCounts(): void;
  /** The power commands (op=power_on, op=power_off) MAAS was sent for a machine since start or resetCounts(). */
  powerActions(systemIdOrHostname: string): PowerActionCounts;
  setFaults(faults: Partial<MaasFaults>): void;
  /** The machine turns itself off (power_state 'off'). */
  powerOff(systemId: string): void;
  stop(): Promise<void>;
}
