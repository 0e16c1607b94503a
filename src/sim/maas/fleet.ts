import { byCost, noMatchMessage, parseAllocation } from './allocate.ts';
import { conflict, forbidden, MaasApiError, notFound, validationError } from './api-error.ts';
import type { Catalog } from './candidate.ts';
import type { SimClock } from './clock.ts';
import type { EventLog } from './events.ts';
import { decodeUserData, DEFAULT_DISTRO_SERIES, parseSwapSize, resolveRelease } from './deploy-params.ts';
import type { MaasFaults } from './faults.ts';
import { failsDeployment, listNames } from './faults.ts';
import { parseListFilter } from './list-filter.ts';
import type { MachineRecord } from './machine.ts';
import { macFor, systemIdFor } from './machine.ts';
import type { Places } from './machine-json.ts';
import type { SimUser } from './oauth.ts';
import type { TagBook } from './tags.ts';
import type { Params } from './params.ts';
import { parseStringBool } from './params.ts';
import type { SeedMachine } from './seed.ts';
import type { NodeStatusCode } from './status.ts';
import { canTransition, NodeStatus, RELEASABLE, seedStatusCode, statusName } from './status.ts';

export interface FleetConfig {
  readonly deployMs: number;
  readonly releaseMs: number;
  readonly eraseOnRelease: boolean;
  readonly zoneAddresses: number;
  readonly clock: SimClock;
  readonly faults: () => MaasFaults;
  /** Who owns machines seeded Allocated or Deployed. */
  readonly seedOwner: string;
  readonly events: EventLog;
  /** Timings are divided by this (options.speed). */
  readonly speed: number;
}

// How long after reaching Deployed a powerOffAfterDeploy machine switches itself off.
export const SELF_POWER_OFF_MS = 50;

// Every simulated machine has a 480 GB disk (storage is in MB, as MAAS reports it).
const STORAGE_MB = 480_000;

// Host addresses handed out in a zone's /24: .10 to .250; a zone that fills one /24 goes on in
// the next (10.10.<zone>.x, then 10.11.<zone>.x, …) so a thousand-machine fleet fits.
const FIRST_HOST = 10;
const LAST_HOST = 250;
const LAST_BLOCK = 245;
export const DEFAULT_ZONE_ADDRESSES = (LAST_HOST - FIRST_HOST + 1) * (LAST_BLOCK - 10 + 1);

const HOSTNAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

/** The machines of one simulated MAAS and everything MAAS does to them. */
export class Fleet {
  private readonly machines = new Map<string, MachineRecord>();
  private highWater = 0;

  constructor(seeds: readonly SeedMachine[], private readonly places: Places, private readonly tags: TagBook, private readonly config: FleetConfig) {
    let interfaceId = 1;
    for (const seed of seeds) {
      for (const tag of seed.tags ?? []) tags.ensure(tag);
      const systemId = systemIdFor(seed.hostname, new Set(this.machines.keys()));
      const status = seedStatusCode(seed.status ?? 'Ready');
      const owned = status === NodeStatus.Allocated || status === NodeStatus.Deployed;
      const m: MachineRecord = {
        systemId,
        hostname: seed.hostname,
        domain: seed.domain ?? places.defaultDomain,
        zone: seed.zone ?? 'default',
        pool: seed.pool ?? 'default',
        tags: [...new Set(seed.tags ?? [])],
        cpuCount: seed.cpuCount,
        memory: seed.memoryMb,
        powerType: seed.powerType ?? 'ipmi',
        storageMb: STORAGE_MB,
        macAddress: macFor(systemId),
        interfaceId: interfaceId++,
        description: '',
        status,
        powerState: status === NodeStatus.Deployed ? 'on' : 'off',
        owner: owned ? config.seedOwner : null,
        agentName: '',
        osystem: status === NodeStatus.Deployed ? 'ubuntu' : '',
        distroSeries: status === NodeStatus.Deployed ? DEFAULT_DISTRO_SERIES : '',
        hweKernel: null,
        ephemeralDeploy: false,
        userData: null,
        ownerData: {},
        swapSize: null,
        ipAddresses: [],
        timer: undefined,
        staleReady: false,
        selfPowerOffDone: false,
      };
      this.machines.set(systemId, m);
      if (status === NodeStatus.Deployed) m.ipAddresses = [this.claimAddress(m)];
    }
  }

