import { createHash } from 'node:crypto';
import type { Candidate } from './candidate.ts';
import type { PowerParameters } from './power-parameters.ts';
import type { MachineLink } from './machine-links.ts';
import { releaseAutoAddresses } from './machine-links.ts';
import type { NodeStatusCode } from './status.ts';
import { statusName } from './status.ts';

export type PowerState = 'on' | 'off' | 'unknown' | 'error';

/** A simulated machine: what MAAS keeps in its node row, plus the simulator's own bookkeeping. */
// Candidate's fields (cpuSpeed in MHz); the places are writable here: renames and deletes move
// machines, and an admin's PUT sets cpu_count.
export interface MachineRecord extends Candidate {
  hostname: string;
  cpuCount: number;
  domain: string;
  zone: string;
  pool: string;
  tags: string[];
  /** What commissioning reports (system_vendor, cpu_model, ...); keys of hardware_info. */
  readonly hardwareInfo: Readonly<Record<string, string>>;
  readonly hardwareUuid: string;
  /** Commissioned at least once: until then MAAS knows no CPU, memory, disks or firmware facts. */
  commissioned: boolean;
  description: string;
  status: NodeStatusCode;
  /** Where op=abort returns the machine to (the status before commissioning/deploying/erasing). */
  abortTo: NodeStatusCode | undefined;
  statusMessage: string;
  errorDescription: string;
  locked: boolean;
  powerState: PowerState;
  /** The seed's power parameters over the power type's defaults (power-parameters.ts); secret. */
  readonly powerParameters?: PowerParameters;
  /** A BMC outage (faults.bmcOutage): MAAS reads this instead of powerState (bmc.ts). */
  bmcOutage?: 'error' | 'unknown';
  owner: string | null;
  agentName: string;
  osystem: string;
  distroSeries: string;
  hweKernel: string | null;
  /** PUT min_hwe_kernel: a machine setting that outlives deployments ('' / null: none). */
  minHweKernel: string | null;
  enableHwSync: boolean;
  /**
   * The interface links once link_subnet/unlink_subnet changed them (machine-links.ts); null:
   * as commissioning left them (the boot NIC AUTO on its zone's subnet, the others link_up).
   */
  links: MachineLink[] | null;
  ephemeralDeploy: boolean;
  installKvm: boolean;
  /** Decoded from the base64 the client sent. */
  userData: string | null;
  /** The owner's key/value data (op=set_owner_data); gone when the machine is released. */
  ownerData: Record<string, string>;
  swapSize: number | null;
  ipAddresses: string[];
  /** The one pending lifecycle timer (commissioning, deploy, release, power). */
  timer: unknown;
  /** Broken by a fault while Ready: the allocator's stale view still offers it once. */
  staleReady: boolean;
  selfPowerOffDone: boolean;
}

/** A copy of a machine as tests and the CLI see it; field names as in the MAAS JSON. */
export interface SimMachine {
  system_id: string;
  hostname: string;
  fqdn: string;
  domain: string;
  description: string;
  status: number;
  status_name: string;
  power_state: PowerState;
  power_type: string;
  owner: string | null;
  agent_name: string;
  ip_addresses: string[];
  zone: string;
  pool: string;
  tags: string[];
  cpu_count: number;
  memory: number;
  storage: number;
  osystem: string;
  distro_series: string;
  hwe_kernel: string | null;
  min_hwe_kernel: string | null;
  enable_hw_sync: boolean;
  swap_size: number | null;
  ephemeral_deploy: boolean;
  user_data: string | null;
  owner_data: Record<string, string>;
  locked: boolean;
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A MAAS-looking system_id (6 lowercase alphanumerics), stable for a hostname across runs. */
export function systemIdFor(hostname: string, taken: ReadonlySet<string>): string {
  for (let salt = 0; ; salt++) {
    const digest = createHash('sha256').update(`${hostname}/${salt}`).digest();
    const id = [...digest.subarray(0, 6)].map((b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
    if (!taken.has(id)) return id;
  }
}

/** `storage` as MAAS reports it: the physical disks' total in MB (10^6 bytes), 0 before commissioning. */
export function storageMb(m: Pick<MachineRecord, 'disks' | 'commissioned'>): number {
  if (!m.commissioned) return 0;
  return m.disks.reduce((sum, d) => sum + d.sizeBytes, 0) / 1e6;
}

export function simMachine(m: MachineRecord): SimMachine {
  return {
    system_id: m.systemId,
    hostname: m.hostname,
    fqdn: `${m.hostname}.${m.domain}`,
    domain: m.domain,
    description: m.description,
    status: m.status,
    status_name: statusName(m.status),
    power_state: m.powerState,
    power_type: m.powerType,
    owner: m.owner,
    agent_name: m.agentName,
    ip_addresses: [...m.ipAddresses],
    zone: m.zone,
    pool: m.pool,
    tags: [...m.tags],
    cpu_count: m.cpuCount,
    memory: m.memory,
    storage: storageMb({ disks: m.disks, commissioned: true }),
    osystem: m.osystem,
    distro_series: m.distroSeries,
    hwe_kernel: m.hweKernel,
    min_hwe_kernel: m.minHweKernel,
    enable_hw_sync: m.enableHwSync,
    swap_size: m.swapSize,
    ephemeral_deploy: m.ephemeralDeploy,
    user_data: m.userData,
    owner_data: { ...m.ownerData },
    locked: m.locked,
  };
}

/** A machine given back (released, or fixed after Broken): no owner, no OS, nothing of its deployment. */
export function forgetDeployment(m: MachineRecord): void {
  m.owner = null;
  m.agentName = '';
  m.osystem = '';
  m.distroSeries = '';
  m.hweKernel = null;
  m.enableHwSync = false;
  m.ephemeralDeploy = false;
  m.installKvm = false;
  m.userData = null;
  m.ownerData = {};
  // Node.release_interface_config frees the AUTO addresses only: STATIC links and their
  // addresses stay with the machine.
  releaseAutoAddresses(m);
}
