import { byCost, noMatchMessage, parseAllocation } from './allocate.ts';
import { applyBmcOutage, PowerActionLog, powerRead } from './bmc.ts';
import { conflict, forbidden, MaasApiError, notFound, validationError } from '../http/api-error.ts';
import type { Candidate, Catalog } from './candidate.ts';
import type { EventTypeName } from './events.ts';
import { EVENT_TYPES } from './events.ts';
import { BootImages } from './boot-images.ts';
import { decodeUserData, DEFAULT_DISTRO_SERIES, parseSwapSize } from './deploy-params.ts';
import { listNames } from './faults.ts';
import { canView, checkAdmin, checkEdit, checkView, readBool, str } from './fleet-access.ts';
import { IdCounters } from './hardware.ts';
import type { NetworkView } from './interface-json.ts';
import { interfaceJson } from './interface-json.ts';
import type { FleetConfig } from './lifecycle.ts';
import { Lifecycle } from './lifecycle.ts';
import { parseEventNodeFilter, parseListFilter } from './list-filter.ts';
import type { MachineRecord } from './machine.ts';
import { forgetDeployment, systemIdFor } from './machine.ts';
import { buildMachine, toSeed } from './machine-factory.ts';
import type { SavedLink } from './machine-links.ts';
import { restoreLinks } from './machine-links.ts';
import type { Places } from './machine-json.ts';
import type { SimUser } from '../http/oauth.ts';
import type { TagBook } from '../places/tags.ts';
import type { Params } from '../http/params.ts';
import type { SeedMachine } from './seed.ts';
import type { NodeStatusCode } from './status.ts';
import { canTransition, NodeStatus, RELEASABLE, statusName } from './status.ts';

export type { FleetConfig } from './lifecycle.ts';
export { DEFAULT_ZONE_ADDRESSES, SELF_POWER_OFF_MS } from './lifecycle.ts';

const HOSTNAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

/** An allocate's answer: the machine and how it met the labelled constraints. */
export interface Allocated {
  readonly machine: MachineRecord;
  readonly constraintsByType: Record<string, unknown>;
}

/** The machines of one simulated MAAS and everything MAAS does to them. */
export class Fleet {
  private readonly machines = new Map<string, MachineRecord>();
  private readonly life: Lifecycle;
  /** The power commands sent through the API, per machine (bmc.ts). */
  readonly powerActions = new PowerActionLog();
  /** The images MAAS can deploy (boot-resources/), for every architecture of the fleet. */
  readonly images: BootImages;
  /** Seed links by system_id, until restoreLinks: their subnets are the network's, made later. */
  private readonly savedLinks = new Map<string, readonly SavedLink[]>();

  constructor(seeds: readonly SeedMachine[], private readonly places: Places, private readonly tags: TagBook, private readonly config: FleetConfig) {
    this.life = new Lifecycle(config, places, () => this.all());
    this.images = new BootImages(() => ['amd64/generic', ...this.all().map((m) => m.architecture)], config.bootResources);
    const ids = new IdCounters();
    const unaddressed: MachineRecord[] = [];
    const kept = new Set<string>();
    for (const seed of seeds) {
      for (const tag of seed.tags ?? []) tags.ensure(tag);
      // A saved fleet keeps its system_ids, so clients that remember them find their machines again.
      const systemId = seed.systemId !== undefined && !this.machines.has(seed.systemId) ? seed.systemId : systemIdFor(seed.hostname, new Set(this.machines.keys()));
      const m = buildMachine(seed, systemId, { ids, defaultDomain: places.defaultDomain, seedOwner: config.seedOwner });
      this.machines.set(systemId, m);
      if (seed.links) this.savedLinks.set(systemId, seed.links);
      if (m.status !== NodeStatus.Deployed) continue;
      // Saved addresses first (a restart renumbering deployed machines would point DNS names and
      // workloads at the wrong ones); the others claim theirs once every saved one is taken.
      const saved = [...new Set(seed.ipAddresses ?? [])];
      if (saved.length > 0 && saved.every((ip) => !kept.has(ip))) {
        m.ipAddresses = saved;
        for (const ip of saved) kept.add(ip);
      } else {
        unaddressed.push(m);
      }
    }
    for (const m of unaddressed) m.ipAddresses = this.life.claimAddresses(m);
  }