  /** The fleet as it is now, in the seed format: what `--save` writes and `--fleet` reads back. */
  toSeeds(): SeedMachine[] {
    return this.all().map((m) => ({ hostname: m.hostname, zone: m.zone, pool: m.pool, tags: [...m.tags], cpuCount: m.cpuCount, memoryMb: m.memory, domain: m.domain, powerType: m.powerType }));
  }

  /** Names that exist for allocation and list filters. */
  catalog(): Catalog {
    return { zones: this.places.zones.nameSet(), pools: this.places.pools.nameSet(), tags: this.tags.names() };
  }

  all(): MachineRecord[] {
    return [...this.machines.values()];
  }

  find(systemIdOrHostname: string): MachineRecord | undefined {
    return this.machines.get(systemIdOrHostname) ?? this.all().find((m) => m.hostname === systemIdOrHostname);
  }

  bySystemId(systemId: string): MachineRecord | undefined {
    return this.machines.get(systemId);
  }

  get(systemId: string): MachineRecord {
    const m = this.machines.get(systemId);
    if (!m) throw notFound('Machine');
    return m;
  }

  list(params: Params): MachineRecord[] {
    const matches = parseListFilter(params, this.catalog());
    return this.all().filter(matches);
  }

  deployingNow(): number {
    return this.all().filter((m) => m.status === NodeStatus.Deploying).length;
  }

  maxDeploying(): number {
    return this.highWater;
  }

  resetHighWater(): void {
    this.highWater = this.deployingNow();
  }

  // POST /machines/ op=allocate
  allocate(user: SimUser, body: Params): MachineRecord {
    const allocation = parseAllocation(body, this.catalog());
    // A machine broken while Ready is still offered once: MAAS read it as Ready before the
    // transaction that acquires it, whose status check then fails.
    const available = this.all().filter((m) => m.owner === null && (m.status === NodeStatus.Ready || m.staleReady));
    const [chosen] = byCost(available.filter((m) => allocation.matches(m)));
    if (!chosen) throw conflict(noMatchMessage(allocation));
    if (allocation.dryRun) return chosen;
    if (chosen.staleReady) {
      chosen.staleReady = false;
      throw conflict(`Invalid transition: ${statusName(chosen.status)} -> ${statusName(NodeStatus.Allocated)}.`);
    }
    this.move(chosen, NodeStatus.Allocated);
    chosen.owner = user.name;
    chosen.agentName = allocation.agentName ?? '';
    return chosen;
  }

  // POST /machines/{id}/ op=deploy
  deploy(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    if (m.owner !== null && m.owner !== user.name && (!user.admin || m.status === NodeStatus.Ready)) {
      throw conflict("Can't allocate a machine belonging to another user.");
    }
    const ephemeral = readBool(body, 'ephemeral_deploy');
    // Everything is checked before anything changes: MAAS runs the request in one transaction.
    const deployable = m.status === NodeStatus.Ready || (m.status !== NodeStatus.Deploying && canTransition(m.status, NodeStatus.Deploying));
    if (!deployable) throw conflict(`Can't deploy a machine that is in the '${statusName(m.status)}' state`);
    // No address left in the zone is a 503 before the machine is touched.
    if (m.ipAddresses.length === 0) this.claimAddress(m);
    if (m.status === NodeStatus.Ready) {
      this.move(m, NodeStatus.Allocated);
      m.owner = user.name;
      m.agentName = body.get('agent_name') ?? '';
    }
    const series = body.get('distro_series') || m.distroSeries || DEFAULT_DISTRO_SERIES;
    const release = resolveRelease(series, body.get('osystem'));
    m.osystem = release.osystem;
    m.distroSeries = release.series;
    const hwe = body.get('hwe_kernel');
    if (hwe !== undefined && hwe !== '') m.hweKernel = hwe;
    if (ephemeral !== undefined) m.ephemeralDeploy = ephemeral;
    return this.powerOnOwned(m, body);
  }

  // POST /machines/{id}/ op=power_on (also /op-power_on)
  powerOn(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    checkEdit(user, m);
    if (m.owner === null) throw conflict("Can't start node: it hasn't been allocated.");
    return this.powerOnOwned(m, body);
  }

