import { dnsDomainOf, heldByAnotherUserMessage, type MachineNic } from '../../../machines/maas-cluster/index.ts';
import type { MaasCall, MaasResult, MaasView } from '../../../machines/maas-machine/index.ts';
import type { DnsRecord, MaasDriver } from '../../../ports/index.ts';
import type { DnsResource, MaasClient, MaasMachine } from '../client/index.ts';
import { cidrContains, MetalfleetError, parseCidr, splitImage, errorMessage } from '../../../api/index.ts';
import { MaasError } from '../client/index.ts';
import type { ImageCheck } from './image-check.ts';
import { imageCheck } from './image-check.ts';
import { linkStatic, StaticLinkRefused } from './static-link.ts';
import type { SelfUser } from './self-user.ts';
import { selfUser } from './self-user.ts';

// Executes the MaasMachine machine's calls with the MAAS client and maps what MAAS says to
// results the machine understands.
export function createMaasDriver(client: MaasClient, o: { now?: () => number } = {}): MaasDriver {
  const images = imageCheck(client, o.now);
  const backend = `maas:${new URL(client.endpoint).host}`;
  return {
    ...driverOver(client, images, selfUser(client)),
    requests: () => Object.entries(client.stats.byRouteStatus).flatMap(([route, byStatus]) =>
      Object.entries(byStatus).map(([status, count]) => ({ backend, route, status, count }))),
  };
}

function driverOver(client: MaasClient, images: ImageCheck, self: SelfUser): MaasDriver {
  return {
    endpoint: client.endpoint,
    pool: `maas:${client.endpoint}`,
    async run(call: MaasCall, userDataBase64?: string): Promise<MaasResult> {
      try {
        // Every machine MAAS keeps under the agent name; which of them to adopt is the machine's call.
        if (call.op === 'findAllocated') return { kind: 'listed', machines: (await client.listMachines({ agentName: call.agentName })).map(view) };
        if (call.op === 'get') return await readMachine(client, self, call.systemId);
        const refused = await imageRefused(images, call);
        if (refused) return refused;
        return { kind: 'done', machine: view(await perform(client, call, userDataBase64)) };
      } catch (err) {
        return toResult(err);
      }
    },
    async ownerData(systemId) {
      return (await client.getMachine(systemId))?.owner_data ?? null;
    },
    async setOwnerData(systemId, data) {
      await client.setOwnerData(systemId, data);
    },
    async findDns(fqdn) {
      const found = await client.listDnsResources({ fqdn }).catch((err: unknown) => domainMissing(fqdn, err));
      if (found.length > 1) throw new Error(`MAAS has ${found.length} DNS resources named ${fqdn}; expected one`);
      return found[0] ? record(found[0]) : null;
    },
    async createDns(fqdn, ttl, ips) {
      return record(await client.createDnsResource({ fqdn, addressTtl: ttl, ipAddresses: [...ips] }));
    },
    async updateDns(id, ips) {
      return record(await client.updateDnsResource(id, { ipAddresses: [...ips] }));
    },
    async deleteDns(id) {
      await client.deleteDnsResource(id);
    },
    async findReservedIp(q) {
      const cidr = parseCidr(q.subnet);
      const candidates = q.address !== undefined ? [q.address] : ((await client.listDnsResources({ fqdn: q.fqdn }).catch(notFoundIsNone))[0]?.ip_addresses.map((a) => a.ip) ?? []);
      for (const ip of candidates) {
        if (cidr && !cidrContains(cidr, ip)) continue;
        // Ours only if MAAS lists it among this key's user's reservations.
        if ((await client.listIpAddresses({ ip })).some((a) => a.ip === ip)) return ip;
      }
      return null;
    },
    async reserveIp(r) {
      return (await client.reserveIp({ subnet: r.subnet, hostname: r.hostname, ...(r.address !== undefined ? { ip: r.address } : {}) })).ip;
    },
    async releaseIp(address) {
      return client.releaseIp(address);
    },
    async machineInterfaces(systemId) {
      const m = await readOrHeld(client, systemId);
      if (m === 'held') throw new MachineHeldByAnotherUser(systemId);
      if (!m) return null;
      return (m.interface_set ?? []).map((n): MachineNic => ({
        name: n.name,
        tags: n.tags ?? [],
        addresses: (n.links ?? []).flatMap((l) => (l.ip_address ? [{ ip: l.ip_address, ...(l.subnet ? { subnetCidr: l.subnet.cidr, subnetName: l.subnet.name } : {}) }] : [])),
      }));
    },
  };
}

async function perform(client: MaasClient, call: Exclude<MaasCall, { op: 'findAllocated' | 'get' }>, userDataBase64: string | undefined): Promise<MaasMachine> {
  switch (call.op) {
    case 'allocate':
      return client.allocate({ agentName: call.agentName, cpuCount: call.cpuCount, memMb: call.memMb, ...(call.zone ? { zone: call.zone } : {}), ...(call.pool ? { pool: call.pool } : {}), ...(call.tags ? { tags: [...call.tags] } : {}) });
    case 'swapOff':
      return client.updateMachine(call.systemId, { swapSize: 0 });
    case 'setMinHweKernel':
      return client.updateMachine(call.systemId, { minHweKernel: call.minHweKernel });
    case 'linkStatic':
      return linkStatic(client, call.systemId, call);
    case 'deploy': {
      // osystem is sent as CAPMAAS sends it, but MAAS reads only distro_series; osystem/series
      // there names the image exactly (a bare series would match the first OS that has it).
      const { osystem, distroSeries } = splitImage(call.image);
      return client.deploy(call.systemId, {
        ...(userDataBase64 ? { userDataBase64 } : {}), osystem, distroSeries: `${osystem}/${distroSeries}`, ephemeralDeploy: call.ephemeral,
        ...(call.hweKernel ? { hweKernel: call.hweKernel } : {}), ...(call.enableHwSync !== undefined ? { enableHwSync: call.enableHwSync } : {}),
      });
    }
    case 'release':
      return client.release(call.systemId);
    case 'powerOn':
      return client.powerOn(call.systemId);
    case 'powerOff':
      return client.powerOff(call.systemId);
  }
}