  /**
   * The fleet as it is now, in the seed format: what `--save` writes and `--fleet` reads back.
   * `cidrOf` names the subnets of the machines' links, which are written only with it.
   */
  toSeeds(cidrOf?: (subnetId: number) => string | undefined): SeedMachine[] {
    return this.all().map((m) => toSeed(m, cidrOf));
  }

  /** The links the seeds saved (seed `links`), once the network that holds their subnets exists. */
  restoreLinks(subnetId: (cidr: string) => number | null, nextLinkId: () => number): void {
    for (const [systemId, saved] of this.savedLinks) {
      const m = this.machines.get(systemId);
      if (m) restoreLinks(m, saved, subnetId, nextLinkId);
    }
    this.savedLinks.clear();
  }

  /** Names that exist for allocation and list filters. */
  catalog(network?: NetworkView): Catalog {
    return {
      zones: this.places.zones.nameSet(),
      pools: this.places.pools.nameSet(),
      tags: this.tags.names(),
      architectures: new Set(['amd64/generic', ...this.all().map((m) => m.architecture)]),
      placeOf: (m) => {
        const vlan = network?.vlanForZone(m.zone);
        if (!vlan) return undefined;
        return { space: str(vlan.space), fabric: str(vlan.fabric), vid: typeof vlan.vid === 'number' ? vlan.vid : undefined };
      },
      ...(network?.subnetIdsBySpecifiers ? { subnetIds: (specs: readonly string[]) => network.subnetIdsBySpecifiers?.(specs) } : {}),
      ...(network ? { linkedSubnets: (c: Candidate) => this.linkedSubnets(c, network) } : {}),
    };
  }