  // POST /machines/{id}/ op=power_off (also /op-power_off): Node.stop(). The edit permission, as for
  // power_on ("You can't stop a node you don't own unless you're an admin"): 403 otherwise. Any
  // status may be powered off and keeps its status (a Deployed machine stays Deployed). stop_mode
  // soft or hard (anything else is hard) ends the same here.
  powerOffByRequest(user: SimUser, systemId: string, _body: Params): MachineRecord {
    const m = this.get(systemId);
    checkEdit(user, m);
    m.powerState = 'off';
    // A releasing machine seen off is released (as the test knob powerOff does).
    if (m.status === NodeStatus.Releasing) this.finishRelease(m);
    return m;
  }

  // POST /machines/{id}/ op=set_owner_data: every parameter but op is a key; an empty value removes
  // the key, keys not named stay. Only for an allocated machine, by who may edit it (MAAS: owner
  // data lives while the machine is owned and goes with the release).
  setOwnerData(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    checkEdit(user, m);
    if (m.owner === null) throw conflict('Cannot set owner data: the machine is not allocated.');
    const data = { ...m.ownerData };
    for (const [key, value] of body.pairs) {
      if (key === 'op') continue;
      if (key.length > 255) throw validationError({ [key.slice(0, 32)]: ['Ensure this key has at most 255 characters.'] });
      if (value === '') delete data[key];
      else data[key] = value;
    }
    m.ownerData = data;
    return m;
  }

  // POST /machines/{id}/ op=release
  release(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    checkEdit(user, m);
    const erase = readBool(body, 'erase') ?? false;
    for (const flag of ['secure_erase', 'quick_erase', 'force']) readBool(body, flag);
    // Already releasing, or released: the postcondition holds, so a retry succeeds.
    if (m.status === NodeStatus.Releasing || m.status === NodeStatus.Ready) return m;
    if (!RELEASABLE.has(m.status)) throw conflict(`Machine cannot be released in its current state ('${statusName(m.status)}').`);
    if (erase || this.config.eraseOnRelease) {
      this.move(m, NodeStatus.DiskErasing);
      // Erasing boots an ephemeral environment on the machine.
      m.powerState = 'on';
      this.later(m, this.config.releaseMs, () => this.finishRelease(m));
      return m;
    }
    this.move(m, NodeStatus.Releasing);
    // A machine already off (or whose power cannot be queried) goes straight to Ready.
    if (m.powerState !== 'on') this.finishRelease(m);
    else this.later(m, this.config.releaseMs, () => this.finishRelease(m));
    return m;
  }

  // PUT /machines/{id}/
  update(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    if (!user.admin) throw forbidden();
    const errors: Record<string, string[]> = {};
    const change: Partial<Pick<MachineRecord, 'swapSize' | 'hostname' | 'description' | 'zone' | 'pool'>> = {};
    const swap = body.get('swap_size');
    if (swap !== undefined) {
      const bytes = parseSwapSize(swap);
      if (bytes === undefined) errors.swap_size = [`Invalid size for swap: ${swap}`];
      else change.swapSize = bytes;
    }
    const hostname = body.get('hostname');
    if (hostname !== undefined && hostname !== m.hostname) {
      if (!HOSTNAME.test(hostname)) errors.hostname = [`Invalid hostname: ${hostname}`];
      else if (this.all().some((o) => o !== m && o.hostname === hostname)) errors.hostname = ['Node with this Hostname already exists.'];
      else change.hostname = hostname;
    }
    const description = body.get('description');
    if (description !== undefined) change.description = description;
    for (const field of ['zone', 'pool'] as const) {
      const value = body.get(field);
      if (value === undefined || value === '') continue;
      const registry = field === 'zone' ? this.places.zones : this.places.pools;
      if (!registry.has(value)) errors[field] = ['Select a valid choice. That choice is not one of the available choices.'];
      else change[field] = value;
    }
    if (Object.keys(errors).length > 0) throw validationError(errors);
    Object.assign(m, change);
    return m;
  }

  // DELETE /machines/{id}/
  remove(user: SimUser, systemId: string): void {
    const m = this.get(systemId);
    if (!user.admin) throw forbidden();
    this.cancel(m);
    this.machines.delete(m.systemId);
  }

  /** faults.broken: these machines are Broken now (see MaasFaults.broken). */
  breakMachines(names: readonly string[]): void {
    for (const m of this.all()) {
      if (!listNames(names, m.systemId, m.hostname) || m.status === NodeStatus.Broken) continue;
      if (!canTransition(m.status, NodeStatus.Broken)) continue;
      const wasAvailable = m.status === NodeStatus.Ready && m.owner === null;
      this.move(m, NodeStatus.Broken);
      m.staleReady = wasAvailable;
    }
  }

