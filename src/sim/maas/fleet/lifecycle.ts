import { conflict, MaasApiError } from '../http/api-error.ts';
import type { SimClock } from '../clock.ts';
import { powerRead } from './bmc.ts';
import type { SeedBootResource } from './boot-images.ts';
import type { EventLog, EventTypeName } from './events.ts';
import { EVENT_TYPES } from './events.ts';
import type { MaasFaults } from './faults.ts';
import { failsDeployment, listNames } from './faults.ts';
import type { MachineRecord } from './machine.ts';
import { forgetDeployment } from './machine.ts';
import { claimAutoAddresses } from './machine-links.ts';
import type { Places } from './machine-json.ts';
import type { SimUser } from '../http/oauth.ts';
import type { NodeStatusCode } from './status.ts';
import { canTransition, NodeStatus, statusName } from './status.ts';
import { hostRange } from '../network/ipv4.ts';

// What happens to a machine over time once a request has been accepted: status moves with their
// events, timers for deploying/releasing/erasing, power, and the addresses deploys claim. The
// Fleet checks permissions and parameters; this does the work.

export interface FleetConfig {
  readonly deployMs: number;
  readonly releaseMs: number;
  /** New/Ready → Commissioning → Ready; absent: deployMs. */
  readonly commissionMs?: number;
  /** Disk erasing → Ready; absent: releaseMs. */
  readonly eraseMs?: number;
  readonly eraseOnRelease: boolean;
  readonly zoneAddresses: number;
  readonly clock: SimClock;
  readonly faults: () => MaasFaults;
  /** Who owns machines seeded Allocated or Deployed. */
  readonly seedOwner: string;
  readonly events: EventLog;
  /** Timings are divided by this (options.speed); timings.ts applies it. */
  readonly speed: number;
  /** Uploaded custom images boot-resources/ lists beside the synced Ubuntu ones. */
  readonly bootResources?: readonly SeedBootResource[];
  /** Addresses held outside machines that a deploy must not claim (reservations, ipaddresses/). */
  readonly addressesHeld?: () => readonly string[];
}

// How long after reaching Deployed a powerOffAfterDeploy machine switches itself off.
export const SELF_POWER_OFF_MS = 50;

// Host addresses handed out in a zone's /24: .10 to .250; a zone that fills one /24 goes on in
// the next (10.10.<zone>.x, then 10.11.<zone>.x, …) so a thousand-machine fleet fits.
const FIRST_HOST = 10;
const LAST_HOST = 250;
const LAST_BLOCK = 245;
export const DEFAULT_ZONE_ADDRESSES = (LAST_HOST - FIRST_HOST + 1) * (LAST_BLOCK - 10 + 1);


// What the machine reports while it deploys (status_message, and an INFO event each).
// Each at this share of deployMs: roughly where a real curtin install spends its time.
const DEPLOY_STEPS: ReadonlyArray<readonly [number, EventTypeName]> = [
  [0.1, 'LoadingEphemeral'], [0.3, 'ConfiguringStorage'], [0.4, 'InstallingOs'], [0.8, 'ConfiguringOs'], [0.9, 'Rebooting'],
];

export class Lifecycle {
  private highWater = 0;

  constructor(private readonly config: FleetConfig, private readonly places: Places, private readonly all: () => MachineRecord[]) {}

  deployingNow(): number {
    return this.all().filter((m) => m.status === NodeStatus.Deploying).length;
  }

  maxDeploying(): number {
    return this.highWater;
  }

  resetHighWater(): void {
    this.highWater = this.deployingNow();
  }

  /** Releasing (or Disk erasing first), then Ready; a machine already off is Ready at once. */
  startReleasing(m: MachineRecord, user: SimUser, erase: boolean, comment: string | undefined): void {
    this.config.events.request(m, 'RequestRelease', user.name, comment);
    // Read now, not at start: maas/ set_config enable_disk_erasing_on_release changes it live.
    if (erase || this.config.eraseOnRelease) {
      this.config.events.request(m, 'RequestEraseDisk', user.name, comment);
      this.move(m, NodeStatus.DiskErasing);
      // Erasing boots an ephemeral environment on the machine.
      this.switchOn(m);
      this.later(m, this.config.eraseMs ?? this.config.releaseMs, () => {
        this.config.events.record(m, 'DisksErased');
        this.finishRelease(m);
      });
      return;
    }
    this.move(m, NodeStatus.Releasing);
    // A machine already off (or whose power cannot be queried) goes straight to Ready.
    if (powerRead(m) !== 'on') this.finishRelease(m);
    else this.later(m, this.config.releaseMs, () => this.finishRelease(m));
  }

  /** Allocated → Deploying: claims the address, powers on, and Deployed (or failed) after deployMs. */
  startDeploying(m: MachineRecord): void {
    // Claimed before the move, so an exhausted zone leaves the machine where it was.
    claimAutoAddresses(m, () => this.claimAddress(m), () => this.claimAddresses(m));
    this.move(m, NodeStatus.Deploying);
    m.abortTo = NodeStatus.Allocated;
    this.switchOn(m);
    this.config.events.record(m, 'PerformingPxeBoot');
    m.statusMessage = 'Performing PXE boot';
    m.selfPowerOffDone = false;
    this.deployStep(m, 0, 0);
  }

