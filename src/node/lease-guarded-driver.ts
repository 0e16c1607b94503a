import { LEASE_NOT_HELD } from '../actors/host/host-call.ts';
import { whileHeld } from '../adapters/http/index.ts';
import type { MaasCall, MaasResult } from '../machines/maas-machine/index.ts';
import type { Fence, FenceRefusal, MaasDriver } from '../ports/index.ts';
import { compareOwner, OWNER_RECORD_KEY, ownerRecordFor, ownerRecordOf, StaleOwner, tellFenceRefused } from '../ports/index.ts';

// Calls that change a machine MAAS already gave us: each is fenced by the owner record.
const CHANGES_MACHINE = new Set<MaasCall['op']>(['swapOff', 'setMinHweKernel', 'linkStatic', 'deploy', 'release', 'powerOn', 'powerOff']);

/**
 * The MAAS driver of one shard's actors, fenced twice (issue 19.2). Every call that changes MAAS
 * (allocate, deploy, release, power, DNS writes) leaves only while the shard's lease is safely
 * held, asked at the moment of the call: MAAS has no compare-and-set on ownership, so a node
 * resumed from a pause must stop itself here, before the request goes out. And where the driver
 * keeps owner data, the shard's owner records its lease on each machine it drives and compares
 * before each change: a later epoch of the same shard recorded there means another node has
 * taken the machine since, and this one does not act. Reads pass: they change nothing.
 */
export function leaseGuardedDriver(driver: MaasDriver, held: () => boolean, fence?: Fence, onFenceRefused?: (refusal: FenceRefusal) => void): MaasDriver {
  // Changes ask the lease again as each of their requests gets its connection: a request may have
  // waited for one of the pool's sockets after the check here (whileHeld: ambient, so a decorator
  // of the driver, which a view of it would bypass, still sees every call).
  const leaving = {
    run: (call: MaasCall, userData?: string) => whileHeld(held, () => driver.run(call, userData)),
    setOwnerData: (id: string, d: Readonly<Record<string, string>>) => whileHeld(held, () => driver.setOwnerData!(id, d)),
    createDns: (...a: Parameters<MaasDriver['createDns']>) => whileHeld(held, () => driver.createDns(...a)),
    updateDns: (...a: Parameters<MaasDriver['updateDns']>) => whileHeld(held, () => driver.updateDns(...a)),
    deleteDns: (...a: Parameters<MaasDriver['deleteDns']>) => whileHeld(held, () => driver.deleteDns(...a)),
    reserveIp: (r: Parameters<NonNullable<MaasDriver['reserveIp']>>[0]) => whileHeld(held, () => driver.reserveIp!(r)),
    releaseIp: (ip: string) => whileHeld(held, () => driver.releaseIp!(ip)),
  };
  const refuse = (): Error => new Error(LEASE_NOT_HELD);
  const notHeld: MaasResult = { kind: 'transient', message: LEASE_NOT_HELD };

  // Compares, and records ours when the machine shows none or an older one. Best effort: a
  // failed write leaves the comparison to guard the next call.
  const claim = async (systemId: string): Promise<MaasResult | null> => {
    if (!fence || !driver.ownerData) return null;
    const data = await driver.ownerData(systemId).catch(() => null);
    const recorded = ownerRecordOf(data?.[OWNER_RECORD_KEY]);
    const standing = compareOwner(recorded, fence);
    if (standing === 'newer' && recorded) {
      // Told to the shard's owner, which gives the shard up and retakes it above (issue 30).
      const refused = new StaleOwner(`MAAS machine ${systemId}`, recorded, fence);
      if (onFenceRefused) tellFenceRefused({ onFenceRefused }, refused);
      return { kind: 'transient', message: refused.message };
    }
    if (standing === 'record' && data !== null && held()) {
      await driver.setOwnerData?.(systemId, { [OWNER_RECORD_KEY]: JSON.stringify(ownerRecordFor(fence)) }).catch(() => undefined);
    }
    return null;
  };

  const run = async (call: MaasCall, userData?: string): Promise<MaasResult> => {
    if (!held()) return notHeld;
    if ('systemId' in call && CHANGES_MACHINE.has(call.op)) {
      const refused = await claim(call.systemId);
      if (refused) return refused;
      // The claim awaited MAAS: ask again right before the change leaves.
      if (!held()) return notHeld;
    }
    const result = await leaving.run(call, userData);
    // A machine just allocated is ours from now: record it before anything else is done to it.
    if (call.op === 'allocate' && result.kind === 'done' && result.machine) await claim(result.machine.systemId);
    return result;
  };

  return {
    endpoint: driver.endpoint,
    pool: driver.pool,
    run,
    ...(driver.ownerData ? { ownerData: (id: string) => driver.ownerData!(id) } : {}),
    ...(driver.setOwnerData ? { setOwnerData: (id: string, d: Readonly<Record<string, string>>) => (held() ? leaving.setOwnerData!(id, d) : Promise.reject(refuse())) } : {}),
    findDns: (fqdn) => driver.findDns(fqdn),
    createDns: (fqdn, ttl, ips) => (held() ? leaving.createDns(fqdn, ttl, ips) : Promise.reject(refuse())),
    updateDns: (id, ips) => (held() ? leaving.updateDns(id, ips) : Promise.reject(refuse())),
    deleteDns: (id) => (held() ? leaving.deleteDns(id) : Promise.reject(refuse())),
    ...(driver.findReservedIp ? { findReservedIp: (q: Parameters<NonNullable<MaasDriver['findReservedIp']>>[0]) => driver.findReservedIp!(q) } : {}),
    ...(driver.reserveIp ? { reserveIp: (r: Parameters<NonNullable<MaasDriver['reserveIp']>>[0]) => (held() ? leaving.reserveIp!(r) : Promise.reject(refuse())) } : {}),
    ...(driver.releaseIp ? { releaseIp: (ip: string) => (held() ? leaving.releaseIp!(ip) : Promise.reject(refuse())) } : {}),
    ...(driver.machineInterfaces ? { machineInterfaces: (id: string) => driver.machineInterfaces!(id) } : {}),
  };
}