  /** The test knob: the machine turns itself off. A releasing machine seen off is released. */
  powerOff(systemId: string): void {
    const m = this.find(systemId);
    if (!m) throw new Error(`powerOff: no machine ${systemId}`);
    m.powerState = 'off';
    if (m.status === NodeStatus.Releasing) this.finishRelease(m);
  }

  stop(): void {
    for (const m of this.machines.values()) this.cancel(m);
  }

  // Machine.start(): an Allocated machine begins deploying; any other just powers on.
  private powerOnOwned(m: MachineRecord, body: Params): MachineRecord {
    const userData = body.get('user_data');
    if (userData !== undefined) m.userData = decodeUserData(userData);
    if (m.status === NodeStatus.Allocated) {
      const addresses = m.ipAddresses.length > 0 ? m.ipAddresses : [this.claimAddress(m)];
      this.move(m, NodeStatus.Deploying);
      m.ipAddresses = addresses;
      m.powerState = 'on';
      m.selfPowerOffDone = false;
      this.later(m, this.config.deployMs, () => this.finishDeployment(m));
    } else {
      m.powerState = 'on';
    }
    return m;
  }

  private finishDeployment(m: MachineRecord): void {
    if (m.status !== NodeStatus.Deploying) return;
    if (failsDeployment(this.config.faults(), m.systemId, m.hostname)) {
      this.move(m, NodeStatus.FailedDeployment);
      return;
    }
    this.move(m, NodeStatus.Deployed);
    if (listNames(this.config.faults().powerOffAfterDeploy, m.systemId, m.hostname) && !m.selfPowerOffDone) {
      this.later(m, SELF_POWER_OFF_MS, () => {
        m.selfPowerOffDone = true;
        if (m.status === NodeStatus.Deployed) m.powerState = 'off';
      });
    }
  }

  // _finalize_release: Ready, off, and nothing of the deployment left.
  private finishRelease(m: MachineRecord): void {
    if (m.status !== NodeStatus.Releasing && m.status !== NodeStatus.DiskErasing) return;
    this.move(m, NodeStatus.Ready);
    if (m.powerState !== 'unknown') m.powerState = 'off';
    m.owner = null;
    m.agentName = '';
    m.osystem = '';
    m.distroSeries = '';
    m.hweKernel = null;
    m.ephemeralDeploy = false;
    m.userData = null;
    m.ownerData = {};
    m.ipAddresses = [];
  }

  /** Every status change goes through here: Node.clean_status's check, then bookkeeping. */
  private move(m: MachineRecord, to: NodeStatusCode): void {
    if (!canTransition(m.status, to)) throw conflict(`Invalid transition: ${statusName(m.status)} -> ${statusName(to)}.`);
    this.cancel(m);
    m.status = to;
    // The allocator's stale view lasts only until the machine's status next changes.
    m.staleReady = false;
    if (to === NodeStatus.Deploying) this.highWater = Math.max(this.highWater, this.deployingNow());
  }

  private later(m: MachineRecord, ms: number, fn: () => void): void {
    this.cancel(m);
    m.timer = this.config.clock.setTimeout(() => {
      m.timer = undefined;
      fn();
    }, ms);
  }

  private cancel(m: MachineRecord): void {
    if (m.timer !== undefined) this.config.clock.clearTimeout(m.timer);
    m.timer = undefined;
  }

  // An auto IP in the machine's zone: 10.10.<zone id>.<host>, the lowest free host.
  private claimAddress(m: MachineRecord): string {
    const zone = this.places.zones.id(m.zone);
    const used = new Set(this.all().flatMap((o) => o.ipAddresses));
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

// NodePermission.edit: a non-admin may act on unowned machines and their own, not on others'.
function checkEdit(user: SimUser, m: MachineRecord): void {
  if (!user.admin && m.owner !== null && m.owner !== user.name) throw forbidden();
}

function readBool(body: Params, key: string): boolean | undefined {
  const text = body.get(key);
  if (text === undefined) return undefined;
  const value = parseStringBool(text);
  if (value === undefined) throw validationError({ [key]: ["Value should be 'true' or 'false'"] });
  return value;
}