  // The install's steps one after another on the clock, each an event and the status_message,
  // then Deployed exactly deployMs after the start.
  private deployStep(m: MachineRecord, index: number, elapsed: number): void {
    const step = DEPLOY_STEPS[index];
    const total = this.config.deployMs;
    if (!step) {
      this.later(m, total - elapsed, () => this.finishDeployment(m));
      return;
    }
    const at = Math.round(total * step[0]);
    this.later(m, at - elapsed, () => {
      if (m.status !== NodeStatus.Deploying) return;
      this.config.events.record(m, step[1]);
      m.statusMessage = EVENT_TYPES[step[1]][0];
      this.deployStep(m, index + 1, at);
    });
  }

  private finishDeployment(m: MachineRecord): void {
    if (m.status !== NodeStatus.Deploying) return;
    if (failsDeployment(this.config.faults(), m.systemId, m.hostname)) {
      this.config.events.record(m, 'InstallationFailed', 'Installation failed (refer to the installation log for more information).');
      this.move(m, NodeStatus.FailedDeployment);
      m.statusMessage = 'Installation failed (refer to the installation log for more information).';
      return;
    }
    this.move(m, NodeStatus.Deployed);
    m.statusMessage = 'Deployed';
    if (listNames(this.config.faults().powerOffAfterDeploy, m.systemId, m.hostname) && !m.selfPowerOffDone) {
      this.later(m, SELF_POWER_OFF_MS, () => {
        m.selfPowerOffDone = true;
        if (m.status === NodeStatus.Deployed) this.switchOff(m);
      });
    }
  }

  // _finalize_release: Ready, off, and nothing of the deployment left.
  finishRelease(m: MachineRecord): void {
    if (m.status !== NodeStatus.Releasing && m.status !== NodeStatus.DiskErasing) return;
    this.move(m, NodeStatus.Ready);
    this.config.events.record(m, 'Released');
    if (m.powerState !== 'unknown') this.switchOff(m);
    m.statusMessage = 'Released';
    forgetDeployment(m);
  }

  switchOn(m: MachineRecord): void {
    if (m.powerState !== 'on') this.config.events.record(m, 'PoweredOn');
    m.powerState = 'on';
  }

  // Power off; a releasing machine seen off is released.
  switchOff(m: MachineRecord): void {
    if (m.powerState === 'on') this.config.events.record(m, 'PoweredOff');
    m.powerState = 'off';
    if (m.status === NodeStatus.Releasing) this.finishRelease(m);
  }

  /** Every status change goes through here: Node.clean_status's check, then bookkeeping and events. */
  move(m: MachineRecord, to: NodeStatusCode): void {
    if (!canTransition(m.status, to)) throw conflict(`Invalid transition: ${statusName(m.status)} -> ${statusName(to)}.`);
    this.cancel(m);
    const from = m.status;
    m.status = to;
    // The allocator's stale view lasts only until the machine's status next changes.
    m.staleReady = false;
    if (from !== to) {
      this.config.events.record(m, 'ChangedStatus', `From '${statusName(from)}' to '${statusName(to)}'`);
      const entered = STATUS_EVENTS[to];
      if (entered) this.config.events.record(m, entered);
    }
    if (to === NodeStatus.Deploying) this.highWater = Math.max(this.highWater, this.deployingNow());
  }

  later(m: MachineRecord, ms: number, fn: () => void): void {
    this.cancel(m);
    m.timer = this.config.clock.setTimeout(() => {
      m.timer = undefined;
      fn();
    }, ms);
  }

  cancel(m: MachineRecord): void {
    if (m.timer !== undefined) this.config.clock.clearTimeout(m.timer);
    m.timer = undefined;
  }

  /** What a deploy claims: the boot NIC's address in its zone, then one per NIC cabled to a subnet of its own. */
  claimAddresses(m: MachineRecord): string[] {
    const out = [this.claimAddress(m)];
    for (const nic of m.nics.slice(1)) if (nic.subnet !== undefined) out.push(this.claimInSubnet(m, nic.subnet, out));
    return out;
  }

  private used(): Set<string> {
    return new Set([...this.all().flatMap((o) => o.ipAddresses), ...(this.config.addressesHeld?.() ?? [])]);
  }

  // The lowest free host of the subnet past its first (the gateway the network model gives it).
  private claimInSubnet(m: MachineRecord, cidr: string, claimed: readonly string[]): string {
    const used = this.used();
    for (const ip of claimed) used.add(ip);
    const { first, last } = hostRange(cidr);
    for (let n = first + 1; n <= last; n++) {
      const ip = [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
      if (!used.has(ip)) return ip;
    }
    throw new MaasApiError(503, `${m.systemId}: Unable to allocate static IP due to address exhaustion.`);
  }

  // An auto IP in the machine's zone: 10.10.<zone id>.<host>, the lowest free host.
  claimAddress(m: MachineRecord): string {
    const zone = this.places.zones.id(m.zone);
    const used = this.used();
    let offered = 0;
    for (let block = 10; block <= LAST_BLOCK; block++) {
      for (let host = FIRST_HOST; host <= LAST_HOST; host++) {
        if (offered++ >= this.config.zoneAddresses) break;
        const ip = `10.${block}.${zone}.${host}`;
        if (!used.has(ip)) return ip;
      }
    }
    throw new MaasApiError(503, `${m.systemId}: Unable to allocate static IP due to address exhaustion.`);
  }
}

// The INFO event MAAS records when a machine enters these statuses ('Released' is recorded apart).
const STATUS_EVENTS: Partial<Record<NodeStatusCode, EventTypeName>> = {
  [NodeStatus.New]: 'New',
  [NodeStatus.Commissioning]: 'Commissioning',
  [NodeStatus.FailedCommissioning]: 'FailedCommissioning',
  [NodeStatus.Deploying]: 'Deploying',
  [NodeStatus.Deployed]: 'Deployed',
  [NodeStatus.Releasing]: 'Releasing',
};