  // The subnets of the machine's links as its interfaces render them (interface-json.ts).
  private linkedSubnets(c: Candidate, network: NetworkView): Set<number> {
    const m = this.machines.get(c.systemId);
    const ids = new Set<number>();
    if (!m) return ids;
    for (const nic of m.nics) {
      for (const link of interfaceJson(m, nic, { places: this.places, network }).links) {
        const id = (link as { subnet?: { id?: unknown } }).subnet?.id;
        if (typeof id === 'number') ids.add(id);
      }
    }
    return ids;
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

  /** GET machines/ (and nodes/'s machines): the filters apply among the machines `user` may view. */
  list(user: SimUser, params: Params): MachineRecord[] {
    const matches = parseListFilter(params, this.catalog());
    return this.all().filter((m) => canView(user, m) && matches(m));
  }

  /** get_node_or_404 with NodePermission.view: 404 for no such machine, 403 for one `user` may not view. */
  read(user: SimUser, systemId: string): MachineRecord {
    const m = this.get(systemId);
    checkView(user, m);
    return m;
  }

  /** The machines events/?op=query looks at. */
  eventNodes(params: Params): MachineRecord[] {
    return this.all().filter(parseEventNodeFilter(params));
  }

  deployingNow(): number {
    return this.life.deployingNow();
  }

  maxDeploying(): number {
    return this.life.maxDeploying();
  }

  resetHighWater(): void {
    this.life.resetHighWater();
  }

  // POST /machines/ op=allocate
  allocate(user: SimUser, body: Params, network?: NetworkView): Allocated {
    const allocation = parseAllocation(body, this.catalog(network));
    // A machine broken while Ready is still offered once: MAAS read it as Ready before the
    // transaction that acquires it, whose status check then fails.
    const available = this.all().filter((m) => m.owner === null && !m.locked && (m.status === NodeStatus.Ready || m.staleReady));
    const [chosen] = byCost(available.filter((m) => allocation.matches(m)));
    if (!chosen) throw conflict(noMatchMessage(allocation));
    const answer = { machine: chosen, constraintsByType: allocation.constraintsByType(chosen) };
    if (allocation.dryRun) return answer;
    if (chosen.staleReady) {
      chosen.staleReady = false;
      throw conflict(`Invalid transition: ${statusName(chosen.status)} -> ${statusName(NodeStatus.Allocated)}.`);
    }
    this.config.events.request(chosen, 'RequestAcquire', user.name, allocation.comment);
    this.life.move(chosen, NodeStatus.Allocated);
    chosen.owner = user.name;
    chosen.agentName = allocation.agentName ?? '';
    return answer;
  }

  // POST /machines/{id}/ op=deploy
  deploy(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    // get_node_or_404(perm=edit) first: a non-admin may not edit another user's machine (403, no
    // text); only an admin reaches the acquire check, for a Ready machine another user owns.
    checkEdit(user, m);
    if (m.owner !== null && m.owner !== user.name && m.status === NodeStatus.Ready) {
      throw conflict("Can't allocate a machine belonging to another user.");
    }
    const ephemeral = readBool(body, 'ephemeral_deploy');
    const installKvm = readBool(body, 'install_kvm');
    // Everything is checked before anything changes: MAAS runs the request in one transaction.
    const deployable = m.status === NodeStatus.Ready || (m.status !== NodeStatus.Deploying && canTransition(m.status, NodeStatus.Deploying));
    if (!deployable) throw conflict(`Can't deploy a machine that is in the '${statusName(m.status)}' state`);
    // MachineForm: distro_series (osystem is not read), then the kernel and hardware sync, each
    // checked against the boot resources with MAAS's texts (boot-images.ts).
    const named = body.get('distro_series') || (m.distroSeries ? `${m.osystem}/${m.distroSeries}` : '') || DEFAULT_DISTRO_SERIES;
    const release = this.images.resolve(named);
    const hwe = body.get('hwe_kernel') || undefined;
    const kernel = hwe === undefined && m.hweKernel !== null ? m.hweKernel : this.images.workingKernel(hwe, m.minHweKernel, m.architecture, release.osystem, release.release);
    const hwSync = readBool(body, 'enable_hw_sync') ?? false;
    this.images.checkHwSync(hwSync, release.osystem);
    // No address left in the zone is a 503 before the machine is touched.
    if (m.ipAddresses.length === 0) this.life.claimAddress(m);
    m.osystem = release.osystem;
    m.distroSeries = release.release;
    m.hweKernel = kernel;
    m.enableHwSync = hwSync;
    if (m.status === NodeStatus.Ready) {
      this.config.events.request(m, 'RequestAcquire', user.name);
      this.life.move(m, NodeStatus.Allocated);
      m.owner = user.name;
      m.agentName = body.get('agent_name') ?? '';
    }
    if (ephemeral !== undefined) m.ephemeralDeploy = ephemeral;
    if (installKvm !== undefined) m.installKvm = installKvm;
    if (m.status === NodeStatus.Allocated) this.config.events.request(m, 'RequestStartDeployment', user.name, body.get('comment'));
    return this.powerOnOwned(m, user, body);
  }

  // POST /machines/{id}/ op=power_on (also /op-power_on)
  powerOn(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    checkEdit(user, m);
    if (m.owner === null) throw conflict("Can't start node: it hasn't been allocated.");
    this.powerActions.record(m.systemId, m.powerState === 'on' ? 'cycle' : 'powerOn');
    return this.powerOnOwned(m, user, body);
  }

  // POST /machines/{id}/ op=power_off (also /op-power_off): Node.stop(). The edit permission, as for
  // power_on ("You can't stop a node you don't own unless you're an admin"): 403 otherwise. Any
  // status may be powered off and keeps its status (a Deployed machine stays Deployed). stop_mode
  // soft or hard (anything else is hard) ends the same here.
  powerOffByRequest(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    checkEdit(user, m);
    this.config.events.request(m, 'RequestStop', user.name, body.get('comment'));
    this.powerActions.record(m.systemId, 'powerOff');
    this.life.switchOff(m);
    return m;
  }

  // GET /machines/{id}/ op=query_power_state: MAAS asks the BMC; the simulator's BMC is the record.
  queryPowerState(user: SimUser, systemId: string): { state: string } {
    return { state: powerRead(this.read(user, systemId)) };
  }

  // POST /machines/{id}/ op=set_workload_annotations (and its deprecated name set_owner_data):
  // every parameter but op is a key; an empty value removes the key, keys not named stay. Only by
  // the machine's owner: an admin who may edit it still gets the 409 (MAAS 3.5 checks
  // owner_id == request.user.id after the edit permission). The data goes with the release.
  setOwnerData(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    checkEdit(user, m);
    if (m.owner !== user.name) throw conflict("Cannot set workload annotation: it hasn't been acquired.");
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
    // ReleaseForm.clean: secure_erase or quick_erase alone also erase (the wipe-disks script).
    const erase = ['erase', 'secure_erase', 'quick_erase'].map((flag) => readBool(body, flag) ?? false).some(Boolean);
    readBool(body, 'force');
    // Already releasing, or released: the postcondition holds, so a retry succeeds.
    if (m.status === NodeStatus.Releasing || m.status === NodeStatus.Ready) return m;
    if (!RELEASABLE.has(m.status)) throw conflict(`Machine cannot be released in its current state ('${statusName(m.status)}').`);
    this.life.startReleasing(m, user, erase, body.get('comment'));
    return m;
  }

  // POST /machines/ op=release machines=<id>... : MachinesHandler.release. Unknown ids are a 400,
  // machines the user may not edit a 403, machines in a state that cannot release a 409 naming them.
  releaseMany(user: SimUser, body: Params): string[] {
    const ids = [...new Set(body.getAll('machines'))];
    const unknown = ids.filter((id) => !this.machines.has(id));
    if (unknown.length > 0) throw new MaasApiError(400, `Unknown machine(s): ${unknown.join(', ')}.`);
    const machines = ids.map((id) => this.get(id));
    const denied = machines.filter((m) => m.locked || (!user.admin && m.owner !== null && m.owner !== user.name));
    if (denied.length > 0) throw forbidden(`You don't have the required permission to release the following machine(s): ${denied.map((m) => m.systemId).join(', ')}.`);
    const failed = machines.filter((m) => m.status !== NodeStatus.Ready && !RELEASABLE.has(m.status));
    if (failed.length > 0) throw conflict(`Machine(s) cannot be released in their current state: ${failed.map((m) => `${m.systemId} ('${statusName(m.status)}')`).join(', ')}.`);
    const released: string[] = [];
    for (const m of machines) {
      if (m.status === NodeStatus.Ready) continue;
      this.life.startReleasing(m, user, false, body.get('comment'));
      released.push(m.systemId);
    }
    return released;
  }

  // POST /machines/{id}/ op=commission: admin only; boots the ephemeral image, runs the scripts and
  // learns the hardware (cpu, memory, disks, NICs), then Ready and off.
  commission(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    checkAdmin(user, m);
    for (const flag of ['enable_ssh', 'skip_bmc_config', 'skip_networking', 'skip_storage']) readBool(body, flag);
    this.config.events.request(m, 'RequestStartCommissioning', user.name, body.get('comment'));
    this.life.move(m, NodeStatus.Commissioning);
    m.abortTo = NodeStatus.New;
    m.statusMessage = 'Commissioning';
    m.errorDescription = '';
    this.life.switchOn(m);
    this.life.later(m, this.config.commissionMs ?? this.config.deployMs, () => {
      if (m.status !== NodeStatus.Commissioning) return;
      this.config.events.record(m, 'GatheringInfo');
      m.commissioned = true;
      this.life.move(m, NodeStatus.Ready);
      m.statusMessage = 'Ready';
      this.life.switchOff(m);
    });
    return m;
  }

  // POST /machines/ op=accept machines=<id>... / op=accept_all: enlisted (New) machines start
  // commissioning (Node.accept_enlistment); Ready or Commissioning ones are already accepted and
  // are left out of the answer, any other status is a 409. Admins only.
  accept(user: SimUser, body: Params, all: boolean): MachineRecord[] {
    const ids = all ? this.all().filter((m) => m.status === NodeStatus.New).map((m) => m.systemId) : [...new Set(body.getAll('machines'))];
    const unknown = ids.filter((id) => !this.machines.has(id));
    if (unknown.length > 0) throw new MaasApiError(400, `Unknown machine(s): ${unknown.join(', ')}.`);
    const machines = ids.map((id) => this.get(id));
    const denied = machines.filter((m) => !user.admin || m.locked);
    if (denied.length > 0) throw forbidden(`You don't have the required permission to accept the following machine(s): ${denied.map((m) => m.systemId).join(', ')}.`);
    const accepted: MachineRecord[] = [];
    for (const m of machines) {
      if (m.status === NodeStatus.Ready || m.status === NodeStatus.Commissioning) continue;
      if (m.status !== NodeStatus.New) throw conflict(`Cannot accept node enlistment: node ${m.systemId} is in state ${statusName(m.status)}.`);
      accepted.push(this.commission(user, m.systemId, body));
    }
    return accepted;
  }

  // POST /machines/{id}/ op=abort: stops commissioning (back to New), deploying (back to Allocated)
  // or disk erasing (Failed disk erasing), as Node.abort_operation.
  abort(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    checkEdit(user, m);
    const comment = body.get('comment');
    const plan: Partial<Record<NodeStatusCode, [EventTypeName, EventTypeName, NodeStatusCode]>> = {
      [NodeStatus.Commissioning]: ['RequestAbortCommissioning', 'AbortedCommissioning', NodeStatus.New],
      [NodeStatus.Deploying]: ['RequestAbortDeployment', 'AbortedDeployment', NodeStatus.Allocated],
      [NodeStatus.DiskErasing]: ['RequestAbortEraseDisk', 'AbortedDiskErasing', NodeStatus.FailedDiskErasing],
    };
    const step = plan[m.status];
    if (!step) throw conflict(`Cannot abort in current state: node ${m.systemId} is in state ${statusName(m.status)}.`);
    const [request, aborted, to] = step;
    this.config.events.request(m, request, user.name, comment);
    this.life.move(m, to);
    this.config.events.record(m, aborted);
    m.statusMessage = EVENT_TYPES[aborted][0];
    this.life.switchOff(m);
    return m;
  }

  // POST /machines/{id}/ op=mark_broken: only the machine's owner (MAAS answers others 403); an
  // allocated machine is released on the way; comment (or error_description) is the reason.
  markBroken(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    checkEdit(user, m);
    if (m.owner !== user.name) throw forbidden();
    const reason = body.get('comment') || body.get('error_description') || '';
    this.config.events.request(m, 'RequestMarkBroken', user.name, reason);
    this.life.cancel(m);
    this.life.move(m, NodeStatus.Broken);
    m.errorDescription = reason;
    m.statusMessage = '';
    return m;
  }

  // POST /machines/{id}/ op=mark_fixed: admin only, Broken → Ready (MAAS forgets the OS).
  markFixed(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    checkAdmin(user, m);
    this.config.events.request(m, 'RequestMarkFixed', user.name, body.get('comment'));
    if (m.status !== NodeStatus.Broken) throw conflict("Can't mark a non-broken node as 'Ready'.");
    this.life.move(m, NodeStatus.Ready);
    m.statusMessage = "From 'Broken' to 'Ready'";
    m.errorDescription = '';
    forgetDeployment(m);
    return m;
  }

  // POST /machines/{id}/ op=lock / op=unlock: a locked machine refuses every change (403) until
  // unlocked; only a Deployed or Deploying machine may be locked.
  lock(user: SimUser, systemId: string, body: Params, locked: boolean): MachineRecord {
    const m = this.get(systemId);
    if (!user.admin && m.owner !== null && m.owner !== user.name) throw forbidden();
    if (locked && m.locked) throw conflict('Machine is already locked');
    if (!locked && !m.locked) throw conflict('Machine is not locked');
    this.config.events.request(m, locked ? 'RequestLock' : 'RequestUnlock', user.name, body.get('comment'));
    if (locked && m.status !== NodeStatus.Deployed && m.status !== NodeStatus.Deploying) throw conflict("Can't lock, node is not deployed or deploying");
    m.locked = locked;
    return m;
  }

  // PUT /machines/{id}/
  update(user: SimUser, systemId: string, body: Params): MachineRecord {
    const m = this.get(systemId);
    checkAdmin(user, m);
    const errors: Record<string, string[]> = {};
    const change: Partial<Pick<MachineRecord, 'swapSize' | 'hostname' | 'description' | 'zone' | 'pool' | 'minHweKernel' | 'cpuCount'>> = {};
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
    // AdminMachineForm's cpu_count: IntegerField(min_value=0, required=False); empty leaves it be.
    const cpuText = body.get('cpu_count');
    if (cpuText !== undefined && cpuText.trim() !== '') {
      if (!/^\s*[+-]?\d+\s*$/.test(cpuText)) errors.cpu_count = ['Enter a whole number.'];
      else if (Number(cpuText) < 0) errors.cpu_count = ['Ensure this value is greater than or equal to 0.'];
      else change.cpuCount = Number(cpuText);
    }
    // MachineForm.clean_min_hwe_kernel: a compatibility level some synced kernel has ('' clears it).
    const minKernel = body.get('min_hwe_kernel');
    if (minKernel !== undefined) {
      try {
        this.images.checkMinimum(minKernel);
        change.minHweKernel = minKernel === '' ? null : minKernel;
      } catch {
        errors.min_hwe_kernel = [`No kernel matches ">=${minKernel}" requirement.`];
      }
    }
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
    checkAdmin(user, m);
    this.life.cancel(m);
    this.machines.delete(m.systemId);
  }

  /** faults.broken: these machines are Broken now (see MaasFaults.broken). */
  breakMachines(names: readonly string[]): void {
    for (const m of this.all()) {
      if (!listNames(names, m.systemId, m.hostname) || m.status === NodeStatus.Broken) continue;
      if (!canTransition(m.status, NodeStatus.Broken)) continue;
      const wasAvailable = m.status === NodeStatus.Ready && m.owner === null;
      this.config.events.record(m, 'MarkBrokenSystem', 'faults.broken');
      this.life.move(m, NodeStatus.Broken);
      m.staleReady = wasAvailable;
    }
  }

  /** faults.bmcOutage: the machines it names read its power state, the others their own (bmc.ts). */
  bmcOutage(outage: Readonly<Record<string, 'error' | 'unknown'>>): void {
    applyBmcOutage(this.all(), outage);
  }

  /** The test knob: the machine turns itself off. A releasing machine seen off is released. */
  powerOff(systemId: string): void {
    const m = this.find(systemId);
    if (!m) throw new Error(`powerOff: no machine ${systemId}`);
    this.life.switchOff(m);
  }

  stop(): void {
    for (const m of this.machines.values()) this.life.cancel(m);
  }

  // Machine.start(): an Allocated machine begins deploying; any other just powers on.
  private powerOnOwned(m: MachineRecord, user: SimUser, body: Params): MachineRecord {
    const userData = body.get('user_data');
    if (userData !== undefined) m.userData = decodeUserData(userData);
    if (m.status === NodeStatus.Allocated) {
      this.life.startDeploying(m);
    } else {
      this.config.events.request(m, 'RequestStart', user.name, body.get('comment'));
      this.life.switchOn(m);
    }
    return m;
  }
}
