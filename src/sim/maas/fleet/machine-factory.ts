import { DEFAULT_DISTRO_SERIES } from './deploy-params.ts';
import type { IdCounters } from './hardware.ts';
import { buildDisks, buildNics, defaultHardwareInfo, stableUuid } from './hardware.ts';
import type { MachineRecord } from './machine.ts';
import type { SeedMachine } from './seed.ts';
import { NodeStatus, seedStatusCode, seedStatusOf } from './status.ts';

// A seed (fleet file entry) → a machine record, and back: what `--save` writes loads again.

export interface FactoryContext {
  readonly ids: IdCounters;
  readonly defaultDomain: string;
  /** Who owns machines seeded Allocated or Deployed without an owner. */
  readonly seedOwner: string;
}

const DEFAULT_ARCHITECTURE = 'amd64/generic';
const DEFAULT_CPU_SPEED = 2400;

export function buildMachine(seed: SeedMachine, systemId: string, ctx: FactoryContext): MachineRecord {
  const status = seedStatusCode(seed.status ?? 'Ready');
  const owned = status === NodeStatus.Allocated || status === NodeStatus.Deployed || status === NodeStatus.FailedDeployment;
  const deployed = status === NodeStatus.Deployed;
  const tags = [...new Set(seed.tags ?? [])];
  return {
    systemId,
    hostname: seed.hostname,
    domain: seed.domain ?? ctx.defaultDomain,
    zone: seed.zone ?? 'default',
    pool: seed.pool ?? 'default',
    tags,
    architecture: seed.architecture ?? DEFAULT_ARCHITECTURE,
    cpuCount: seed.cpuCount,
    cpuSpeed: seed.cpuSpeedMhz ?? DEFAULT_CPU_SPEED,
    memory: seed.memoryMb,
    powerType: seed.powerType ?? 'ipmi',
    ...(seed.powerParameters ? { powerParameters: { ...seed.powerParameters } } : {}),
    disks: buildDisks(systemId, seed.disks, tags, ctx.ids),
    nics: buildNics(systemId, seed.nics, ctx.ids),
    hardwareInfo: { ...defaultHardwareInfo(systemId, seed.cpuCount), ...seed.hardware },
    hardwareUuid: stableUuid(`hw/${systemId}`),
    // A New machine has only been enlisted: commissioning is what finds its hardware.
    commissioned: status !== NodeStatus.New,
    description: seed.description ?? '',
    status,
    abortTo: undefined,
    statusMessage: '',
    errorDescription: '',
    locked: seed.locked ?? false,
    powerState: seed.powerState ?? (deployed ? 'on' : 'off'),
    owner: owned ? (seed.owner ?? ctx.seedOwner) : null,
    agentName: owned ? (seed.agentName ?? '') : '',
    osystem: deployed ? (seed.osystem ?? 'ubuntu') : '',
    distroSeries: deployed ? (seed.distroSeries ?? DEFAULT_DISTRO_SERIES) : '',
    hweKernel: deployed ? (seed.hweKernel ?? null) : null,
    minHweKernel: seed.minHweKernel ?? null,
    enableHwSync: false,
    links: null,
    ephemeralDeploy: false,
    installKvm: false,
    userData: null,
    ownerData: owned ? { ...seed.ownerData } : {},
    swapSize: seed.swapSize ?? null,
    ipAddresses: [],
    timer: undefined,
    staleReady: false,
    selfPowerOffDone: false,
  };
}

/**
 * The machine as a seed: its hardware as found, and the resting status it is in or heading to.
 * `cidrOf` names a link's subnet; without it the links are not written.
 */
export function toSeed(m: MachineRecord, cidrOf?: (subnetId: number) => string | undefined): SeedMachine {
  const status = seedStatusOf(m.status);
  const owned = status === 'Allocated' || status === 'Deployed' || status === 'Failed deployment';
  const seed: SeedMachine = {
    systemId: m.systemId,
    hostname: m.hostname,
    zone: m.zone,
    pool: m.pool,
    tags: [...m.tags],
    cpuCount: m.cpuCount,
    memoryMb: m.memory,
    domain: m.domain,
    powerType: m.powerType,
    ...(m.powerParameters ? { powerParameters: { ...m.powerParameters } } : {}),
    architecture: m.architecture,
    cpuSpeedMhz: m.cpuSpeed,
    disks: m.disks.map((d) => ({ name: d.name, sizeGb: d.sizeBytes / 1e9, model: d.model, serial: d.serial, tags: [...d.tags] })),
    nics: m.nics.map((n) => ({ name: n.name, mac: n.mac, linkSpeedMbps: n.linkSpeed, tags: [...n.tags], ...(n.subnet !== undefined ? { subnet: n.subnet } : {}) })),
    hardware: { ...m.hardwareInfo },
  };
  // Ready is what an unstated status means, so a fresh fleet saves as it was written.
  if (status !== 'Ready') seed.status = status;
  if (m.description !== '') seed.description = m.description;
  if (m.locked) seed.locked = true;
  if (owned && m.owner !== null) {
    seed.owner = m.owner;
    if (m.agentName !== '') seed.agentName = m.agentName;
    if (Object.keys(m.ownerData).length > 0) seed.ownerData = { ...m.ownerData };
  }
  // Power as it is when it differs from what the status implies (a Deployed machine switched off),
  // for a machine at rest only: one on its way to a status gets that status's power.
  const resting = status === 'Deployed' ? 'on' : 'off';
  const atRest = seedStatusCode(status) === m.status;
  if (atRest && (m.powerState === 'on' || m.powerState === 'off') && m.powerState !== resting) seed.powerState = m.powerState;
  if (m.minHweKernel) seed.minHweKernel = m.minHweKernel;
  if (m.swapSize !== null) seed.swapSize = m.swapSize;
  if (status === 'Deployed') {
    seed.osystem = m.osystem || 'ubuntu';
    seed.distroSeries = m.distroSeries || DEFAULT_DISTRO_SERIES;
    if (m.hweKernel) seed.hweKernel = m.hweKernel;
    if (m.ipAddresses.length > 0) seed.ipAddresses = [...m.ipAddresses];
  }
  if (m.links && cidrOf) {
    const deployed = status === 'Deployed';
    seed.links = m.links.flatMap((l) => {
      const nic = m.nics.find((n) => n.id === l.nicId);
      if (!nic) return [];
      const subnet = l.subnetId === null ? undefined : cidrOf(l.subnetId);
      const ip = l.ip !== null && subnet !== undefined && (l.mode === 'static' || deployed) ? l.ip : undefined;
      return [{ nic: nic.name, mode: l.mode, ...(subnet === undefined ? {} : { subnet }), ...(ip === undefined ? {} : { ip }) }];
    });
  }
  return seed;
}