/**
 * A read of one machine. It says whether the owner is this key's own user: a deletion whose
 * release MAAS refused ends when another user holds the machine (maas-machine/deleting.ts).
 *
 * MAAS (3.x, RBAC off) lets a non-admin view only unowned machines and its own: GET machines/{id}/
 * of another user's is 403 (get_node_or_404, NodePermission.view), and GET machines/ leaves it out.
 * A 403 alone is not taken for that (MAAS answers a deactivated user 403 to everything): the key's
 * own listing, narrowed to the machine, must answer and lack it. MAAS names no owner then.
 */
async function readMachine(client: MaasClient, self: SelfUser, systemId: string): Promise<MaasResult> {
  const m = await readOrHeld(client, systemId);
  if (m === 'held') return { kind: 'failed', reason: 'heldByAnotherUser', message: heldByAnotherUserMessage(systemId) };
  if (!m) return { kind: 'notFound' };
  if (m.owner === null) return { kind: 'done', machine: view(m) };
  return { kind: 'done', machine: { ...view(m), ownedBySelf: m.owner === (await self.username()) } };
}

/** GET machines/{id}/; 'held' when that is refused (403) and the key's own listing, which answers, lacks it; null when MAAS has no such machine. */
async function readOrHeld(client: MaasClient, systemId: string): Promise<MaasMachine | null | 'held'> {
  try {
    return await client.getMachine(systemId);
  } catch (err) {
    if (!(err instanceof MaasError && err.code === 'forbidden')) throw err;
    const listed = await client.listMachines({ ids: [systemId] }).catch((listErr: unknown) => {
      throw listErr instanceof MaasError && listErr.code === 'forbidden' ? err : listErr;
    });
    return listed.find((l) => l.system_id === systemId) ?? 'held';
  }
}

/**
 * A machine another MAAS user holds, read for its interfaces (the MaasCluster's spec.apiServerInterface):
 * not retryable, and its message is the one the cluster knows it by (maas-cluster/held.ts).
 */
export class MachineHeldByAnotherUser extends MetalfleetError {
  constructor(readonly systemId: string) {
    super('heldByAnotherUser', heldByAnotherUserMessage(systemId), false);
    this.name = 'MachineHeldByAnotherUser';
  }
}

/**
 * MAAS has no DNS domain of that name: GET /dnsresources/?fqdn= answers 404 "No Domain matches the
 * given query." (capmaas.md §3.2), the list's only 404. No record can exist in it; whether that
 * is done (a deletion) or a failure (a record to create) is the caller's call.
 */
export class DnsDomainNotFound extends MetalfleetError {
  constructor(readonly domain: string, message: string, options?: ErrorOptions) {
    super('dnsDomainNotFound', message, false, undefined, options);
    this.name = 'DnsDomainNotFound';
  }
}

function domainMissing(fqdn: string, err: unknown): never {
  if (err instanceof MaasError && err.code === 'not-found') {
    const domain = dnsDomainOf(fqdn);
    throw new DnsDomainNotFound(domain, `MAAS has no DNS domain ${domain} (for ${fqdn}): ${err.message}`, { cause: err });
  }
  throw err;
}

// allocate and deploy name an image: MAAS must have it (for the machine's architecture, once
// there is a machine) before anything is asked of MAAS.
async function imageRefused(images: ImageCheck, call: Exclude<MaasCall, { op: 'findAllocated' | 'get' }>): Promise<MaasResult | null> {
  if (call.op === 'allocate' && call.image) {
    const verdict = await images.check(call.image);
    return verdict.found ? null : { kind: 'failed', reason: 'imageNotFound', message: verdict.message };
  }
  if (call.op !== 'deploy') return null;
  const verdict = await images.check(call.image, call.architecture);
  return verdict.found ? null : { kind: 'failed', reason: 'imageNotFound', message: verdict.message };
}

function toResult(err: unknown): MaasResult {
  if (err instanceof StaticLinkRefused) return { kind: 'failed', reason: err.reason, message: err.message };
  if (err instanceof MaasError) {
    if (err.code === 'not-found') return { kind: 'notFound' };
    if (err.retryable) return { kind: 'transient', message: err.message };
    const reason = err.code === 'no-match' ? 'noMatch' : err.code === 'forbidden' ? 'forbidden' : err.code === 'conflict' ? 'conflict' : undefined;
    return { kind: 'failed', message: err.message, ...(reason ? { reason } : {}) };
  }
  return { kind: 'transient', message: errorMessage(err) };
}

function view(m: MaasMachine): MaasView {
  return {
    systemId: m.system_id,
    hostname: m.hostname,
    fqdn: m.fqdn,
    statusName: m.status_name,
    powerState: m.power_state,
    ipAddresses: m.ip_addresses,
    zone: m.zone.name,
    ...(m.architecture ? { architecture: m.architecture } : {}),
    owner: m.owner,
  };
}

// A DNS name whose domain MAAS does not have is a 404 on the list: no reservation by that name.
function notFoundIsNone(err: unknown): DnsResource[] {
  if (err instanceof MaasError && err.code === 'not-found') return [];
  throw err;
}

function record(d: DnsResource): DnsRecord {
  return { id: d.id, fqdn: d.fqdn, ips: d.ip_addresses.map((a) => a.ip) };
}
